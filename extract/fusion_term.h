#pragma once
// The pieces every fusion-aware extractor shares: a candidate (one e-node per
// class and the classes to materialize), reading it back as an ir::Graph with
// each value's class, and its objective: the predicted time of the kernels
// ir::lower_graph makes of it (cost::predict_program_us).
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "cost/device_profile.h"
#include "egraph/egraph.h"
#include "ir/graph.h"
#include "ir/lower_to_kernels.h"
#include "rules/graph_io.h"

namespace smelt::extract {

// Choices over a tensor e-graph (rules::make_tensor_egraph), indexed by
// e-graph id: `choice[c]` the node of class c (kNoId: none), `materialized[c]`
// whether a kernel writes class c's value. Outputs are always materialized.
struct FusionCandidate {
  rules::TermChoice choice;
  std::vector<bool> materialized;
};

// A candidate's term as a graph: one value per class it reaches.
struct FusionTerm {
  ir::Graph graph;                       // outputs: the roots, in order
  std::vector<egraph::Id> value_class;   // by ValueId (inputs: their class)
};

struct FusionCost {
  double predicted_us = 0;
  ir::Lowering lowering;  // the kernels; lowering.materialized is the legal materialization
};

class FusionEvaluator {
 public:
  FusionEvaluator(const egraph::EGraph& graph, std::span<const egraph::Id> roots, const cost::DeviceProfile& profile);

  const egraph::EGraph& egraph() const { return graph_; }
  std::span<const egraph::Id> roots() const { return roots_; }
  const cost::DeviceProfile& profile() const { return profile_; }

  // The term of `choice` from the roots; nullopt when a class it needs has no
  // node or the chosen nodes form a cycle.
  std::optional<FusionTerm> read(const rules::TermChoice& choice) const;
  // The program of `term` with `materialized` (by ValueId), legalized.
  FusionCost cost(const FusionTerm& term, const std::vector<bool>& materialized);
  // By ValueId, from per-class flags (and the reverse, for the legal result).
  std::vector<bool> value_flags(const FusionTerm& term, const std::vector<bool>& class_flags) const;
  void store_flags(const FusionTerm& term, const std::vector<bool>& value_flags, std::vector<bool>& class_flags) const;

  // Reads, lowers and predicts; on success writes the legal materialization
  // back into `candidate`. nullopt for a choice that read() rejects.
  std::optional<double> evaluate(FusionCandidate& candidate);

  size_t evaluations() const { return evaluations_; }

  // Values read from a class that holds a named value of `original` get its
  // name, so kernels and buffers read like the source graph.
  void name_classes(const ir::Graph& original, const rules::GraphClasses& classes);

 private:
  const egraph::EGraph& graph_;
  std::vector<egraph::Id> roots_;
  const cost::DeviceProfile& profile_;
  size_t evaluations_ = 0;
  std::unordered_map<egraph::Id, std::string> class_names_;
};

// The term the graph was added as (rules::add_graph): per class the node of the
// earliest original value in it, which is acyclic (operands come earlier).
// Classes the graph does not reach get kNoId.
rules::TermChoice original_choice(const egraph::EGraph& graph, const ir::Graph& original,
                                  const rules::GraphClasses& classes);

}  // namespace smelt::extract
