#pragma once
// The fusion-aware extractor (DESIGN.md, "Extraction"): chooses one e-node per
// needed class AND which values are materialized, minimizing the predicted
// time of the kernels (smelt::fusion::kernelize, smelt::cost::predict_program_us).
//
// Heuristic, for e-graphs of any size:
//  1. starting terms: the graph as given (when known), the term of least
//     compute work (tree cost; views and factories free, elementwise ops by
//     their rate, gemms by their throughput: it prefers split gemms and
//     pointwise ops on the smaller side of a slice), and the smallest term;
//     each with maximal fusion (only outputs and required anchors materialized);
//  2. local search from the cheapest: toggle the materialization of every
//     value (store vs recompute in each consumer; the cost model charges the
//     recomputation), and re-choose the node of every class in the term,
//     accepting each improvement, until a pass improves nothing or time runs out;
//     and re-choose together every class of the term that can read one shared
//     contraction through views (horizontal batching: the six towers' gemms
//     of one layer become slices of one batched gemm only all at once);
//  3. the answer is never worse than the graph as given with every value
//     materialized (the unfused program, merged horizontally).
#include <cstddef>
#include <string>

#include "fusion/fusion_term.h"

namespace smelt::fusion {

// The complete choices the search starts from and falls back to, made once
// for the whole e-graph (a program searched in parts shares them).
struct StartingChoices {
  rules::TermChoice work;      // the term of least compute work (node_work_ns)
  rules::TermChoice smallest;  // the smallest term
};
StartingChoices starting_choices(const egraph::EGraph& graph, const cost::DeviceProfile& profile);

struct FusionOptions {
  // The work budget: programs the local search may price (0: no limit). The
  // search stops at the first of it and the time limit; the budget decides
  // where the machine is not slower than expected, so the answer is the same
  // whatever the load. The time limit is a safety net (FusionExtraction::stopped_by).
  size_t max_evaluations = 0;
  double time_limit_s = 10;  // smelt::Limits::extraction_s says why
  bool local_search = true;  // off: the best starting point
  // The term the graph was added as (original_choice), a starting point and
  // the guarantee of step 3; empty when unknown.
  rules::TermChoice original;
  // Made by extract_fusion when not given.
  const StartingChoices* starts = nullptr;
};

struct FusionExtraction {
  FusionCandidate candidate;  // choice and legal materialization, by class
  FusionTerm term;            // the chosen term as a graph
  FusionCost cost;            // its kernels and predicted time
  std::string start;          // the starting point it came from
  size_t evaluations = 0;     // programs lowered and predicted
  size_t improvements = 0;    // local-search moves accepted
  // Heuristic: the local search reached a local optimum within the time limit.
  // Exact: the search space was exhausted, so the answer is optimal.
  bool finished = false;
  // Why the search stopped before a local optimum: "work limit" (max_evaluations)
  // or "time limit"; empty when it finished.
  std::string stopped_by;
  double seconds = 0;
};

// Per-node compute work in ns under `profile` (never 0): the cost of the
// "work" starting term. Exposed for tests.
double node_work_ns(const egraph::EGraph& graph, egraph::Id node, const cost::DeviceProfile& profile);

// Throws std::invalid_argument when no starting term reaches every root.
FusionExtraction extract_fusion(FusionEvaluator& evaluator, const FusionOptions& options);

}  // namespace smelt::fusion
