#pragma once
// The exact extractor: reduce, bound from above with local search, then prove
// with MaxSAT (Z3) within the time limit.
#include "extract/extractor.h"

namespace smelt::extract {

// Two DAG costs this close (relative 1e-9) count as equal: Z3 sees each cost
// as a 20-digit decimal, not the exact double.
bool same_cost(double a, double b);

class ExactExtractor final : public Extractor {
 public:
  std::string_view name() const override { return "exact"; }
  // Returns the best extraction found and a proven lower bound; `optimal`
  // when they meet. `note` says what stopped the search otherwise.
  ExtractResult extract(const Problem& problem, const ExtractOptions& options) const override;
};

}  // namespace smelt::extract
