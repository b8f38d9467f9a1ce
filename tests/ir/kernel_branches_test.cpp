// Per-region branches (kernel/kernel_branches.h): which `where`s a kernel decides
// once per row or batch element, the versions that follow, and their shares.
#include <gtest/gtest.h>

#include <string>

#include "ir/builder.h"
#include "kernel/kernel_branches.h"
#include "fusion/kernelize.h"

namespace smelt::ir {
using namespace kernel;
using namespace fusion;
namespace {

// The one fused kernel of `g` (only outputs materialized).
Kernel fused_kernel(const Graph& g) {
  Kernelization lowering = kernelize(g, materialize_outputs(g));
  EXPECT_EQ(lowering.program.kernels.size(), 1u) << print_program(lowering.program);
  return lowering.program.kernels.at(0);
}

// How many elementwise nodes of op `op` are live.
int count_live(const Kernel& k, const std::vector<bool>& live, Op op) {
  int n = 0;
  for (size_t i = 0; i < k.exprs.size(); ++i)
    n += live[i] && k.exprs[i].kind == KernelExpr::Kind::kElementwise && k.exprs[i].op == op;
  return n;
}

// Per leaf: how many nodes of op `op` it evaluates.
std::vector<int> ops_per_leaf(const Kernel& k, const BranchPlan& plan, Op op) {
  std::vector<int> counts;
  for (const BranchPlan::Leaf& leaf : plan.leaves) counts.push_back(count_live(k, leaf.live, op));
  return counts;
}

TEST(KernelBranches, ConcatAlongAnOuterAxisIsOneVersionPerOperand) {
  Graph g("concat_rows");
  Tensor a = input(g, "a", DType::F32, {2, 8}), b = input(g, "b", DType::F32, {3, 8});
  g.add_output(concat({exp(a), sigmoid(b)}, 0));
  const Kernel k = fused_kernel(g);
  const BranchPlan plan = plan_branches(k);
  ASSERT_EQ(plan.leaves.size(), 2u);
  // Rows 0-1 evaluate only the exp, rows 2-4 only the sigmoid.
  double exp_share = 0, sigmoid_share = 0;
  for (size_t l = 0; l < plan.leaves.size(); ++l) {
    const int exps = ops_per_leaf(k, plan, Op::Exp)[l], sigmoids = ops_per_leaf(k, plan, Op::Sigmoid)[l];
    EXPECT_EQ(exps + sigmoids, 1);
    (exps ? exp_share : sigmoid_share) += plan.leaves[l].fraction;
  }
  EXPECT_DOUBLE_EQ(exp_share, 2.0 / 5.0);
  EXPECT_DOUBLE_EQ(sigmoid_share, 3.0 / 5.0);
}

TEST(KernelBranches, ASixWayConcatHasSixVersionsThatCoverTheSpaceOnce) {
  Graph g("six");
  std::vector<Tensor> parts;
  for (int i = 0; i < 6; ++i) parts.push_back(exp(input(g, "x" + std::to_string(i), DType::F32, {1, 16})));
  g.add_output(concat(parts, 0));
  const Kernel k = fused_kernel(g);
  const BranchPlan plan = plan_branches(k);
  ASSERT_EQ(plan.leaves.size(), 6u);
  double total = 0;
  for (const BranchPlan::Leaf& leaf : plan.leaves) {
    EXPECT_DOUBLE_EQ(leaf.fraction, 1.0 / 6.0);
    total += leaf.fraction;
  }
  EXPECT_DOUBLE_EQ(total, 1.0);
  for (int exps : ops_per_leaf(k, plan, Op::Exp)) EXPECT_EQ(exps, 1);
  // Past the limit: one version computing every side.
  const BranchPlan capped = plan_branches(k, 4);
  ASSERT_EQ(capped.leaves.size(), 1u);
  EXPECT_EQ(ops_per_leaf(k, capped, Op::Exp)[0], 6);
  EXPECT_DOUBLE_EQ(capped.leaves[0].fraction, 1.0);
}

TEST(KernelBranches, ConcatAlongTheInnermostAxisStaysPerElement) {
  Graph g("concat_columns");
  Tensor a = input(g, "a", DType::F32, {4, 8}), b = input(g, "b", DType::F32, {4, 8});
  g.add_output(concat({exp(a), sigmoid(b)}, 1));
  const Kernel k = fused_kernel(g);
  const BranchPlan plan = plan_branches(k);
  ASSERT_EQ(plan.leaves.size(), 1u);
  EXPECT_FALSE(plan.versioned());
  EXPECT_EQ(ops_per_leaf(k, plan, Op::Where)[0], 1);
}

TEST(KernelBranches, ABatchedGemmDecidesPerBatchElementNotPerRow) {
  // Two towers stacked on the batch axis: the prologue's branch is per batch element.
  Graph g("batched");
  Tensor x0 = input(g, "x0", DType::F32, {1, 4, 8}), x1 = input(g, "x1", DType::F32, {1, 4, 8});
  Tensor w = input(g, "w", DType::F32, {2, 8, 4});
  g.add_output(matmul(concat({sigmoid(x0), exp(x1)}, 0), w));
  const Kernel batched = fused_kernel(g);
  EXPECT_EQ(uniform_vars(batched), 1u);  // the batch axis only
  const BranchPlan plan = plan_branches(batched);
  ASSERT_EQ(plan.leaves.size(), 2u);
  EXPECT_DOUBLE_EQ(plan.leaves[0].fraction, 0.5);

  // Stacked along the gemm's rows (M): a row variable, decided per element.
  Graph rows("rows");
  Tensor a = input(rows, "a", DType::F32, {4, 8}), b = input(rows, "b", DType::F32, {4, 8});
  rows.add_output(matmul(concat({sigmoid(a), exp(b)}, 0), input(rows, "v", DType::F32, {8, 4})));
  EXPECT_FALSE(plan_branches(fused_kernel(rows)).versioned());
}

// Ten towers' second products batched into one (towers_10x2): the concat of
// their activations and of their weights along the batch axis is ten versions,
// each packing one piece. With at most 8 versions this kernel was one version
// selecting among all ten pieces per element, priced 194 us and run at 52
// against 31 versioned (one thread, 2026-11-29).
TEST(KernelBranches, TenTowersBatchedIntoOneProductAreTenVersions) {
  Graph g("ten_towers");
  std::vector<Tensor> activations, weights;
  for (int i = 0; i < 10; ++i) {
    activations.push_back(reshape(input(g, "a" + std::to_string(i), DType::F32, {32, 64}), {1, 32, 64}));
    weights.push_back(reshape(input(g, "w" + std::to_string(i), DType::F32, {64, 64}), {1, 64, 64}));
  }
  g.add_output(matmul(concat(activations, 0), concat(weights, 0)));
  const Kernel k = fused_kernel(g);
  ASSERT_LE(10u, kMaxKernelVersions);
  const BranchPlan plan = plan_branches(k);
  ASSERT_EQ(plan.leaves.size(), 10u);
  for (const BranchPlan::Leaf& leaf : plan.leaves) {
    EXPECT_DOUBLE_EQ(leaf.fraction, 0.1);
    int selects = 0;  // `where`s this version evaluates (not decided by it)
    for (size_t i = 0; i < k.exprs.size(); ++i)
      selects += leaf.live[i] && k.exprs[i].op == Op::Where && !leaf.folds(k, static_cast<int>(i));
    EXPECT_EQ(selects, 0) << "each version reads one piece of each operand";
  }
}

TEST(KernelBranches, LiveNodesFollowOnlyTheDecidedSide) {
  Graph g("pad_rows");
  Tensor a = input(g, "a", DType::F32, {2, 8}), b = input(g, "b", DType::F32, {2, 8});
  g.add_output(concat({exp(a), sigmoid(b)}, 0));
  const Kernel k = fused_kernel(g);
  const BranchPlan plan = plan_branches(k);
  ASSERT_TRUE(plan.versioned());
  const IndexRef condition = plan.nodes[0].condition;
  ASSERT_NE(condition, kNoIndex);
  for (bool holds : {true, false}) {
    const std::vector<bool> live = live_nodes(k, {{condition, holds}});
    EXPECT_EQ(count_live(k, live, Op::Exp) + count_live(k, live, Op::Sigmoid), 1);
  }
  // Nothing assumed: both sides.
  const std::vector<bool> all = live_nodes(k, {});
  EXPECT_EQ(count_live(k, all, Op::Exp) + count_live(k, all, Op::Sigmoid), 2);
}

}  // namespace
}  // namespace smelt::ir
