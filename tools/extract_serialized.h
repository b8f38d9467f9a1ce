#pragma once
// Extraction from a serialized e-graph (egraph-serialize JSON, the extraction-gym
// format): `smelt extract`.
#include <optional>
#include <string>
#include <vector>

#include "error/error.h"

namespace smelt::tools {

// A file that cannot be extracted from: unreadable, malformed (the message names the
// place, "FILE:LINE:COL: ..."), a negative cost, a root with no acyclic term.
class ExtractInputError : public Error {
 public:
  explicit ExtractInputError(const std::string& message) : Error(ErrorKind::kExtractInput, message) {}
};

struct ExtractionReport {
  std::string file, extractor;
  double tree = 0;                    // tree cost, as extraction-gym defines it
  double dag = 0;                     // sum of the costs of the distinct chosen nodes
  long long micros = 0;               // the extraction alone, after the file is read
  std::optional<double> lower_bound;  // a proven lower bound on the optimal DAG cost (exact extractor)
  bool optimal = false;               // lower_bound equals dag
  std::string note;                   // why the search stopped short, if it did
};

// The extractors extract_serialized accepts: bottom-up, greedy-dag, local-search, exact.
std::vector<std::string> extractor_names();

// Reads the file and extracts with the named extractor; `time_limit_s` bounds the
// searching ones. Throws ExtractInputError (bad file) or std::invalid_argument
// (unknown extractor). The extraction is checked (roots covered, acyclic) before it is reported.
ExtractionReport extract_serialized(const std::string& path, const std::string& extractor, double time_limit_s = 60);

}  // namespace smelt::tools
