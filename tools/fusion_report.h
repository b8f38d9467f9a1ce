#pragma once
// The text of `smelt compile --report`: what the optimizer did (saturation,
// extraction, rules that fired), the kernels before and after fusion with
// their predicted times, the index-map proofs and the fused kernel program.
// The CLI prints it; the Python binding returns it from Program.report().
#include <string>

namespace smelt {
struct FusionResult;  // smelt/fusion.h
}  // namespace smelt

namespace smelt::tools {

// `source` names the graph's origin (a file name) on the first line.
std::string fusion_report(const FusionResult& result, const std::string& source);

}  // namespace smelt::tools
