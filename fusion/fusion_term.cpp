#include "fusion/fusion_term.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "cost/predict.h"
#include "kernel/index_simplify.h"
#include "rules/tensor_analysis.h"

namespace smelt::fusion {

using namespace ir;      // graphs in
using namespace kernel;  // kernels out

using egraph::Id;
using egraph::kNoId;

FusionEvaluator::FusionEvaluator(const egraph::EGraph& graph, std::span<const Id> roots,
                                 const cost::DeviceProfile& profile)
    : FusionEvaluator(graph, roots, std::vector<ClassBoundary>(), profile) {}

FusionEvaluator::FusionEvaluator(const egraph::EGraph& graph, std::span<const Id> roots,
                                 std::vector<ClassBoundary> boundary, const cost::DeviceProfile& profile)
    : graph_(graph),
      profile_(profile),
      // Each kernel is priced as the final program will run it: with its index
      // maps and masks simplified (kernel/index_simplify.h; set_after proves
      // them). Priced raw, six towers batched over a 3-D activation cost
      // 53.7 us in the search and 30.4 simplified (measured 32.2, 2 threads),
      // so the search kept a program priced 38.7 that measured 59.
      lowering_{.price = [&profile](const kernel::KernelProgram& program, const kernel::Kernel& kernel) {
        return cost::predict(program, kernel::simplify_kernel(kernel), profile).total_us;
      }},
      incremental_(lowering_.price, lowering_) {
  for (Id root : roots) roots_.push_back(graph.find(root));
  boundary_ = std::move(boundary);
  for (size_t c = 0; c < boundary_.size(); ++c)
    if (boundary_[c] == ClassBoundary::kLeaf) leaves_.push_back(static_cast<Id>(c));
  empty_program_us_ = cost::predict_program_us(kernel::KernelProgram{}, profile_);
}

std::optional<FusionTerm> FusionEvaluator::read(const rules::TermChoice& choice) const {
  const rules::TensorLang& lang = rules::tensor_analysis(graph_).lang();
  FusionTerm term;
  std::vector<ir::ValueId> built(graph_.num_ids(), -1);
  // Every input the e-graph has seen, in order: the original inputs apply unchanged.
  for (uint64_t payload : lang.inputs()) {
    const rules::AttrRecord& r = lang.record(payload);
    const ir::ValueId v = term.graph.add(ir::Op::Input, {}, r.attrs, r.name);
    const std::optional<Id> cls = graph_.lookup(lang.symbol(ir::Op::Input), payload, {});
    term.value_class.push_back(cls ? graph_.find(*cls) : kNoId);
    term.value_key.push_back(uint64_t{1} << 63 | payload);
    if (cls) built[graph_.find(*cls)] = v;
  }
  const rules::TensorAnalysis& analysis = rules::tensor_analysis(graph_);
  for (Id leaf : leaves_) {
    if (built[leaf] >= 0) continue;
    ir::Attrs attrs;
    attrs.result = analysis.type(graph_, leaf);
    const ir::ValueId v = term.graph.add(ir::Op::Input, {}, std::move(attrs), "part_input_" + std::to_string(leaf));
    term.value_class.push_back(leaf);
    term.value_key.push_back(uint64_t{3} << 62 | leaf);
    built[leaf] = v;
  }
  // Iterative post-order from each root; `open` marks the current path, so a
  // cyclic choice is rejected instead of recursed into.
  std::vector<bool> open(graph_.num_ids(), false);
  std::vector<std::pair<Id, size_t>> stack;
  std::vector<ir::ValueId> operands;
  for (Id root : roots_) {
    stack.assign(1, {root, 0});
    while (!stack.empty()) {
      auto& [cls, next_child] = stack.back();
      if (built[cls] >= 0) {
        stack.pop_back();
        continue;
      }
      const Id node_id = cls < choice.size() ? choice[cls] : kNoId;
      if (node_id == kNoId) return std::nullopt;
      const egraph::NodeView node = graph_.node(node_id);
      open[cls] = true;
      if (next_child < node.children.size()) {
        const Id child = graph_.find(node.children[next_child++]);
        if (open[child]) return std::nullopt;
        if (child < boundary_.size() && boundary_[child] == ClassBoundary::kOutside) return std::nullopt;
        if (built[child] < 0) stack.push_back({child, 0});
        continue;
      }
      const rules::AttrRecord& r = lang.record(node.payload);
      if (r.op == ir::Op::Input) return std::nullopt;  // an input the e-graph never saw: impossible
      operands.clear();
      for (Id child : node.children) operands.push_back(built[graph_.find(child)]);
      const auto name_it = class_names_.find(cls);
      std::string name = name_it == class_names_.end() ? "" : name_it->second;
      // A gemm only the e-graph has (a batched or concatenated one) names its kernel.
      if (name.empty() && r.op == ir::Op::Matmul && term.graph.find("matmul_" + std::to_string(cls)) < 0)
        name = "matmul_" + std::to_string(cls);
      built[cls] = term.graph.add(r.op, operands, r.attrs, name);
      term.value_class.push_back(cls);
      term.value_key.push_back(node_id);
      open[cls] = false;
      stack.pop_back();
    }
  }
  for (Id root : roots_) term.graph.add_output(built[root]);
  return term;
}

double FusionEvaluator::program_us(const kernel::KernelProgram& program) const {
  double us = empty_program_us_;
  for (const kernel::Kernel& k : program.kernels) us += lowering_.price(program, k);
  return us;
}

FusionCost FusionEvaluator::cost(const FusionTerm& term, const std::vector<bool>& materialized) {
  ++evaluations_;
  FusionCost result;
  result.lowering = fusion::kernelize(term.graph, materialized, lowering_);
  result.predicted_us = program_us(result.lowering.program);
  if (keep_ > 0) offer(term, result);
  return result;
}

FusionPrice FusionEvaluator::price(const FusionTerm& term, const std::vector<bool>& materialized) {
  if (term.value_key.size() != term.graph.size()) {  // not read(): no keys
    FusionCost c = cost(term, materialized);
    return {c.predicted_us, std::move(c.lowering.materialized)};
  }
  ++evaluations_;
  fusion::IncrementalKernelization::Priced p = incremental_.price(term.graph, term.value_key, materialized, pricing_deadline_);
  if (p.stopped) return {std::numeric_limits<double>::infinity(), materialized};
  // As cost::predict_program_us adds its kernels: what a program without
  // kernels costs, then each kernel's prediction in program order.
  double us = empty_program_us_;
  for (double kernel_us : p.kernel_prices) us += kernel_us;
  const bool offered = keep_ > 0 && worth_keeping(p.kernel_prices.size(), us);
  if (offered || check_incremental_) {
    FusionCost full;
    full.lowering = fusion::kernelize(term.graph, materialized, lowering_);
    full.predicted_us = program_us(full.lowering.program);
    if (check_incremental_ && (full.predicted_us != us || full.lowering.materialized != p.materialized))
      throw std::logic_error("FusionEvaluator::price: incremental " + std::to_string(us) + " us, lowered " +
                             std::to_string(full.predicted_us) + " us" +
                             (full.lowering.materialized != p.materialized ? ", materialization differs" : ""));
    if (offered) offer(term, full);
  }
  return {us, std::move(p.materialized)};
}

// A program kept per number of kernels, at most this many numbers (a whole
// model's search sees hundreds): past it the slowest goes, never the most fused.
constexpr size_t kMaxKeptStructures = 64;

bool FusionEvaluator::worth_keeping(size_t kernels, double predicted_us) const {
  const auto it = kept_.find(kernels);
  return it == kept_.end() || predicted_us < it->second.predicted_us;
}

void FusionEvaluator::offer(const FusionTerm& term, const FusionCost& c) {
  // Lowered and printed only when it would be kept: most programs costed are
  // slower than the one of their number of kernels.
  const size_t kernels = c.lowering.program.kernels.size();
  if (!worth_keeping(kernels, c.predicted_us)) return;
  kept_.insert_or_assign(kernels, KeptProgram{c.predicted_us, term, c.lowering, kernel::print_program(c.lowering.program)});
  if (kept_.size() > kMaxKeptStructures) {
    auto slowest = std::next(kept_.begin());
    for (auto it = slowest; it != kept_.end(); ++it)
      if (it->second.predicted_us > slowest->second.predicted_us) slowest = it;
    kept_.erase(slowest);
  }
}

std::vector<const KeptProgram*> FusionEvaluator::kept() const {
  std::vector<const KeptProgram*> all;
  for (const auto& [kernels, program] : kept_) all.push_back(&program);
  if (all.empty()) return all;
  const KeptProgram* most_fused = all.front();
  std::stable_sort(all.begin(), all.end(),
                   [](const KeptProgram* a, const KeptProgram* b) { return a->predicted_us < b->predicted_us; });
  if (all.size() > keep_) all.resize(keep_);
  if (std::find(all.begin(), all.end(), most_fused) == all.end()) all.back() = most_fused;
  return all;
}

std::vector<bool> FusionEvaluator::value_flags(const FusionTerm& term, const std::vector<bool>& class_flags) const {
  std::vector<bool> flags(term.graph.size(), false);
  for (size_t v = 0; v < flags.size(); ++v) {
    const Id cls = term.value_class[v];
    flags[v] = cls != kNoId && cls < class_flags.size() && class_flags[cls];
  }
  return flags;
}

void FusionEvaluator::store_flags(const FusionTerm& term, const std::vector<bool>& flags,
                                  std::vector<bool>& class_flags) const {
  if (class_flags.size() < graph_.num_ids()) class_flags.resize(graph_.num_ids(), false);
  for (size_t v = 0; v < flags.size(); ++v)
    if (term.value_class[v] != kNoId) class_flags[term.value_class[v]] = flags[v];
}

std::optional<double> FusionEvaluator::evaluate(FusionCandidate& candidate) {
  const std::optional<FusionTerm> term = read(candidate.choice);
  if (!term) return std::nullopt;
  const FusionPrice c = price(*term, value_flags(*term, candidate.materialized));
  if (std::isinf(c.predicted_us)) return std::nullopt;
  store_flags(*term, c.materialized, candidate.materialized);
  return c.predicted_us;
}

void FusionEvaluator::name_classes(const ir::Graph& original, const rules::GraphClasses& classes) {
  for (size_t v = 0; v < original.size(); ++v) {
    const ir::Node& n = original.node(static_cast<ir::ValueId>(v));
    if (n.op == ir::Op::Input || n.name.empty()) continue;
    class_names_.emplace(graph_.find(classes.values[v]), n.name);  // the earliest name of a class wins
  }
}

rules::TermChoice original_choice(const egraph::EGraph& graph, const ir::Graph& original,
                                  const rules::GraphClasses& classes) {
  const rules::TensorLang& lang = rules::tensor_analysis(graph).lang();
  rules::TermChoice choice(graph.num_ids(), kNoId);
  std::vector<Id> children;
  for (size_t v = 0; v < original.size(); ++v) {
    const Id cls = graph.find(classes.values[v]);
    if (choice[cls] != kNoId) continue;
    const ir::Node& n = original.node(static_cast<ir::ValueId>(v));
    const std::optional<uint64_t> payload = lang.find_payload(n.op, n.attrs, n.name);
    if (!payload) continue;
    children.clear();
    for (ir::ValueId operand : n.operands) children.push_back(graph.find(classes.values[operand]));
    if (const std::optional<Id> node = graph.lookup_node(lang.symbol(n.op), *payload, children)) choice[cls] = *node;
  }
  return choice;
}

}  // namespace smelt::fusion
