// The shape of the host code: vectorized inner loops, object files and
// assembly with the kernel symbols, the work split, and clear errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <regex>
#include <sstream>

#include "ir/builder.h"
#include "kernel/constant_folding.h"
#include "kernel/contraction_group.h"
#include "kernel/host_plan.h"
#include "ir/interpreter.h"
#include "ir/tensor_compare.h"
#include "fusion/kernelize.h"
#include "lower/lower.h"
#include "smelt/smelt.h"
#include "tests/lower/jit_runner.h"

namespace smelt {
namespace {

using ir::DType;

kernel::KernelProgram fused(const ir::Graph& g) { return fusion::kernelize_program(g, std::vector<bool>(g.size(), false)); }

// The JIT's outputs of `p` (g's program) on random inputs equal the reference's.
void expect_jit_matches_reference(const ir::Graph& g, const kernel::KernelProgram& p, uint64_t seed) {
  const std::vector<ir::HostTensor> inputs = smelt::random_inputs(g, seed);
  EXPECT_EQ(ir::compare_outputs(ir::interpret_with_error_scales(g, inputs), smelt::testing::run_on_host_jit(p, inputs)), "");
}

kernel::KernelProgram elementwise_chain() {
  ir::Graph g("chain");
  auto x = ir::input(g, "x", DType::F32, {64, 1024});
  auto a = ir::input(g, "a", DType::F32, {64, 1024});
  auto b = ir::input(g, "b", DType::F32, {64, 1024});
  g.add_output(ir::relu(x * a + b) - ir::max(a, b));
  return fused(g);
}

TEST(HostCodegen, ElementwiseChainIsVectorizedOverTheContiguousDim) {
  const kernel::KernelProgram p = elementwise_chain();
  ASSERT_EQ(p.kernels.size(), 1u);
  const std::string text = lower::emit_llvm_ir(p, {});
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(load <(8|16) x float>)"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(store <(8|16) x float>)"))) << text;
  EXPECT_NE(text.find("define void @" + lower::kernel_symbol(p, 0) + "("), std::string::npos);
}

// A 1x1 convolution over flattened positions (EfficientNet-B0's early
// blocks): the tiled contraction packs B = x[k, j / 112, j % 112] column by
// column. Its row-major offset 112 * (j / 112) + j % 112 is j, which LLVM
// sees only when the division and remainder of a non-negative index are
// unsigned (a signed one's floor correction hides it; packed so, the kernel
// measured 659 us against 270, 2026-11-29).
TEST(HostCodegen, AFlattenedReshapeOnTheBSideOfAContractionPacksWithoutDivisions) {
  ir::Graph g("flat_b");
  auto w = ir::input(g, "w", DType::F32, {16, 32});
  auto x = ir::input(g, "x", DType::F32, {32, 112, 112});
  g.add_output(ir::matmul(w, ir::reshape(x, {32, 112 * 112})));
  const kernel::KernelProgram p = fused(g);
  ASSERT_EQ(p.kernels.size(), 1u);
  ASSERT_TRUE(smelt::testing::uses_tiled_contraction(p));
  const std::string text = lower::emit_llvm_ir(p, {});
  EXPECT_FALSE(std::regex_search(text, std::regex(R"([su](div|rem) (exact )?i64 %[^,]+, 112)"))) << text;
  expect_jit_matches_reference(g, p, 3);
}

// A squeeze-excite's 1x1 convolution over [1, 1152, 1, 1] (EfficientNet-B0):
// 48 outputs of one column each. The tiled contraction padded that column to
// 16 and packed it per call (41.7 us); the plain loop's K loop is the vector
// loop (2.75 us, one thread, 2026-11-29).
TEST(HostCodegen, AContractionOfOneColumnVectorizesItsReductionLoop) {
  ir::Graph g("squeeze_excite");
  auto x = ir::input(g, "x", DType::F32, {1, 1152, 1, 1});
  auto w = ir::input(g, "w", DType::F32, {48, 1152, 1, 1});
  g.add_output(ir::conv(x, w, {}));
  const kernel::KernelProgram p = fused(g);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_FALSE(kernel::host_tiled_contraction(p.kernels.front()));
  EXPECT_FALSE(smelt::testing::uses_tiled_contraction(p));
  const std::string text = lower::emit_llvm_ir(p, {});
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(load <(8|16) x float>)"))) << text;
  expect_jit_matches_reference(g, p, 5);
}

TEST(HostCodegen, SliceLoadsAtAnOffsetAreVectorLoadsNotGathers) {
  // migraphx_silu_slices' shape: column blocks of one row-major input. LLVM turns
  // `row + (column + 64)` into an `or` the vectorizer cannot read as consecutive,
  // unless the constant offset is a GEP of its own.
  ir::Graph g("slices");
  auto h = ir::input(g, "h", DType::F32, {32, 256});
  for (int64_t block = 0; block < 4; ++block) {
    auto s = ir::slice(h, {0, 64 * block}, {32, 64 * block + 64}, {1, 1});
    g.add_output(s * ir::sigmoid(s));
  }
  const kernel::KernelProgram p = fused(g);
  ASSERT_EQ(p.kernels.size(), 1u);
  const std::string text = lower::emit_llvm_ir(p, {});
  EXPECT_EQ(text.find("masked.gather"), std::string::npos) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(load <(8|16) x float>)"))) << text;
}

// A concat along rows is decided once per row: one vectorized column loop per
// operand behind a branch, not a select between every operand per element.
TEST(HostCodegen, ConcatAlongRowsIsOneVectorLoopPerOperand) {
  ir::Graph g("rows");
  auto a = ir::input(g, "a", DType::F32, {8, 1024}), b = ir::input(g, "b", DType::F32, {8, 1024});
  g.add_output(ir::concat({ir::relu(a), ir::abs(b)}, 0));
  const std::string text = lower::emit_llvm_ir(fused(g), {});
  EXPECT_NE(text.find("versions.end"), std::string::npos) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(load <(8|16) x float>)"))) << text;
  // No per-element choice between the two operands' values.
  EXPECT_FALSE(std::regex_search(text, std::regex(R"(select (i1|<(8|16) x i1>) %[^,]+, <(8|16) x float> %[^,]+, <(8|16) x float> %)")))
      << text;
}

TEST(HostCodegen, ContiguousReductionIsVectorized) {
  ir::Graph g("rowsum");
  auto x = ir::input(g, "x", DType::F32, {64, 1024});
  g.add_output(ir::reduce_sum(ir::exp(x) * x, {1}));
  const std::string text = lower::emit_llvm_ir(fused(g), {});
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(load <(8|16) x float>)"))) << text;
}

// exp (composed_math.h) and sin / cos (host_vector_math.h: the vector variant
// the vectorizer called, inlined after it) are arithmetic in the vector loop: no
// call of a vector math library, no variant left; sinf / cosf remain only for
// scalar remainders and out-of-range lanes.
TEST(HostCodegen, ExpSinAndCosAreInlineInTheVectorLoop) {
  ir::Graph g("math");
  auto x = ir::input(g, "x", DType::F32, {64, 1024});
  g.add_output(ir::cos(ir::sin(x * ir::sigmoid(x))));
  const std::string text = lower::emit_llvm_ir(fused(g), {});
  EXPECT_FALSE(std::regex_search(text, std::regex(R"(call .*(@_ZGV|@expf|@smelt_\w+_v(4|8|16)\b))"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(call <(4|8|16) x float> @llvm\.fma)"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(call float @sinf)"))) << text;
}

// Rotate-half (a concat of two shifted halves along the row): its masked loads
// of consecutive elements become (masked) vector loads, not gathers.
TEST(HostCodegen, MaskedLoadsAlongTheRowAreMaskedVectorLoads) {
  ir::Graph g("rotate_half");
  auto x = ir::input(g, "x", DType::F32, {64, 128});
  auto rotated = ir::concat({ir::neg(ir::slice_axis(x, 1, 64, 128)), ir::slice_axis(x, 1, 0, 64)}, 1);
  g.add_output(x + rotated);
  const std::string text = lower::emit_llvm_ir(fused(g), {});
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(masked\.load\.v|load <(8|16) x float>)"))) << text;
  EXPECT_EQ(text.find("@llvm.masked.gather"), std::string::npos) << text;
}

// A padded depthwise convolution (EfficientNet's, stride 1 and 2, odd sizes):
// the comparisons of its input's mask are affine in the column and the
// window, so each row segment runs unmasked where they hold throughout
// (kernel::host_interior_conditions) — whole vector loads there, where the
// masked form read lane by lane behind branches (stride 2) or not in vectors
// at all (stride 1) — and the edges keep their masks: the outputs match.
TEST(HostCodegen, APaddedDepthwiseConvolutionRunsItsInteriorUnmasked) {
  for (int64_t stride : {1, 2}) {
    ir::Graph g("depthwise");
    auto x = ir::input(g, "x", DType::F32, {1, 24, 57, 59});
    auto w = ir::input(g, "w", DType::F32, {24, 1, 3, 3});
    g.add_output(ir::conv(x, w, {{stride, stride}, {}, {1, 1}, {1, 1}, 24}));
    const kernel::KernelProgram p = fused(g);
    ASSERT_EQ(p.kernels.size(), 1u);
    const std::vector<kernel::InteriorCondition> conditions = kernel::host_interior_conditions(p.kernels[0]);
    ASSERT_EQ(conditions.size(), 4u) << stride;  // 0 <= row, row < 57, 0 <= column, column < 59 (each over the window)
    const std::string text = lower::emit_llvm_ir(p, {});
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(load <(8|16) x float>)"))) << stride << text;
    EXPECT_EQ(text.find("pred.load"), std::string::npos) << stride << text;
    // No mask per lane: an AVX2 target loads a stride-2 window's line as
    // whole vectors and shuffles them; an AVX-512 one gathers it, under one
    // condition for the whole vector (the window's row inside the map).
    const std::regex gather(R"(@llvm\.masked\.gather\.[^(]*\([^)]*<\d+ x i1> ([^,]+),)");
    for (auto m = std::sregex_iterator(text.begin(), text.end(), gather); m != std::sregex_iterator(); ++m)
      EXPECT_NE((*m)[1].str().find("splat"), std::string::npos) << stride << ": " << (*m)[0].str();
    expect_jit_matches_reference(g, p, 7);
  }
  // Unpadded, nothing is masked: no conditions.
  ir::Graph g("depthwise_unpadded");
  auto x = ir::input(g, "x", DType::F32, {1, 8, 12, 12});
  auto w = ir::input(g, "w", DType::F32, {8, 1, 3, 3});
  g.add_output(ir::conv(x, w, {{}, {}, {}, {}, 8}));
  EXPECT_TRUE(kernel::host_interior_conditions(fused(g).kernels.at(0)).empty());
}

// A six-way concat along the row: the column loop is split where its masks
// change (lower/host_kernel.cpp), so the segments vectorize — the loop over the
// whole row, with six masked loads, was not vectorized at all. (Some segments
// still gather: LLVM does not fold every mask there.)
TEST(HostCodegen, AConcatAlongTheRowIsSplitIntoVectorSegments) {
  ir::Graph g("concat6");
  std::vector<ir::Tensor> parts;
  for (int i = 0; i < 6; ++i) parts.push_back(ir::input(g, "x" + std::to_string(i), DType::F32, {64, 256}));
  g.add_output(ir::concat(parts, 1));
  const std::string text = lower::emit_llvm_ir(fused(g), {});
  // Full-width vector loads: 16 lanes where LLVM prefers 512-bit vectors (AMD
  // Zen 4/5), 8 where it prefers 256 on AVX-512 CPUs (Intel Xeon), 8 on AVX2.
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(load <(8|16) x float>)"))) << text;
}

TEST(HostCodegen, PermutedRowsOfALargeBufferArePrefetchedNotCachedOrOwnOnes) {
  // A permute feeding gelu (ratchet's shape) reads rows of 4 MiB+ out of order: prefetched.
  ir::Graph permuted("permuted");
  auto x = ir::input(permuted, "x", DType::F32, {64, 128, 256});  // 8 MiB
  permuted.add_output(ir::gelu(ir::permute(x, {1, 0, 2})));
  EXPECT_NE(lower::emit_llvm_ir(fused(permuted), {}).find("llvm.prefetch"), std::string::npos);
  // RoPE: x's own rows shifted by half a row, and cos / sin tables of 1 MiB
  // broadcast over heads: the hardware prefetcher and the caches serve them.
  ir::Graph rope("rope");
  auto q = ir::input(rope, "q", DType::F32, {1, 8, 2048, 128});
  auto cos = ir::input(rope, "cos", DType::F32, {2048, 128});
  auto sin = ir::input(rope, "sin", DType::F32, {2048, 128});
  auto lo = ir::slice(q, {0, 0, 0, 0}, {1, 8, 2048, 64}, {1, 1, 1, 1});
  auto hi = ir::slice(q, {0, 0, 0, 64}, {1, 8, 2048, 128}, {1, 1, 1, 1});
  auto rotated = ir::concat({ir::neg(hi), lo}, 3);
  const ir::Shape shape{1, 8, 2048, 128};
  rope.add_output(q * ir::broadcast(cos, shape) + rotated * ir::broadcast(sin, shape));
  const kernel::KernelProgram p = fused(rope);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(lower::emit_llvm_ir(p, {}).find("llvm.prefetch"), std::string::npos);
}

TEST(HostCodegen, ALargeConstantBPrefetchesItsNextPanel) {
  // Weights packed once but too large for the caches (16 MiB and more) stream
  // from memory: the micro-kernel prefetches the next B panel. Small constant
  // weights (and B packed per call) do not.
  auto gemm = [](int64_t n) {
    ir::Graph g("weights");
    auto x = ir::input(g, "x", DType::F32, {64, 1024});
    std::vector<double> w(static_cast<size_t>(1024 * n));
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<double>(i % 7) - 3;
    g.add_output(ir::matmul(x, ir::constant(g, w, DType::F32, {1024, n})));
    return fused(g);
  };
  EXPECT_NE(lower::emit_llvm_ir(gemm(4096), {}).find("llvm.prefetch"), std::string::npos);  // 16 MiB
  EXPECT_EQ(lower::emit_llvm_ir(gemm(256), {}).find("llvm.prefetch"), std::string::npos);   // 1 MiB
}

// Kernels that differ only in their buffers share one body of code (six
// negations, one kernel each: one body); kernels reading different constant
// buffers do not (a matmul may pack its constant B once, per body).
TEST(HostCodegen, KernelsOfOneBodyShareItsCode) {
  ir::Graph g("bodies");
  ir::Tensor t = ir::input(g, "x", DType::F32, {4, 8});
  for (int i = 0; i < 6; ++i) t = ir::neg(t);
  std::vector<double> w1(8 * 8), w2(8 * 8);
  for (size_t i = 0; i < w1.size(); ++i) {
    w1[i] = 0.25 * static_cast<double>(i % 7);
    w2[i] = -0.5 * static_cast<double>(i % 5);
  }
  g.add_output(ir::matmul(t, ir::constant(g, w1, DType::F32, {8, 8})));
  g.add_output(ir::matmul(t, ir::constant(g, w2, DType::F32, {8, 8})));
  // The matmuls read the weights from constant buffers (folded at compile time).
  const kernel::KernelProgram p = kernel::fold_constant_kernels(
      fusion::kernelize(g, fusion::materialize_everything(g), fusion::KernelizeOptions::unmerged()).program);
  const std::string text = lower::emit_llvm_ir(p, {});
  const std::regex body(R"(define internal [^@]*@smelt_body)");
  EXPECT_EQ(std::distance(std::sregex_iterator(text.begin(), text.end(), body), std::sregex_iterator()), 1)
      << kernel::print_program(p) << text;
  for (size_t k = 0; k < p.kernels.size(); ++k)
    EXPECT_NE(text.find("define void @" + lower::kernel_symbol(p, k) + "("), std::string::npos) << k;
  expect_jit_matches_reference(g, p, 3);
}

// A sum of sines of 400 inputs: one kernel would load 400 buffers, past the
// 250 pointers where LLVM's alias sets give up and the loop ran scalar (39x
// slower than predicted). The lowering stores a value rather than load more
// than 192 beneath a root (the root's own two operands may come on top), and
// every kernel's loop is vectorized.
// A 1x1 convolution with bias, residual add and ReLU in its epilogue: the
// epilogue's positions [h, w] come from the tile's column n; its residual read
// and its store fold back to n and vectorize as plain loads and stores. Taken
// apart with a remainder, LLVM put n behind a `freeze` and read and wrote by
// gathers and scatters (ResNet-50's 56x56 ones: 1,488 us, 1,180 after).
TEST(HostCodegen, AConvolutionsResidualEpilogueReadsAndStoresWithoutGathers) {
  ir::Graph g("residual");
  auto x = ir::input(g, "x", DType::F32, {1, 16, 12, 12});
  auto w = ir::input(g, "w", DType::F32, {32, 16, 1, 1});
  auto bias = ir::input(g, "b", DType::F32, {32});
  auto residual = ir::input(g, "res", DType::F32, {1, 32, 12, 12});
  auto c = ir::conv(x, w);
  auto b = ir::broadcast(ir::reshape(bias, {1, 32, 1, 1}), {1, 32, 12, 12});
  g.add_output(ir::relu(c + b + residual));
  const kernel::KernelProgram p = fused(g);
  ASSERT_EQ(p.kernels.size(), 1u);
  ASSERT_TRUE(kernel::host_tiled_contraction(p.kernels[0]));
  const std::string text = lower::emit_llvm_ir(p, {});
  EXPECT_EQ(text.find("masked.gather"), std::string::npos);
  EXPECT_EQ(text.find("masked.scatter"), std::string::npos);
  expect_jit_matches_reference(g, p, 3);
}

// A 1x1 convolution at stride 1 without padding reads its input's positions
// [h, w] as one flattened column (kernel::b_columns_are_flat): B is packed as
// a matmul's, sixteen columns a copy, not line by line (a 7x7 map's lines
// took a loop of seven each); a padded 3x3 and a 1x1 at stride 2 keep their
// windows' packing.
TEST(HostCodegen, AOneByOneConvolutionAtStrideOnePacksItsPositionsAsAMatrix) {
  struct Case {
    const char* name;
    int64_t side, stride, pad;
    bool flat;
  };
  for (const Case& c : {Case{"1x1", 1, 1, 0, true}, Case{"3x3 padded", 3, 1, 1, false}, Case{"1x1 at stride 2", 1, 2, 0, false}}) {
    SCOPED_TRACE(c.name);
    ir::Graph g("conv");
    auto x = ir::input(g, "x", DType::F32, {1, 24, 7, 7});
    auto w = ir::input(g, "w", DType::F32, {40, 24, c.side, c.side});
    g.add_output(ir::relu(ir::conv(x, w, {{c.stride, c.stride}, {1, 1}, {c.pad, c.pad}, {c.pad, c.pad}, 1})));
    const kernel::KernelProgram p = fused(g);
    ASSERT_EQ(p.kernels.size(), 1u);
    const std::optional<kernel::ContractionGroup> group = kernel::match_contraction_group(p.kernels[0]);
    ASSERT_TRUE(group && group->columns.size() == 2) << kernel::print_program(p);
    ASSERT_TRUE(kernel::host_tiled_contraction(p.kernels[0], group));
    EXPECT_EQ(kernel::b_columns_are_flat(p, p.kernels[0], *group), c.flat);
    const std::string text = lower::emit_llvm_ir(p, {});
    // The loop over a block's rows packed by lines (a line's own loop, four
    // columns at stride 2, is one masked vector on an AVX-512 target: no loop left).
    EXPECT_EQ(text.find("line_rows") == std::string::npos, c.flat);
    expect_jit_matches_reference(g, p, 11);
  }
}

// A global average pool's sum over [56, 56]: its innermost reduction loop
// stays a loop (kernel::kHostUnrolledReduction) and vectorizes along the row.
// Unrolled whole, the loop over the 56 rows became the innermost one,
// vectorized by gathers 56 floats apart (EfficientNet-B0's squeeze-excite pools).
TEST(HostCodegen, ALongInnermostReductionVectorizesAlongTheRow) {
  ir::Graph g("pool");
  g.add_output(ir::reduce_sum(ir::input(g, "x", DType::F32, {1, 4, 56, 56}), {2, 3}));
  const kernel::KernelProgram p = fused(g);
  ASSERT_EQ(p.kernels.size(), 1u);
  const std::string text = lower::emit_llvm_ir(p, {});
  EXPECT_EQ(text.find("masked.gather"), std::string::npos);
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(load <(8|16) x float>)"))) << text;
  expect_jit_matches_reference(g, p, 9);
}

// A sum over an outer axis (a permute fused into it) keeps one accumulator
// per column and walks the reduction outside the column loop, which
// vectorizes (kernel::host_reduces_down_columns); the plain form gathered each
// column down the rows (exp into a sum of [4,32,64] over its middle axis:
// 5.7 us so, 3.4 down the columns, 2026-11-29, one thread).
TEST(HostCodegen, SumsOverAnOuterAxisRunDownTheColumnsVectorized) {
  ir::Graph g("perm_then_reduce");
  auto x = ir::input(g, "x", DType::F32, {4, 32, 64});
  g.add_output(ir::reduce_sum(ir::exp(ir::permute(x, {0, 2, 1})), {2}));
  const kernel::KernelProgram p = fused(g);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_TRUE(kernel::host_reduces_down_columns(p.kernels[0]));
  const std::string text = lower::emit_llvm_ir(p, {});
  EXPECT_NE(text.find("column_accumulators"), std::string::npos);
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(load <(8|16) x float>)"))) << text;
  EXPECT_FALSE(std::regex_search(text, std::regex(R"(masked\.gather)"))) << text;
  expect_jit_matches_reference(g, p, 5);
}

// Which kernels reduce down their columns, and that each computes what the
// reference does: sums and maxes over outer axes, two reduction axes, two
// reduces with an epilogue, 16-bit floats and integers, a pad along the row;
// not a sum along the row, nor a float sum of more than 256 steps per column.
TEST(HostCodegen, ReductionsDownTheColumnsMatchTheReference) {
  struct Case {
    std::string name;
    std::function<ir::Tensor(ir::Graph&)> build;
    bool down_columns;
  };
  const std::vector<Case> cases = {
      {"sum over the middle axis",
       [](ir::Graph& g) { return ir::reduce_sum(ir::input(g, "x", DType::F32, {6, 40, 70}), {1}); }, true},
      {"max over 300 rows",
       [](ir::Graph& g) { return ir::reduce_max(ir::input(g, "x", DType::F32, {2, 300, 70}), {1}); }, true},
      {"two reduction axes",
       [](ir::Graph& g) { return ir::reduce_sum(ir::input(g, "x", DType::F32, {3, 5, 6, 40}), {1, 2}); }, true},
      {"sum and max with an epilogue",
       [](ir::Graph& g) {
         auto x = ir::input(g, "x", DType::F32, {3, 20, 33});
         return ir::reduce_sum(x, {1}) - ir::exp(ir::reduce_max(x, {1}));
       },
       true},
      {"bf16", [](ir::Graph& g) { return ir::reduce_sum(ir::input(g, "x", DType::BF16, {3, 50, 48}), {1}); }, true},
      {"f16", [](ir::Graph& g) { return ir::reduce_max(ir::input(g, "x", DType::F16, {3, 50, 48}), {1}); }, true},
      {"i32", [](ir::Graph& g) { return ir::reduce_sum(ir::input(g, "x", DType::I32, {3, 500, 17}), {1}); }, true},
      {"pad along the row",
       [](ir::Graph& g) {
         return ir::reduce_sum(ir::pad(ir::input(g, "x", DType::F32, {3, 30, 40}), {0, 0, 3}, {0, 0, 5}, 1.5), {1});
       },
       true},
      {"sum along the row",
       [](ir::Graph& g) { return ir::reduce_sum(ir::input(g, "x", DType::F32, {6, 40, 70}), {2}); }, false},
      {"float sum of 300 steps",
       [](ir::Graph& g) { return ir::reduce_sum(ir::input(g, "x", DType::F32, {2, 300, 70}), {1}); }, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ir::Graph g("down_columns");
    g.add_output(c.build(g));
    const kernel::KernelProgram p = fused(g);
    bool down_columns = false;
    for (const kernel::Kernel& k : p.kernels) down_columns = down_columns || kernel::host_reduces_down_columns(k);
    EXPECT_EQ(down_columns, c.down_columns);
    expect_jit_matches_reference(g, p, 7);
  }
}

// The most f32 vector stores in one basic block of optimized LLVM IR text.
int most_vector_stores_in_a_block(const std::string& ir_text) {
  int most = 0, in_block = 0;
  std::istringstream lines(ir_text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] != ' ' && line.find(':') != std::string::npos) in_block = 0;  // a block's label
    if (std::regex_search(line, std::regex(R"(^\s+store <(4|8|16) x float>)"))) most = std::max(most, ++in_block);
  }
  return most;
}

// Chains of math calls run in row stages (kernel::host_row_stages): a call
// that feeds another is computed along the row into a row buffer first. Which
// kernels do, how many passes, and that each computes what the reference does:
// chains of two and three calls, rows of 8 (merged), a row of 40 (none), a
// transposing read (none), calls side by side (none), a rank-1 space of two
// chunks, a concat and a pad along the row (column segments), a concat across
// rows (a version per row), bf16, and a sum (none).
TEST(HostCodegen, ChainsOfMathCallsRunInRowStagesThatMatchTheReference) {
  struct Case {
    std::string name;
    std::function<ir::Tensor(ir::Graph&)> build;
    size_t passes;
  };
  const std::vector<Case> cases = {
      {"exp of sigmoid",
       [](ir::Graph& g) {
         auto y = ir::exp(ir::sigmoid(ir::input(g, "x", DType::F32, {8, 64, 32})));
         return y * y;
       },
       1},
      {"three calls and the input again",
       [](ir::Graph& g) {
         auto x = ir::input(g, "x", DType::F32, {5, 3, 40});
         return ir::tanh(ir::exp(ir::sin(x)) * x) + x;
       },
       2},
      {"rows of 8, merged into one of 400",
       [](ir::Graph& g) { return ir::exp(ir::sigmoid(ir::input(g, "x", DType::F32, {50, 8}))); }, 1},
      {"a row of 40", [](ir::Graph& g) { return ir::exp(ir::sigmoid(ir::input(g, "x", DType::F32, {40}))); }, 0},
      {"a transposing read",
       [](ir::Graph& g) { return ir::exp(ir::sigmoid(ir::permute(ir::input(g, "x", DType::F32, {64, 80}), {1, 0}))); },
       0},
      {"calls side by side",
       [](ir::Graph& g) {
         auto x = ir::input(g, "x", DType::F32, {6, 70});
         return ir::sin(x) + ir::cos(x);
       },
       0},
      {"rank 1, two chunks", [](ir::Graph& g) { return ir::exp(ir::tanh(ir::input(g, "x", DType::F32, {5000}))); }, 1},
      {"concat along the row",
       [](ir::Graph& g) {
         auto c = ir::concat({ir::input(g, "a", DType::F32, {4, 40}), ir::input(g, "b", DType::F32, {4, 60})}, 1);
         return ir::exp(ir::sigmoid(c));
       },
       1},
      {"pad along the row",
       [](ir::Graph& g) {
         auto padded = ir::pad(ir::input(g, "x", DType::F32, {3, 100}), {0, 3}, {0, 5}, 1.5);
         return ir::log(ir::exp(padded) + ir::input(g, "y", DType::F32, {3, 108}));
       },
       1},
      {"concat across rows (a version per row)",
       [](ir::Graph& g) {
         auto c = ir::concat({ir::input(g, "a", DType::F32, {2, 80}), ir::input(g, "b", DType::F32, {3, 80})}, 0);
         return ir::cos(ir::sigmoid(c));
       },
       1},
      {"bf16", [](ir::Graph& g) { return ir::sin(ir::cos(ir::input(g, "x", DType::BF16, {3, 100}))); }, 1},
      {"a sum", [](ir::Graph& g) { return ir::reduce_sum(ir::exp(ir::exp(ir::input(g, "x", DType::F32, {6, 70}))), {1}); }, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ir::Graph g("row_stages");
    g.add_output(c.build(g));
    const kernel::KernelProgram p = fused(g);
    ASSERT_EQ(p.kernels.size(), 1u);
    EXPECT_EQ(kernel::host_row_stages(p.kernels[0], p.buffers).size(), c.passes);
    const std::string text = lower::emit_llvm_ir(p, {});
    EXPECT_EQ(text.find("row_stage") != std::string::npos, c.passes > 0);
    if (c.passes > 0) {
      EXPECT_TRUE(std::regex_search(text, std::regex(R"(store <(4|8|16) x (float|bfloat|i16)>)"))) << text;
    }
    // Each pass's loop takes four vectors an iteration (LoopHint::kStagedPass):
    // one at a time, the staged chain ran slower than its calls unfused.
    if (c.name == "exp of sigmoid") {
      EXPECT_GE(most_vector_stores_in_a_block(text), 4) << text;
    }
    expect_jit_matches_reference(g, p, 11);
  }
}

TEST(HostCodegen, KernelsOfManyInputsStayVectorized) {
  ir::Graph g("sines");
  ir::Tensor sum = ir::sin(ir::input(g, "a0", DType::F32, {256}));
  for (int i = 1; i < 400; ++i) sum = sum + ir::sin(ir::input(g, "a" + std::to_string(i), DType::F32, {256}));
  g.add_output(sum);
  smelt::FuseOptions options;
  options.threads = 1;
  const smelt::FusionResult r = smelt::fuse(g, options);
  for (const kernel::Kernel& k : r.after.kernels) {
    size_t loads = 0;
    for (const kernel::KernelExpr& e : k.exprs) loads += e.kind == kernel::KernelExpr::Kind::kLoad;
    EXPECT_LE(loads, 194u) << k.name;
  }
  const std::string text = lower::emit_llvm_ir(r.after, {});
  // Each function of code, up to the next definition: the kernels' and the
  // shared bodies' (a kernel that calls a shared body holds no loop).
  size_t kernels = 0;
  for (size_t at = text.find("\ndefine "); at != std::string::npos;) {
    const size_t next = text.find("\ndefine ", at + 1);
    const std::string function = text.substr(at, next == std::string::npos ? std::string::npos : next - at);
    at = next;
    const bool kernel = function.find("@smelt_k") < function.find('(');
    kernels += kernel;
    const bool body = function.find("@smelt_body") < function.find('(');
    const bool calls_a_body = function.find("void @smelt_body", function.find('(')) != std::string::npos;
    if ((!kernel && !body) || calls_a_body) continue;
    EXPECT_TRUE(function.find("x float>") != std::string::npos) << function.substr(0, 200);
  }
  EXPECT_EQ(kernels, r.after.kernels.size());
  expect_jit_matches_reference(g, r.after, 4);
}

TEST(HostCodegen, ObjectFileAndAssemblyCarryEveryKernelSymbol) {
  ir::Graph g("two");
  auto x = ir::input(g, "x", DType::F32, {8, 8});
  g.add_output(ir::exp(x));
  g.add_output(ir::reduce_sum(x, {0}));
  const kernel::KernelProgram p = fusion::kernelize_program(g, fusion::materialize_everything(g));
  ASSERT_GE(p.kernels.size(), 2u);
  const std::vector<uint8_t> object = lower::emit_binary(p, {});
  ASSERT_GT(object.size(), 4u);
  EXPECT_EQ(std::string(object.begin(), object.begin() + 4), "\x7f" "ELF");
  const std::string object_text(object.begin(), object.end());
  const std::string assembly = lower::emit_assembly(p, {});
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    EXPECT_NE(object_text.find(lower::kernel_symbol(p, k)), std::string::npos);
    EXPECT_NE(assembly.find(lower::kernel_symbol(p, k) + ":"), std::string::npos);
  }
}

TEST(HostCodegen, NamedCpuIsHonoured) {
  lower::TargetOptions options;
  options.arch = "x86-64";  // baseline SSE2: 4-wide vectors at most
  const std::string text = lower::emit_llvm_ir(elementwise_chain(), options);
  EXPECT_NE(text.find("\"target-cpu\"=\"x86-64\""), std::string::npos);
  EXPECT_EQ(text.find("<16 x float>"), std::string::npos);
}

TEST(HostCodegen, ParallelUnitsAreRowsOrChunks) {
  kernel::Kernel k;
  k.space = {3, 4, 5};
  EXPECT_EQ(lower::parallel_units(k), 12);
  k.space = {};
  EXPECT_EQ(lower::parallel_units(k), 1);
  k.space = {lower::kHostRank1Chunk * 2 + 1};
  EXPECT_EQ(lower::parallel_units(k), 3);
  k.space = {0};
  EXPECT_EQ(lower::parallel_units(k), 0);
  k.space = {7, 0};
  EXPECT_EQ(lower::parallel_units(k), 7);
}

TEST(HostCodegen, KernelSymbolsAreUniqueAndAssemblerSafe) {
  kernel::KernelProgram p;
  p.kernels.resize(2);
  p.kernels[0].name = "a.b c";
  p.kernels[1].name = "a.b c";
  EXPECT_EQ(lower::kernel_symbol(p, 0), "smelt_k0_a_b_c");
  EXPECT_NE(lower::kernel_symbol(p, 0), lower::kernel_symbol(p, 1));
  EXPECT_THROW(lower::kernel_symbol(p, 2), lower::LowerError);
}

TEST(HostCodegen, BadInputsAreClearErrors) {
  kernel::KernelProgram broken = elementwise_chain();
  broken.kernels[0].exprs[0].buffer = 99;
  EXPECT_THROW(lower::HostJit::compile(broken), lower::LowerError);
  EXPECT_THROW(lower::emit_llvm_ir(broken, {}), lower::LowerError);
  lower::TargetOptions unknown_cpu;
  unknown_cpu.arch = "no-such-cpu";
  try {
    lower::emit_assembly(elementwise_chain(), unknown_cpu);
    ADD_FAILURE() << "an unknown CPU was accepted";
  } catch (const lower::LowerError& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-cpu"), std::string::npos) << e.what();
  }
  const auto jit = lower::HostJit::compile(elementwise_chain());
  EXPECT_EQ(jit->num_kernels(), 1u);
  EXPECT_THROW(jit->kernel(1), lower::LowerError);
  lower::TargetOptions host;
  EXPECT_THROW(lower::launch_config(elementwise_chain().kernels[0], host), lower::LowerError);
  lower::TargetOptions bad_gpu;
  bad_gpu.target = lower::Target::kCuda;
  bad_gpu.arch = "sm_1";
  EXPECT_THROW(lower::emit_assembly(elementwise_chain(), bad_gpu), lower::LowerError);
}

}  // namespace
}  // namespace smelt
