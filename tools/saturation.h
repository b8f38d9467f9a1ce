#pragma once
// smelt::tools::saturate_graph: equality saturation from the command line (`smelt
// saturate`): a graph saturated with the default or given rules, the term
// extraction picks for it (the fusion extraction smelt::fuse runs), and, on
// request, why the two terms are equal (egg's explanations).
#include <optional>
#include <string>
#include <vector>

#include "cost/device_profile.h"
#include "egraph/runner.h"
#include "ir/graph.h"
#include "rules/saturate.h"
#include "smelt/options.h"

namespace smelt::tools {

struct SaturateOptions {
  std::vector<std::string> rule_files;  // .rules files; empty: the default rules
  egraph::RunnerLimits limits = rules::default_limits();
  rules::SchedulerKind scheduler = rules::SchedulerKind::kBackoff;
  bool explain = false;        // record explanations, explain each output
  double extraction_s = Limits{}.extraction_s;  // the fusion extraction's time limit
  std::optional<cost::DeviceProfile> profile;  // empty: the host profile
  unsigned threads = 0;        // what kernels are costed for (0: every core)
};

struct SaturateResult {
  rules::Saturation saturation;         // the e-graph, its classes and the run report
  std::vector<egraph::Id> input_nodes;  // e-nodes of the graph as given
  std::vector<egraph::Id> picked_nodes; // e-nodes of the term extraction picked
  double input_us = 0, picked_us = 0;   // predicted, fused (smelt::fuse's cost)
  size_t picked_kernels = 0;
  double extraction_s = 0;
  bool extraction_finished = false;
  // With explain: per output, the rewrites from the input term to the picked one.
  std::vector<std::string> explanations;
  double explain_s = 0;
};

// Throws rules::RuleError for a bad rule file, rules::RuleApplicationError for
// a rule that fails while applied.
SaturateResult saturate_graph(const ir::Graph& graph, const SaturateOptions& options = {});

// Per-node compute work in ns under the options' profile: the costs written
// by serialize_saturation and used by the in-process DAG extraction.
struct SerializedSaturation {
  std::string json;          // egraph-serialize (extraction-gym) format
  std::string extractor;     // the in-process extraction of the same nodes and costs
  double dag_cost = 0;       // its DAG cost: what `smelt extract FILE --extractor EXTRACTOR` reports
  size_t nodes = 0, classes = 0;
};
SerializedSaturation serialize_saturation(const SaturateResult& result, const SaturateOptions& options,
                                          const std::string& extractor = "greedy-dag");

// DOT of the e-graph: classes as clusters, the input term's nodes blue, the
// picked term's gold (both: gold), tensor ops labeled with their attributes.
std::string saturation_dot(const SaturateResult& result);

}  // namespace smelt::tools
