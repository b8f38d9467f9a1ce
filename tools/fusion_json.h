#pragma once
// The optimizer's facts about one fused graph as one JSON object: what
// `smelt compile --json` prints and Python's Program.fusion returns (one
// writer for both, so they cannot drift): kernels and predicted times before
// and after, the extraction and saturation, the index-map proofs, the rules
// that fired, and under --measure the measured candidates.
#include <string>

namespace smelt {
struct FusionResult;  // smelt/fusion.h
}  // namespace smelt

namespace smelt::tools {

struct FusionSource {
  std::string file;   // where the graph came from ("" leaves the key out)
  std::string graph;  // the graph's name
  unsigned threads = 0;  // host threads the candidates were measured with (under --measure)
};

std::string fusion_json(const FusionResult& result, const FusionSource& source);

}  // namespace smelt::tools
