#pragma once
// One interface for every extractor, and the registry that names them.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "extract/extraction.h"
#include "extract/problem.h"

namespace smelt::extract {

struct ExtractOptions {
  double time_limit_s = 60;  // a bound for extractors that search (exact, local search)
};

struct ExtractResult {
  Extraction extraction;              // valid: roots covered, children chosen, acyclic
  std::optional<double> lower_bound;  // a proven bound on the optimal DAG cost, if the extractor proves one
  bool optimal = false;               // lower_bound equals the extraction's DAG cost
  std::string note;                   // why the search stopped, for people
};

class Extractor {
 public:
  virtual ~Extractor() = default;
  virtual std::string_view name() const = 0;
  // Throws ProblemError when a root has no acyclic term.
  virtual ExtractResult extract(const Problem& problem, const ExtractOptions& options) const = 0;
};

// "bottom-up", "greedy-dag", "local-search", "exact"; null for an unknown name.
std::unique_ptr<Extractor> make_extractor(std::string_view name);
std::vector<std::string> extractor_names();

}  // namespace smelt::extract
