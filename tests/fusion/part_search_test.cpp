// The fusion search in parts (fusion/program_parts.h, part_shape.h,
// part_search.h): a stack of residual blocks splits at the blocks, identical
// blocks are searched once and looked up after, the joined program computes
// the graph, and the work budget, not the clock, decides where a search stops.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "fusion/program_parts.h"
#include "ir/builder.h"
#include "kernel/kernel.h"
#include "smelt/smelt.h"
#include "tests/fusion/fusion_test_util.h"

namespace smelt::fusion_testing {
namespace {

constexpr int64_t kRows = 4;

ir::Tensor weight(ir::Graph& g, int64_t rows, int64_t cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-0.5, 0.5);
  std::vector<double> values(static_cast<size_t>(rows * cols));
  for (double& v : values) v = value(rng);
  return ir::constant(g, std::move(values), ir::DType::F32, {rows, cols});
}

// y = x + relu((x - mean(x)) @ W1 + b1) @ W2, eight ops, x read three times
// (what a cut follows); its weights its own.
ir::Tensor block(ir::Graph& g, ir::Tensor x, int64_t width, uint64_t seed) {
  const ir::Shape shape = {kRows, width};
  const ir::Tensor centred = ir::sub(x, ir::broadcast(ir::reduce_sum(x, {1}, true), shape));
  const ir::Tensor b1 = ir::broadcast(weight(g, 1, 2 * width, seed + 1), {kRows, 2 * width});
  const ir::Tensor h = ir::relu(ir::add(ir::matmul(centred, weight(g, width, 2 * width, seed)), b1));
  return ir::add(x, ir::matmul(h, weight(g, 2 * width, width, seed + 2)));
}

// `widths.size()` blocks in a row, block i `widths[i]` wide (a reshape-free
// width change: a matmul to the next width between blocks of two widths).
ir::Graph stack(const std::vector<int64_t>& widths, bool shared_mask = false) {
  ir::Graph g("stack");
  ir::Tensor x = ir::input(g, "x", ir::DType::F32, {kRows, widths[0]});
  // A value every block reads (a mask of the input's rows): crosses every cut.
  const ir::Tensor mask = ir::reduce_sum(ir::input(g, "m", ir::DType::F32, {kRows, 3}), {1}, true);
  for (size_t i = 0; i < widths.size(); ++i) {
    if (x.shape().back() != widths[i]) x = ir::matmul(x, weight(g, x.shape().back(), widths[i], 100 + i));
    x = block(g, x, widths[i], 10 * i);
    if (shared_mask) x = ir::mul(x, ir::broadcast(mask, {kRows, widths[i]}));
  }
  g.add_output(x);
  return g;
}

TEST(ProgramParts, AStackOfResidualBlocksSplitsAtTheBlocks) {
  const ir::Graph g = stack({16, 16, 16, 16, 16});
  const std::vector<fusion::ProgramPart> parts = fusion::split_program(g);
  ASSERT_EQ(parts.size(), 5u);
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    EXPECT_EQ(parts[i + 1].first, parts[i].last + 1) << "parts cover the graph in order";
    ASSERT_EQ(parts[i].outputs.size(), 1u) << "one value crosses each cut: the block's output";
    EXPECT_EQ(parts[i].outputs[0], parts[i].last);
  }
  EXPECT_EQ(parts.back().last, static_cast<ir::ValueId>(g.size() - 1));
}

TEST(ProgramParts, AValueEveryBlockReadsDoesNotPreventTheCuts) {
  const ir::Graph g = stack(std::vector<int64_t>(8, 16), /*shared_mask=*/true);
  const std::vector<fusion::ProgramPart> parts = fusion::split_program(g);
  EXPECT_EQ(parts.size(), 8u);
  // The mask is stored once, by the part that computes it, and read by the later ones.
  const ir::ValueId mask = g.find("m") + 1;
  ASSERT_EQ(g.node(mask).op, ir::Op::ReduceSum);
  size_t storing = 0;
  for (const fusion::ProgramPart& p : parts)
    for (ir::ValueId v : p.outputs) storing += v == mask;
  EXPECT_EQ(storing, 1u);
}

TEST(ProgramParts, AChainOfOpsReadOnceIsOnePart) {
  ir::Graph g("chain");
  ir::Tensor t = ir::input(g, "x", ir::DType::F32, {8});
  for (int i = 0; i < 40; ++i) t = i % 2 ? ir::exp(t) : ir::neg(t);
  g.add_output(t);
  EXPECT_EQ(fusion::split_program(g).size(), 1u);
}

smelt::FusionResult fuse(const ir::Graph& g, size_t budget = smelt::Limits{}.extraction_evaluations) {
  smelt::FuseOptions options;
  options.threads = 1;
  options.limits.extraction_evaluations = budget;
  options.limits.extraction_s = 600;  // never the limit that stops it here
  return smelt::fuse(g, options);
}

TEST(PartSearch, IdenticalBlocksAreSearchedOnceAndLookedUp) {
  const ir::Graph g = stack(std::vector<int64_t>(6, 16));
  const smelt::FusionResult r = fuse(g);
  ASSERT_EQ(r.parts.size(), 6u);
  size_t searched = 0, looked_up = 0;
  for (const fusion::PartReport& p : r.parts) {
    searched += p.decided == "searched";
    looked_up += p.decided == "looked up";
    if (p.decided == "looked up") {
      EXPECT_EQ(r.parts[p.same_as].decided, "searched");
    }
  }
  // The first block reads the graph's input, the others the block before: two shapes.
  EXPECT_EQ(searched, 2u);
  EXPECT_EQ(looked_up, 4u);
  EXPECT_TRUE(r.search_finished);
  EXPECT_LE(r.predicted_us_after, r.predicted_us_before);
  EXPECT_LT(r.kernels_after, r.kernels_before);
  EXPECT_EQ(check_program(g, r.after, 7), "");
}

TEST(PartSearch, BlocksOfOtherWidthsAreSearchedEach) {
  // Parts: the first block (it reads the input), the second with the
  // widening product after it (its output is read once: no cut), and three
  // 24-wide blocks alike.
  const ir::Graph g = stack({16, 16, 24, 24, 24});
  const smelt::FusionResult r = fuse(g);
  ASSERT_EQ(r.parts.size(), 5u);
  size_t looked_up = 0;
  for (const fusion::PartReport& p : r.parts) looked_up += p.decided == "looked up";
  EXPECT_EQ(looked_up, 2u);
  EXPECT_EQ(r.parts[1].decided, "searched") << "16 wide: not the shape of the first block's part";
  EXPECT_EQ(r.parts[2].decided, "searched");
  for (size_t i : {3, 4}) {
    EXPECT_EQ(r.parts[i].decided, "looked up");
    EXPECT_EQ(r.parts[i].same_as, 2u);
  }
  EXPECT_EQ(check_program(g, r.after, 8), "");
}

TEST(PartSearch, TheWorkLimitStopsTheSearchAndSaysSo) {
  const ir::Graph g = stack(std::vector<int64_t>(3, 16), /*shared_mask=*/true);
  const smelt::FusionResult unlimited = fuse(g, 0);
  EXPECT_TRUE(unlimited.search_finished);
  EXPECT_EQ(unlimited.extraction_stop, "");
  // One program priced per part: each part keeps the best of its starting
  // points (priced whatever the budget) and stops.
  const smelt::FusionResult limited = fuse(g, 1);
  EXPECT_FALSE(limited.search_finished);
  EXPECT_EQ(limited.extraction_stop, "work limit");
  for (const fusion::PartReport& p : limited.parts) EXPECT_EQ(p.decided, "searched, stopped at the work limit");
  const smelt::FusionResult again = fuse(g, 1);
  EXPECT_EQ(kernel::print_program(limited.after), kernel::print_program(again.after))
      << "the budget, not the clock, decides: the same program every time";
  EXPECT_EQ(check_program(g, limited.after, 9), "");
  EXPECT_EQ(check_program(g, unlimited.after, 9), "");
}

}  // namespace
}  // namespace smelt::fusion_testing
