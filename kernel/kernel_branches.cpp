#include "kernel/kernel_branches.h"

#include <algorithm>

namespace smelt::kernel {

using namespace ir;  // the graph IR's vocabulary: dtypes, shapes, ops, scalars, host tensors
namespace {

bool has_contraction(const Kernel& kernel) {
  return std::any_of(kernel.exprs.begin(), kernel.exprs.end(), [](const KernelExpr& e) {
    return e.kind == KernelExpr::Kind::kReduce && e.contraction;
  });
}

uint64_t first_vars(size_t count) { return count >= 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1; }

class TreeBuilder {
 public:
  TreeBuilder(const Kernel& kernel, uint64_t uniform, size_t max_leaves)
      : kernel_(kernel), uniform_(uniform), max_leaves_(max_leaves) {}

  // The decision node for the versions under `assumed`; -1 when the leaves
  // would exceed the limit.
  int build(std::vector<std::pair<IndexRef, bool>>& assumed) {
    std::vector<bool> live = live_nodes(kernel_, assumed);
    const IndexRef condition = next_condition(live, assumed);
    const int id = static_cast<int>(plan_.nodes.size());
    plan_.nodes.emplace_back();
    if (condition == kNoIndex) {
      if (plan_.leaves.size() == max_leaves_) return -1;
      plan_.nodes[static_cast<size_t>(id)].leaf = static_cast<int>(plan_.leaves.size());
      plan_.leaves.push_back({assumed, std::move(live), 0});
      return id;
    }
    plan_.nodes[static_cast<size_t>(id)].condition = condition;
    for (bool outcome : {true, false}) {
      assumed.emplace_back(condition, outcome);
      const int child = build(assumed);
      assumed.pop_back();
      if (child < 0) return -1;
      (outcome ? plan_.nodes[static_cast<size_t>(id)].if_true : plan_.nodes[static_cast<size_t>(id)].if_false) = child;
    }
    return id;
  }

  BranchPlan take() { return std::move(plan_); }

 private:
  // The live `where` nearest the outputs whose condition is an undecided
  // predicate of uniform variables.
  IndexRef next_condition(const std::vector<bool>& live, const std::vector<std::pair<IndexRef, bool>>& assumed) const {
    for (size_t i = kernel_.exprs.size(); i-- > 0;) {
      if (!live[i]) continue;
      const IndexRef condition = where_index_condition(kernel_, static_cast<int>(i));
      if (condition == kNoIndex || (kernel_.indices.vars_used(condition) & ~uniform_) != 0) continue;
      if (std::none_of(assumed.begin(), assumed.end(), [&](const auto& a) { return a.first == condition; }))
        return condition;
    }
    return kNoIndex;
  }

  const Kernel& kernel_;
  const uint64_t uniform_;
  const size_t max_leaves_;
  BranchPlan plan_;
};

BranchPlan single_version(const Kernel& kernel) {
  BranchPlan plan;
  plan.nodes.push_back({kNoIndex, -1, -1, 0});
  plan.leaves.push_back({{}, live_nodes(kernel, {}), 1});
  return plan;
}

// Each leaf's share: every point of the conditions' variables walked down the tree.
bool measure_fractions(const Kernel& kernel, BranchPlan& plan) {
  uint64_t vars = 0;
  for (const BranchPlan::Decision& d : plan.nodes) vars |= kernel.indices.vars_used(d.condition);
  std::vector<int> axes;
  double points = 1;
  for (int v = 0; v < static_cast<int>(kernel.space.size()) && v < 64; ++v)
    if (vars >> v & 1) {
      axes.push_back(v);
      points *= static_cast<double>(kernel.space[static_cast<size_t>(v)]);
    }
  if (points > double(1 << 20)) return false;
  if (points == 0) return true;  // an empty space: nothing runs, any shares do
  std::vector<int64_t> values(static_cast<size_t>(kernel.num_vars()), 0);
  std::vector<double> counts(plan.leaves.size(), 0);
  for (;;) {
    int at = 0;
    while (plan.nodes[static_cast<size_t>(at)].leaf < 0) {
      const BranchPlan::Decision& d = plan.nodes[static_cast<size_t>(at)];
      at = kernel.indices.eval(d.condition, values) != 0 ? d.if_true : d.if_false;
    }
    counts[static_cast<size_t>(plan.nodes[static_cast<size_t>(at)].leaf)] += 1;
    size_t axis = 0;
    for (; axis < axes.size(); ++axis) {
      int64_t& value = values[static_cast<size_t>(axes[axis])];
      if (++value < kernel.space[static_cast<size_t>(axes[axis])]) break;
      value = 0;
    }
    if (axis == axes.size()) break;
  }
  for (size_t l = 0; l < plan.leaves.size(); ++l) plan.leaves[l].fraction = counts[l] / points;
  return true;
}

}  // namespace

std::optional<bool> BranchPlan::Leaf::decides(IndexRef condition) const {
  if (condition == kNoIndex) return std::nullopt;
  for (const auto& [c, holds] : assumed)
    if (c == condition) return holds;
  return std::nullopt;
}

bool BranchPlan::Leaf::folds(const Kernel& kernel, int node) const {
  return decides(where_index_condition(kernel, node)).has_value();
}

uint64_t uniform_vars(const Kernel& kernel) {
  const size_t rank = kernel.space.size();
  if (has_contraction(kernel)) return rank >= 2 ? first_vars(rank - 2) : 0;
  return rank >= 2 ? first_vars(rank - 1) : 0;
}

IndexRef where_index_condition(const Kernel& kernel, int node) {
  const KernelExpr& e = kernel.exprs.at(static_cast<size_t>(node));
  if (e.kind != KernelExpr::Kind::kElementwise || e.op != Op::Where || e.operands.size() != 3) return kNoIndex;
  const KernelExpr& condition = kernel.exprs.at(static_cast<size_t>(e.operands[0]));
  return condition.kind == KernelExpr::Kind::kIndex ? condition.index.at(0) : kNoIndex;
}

std::vector<bool> live_nodes(const Kernel& kernel, const std::vector<std::pair<IndexRef, bool>>& assumed) {
  std::vector<bool> live(kernel.exprs.size(), false);
  for (const KernelOutput& out : kernel.outputs) {
    live[static_cast<size_t>(out.expr)] = true;
    if (out.is_scatter()) live[static_cast<size_t>(out.scatter_at)] = true;
  }
  for (size_t i = kernel.exprs.size(); i-- > 0;) {
    if (!live[i]) continue;
    const KernelExpr& e = kernel.exprs[i];
    const IndexRef condition = where_index_condition(kernel, static_cast<int>(i));
    auto decided = std::find_if(assumed.begin(), assumed.end(), [&](const auto& a) { return a.first == condition; });
    if (condition != kNoIndex && decided != assumed.end()) {
      live[static_cast<size_t>(e.operands[decided->second ? 1 : 2])] = true;  // the condition folds away
      continue;
    }
    for (int operand : e.operands) live[static_cast<size_t>(operand)] = true;
  }
  return live;
}

BranchPlan plan_branches(const Kernel& kernel, size_t max_leaves) {
  return plan_branches_over(kernel, uniform_vars(kernel), max_leaves);
}

BranchPlan plan_branches_over(const Kernel& kernel, uint64_t uniform, size_t max_leaves) {
  if (uniform == 0 || max_leaves < 2) return single_version(kernel);
  TreeBuilder builder(kernel, uniform, max_leaves);
  std::vector<std::pair<IndexRef, bool>> assumed;
  if (builder.build(assumed) < 0) return single_version(kernel);
  BranchPlan plan = builder.take();
  if (!plan.versioned()) {
    plan.leaves[0].fraction = 1;
    return plan;
  }
  if (!measure_fractions(kernel, plan)) return single_version(kernel);
  return plan;
}

}  // namespace smelt::kernel
