#pragma once
// The pieces every fusion-aware extractor shares: a candidate (one e-node per
// class and the classes to materialize), reading it back as an smelt::ir::Graph with
// each value's class, and its objective: the predicted time of the kernels
// smelt::fusion::kernelize makes of it (smelt::cost::predict_program_us).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "cost/device_profile.h"
#include "egraph/egraph.h"
#include "ir/graph.h"
#include "fusion/kernelize.h"
#include "rules/graph_io.h"

namespace smelt::fusion {

// Choices over a tensor e-graph (rules::make_tensor_egraph), indexed by
// e-graph id: `choice[c]` the node of class c (kNoId: none), `materialized[c]`
// whether a kernel writes class c's value. Outputs are always materialized.
// Where a part of the program ends, class by class (extract_by_parts).
enum class ClassBoundary : uint8_t { kInside, kLeaf, kOutside };

struct FusionCandidate {
  rules::TermChoice choice;
  std::vector<bool> materialized;
};

// A candidate's term as a graph: one value per class it reaches.
struct FusionTerm {
  ir::Graph graph;                       // outputs: the roots, in order
  std::vector<egraph::Id> value_class;   // by ValueId (inputs: their class)
  // By ValueId: the e-node it was read from (inputs: 2^63 + their payload;
  // a part's leaves: 2^63 + 2^62 + their class), which fixes its op,
  // attributes and type: the key of incremental pricing.
  std::vector<uint64_t> value_key;
};

struct FusionCost {
  double predicted_us = 0;
  fusion::Kernelization lowering;  // the kernels; lowering.materialized is the legal materialization
};

// What price() says of a candidate: cost() without the program.
struct FusionPrice {
  double predicted_us = 0;
  std::vector<bool> materialized;  // by ValueId: the legal materialization, as lowering.materialized
};

// A program cost() saw, kept by keep_best: ground truth for extraction
// (smelt::fuse with FuseOptions::measure times them on the device).
struct KeptProgram {
  double predicted_us = 0;
  FusionTerm term;
  fusion::Kernelization lowering;
  std::string text;  // kernel::print_program of lowering.program: what tells programs apart
};

class FusionEvaluator {
 public:
  FusionEvaluator(const egraph::EGraph& graph, std::span<const egraph::Id> roots, const cost::DeviceProfile& profile);
  // A part of the program (smelt::fusion::extract_by_parts): by class id,
  // kLeaf classes (values other parts compute and store) are read as
  // inputs, and a term that reaches a kOutside class is rejected.
  FusionEvaluator(const egraph::EGraph& graph, std::span<const egraph::Id> roots,
                  std::vector<ClassBoundary> boundary, const cost::DeviceProfile& profile);

  const egraph::EGraph& egraph() const { return graph_; }
  std::span<const egraph::Id> roots() const { return roots_; }
  const cost::DeviceProfile& profile() const { return profile_; }

  // The term of `choice` from the roots; nullopt when a class it needs has no
  // node or the chosen nodes form a cycle.
  std::optional<FusionTerm> read(const rules::TermChoice& choice) const;
  // The program of `term` with `materialized` (by ValueId), legalized.
  FusionCost cost(const FusionTerm& term, const std::vector<bool>& materialized);
  // The same predicted time and legal materialization, incrementally: only
  // kernels whose region no earlier call saw are lowered and predicted
  // (fusion::IncrementalKernelization). What the search calls per move.
  // Past the deadline set by stop_pricing_at: predicted_us = +inf.
  FusionPrice price(const FusionTerm& term, const std::vector<bool>& materialized);
  // Where price() gives up (between kernels of a program): a search's deadline.
  void stop_pricing_at(std::chrono::steady_clock::time_point deadline) { pricing_deadline_ = deadline; }
  // Debug: price() also lowers the whole program and throws std::logic_error
  // unless both agree exactly. On when SMELT_CHECK_INCREMENTAL is set.
  void check_incremental(bool on) { check_incremental_ = on; }
  // By ValueId, from per-class flags (and the reverse, for the legal result).
  std::vector<bool> value_flags(const FusionTerm& term, const std::vector<bool>& class_flags) const;
  void store_flags(const FusionTerm& term, const std::vector<bool>& value_flags, std::vector<bool>& class_flags) const;

  // Reads, lowers and predicts; on success writes the legal materialization
  // back into `candidate`. nullopt for a choice that read() rejects, or past
  // the pricing deadline.
  std::optional<double> evaluate(FusionCandidate& candidate);

  size_t evaluations() const { return evaluations_; }

  // From now on keep, of the programs cost() and price() see (whichever
  // extractor asks), the one of least predicted time per number of kernels;
  // 0 (the default) keeps none. kept(): up to `k` of them, structurally
  // different, predicted fastest first, with the most fused one (fewest
  // kernels) among them — the `k` fastest programs alone were near copies of
  // each other (a 10-tower graph: eight programs, all 21 kernels and one
  // predicted time), which cannot tell whether another structure would win.
  void keep_best(size_t k) { keep_ = k; }
  std::vector<const KeptProgram*> kept() const;

  // Values read from a class that holds a named value of `original` get its
  // name, so kernels and buffers read like the source graph.
  void name_classes(const ir::Graph& original, const rules::GraphClasses& classes);

 private:
  const egraph::EGraph& graph_;
  std::vector<egraph::Id> roots_;
  std::vector<ClassBoundary> boundary_;  // empty: the whole program
  std::vector<egraph::Id> leaves_;       // the kLeaf classes, in id order (read() adds them as inputs)
  const cost::DeviceProfile& profile_;
  size_t evaluations_ = 0;
  fusion::KernelizeOptions lowering_;  // merges priced by the profile, as the search prices them
  fusion::IncrementalKernelization incremental_;
  double empty_program_us_ = 0;  // cost::predict_program_us of a program without kernels
  bool check_incremental_ = false;
  std::chrono::steady_clock::time_point pricing_deadline_ = std::chrono::steady_clock::time_point::max();
  std::unordered_map<egraph::Id, std::string> class_names_;
  size_t keep_ = 0;
  std::map<size_t, KeptProgram> kept_;  // by number of kernels
  bool worth_keeping(size_t kernels, double predicted_us) const;
  // As cost::predict_program_us, with each kernel priced by lowering_.price
  // (simplified, as price() prices it).
  double program_us(const kernel::KernelProgram& program) const;
  void offer(const FusionTerm& term, const FusionCost& cost);
};

// The term the graph was added as (rules::add_graph): per class the node of the
// earliest original value in it, which is acyclic (operands come earlier).
// Classes the graph does not reach get kNoId.
rules::TermChoice original_choice(const egraph::EGraph& graph, const ir::Graph& original,
                                  const rules::GraphClasses& classes);

}  // namespace smelt::fusion
