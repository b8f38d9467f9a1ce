#pragma once
// egg's tree-cost extractor: each class takes the node minimizing its cost plus
// the (tree) costs of its children, iterated to a fixpoint.
#include "extract/extractor.h"

namespace smelt::extract {

// Per class: the cheapest tree cost found and the node that gives it (kNone and
// +inf for a class with no acyclic term). Sweeps every class in order, every node
// in order, keeping the first strictly cheaper node, until a sweep changes
// nothing: extraction-gym's bottom-up, so ties break the same way.
struct TreeCosts {
  std::vector<double> cost;
  std::vector<NodeId> choice;
};
TreeCosts tree_costs(const Problem& problem);

// Throws ProblemError if a root has no acyclic term.
void require_extractable_roots(const Problem& problem, const std::vector<NodeId>& choice);

class BottomUpExtractor final : public Extractor {
 public:
  std::string_view name() const override { return "bottom-up"; }
  ExtractResult extract(const Problem& problem, const ExtractOptions& options) const override;
};

}  // namespace smelt::extract
