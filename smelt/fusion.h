#pragma once
// smelt::fuse: a graph saturated with the default rules, then the term and the
// kernel boundaries chosen together for the least predicted time; the report
// (FusionResult) every compiled Program carries.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "cost/measure.h"
#include "cost/predict.h"
#include "fusion/part_report.h"
#include "ir/graph.h"
#include "kernel/kernel.h"
#include "smelt/options.h"
#include "verify/index_validation.h"

namespace smelt {

// One candidate program timed by FuseOptions::measure.
struct MeasuredCandidate {
  double predicted_us = 0;  // the cost model's time
  cost::Timing timing;      // measured on the host (median_us, min_us, spread, reps)
  size_t kernels = 0;
  bool model_pick = false;  // the extraction's choice: `after` without measuring
  bool unfused = false;     // `before`
  double over_pick = 1;     // its time over the pick's, round by round (cost::paired_ratio; the pick's is 1)
  bool chosen = false;      // the least over_pick: `after`
};

struct FusionResult {
  ir::Graph graph;                  // the chosen term: what the fused kernels compute
  std::vector<bool> materialized;   // by ValueId of `graph`: the values a kernel writes
  kernel::KernelProgram before, after;  // unfused (every value its own kernel) and fused
  size_t kernels_before = 0, kernels_after = 0;
  double predicted_us_before = 0, predicted_us_after = 0;
  std::vector<cost::KernelCost> after_kernel_costs;  // by kernel of `after`
  // The profile the kernels were costed with (its `name`), and, when it was
  // not measured on the device they run on (a GPU with no profile of its own
  // shipped), one line saying which it is (smelt::compile sets both).
  std::string profile_name, profile_note;
  // Saturation.
  std::string stop_reason;
  size_t iterations = 0, egraph_nodes = 0, egraph_classes = 0;
  double saturation_s = 0;
  // The rules whose matches changed the e-graph, with how many unions, in
  // rule order (what the chosen program uses is a subset).
  std::vector<std::pair<std::string, size_t>> rules_fired;
  // Extraction.
  std::string extractor;         // "heuristic", "exact" or "none"
  std::string start;             // the starting term the answer came from
  size_t evaluations = 0;        // programs lowered and predicted
  bool search_finished = false;  // heuristic: a local optimum in every part; exact: the space exhausted (optimal)
  std::string extraction_stop;   // unfinished: the limit that stopped it ("work limit", "time limit")
  double extraction_s = 0;
  // The program split where few values cross, each part searched or looked
  // up (an identical part's answer); one part when it has no such cut.
  std::vector<fusion::PartReport> parts;
  // Translation validation of `after`'s index simplification (empty when off).
  verify::ValidationReport index_validation;
  // FuseOptions::measure: the candidates timed, by predicted time ascending
  // (empty when not measured); whether the model's pick measured fastest and
  // its median over the fastest median (>= 1); seconds spent measuring.
  std::vector<MeasuredCandidate> measured;
  bool model_pick_fastest = true;
  double model_pick_vs_fastest = 1;
  double measure_s = 0;
};

// Both programs take the graph's inputs in order and give its outputs in order.
FusionResult fuse(const ir::Graph& g, const FuseOptions& options = {});

}  // namespace smelt
