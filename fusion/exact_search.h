#pragma once
// The exact fusion-aware extractor, for small e-graphs: every acyclic term
// (terms that differ only in the operand order of a commutative op counted
// once: they lower to the same kernels) times every materialization of the
// term's values, each lowered and predicted. Exponential, so bounded by a time
// limit and a number of programs; `finished` says whether the space was
// exhausted (then the answer is optimal under the cost model). The heuristic (fusion.h) searches a subset of
// the same space, so exact ≤ heuristic whenever exact finishes.
#include <cstddef>
#include <limits>

#include "fusion/fusion_search.h"

namespace smelt::fusion {

struct FusionExactOptions {
  double time_limit_s = 10;
  size_t max_classes = 200;  // larger e-graphs are not searched
  // Programs priced at most; the search stops (unfinished) before the next one.
  // Unlike the time limit it stops at the same point on every machine.
  size_t max_programs = std::numeric_limits<size_t>::max();
};

// Throws std::invalid_argument for an e-graph of more than max_classes
// classes, or when no complete term was found within the time limit.
FusionExtraction extract_fusion_exact(FusionEvaluator& evaluator, const FusionExactOptions& options);

}  // namespace smelt::fusion
