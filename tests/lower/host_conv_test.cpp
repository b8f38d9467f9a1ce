// Convolutions on the host against the reference interpreter: each conv kernel
// in contraction form (kernel/kernel_reindex.h) through the tiled contraction with
// its output positions as columns (packed a line at a time), or — depthwise,
// few maps per group — the plain loop; with a bias + ReLU epilogue, a computed
// (exp) input whose padding must still read 0, batches, groups, strides,
// dilations, asymmetric padding, 1-D and 3-D; run as one call, in calls of a
// few units (ranges across rows, batch elements and column blocks).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "ir/builder.h"
#include "kernel/host_plan.h"
#include "ir/interpreter.h"
#include "fusion/kernelize.h"
#include "ir/tensor_compare.h"
#include "lower/lower.h"
#include "tests/lower/jit_runner.h"

namespace smelt {
namespace {

using smelt::testing::run_on_host_jit;

struct Case {
  std::string name;
  ir::Shape x, w;
  ir::ConvParams params;
  bool tiled;              // expected to take the tiled contraction
  bool computed_input = false;  // conv(exp(x)): the padding is masked after exp
};

using testing::uses_tiled_contraction;

class HostConv : public ::testing::TestWithParam<Case> {};

TEST_P(HostConv, MatchesTheReference) {
  const Case& c = GetParam();
  ir::Graph g(c.name);
  ir::Tensor x = ir::input(g, "x", ir::DType::F32, c.x), w = ir::input(g, "w", ir::DType::F32, c.w);
  ir::Tensor in = c.computed_input ? ir::exp(x) : x;
  ir::Tensor y = ir::conv(in, w, c.params);
  const int64_t maps = c.w[0];
  ir::Tensor bias = ir::input(g, "b", ir::DType::F32, {maps});
  ir::Shape bias_shape(y.shape().size(), 1);
  bias_shape[1] = maps;
  const ir::Shape out = y.shape();
  g.add_output(ir::relu(ir::add(y, ir::broadcast(ir::reshape(bias, bias_shape), out))));
  const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_outputs(g));
  ASSERT_EQ(program.kernels.size(), 1u) << kernel::print_program(program);
  EXPECT_EQ(uses_tiled_contraction(program), c.tiled) << kernel::print_program(program);
  std::mt19937_64 rng(7);
  std::vector<ir::HostTensor> inputs;
  for (ir::ValueId v : g.inputs()) inputs.push_back(ir::random_tensor(g.type(v), rng));
  const ir::Reference want = ir::interpret_with_error_scales(g, inputs);
  EXPECT_EQ(ir::compare_outputs(want, run_on_host_jit(program, inputs)), "");
  for (int64_t units : {1, 3, 7})
    EXPECT_EQ(ir::compare_outputs(want, run_on_host_jit(program, inputs, units)), "") << units << " units per call";
}

INSTANTIATE_TEST_SUITE_P(
    Geometries, HostConv,
    ::testing::Values(
        Case{"same_3x3", {1, 8, 10, 10}, {16, 8, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 1}, true},
        Case{"batch_odd_sizes", {3, 5, 9, 7}, {13, 5, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 1}, true},
        Case{"stride2_asymmetric", {2, 4, 11, 9}, {8, 4, 3, 3}, {{2, 2}, {1, 1}, {1, 0}, {0, 1}, 1}, true},
        Case{"dilated_grouped", {1, 8, 12, 12}, {16, 4, 3, 3}, {{1, 1}, {2, 2}, {2, 2}, {2, 2}, 2}, true},
        Case{"pointwise", {2, 16, 7, 7}, {24, 16, 1, 1}, {}, true},
        Case{"many_positions_column_blocks", {1, 4, 40, 40}, {8, 4, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 1}, true},
        Case{"computed_input_padding", {1, 4, 6, 6}, {8, 4, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 1}, true, true},
        Case{"one_d", {2, 3, 20}, {6, 3, 5}, {{2}, {1}, {2}, {1}, 1}, true},
        // B packed by lines, kLineRows rows of K at a time, each line's interior
        // with plain loads (lower/host_matmul.cpp): K = 630 in blocks of 512 and
        // 118 (a last group of 6 rows); a 7x7 stem of stride 2; a padding wider
        // than the window (lines wholly outside the input, empty interiors).
        Case{"k_blocks_partial_line_rows", {1, 70, 9, 13}, {6, 70, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 1}, true},
        Case{"stem_7x7_stride2", {2, 3, 23, 21}, {8, 3, 7, 7}, {{2, 2}, {1, 1}, {3, 3}, {3, 3}, 1}, true},
        Case{"padding_wider_than_window", {1, 3, 5, 6}, {4, 3, 3, 3}, {{1, 1}, {1, 1}, {4, 3}, {2, 5}, 1}, true},
        Case{"three_d", {1, 2, 5, 6, 4}, {4, 2, 3, 2, 3}, {{1, 2, 1}, {1, 1, 1}, {1, 0, 1}, {1, 1, 1}, 1}, true},
        Case{"depthwise_plain_loop", {1, 6, 8, 8}, {6, 1, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 6}, false},
        // The plain loop's column segments (kernel::host_column_cuts of window
        // columns) and its two-pass rows (reduces, then the epilogue): odd
        // widths, 5x5, strides, a row narrower than the window, dilation.
        Case{"depthwise_5x5_odd_width", {2, 5, 9, 13}, {5, 1, 5, 5}, {{1, 1}, {1, 1}, {2, 2}, {2, 2}, 5}, false},
        Case{"depthwise_stride2_asymmetric", {1, 4, 11, 17}, {4, 1, 3, 3}, {{2, 2}, {1, 1}, {1, 0}, {0, 1}, 4}, false},
        Case{"depthwise_narrower_than_window", {1, 3, 6, 3}, {3, 1, 7, 7}, {{1, 1}, {1, 1}, {3, 3}, {3, 3}, 3}, false},
        Case{"depthwise_dilated_computed_input", {1, 4, 10, 19}, {4, 1, 3, 3}, {{1, 1}, {2, 2}, {2, 2}, {2, 2}, 4}, false,
             true}),
    [](const ::testing::TestParamInfo<Case>& param_info) { return param_info.param.name; });

// Where the plain loop of a depthwise 3x3 (pad 1) over 56 columns cuts its
// rows: every window column of the middle segment lies inside the row, so its
// masks fold (1,163 us -> 333 us at EfficientNet-B0's 144 maps of 56x56, one
// thread, 2026-11-29); 5x5 (pad 2) over 28 cuts at 2 and 26, a stride-2 3x3
// only at its left edge (its right window columns stay inside the input).
TEST(HostConvSplit, TheWindowColumnsCutAPlainLoopsRowWhereTheirMasksChange) {
  auto cuts = [](int64_t side, int64_t window, int64_t stride) {
    ir::Graph g("dw");
    const int64_t pad = window / 2;
    ir::Tensor x = ir::input(g, "x", ir::DType::F32, {1, 8, side, side});
    ir::Tensor w = ir::input(g, "w", ir::DType::F32, {8, 1, window, window});
    g.add_output(ir::conv(x, w, {{stride, stride}, {1, 1}, {pad, pad}, {pad, pad}, 8}));
    const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_outputs(g));
    EXPECT_EQ(program.kernels.size(), 1u);
    return kernel::host_column_cuts(program.kernels.front());
  };
  EXPECT_EQ(cuts(56, 3, 1), (std::vector<int64_t>{1, 55}));
  EXPECT_EQ(cuts(28, 5, 1), (std::vector<int64_t>{2, 26}));
  EXPECT_EQ(cuts(112, 3, 2), (std::vector<int64_t>{1}));
  EXPECT_EQ(cuts(7, 5, 1), (std::vector<int64_t>{2, 5}));
}

// A depthwise convolution's rows take two passes (the reduces into a row on
// the stack, then the epilogue over it) where the epilogue computes more than
// sums: a bias alone stays in the reduce loop (two passes made 144 maps of
// 56x56 5x slower, lower/host_kernel.cpp), a bias and a clip do not.
TEST(HostConvSplit, OnlyAnEpilogueBeyondABiasTakesTwoPasses) {
  for (bool clip : {false, true}) {
    SCOPED_TRACE(clip ? "bias + clip" : "bias");
    ir::Graph g("dw");
    ir::Tensor x = ir::input(g, "x", ir::DType::F32, {1, 8, 14, 14});
    ir::Tensor w = ir::input(g, "w", ir::DType::F32, {8, 1, 3, 3});
    ir::Tensor b = ir::input(g, "b", ir::DType::F32, {8});
    ir::Tensor y = ir::conv(x, w, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 8});
    y = ir::add(y, ir::broadcast(ir::reshape(b, {1, 8, 1, 1}), {1, 8, 14, 14}));
    g.add_output(clip ? ir::relu(y) : y);
    const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_outputs(g));
    ASSERT_EQ(program.kernels.size(), 1u) << kernel::print_program(program);
    EXPECT_EQ(lower::emit_llvm_ir(program, {}).find("row_of_reduce") != std::string::npos, clip);
    std::mt19937_64 rng(3);
    std::vector<ir::HostTensor> inputs;
    for (ir::ValueId v : g.inputs()) inputs.push_back(ir::random_tensor(g.type(v), rng));
    EXPECT_EQ(ir::compare_outputs(ir::interpret_with_error_scales(g, inputs), run_on_host_jit(program, inputs, 5)), "");
  }
}

// The column-block split: a batch-1 conv of many output positions is split by
// blocks of positions (every thread packs only its own windows).
TEST(HostConvSplit, ManyPositionsAreSplitByColumnBlocks) {
  ir::Graph g("blocks");
  ir::Tensor x = ir::input(g, "x", ir::DType::F32, {1, 8, 32, 32}), w = ir::input(g, "w", ir::DType::F32, {16, 8, 3, 3});
  g.add_output(ir::conv(x, w, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 1}));
  const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_outputs(g));
  ASSERT_EQ(program.kernels.size(), 1u);
  const kernel::Kernel& k = program.kernels.front();
  EXPECT_EQ(k.space, (ir::Shape{1, 16, 32, 32}));
  EXPECT_EQ(k.reduction, (ir::Shape{72}));
  EXPECT_EQ(kernel::host_column_block(k), 256);  // 1024 positions / 4
  EXPECT_EQ(kernel::host_column_blocks(k), 4);
  EXPECT_EQ(kernel::host_parallel_units(k), 16 * 4);  // rows = the maps, not the maps' lines
}

}  // namespace
}  // namespace smelt
