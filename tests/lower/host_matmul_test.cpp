// The host's tiled contraction (lower/host_matmul.cpp) against the reference
// interpreter: odd sizes around the micro-tile and the cache blocks, batched
// and broadcast batches, f16 / bf16 inputs, a prologue on A, a bias + silu
// epilogue, a contraction group (two gemms sharing A) and a transposed B; each
// run as one call and split into calls of a few rows (ranges that cross batch
// elements). Integer matmuls are left to the straightforward loop.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <tuple>

#include "ir/builder.h"
#include "kernel/host_plan.h"
#include "ir/interpreter.h"
#include "fusion/kernelize.h"
#include "ir/tensor_compare.h"
#include "lower/host_matmul.h"
#include "lower/host_target.h"
#include "lower/lower.h"
#include "tests/lower/jit_runner.h"

namespace smelt {
namespace {

using smelt::testing::run_on_host_jit;

std::vector<ir::HostTensor> random_inputs(const ir::Graph& g, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ir::HostTensor> inputs;
  for (ir::ValueId v : g.inputs()) inputs.push_back(ir::random_tensor(g.type(v), rng));
  return inputs;
}

using testing::uses_tiled_contraction;

// Lowers g with maximal fusion (one contraction kernel), checks that the tiled
// path compiles it, and compares the JIT's outputs with the reference, run as
// one call per kernel and as calls of `rows_per_call` units.
void expect_matches_reference(const ir::Graph& g, int64_t rows_per_call = 3, bool tiled = true) {
  const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_outputs(g));
  ASSERT_EQ(program.kernels.size(), 1u) << kernel::print_program(program);
  EXPECT_EQ(uses_tiled_contraction(program), tiled);
  const std::vector<ir::HostTensor> inputs = random_inputs(g, 11);
  const ir::Reference want = ir::interpret_with_error_scales(g, inputs);
  EXPECT_EQ(ir::compare_outputs(want, run_on_host_jit(program, inputs)), "") << g.name();
  EXPECT_EQ(ir::compare_outputs(want, run_on_host_jit(program, inputs, rows_per_call)), "")
      << g.name() << ", " << rows_per_call << " rows per call";
}

struct Sizes {
  int64_t m, k, n;
};

class TiledMatmulSizes : public ::testing::TestWithParam<Sizes> {};

TEST_P(TiledMatmulSizes, PlainF32MatchesTheReference) {
  const auto [m, k, n] = GetParam();
  ir::Graph g("matmul_" + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
  auto a = ir::input(g, "a", ir::DType::F32, {m, k});
  auto b = ir::input(g, "b", ir::DType::F32, {k, n});
  g.add_output(ir::matmul(a, b));
  // One column runs as the plain loop (kernel::host_tiled_contraction).
  expect_matches_reference(g, 5, /*tiled=*/n > 1);
}

// Edges of the 12×32 micro-tile, K above the 512-deep K block (partial sums in
// the scratch), rows over the 192-row A block, columns over the 2048-wide B block.
INSTANTIATE_TEST_SUITE_P(Sizes, TiledMatmulSizes,
                         ::testing::Values(Sizes{1, 1, 1}, Sizes{7, 33, 65}, Sizes{65, 130, 7}, Sizes{130, 65, 33},
                                           Sizes{33, 7, 130}, Sizes{1, 130, 1}, Sizes{9, 700, 33},
                                           Sizes{200, 17, 40}, Sizes{3, 5, 2100}, Sizes{17, 1000, 35}),
                         [](const auto& sizes) {
                           return std::to_string(sizes.param.m) + "x" + std::to_string(sizes.param.k) + "x" +
                                  std::to_string(sizes.param.n);
                         });

TEST(TiledMatmul, BatchedMatchesTheReference) {
  ir::Graph g("batched");
  auto a = ir::input(g, "a", ir::DType::F32, {2, 3, 7, 33});
  auto b = ir::input(g, "b", ir::DType::F32, {2, 3, 33, 65});
  g.add_output(ir::matmul(a, b));
  expect_matches_reference(g, 5);  // calls of 5 rows cross the 7-row batch elements
}

TEST(TiledMatmul, BroadcastBatchMatchesTheReference) {
  ir::Graph g("broadcast_batch");
  auto a = ir::input(g, "a", ir::DType::F32, {4, 9, 33});
  auto b = ir::input(g, "b", ir::DType::F32, {33, 40});
  g.add_output(ir::matmul(a, b));
  expect_matches_reference(g, 4);
}

TEST(TiledMatmul, RowsOverSeveralChunksMatchTheReference) {
  // 800 flat rows (two batch elements sharing B) pass over B in two chunks;
  // K above the K block keeps partial sums in the scratch.
  ir::Graph g("chunks");
  auto a = ir::input(g, "a", ir::DType::F32, {2, 400, 590});
  auto b = ir::input(g, "b", ir::DType::F32, {590, 17});
  g.add_output(ir::matmul(a, b));
  expect_matches_reference(g, 300);
}

TEST(TiledMatmul, HalfInputsMatchTheReference) {
  for (ir::DType t : {ir::DType::BF16, ir::DType::F16}) {
    ir::Graph g(std::string("half_") + (t == ir::DType::BF16 ? "bf16" : "f16"));
    auto a = ir::input(g, "a", t, {33, 130});
    auto b = ir::input(g, "b", t, {130, 65});
    g.add_output(ir::matmul(a, b));
    expect_matches_reference(g);
  }
}

TEST(TiledMatmul, PrologueOnAMatchesTheReference) {
  ir::Graph g("prologue");
  auto a = ir::input(g, "a", ir::DType::BF16, {65, 130});
  auto b = ir::input(g, "b", ir::DType::F32, {130, 33});
  g.add_output(ir::matmul(ir::exp(ir::cast(a, ir::DType::F32)), b));
  expect_matches_reference(g);
}

TEST(TiledMatmul, TransposedBMatchesTheReference) {
  ir::Graph g("transposed_b");
  auto a = ir::input(g, "a", ir::DType::F32, {33, 65});
  auto bt = ir::input(g, "bt", ir::DType::F32, {70, 65});
  g.add_output(ir::matmul(a, ir::permute(bt, {1, 0})));
  expect_matches_reference(g);
}

TEST(TiledMatmul, TransposedAMatchesTheReference) {
  // A[m, k] = at[k, m]: k is not A's contiguous axis, so A is packed.
  ir::Graph g("transposed_a");
  auto at = ir::input(g, "at", ir::DType::F32, {65, 33});
  auto b = ir::input(g, "b", ir::DType::F32, {65, 70});
  g.add_output(ir::matmul(ir::permute(at, {1, 0}), b));
  expect_matches_reference(g);
}

TEST(TiledMatmul, HeadSplitAReadInPlaceMatchesTheReference) {
  // Attention's p @ v shape: A[h, m, k] = x[m, h·40 + k] (rows permuted, k
  // contiguous) is read in place; 13 rows leave a partial micro-tile per
  // head, K = 600 crosses the K block, calls of 5 rows cross heads.
  ir::Graph g("head_split_a");
  auto x = ir::input(g, "x", ir::DType::F32, {13, 3 * 600});
  auto b = ir::input(g, "b", ir::DType::F32, {3, 600, 17});
  auto heads = ir::permute(ir::reshape(x, {13, 3, 600}), {1, 0, 2});
  g.add_output(ir::matmul(heads, b));
  expect_matches_reference(g, 5);
}

TEST(TiledMatmul, AOneByOneConvolutionReadsItsWeightsInPlace) {
  // A 1x1 convolution as the rules write it: weights [M, C, 1, 1] as the
  // matrix A (trailing unit axes), the input's 7x7 map flattened into N = 49
  // columns. A is read in place: one buffer is allocated per call, B's.
  // Packing A too made [960, 160] @ [160, 49] 1.25x slower (183 us against
  // 147 for the same MatMul, 2026-11-29, one thread).
  ir::Graph g("conv1x1_as_matmul");
  auto w = ir::input(g, "w", ir::DType::F32, {40, 96, 1, 1});
  auto x = ir::input(g, "x", ir::DType::F32, {1, 96, 7, 7});
  g.add_output(ir::matmul(ir::reshape(w, {1, 40, 96}), ir::reshape(x, {1, 96, 49})));
  expect_matches_reference(g, 5);
  const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_outputs(g));
  const std::string ir_text = lower::emit_llvm_ir(program, {});
  size_t allocations = 0;
  for (size_t at = ir_text.find("@aligned_alloc(i64 64"); at != std::string::npos;
       at = ir_text.find("@aligned_alloc(i64 64", at + 1))
    ++allocations;
  EXPECT_EQ(allocations, 1u) << "A packed per call, not read in place";
}

// A convolution whose epilogue reads a residual runs its blocks row tile by
// row tile, each across every column panel (lower::contraction_rows_outer);
// a bias alone, or a packed B block past kRowsOuterMaxBBlockBytes, keeps the
// column panel outside. Each computes what the reference does, over row tiles
// and column panels cut short (40 rows, 81 or 1,600 columns) and in calls of
// 7 rows.
TEST(TiledMatmul, AResidualEpilogueRunsRowTileByRowTile) {
  struct Case {
    const char* name;
    int64_t channels_in, side;
    bool residual, rows_outer;
  };
  for (const Case& c : {Case{"residual", 24, 9, true, true}, Case{"bias alone", 24, 9, false, false},
                        Case{"residual, B block of 512 x 1,600 floats", 512, 40, true, false}}) {
    SCOPED_TRACE(c.name);
    ir::Graph g("conv1x1_epilogue");
    auto x = ir::input(g, "x", ir::DType::F32, {1, c.channels_in, c.side, c.side});
    auto w = ir::input(g, "w", ir::DType::F32, {40, c.channels_in, 1, 1});
    auto b = ir::input(g, "b", ir::DType::F32, {1, 40, 1, 1});
    auto y = ir::add(ir::conv(x, w, {}), ir::broadcast(b, {1, 40, c.side, c.side}));
    if (c.residual) y = ir::add(y, ir::input(g, "residual", ir::DType::F32, {1, 40, c.side, c.side}));
    g.add_output(ir::relu(y));
    expect_matches_reference(g, 7);
    const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_outputs(g));
    const std::optional<lower::ContractionPlan> plan = lower::plan_host_contraction(program, program.kernels[0]);
    ASSERT_TRUE(plan);
    EXPECT_EQ(plan->rows_outer, c.rows_outer);
    EXPECT_EQ(lower::contraction_rows_outer(program.kernels[0], *plan), c.rows_outer);
  }
}

TEST(TiledMatmul, TwoProductsOfFewRowsPackShortKBlocks) {
  // Two products sharing A over 8 rows, B inputs packed on every call: K
  // blocks of lower::kGroupFewRowsKc = 128 (four blocks of K = 512, the
  // partial sums carried between them), so the per-call packed block is
  // 2 x 128 x 256 floats; at 512 the group ran 94 us against 68 (2026-11-29).
  ir::Graph g("group_of_few_rows");
  auto a = ir::input(g, "a", ir::DType::F32, {8, 512});
  auto b1 = ir::input(g, "b1", ir::DType::F32, {512, 256});
  auto b2 = ir::input(g, "b2", ir::DType::F32, {512, 256});
  g.add_output(ir::mul(ir::matmul(a, b1), ir::gelu(ir::matmul(a, b2))));
  expect_matches_reference(g, 3);
  const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_outputs(g));
  ASSERT_EQ(program.kernels.size(), 1u);
  const std::string ir_text = lower::emit_llvm_ir(program, {});
  EXPECT_NE(ir_text.find("@aligned_alloc(i64 64, i64 " + std::to_string(2 * 128 * 256 * 4) + ")"), std::string::npos)
      << "B packed in K blocks of 512";
}

// The micro-kernel fits the target's vector registers: AVX-512's 32 zmm take
// 12 x 32 tiles (24 accumulators), AVX2's 16 ymm 6 x 16 (12 ymm accumulators:
// the 12 x 32 tile spilled there, a dot-slice group ran 2.9x slower on an AMD
// EPYC); a group of two products over 8 rows both terms at once in 6 x 32
// with AVX-512, one term per pass in 6 x 16 with AVX2 (both at once would be
// 2 x 16). Every pass leaves a register for A's broadcast and its B vectors.
TEST(TiledMatmul, RegisterBlockingFitsTheTargetsVectorRegisters) {
  EXPECT_EQ(lower::host_vector_registers(*lower::host_target_machine("skylake-avx512")).count, 32);
  EXPECT_EQ(lower::host_vector_registers(*lower::host_target_machine("skylake-avx512")).floats, 16);
  EXPECT_EQ(lower::host_vector_registers(*lower::host_target_machine("znver3")).count, 16);
  EXPECT_EQ(lower::host_vector_registers(*lower::host_target_machine("znver3")).floats, 8);
  auto tiles = [](const ir::Graph& g, lower::VectorRegisters registers) {
    const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_outputs(g));
    EXPECT_EQ(program.kernels.size(), 1u);
    lower::ContractionTiles wanted;
    wanted.registers = registers;
    const std::optional<lower::ContractionPlan> plan =
        lower::plan_host_contraction(program, program.kernels[0], wanted);
    EXPECT_TRUE(plan.has_value());
    if (!plan) return std::tuple<int, int, int>{0, 0, 0};
    const int per_vector = 16 / registers.floats, nv = plan->tiles.nr / 16;
    const bool all_at_once = plan->tiles.terms_per_pass == 0;
    const int terms = all_at_once ? static_cast<int>(plan->terms.size()) : plan->tiles.terms_per_pass;
    const int b_sides = all_at_once ? static_cast<int>(plan->b_sides.size()) : plan->tiles.terms_per_pass;
    const int used = terms * plan->tiles.mr * nv * per_vector + b_sides * nv * per_vector + 1;
    EXPECT_LE(used, registers.count) << plan->tiles.mr << " x " << plan->tiles.nr;
    return std::tuple<int, int, int>{plan->tiles.mr, plan->tiles.nr, plan->tiles.terms_per_pass};
  };
  ir::Graph plain("plain");
  plain.add_output(ir::matmul(ir::input(plain, "a", ir::DType::F32, {64, 256}),
                              ir::input(plain, "b", ir::DType::F32, {256, 256})));
  EXPECT_EQ(tiles(plain, {32, 16}), std::make_tuple(12, 32, 0));
  EXPECT_EQ(tiles(plain, {16, 8}), std::make_tuple(6, 16, 0));
  ir::Graph group("group");
  auto a = ir::input(group, "a", ir::DType::F32, {8, 512});
  group.add_output(ir::mul(ir::matmul(a, ir::input(group, "b1", ir::DType::F32, {512, 256})),
                           ir::gelu(ir::matmul(a, ir::input(group, "b2", ir::DType::F32, {512, 256})))));
  EXPECT_EQ(tiles(group, {32, 16}), std::make_tuple(6, 32, 0));
  EXPECT_EQ(tiles(group, {16, 8}), std::make_tuple(6, 16, 1));
}

TEST(TiledMatmul, EpilogueOverPartialColumnTilesMatchesTheReference) {
  // A vectorized epilogue (scale, tanh) over 70 columns: two full 32-column
  // tiles and one of 6.
  ir::Graph g("epilogue_columns");
  auto a = ir::input(g, "a", ir::DType::F32, {25, 40});
  auto b = ir::input(g, "b", ir::DType::F32, {40, 70});
  auto scale = ir::broadcast(ir::constant(g, 0.125), {25, 70});
  g.add_output(ir::tanh(ir::div(ir::matmul(a, b), scale)));
  expect_matches_reference(g);
}

TEST(TiledMatmul, BiasSiluEpilogueMatchesTheReference) {
  ir::Graph g("bias_silu");
  auto a = ir::input(g, "a", ir::DType::F32, {130, 65});
  auto b = ir::input(g, "b", ir::DType::F32, {65, 33});
  auto bias = ir::input(g, "bias", ir::DType::F32, {33});
  auto z = ir::matmul(a, b) + ir::broadcast(bias, {130, 33});
  g.add_output(z * ir::sigmoid(z));
  expect_matches_reference(g, 7);
}

TEST(TiledMatmul, ContractionGroupSharingAMatchesTheReference) {
  ir::Graph g("swiglu");
  auto x = ir::input(g, "x", ir::DType::F32, {65, 130});
  auto gate = ir::input(g, "gate", ir::DType::F32, {130, 33});
  auto up = ir::input(g, "up", ir::DType::F32, {130, 33});
  auto a = ir::matmul(x, up);
  auto b = ir::matmul(x, gate);
  g.add_output(a * (b * ir::sigmoid(b)));
  expect_matches_reference(g, 9);
}

TEST(TiledMatmul, ContractionGroupSharingBMatchesTheReference) {
  // Two A sides and one B side: a 7-row micro-tile (AVX-512's register budget; AVX2's: 3).
  ir::Graph g("shared_b");
  auto x1 = ir::input(g, "x1", ir::DType::F32, {65, 300});
  auto x2 = ir::input(g, "x2", ir::DType::F32, {65, 300});
  auto w = ir::input(g, "w", ir::DType::F32, {300, 40});
  g.add_output(ir::matmul(x1, w) - ir::matmul(ir::tanh(x2), w));
  expect_matches_reference(g, 10);
}

TEST(TiledMatmul, Bf16ContractionGroupWithKBlocksMatchesTheReference) {
  ir::Graph g("swiglu_bf16");
  auto x = ir::input(g, "x", ir::DType::BF16, {2, 9, 650});
  auto gate = ir::input(g, "gate", ir::DType::BF16, {650, 40});
  auto up = ir::input(g, "up", ir::DType::BF16, {650, 40});
  auto a = ir::matmul(x, up);
  auto b = ir::matmul(x, gate);
  g.add_output(a * (b * ir::sigmoid(b)));
  expect_matches_reference(g, 4);
}

// Weights (B sides reading only constants) are packed once, by the first call,
// into the module: the first call on four threads at once (one packs, the
// others wait), and later calls reading the packed copy, all match the
// reference. K above the K block and N above the N block: several packed
// blocks; few rows: the threads split the column blocks.
TEST(TiledMatmul, ConstantWeightsArePackedOnceAndShared) {
  const int64_t m = 37, k = 600, n = 4200;  // few rows: 5 column blocks of 1024 (2048 over two B sides), too
  std::mt19937_64 rng(41);
  std::normal_distribution<double> normal;
  ir::Graph g("constant_weights");
  auto weights = [&] {
    std::vector<double> w(static_cast<size_t>(k * n));
    for (double& v : w) v = normal(rng);
    return ir::constant(g, w, ir::DType::F32, {k, n});
  };
  auto x = ir::input(g, "x", ir::DType::F32, {m, k});
  auto gate = ir::matmul(x, weights()), up = ir::matmul(x, ir::neg(weights()));  // a prologue on B too
  g.add_output(ir::sigmoid(gate) * up);
  const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_outputs(g));
  ASSERT_EQ(program.kernels.size(), 1u) << kernel::print_program(program);
  const std::string ir_text = lower::emit_llvm_ir(program, {});
  EXPECT_NE(ir_text.find(".packed_b"), std::string::npos);
  const std::vector<ir::HostTensor> inputs = random_inputs(g, 12);
  const ir::Reference want = ir::interpret_with_error_scales(g, inputs);

  const auto jit = lower::HostJit::compile(program);
  std::vector<std::vector<uint8_t>> storage;
  for (const kernel::Buffer& b : program.buffers)
    storage.push_back(b.kind == kernel::BufferKind::kInput      ? smelt::testing::to_bytes(inputs.at(0))
                      : b.kind == kernel::BufferKind::kConstant ? smelt::testing::to_bytes(ir::HostTensor::from_values(b.type, b.values))
                                                            : smelt::testing::to_bytes(ir::HostTensor::zeros(b.type)));
  std::vector<void*> pointers;
  for (auto& bytes : storage) pointers.push_back(bytes.data());
  const int64_t units = lower::parallel_units(program.kernels[0]);
  EXPECT_EQ(units, 5 * m);
  for (int call = 0; call < 3; ++call) {
    std::vector<std::thread> threads;
    for (int64_t t = 0; t < 4; ++t)
      threads.emplace_back([&, t] { jit->kernel(0)(pointers.data(), units * t / 4, units * (t + 1) / 4); });
    for (std::thread& thread : threads) thread.join();
    for (size_t b = 0; b < program.buffers.size(); ++b)
      if (program.buffers[b].kind == kernel::BufferKind::kOutput) {
        EXPECT_EQ(ir::compare_outputs(want, {smelt::testing::from_bytes(program.buffers[b].type, storage[b])}), "")
            << "call " << call;
        storage[b].assign(storage[b].size(), 0);
      }
  }
}

TEST(TiledMatmul, IntegerMatmulKeepsTheExactLoop) {
  ir::Graph g("matmul_i32");
  auto a = ir::input(g, "a", ir::DType::I32, {7, 33});
  auto b = ir::input(g, "b", ir::DType::I32, {33, 9});
  g.add_output(ir::matmul(a, b));
  expect_matches_reference(g, 3, /*tiled=*/false);
}

// Few rows, many columns (kernel::host_column_blocks): the units are rows of
// column blocks of 2048 (the last one partial), block-major; calls of 4 units
// start and end inside blocks, and in the middle of another block's rows.
TEST(TiledMatmul, FewRowsSplitByColumnBlocksMatchTheReference) {
  ir::Graph g("few_rows");
  auto a = ir::input(g, "a", ir::DType::F32, {1, 7, 40});
  auto b = ir::input(g, "b", ir::DType::F32, {40, 4200});
  g.add_output(ir::sigmoid(ir::matmul(a, b)));
  const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_outputs(g));
  ASSERT_EQ(program.kernels.size(), 1u);
  EXPECT_EQ(kernel::host_column_blocks(program.kernels[0]), 3);
  EXPECT_EQ(lower::parallel_units(program.kernels[0]), 3 * 7);
  expect_matches_reference(g, 4);
  // The exact loop (integers) walks the same units.
  ir::Graph gi("few_rows_i32");
  auto ai = ir::input(gi, "a", ir::DType::I32, {5, 3});
  auto bi = ir::input(gi, "b", ir::DType::I32, {3, 4100});
  gi.add_output(ir::matmul(ai, bi));
  expect_matches_reference(gi, 4, /*tiled=*/false);
  // Many rows, or a batch: rows only.
  ir::Graph gm("many_rows");
  gm.add_output(ir::matmul(ir::input(gm, "a", ir::DType::F32, {300, 8}), ir::input(gm, "b", ir::DType::F32, {8, 4200})));
  EXPECT_EQ(kernel::host_column_blocks(fusion::kernelize_program(gm, fusion::materialize_outputs(gm)).kernels.at(0)), 1);
  ir::Graph gb("batched_rows");
  gb.add_output(ir::matmul(ir::input(gb, "a", ir::DType::F32, {2, 7, 8}), ir::input(gb, "b", ir::DType::F32, {8, 4200})));
  EXPECT_EQ(kernel::host_column_blocks(fusion::kernelize_program(gb, fusion::materialize_outputs(gb)).kernels.at(0)), 1);
}

}  // namespace
}  // namespace smelt
