// What issue 5 says smelt::fuse must show on the examples: the kernel
// structure each seed is about, outputs equal to the reference interpreter, and
// a predicted time never above the unfused program's.
//
// The structures are checked under a fixed variant of a frozen host profile
// (seed_options, tests/fusion/data/seed_profile.json): 2 threads, chained math
// calls charged what they cost alone, a gemm's prologue nothing beyond its
// ops, and a contraction group what its gemms cost apart. The shipped profile is measured
// (smelt calibrate) and charges both: on this machine ratchet's gelu→exp→cos
// measures faster as three kernels, and the towers' batched gemms, whose
// prologue (a tower's bias + SiLU) is evaluated element by element while
// packing, measure no faster than separate ones — and that is what it picks.
// These tests are about what the rules and the extractor can reach, not about
// one machine's calibration. EveryExample… uses the shipped profile.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

#include "ir/interpreter.h"
#include "kernel/kernel_branches.h"
#include "kernel/kernel_interpreter.h"
#include "ir/text_format.h"
#include "smelt/smelt.h"
#include "tests/fusion/fusion_test_util.h"

namespace smelt::fusion_testing {
namespace {

using kernel::KernelExpr;

// The loads reachable from node `e` through its operands.
std::vector<int> loads_under(const kernel::Kernel& k, int e) {
  std::vector<int> loads, stack{e};
  std::set<int> seen;
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    if (k.exprs[n].kind == KernelExpr::Kind::kLoad) loads.push_back(n);
    for (int operand : k.exprs[n].operands) stack.push_back(operand);
  }
  return loads;
}

int buffer_named(const kernel::KernelProgram& p, const std::string& name) {
  for (size_t b = 0; b < p.buffers.size(); ++b)
    if (p.buffers[b].name == name) return static_cast<int>(b);
  return -1;
}

int count_contractions(const kernel::Kernel& k) {
  int n = 0;
  for (const KernelExpr& e : k.exprs) n += e.kind == KernelExpr::Kind::kReduce && e.contraction;
  return n;
}

// A load's element for the given iteration variables.
std::vector<int64_t> element(const kernel::Kernel& k, const KernelExpr& load, const std::vector<int64_t>& vars) {
  std::vector<int64_t> index;
  for (kernel::IndexRef r : load.index) index.push_back(k.indices.eval(r, vars));
  return index;
}

smelt::FuseOptions seed_options() {
  // A frozen measurement (the shipped profile of 2026-11-24 13:59 UTC, without
  // its samples), so a recalibration of the shipped one does not move these.
  cost::DeviceProfile profile = cost::load_profile(std::string(SMELT_SOURCE_DIR) + "/tests/fusion/data/seed_profile.json", "host");
  for (cost::ThreadRates& r : profile.rates) {
    r.call_chain_factor = {1.0};
    r.prologue_ns = 0;
    r.group_factor = 1;
    r.group_factor_constant_b = 1;  // the file has none: it took group_factor's measured value
  }
  smelt::FuseOptions options;
  options.profile = profile;
  options.threads = 2;
  return options;
}

struct Fused {
  ir::Graph graph;
  smelt::FusionResult result;
  explicit Fused(const std::string& name) : Fused(example(name)) {}
  explicit Fused(ir::Graph g) : graph(std::move(g)), result(smelt::fuse(graph, seed_options())) {}
};

TEST(FusionExamples, LuminalFusionIsOneKernelWithTheConstantAsAnImmediate) {
  Fused f("luminal_fusion");
  EXPECT_EQ(f.result.kernels_after, 1u);
  for (const kernel::Buffer& b : f.result.after.buffers)
    EXPECT_TRUE(b.kind == kernel::BufferKind::kInput || b.kind == kernel::BufferKind::kOutput) << b.name;
  EXPECT_EQ(check_program(f.graph, f.result.after, 1), "");
}

TEST(FusionExamples, LuminalSubexprIsOneKernelComputingExpOnce) {
  Fused f("luminal_subexpr");
  ASSERT_EQ(f.result.kernels_after, 1u);
  EXPECT_EQ(count_ops(f.result.after, ir::Op::Exp), 1) << kernel::print_program(f.result.after);
  EXPECT_EQ(count_ops(f.result.after, ir::Op::Sin), 1);
  EXPECT_EQ(check_program(f.graph, f.result.after, 2), "");
}

TEST(FusionExamples, RatchetPermuteIsOneKernelWithThePermuteAsTheLoadsIndexMap) {
  Fused f("ratchet_permute");
  ASSERT_EQ(f.result.kernels_after, 1u);
  const kernel::Kernel& k = f.result.after.kernels[0];
  int loads = 0;
  for (const KernelExpr& e : k.exprs) {
    if (e.kind != KernelExpr::Kind::kLoad) continue;
    ++loads;
    EXPECT_EQ(element(k, e, {1, 2, 3, 4}), (std::vector<int64_t>{1, 3, 2, 4}));  // y[i0,i1,i2,i3] reads x[i0,i2,i1,i3]
  }
  EXPECT_EQ(loads, 1);
  EXPECT_EQ(f.result.after.buffers.size(), 2u) << "x and y only: no transposed copy";
  EXPECT_EQ(check_program(f.graph, f.result.after, 3), "");
}

TEST(FusionExamples, LuminalSlicePadReadsThePadValueOutsideTheSlice) {
  Fused f("luminal_slice_pad");
  ASSERT_EQ(f.result.kernels_after, 1u);
  EXPECT_EQ(check_program(f.graph, f.result.after, 4), "");
  // x = 0 everywhere: a leaked cos(x[1]) or cos(0) would be 1 in the padded element.
  const ir::HostTensor x = ir::HostTensor::from_values({ir::DType::F32, {8}}, {0.5, 0, 0, 0, 0, 0, 0, 0});
  const ir::HostTensor y = kernel::run_kernels(f.result.after, {x})[0];
  EXPECT_EQ(y.get(0), ir::interpret(f.graph, {x})[0].get(0));
  EXPECT_NEAR(y.get(0), std::cos(0.5), 1e-7);
  EXPECT_EQ(y.get(1), 0.0);
}

// One kernel; each element of h goes through sigmoid exactly once: the
// sigmoid nodes, evaluated over the iteration space, read every element of h
// once and no element twice.
TEST(FusionExamples, MigraphxSiluSlicesIsOneKernelWithOneSigmoidPerElementOfH) {
  Fused f("migraphx_silu_slices");
  ASSERT_EQ(f.result.kernels_after, 1u);
  const kernel::KernelProgram& p = f.result.after;
  const kernel::Kernel& k = p.kernels[0];
  const int h = buffer_named(p, "h");
  ASSERT_GE(h, 0);
  std::multiset<std::vector<int64_t>> read;
  int64_t evaluations = 0;
  for (size_t e = 0; e < k.exprs.size(); ++e) {
    if (k.exprs[e].kind != KernelExpr::Kind::kElementwise || k.exprs[e].op != ir::Op::Sigmoid) continue;
    evaluations += ir::numel(k.space);
    for (int load : loads_under(k, static_cast<int>(e))) {
      ASSERT_EQ(k.exprs[load].buffer, h);
      for (int64_t linear = 0; linear < ir::numel(k.space); ++linear)
        read.insert(element(k, k.exprs[load], {linear / k.space[1], linear % k.space[1]}));
    }
  }
  EXPECT_EQ(evaluations, 32 * 256);
  EXPECT_EQ(read.size(), 32u * 256u);
  EXPECT_EQ(std::set<std::vector<int64_t>>(read.begin(), read.end()).size(), 32u * 256u);
  EXPECT_EQ(check_program(f.graph, f.result.after, 5), "");
}

// The ideal of the seed: 4 gemm kernels instead of 24, one per layer. Layer
// 1's six gemms share x (one contraction group, or one batched [6,32,64] gemm
// reading x); layers 2-4 each become one batched [6,32,64]x[6,64,64] gemm
// whose prologue computes one tower's bias + SiLU per batch element (a version
// per tower, kernel/kernel_branches.h), or one kernel holding the layer's six gemms
// over the same space — the profile decides which (tests/rules/seeds_test
// checks the batched forms are in the e-graph).
TEST(FusionExamples, MigraphxTowersBatchTheirGemms) {
  Fused f("migraphx_mlp_towers");
  int gemm_kernels = 0, gemms = 0, six_gemm_kernels = 0, batched_layer_1 = 0, batched_with_silu = 0;
  for (const kernel::Kernel& k : f.result.after.kernels) {
    gemm_kernels += count_contractions(k) > 0;
    gemms += count_contractions(k);
    six_gemm_kernels += count_contractions(k) == 6;
    // A kernel holds one gemm or one layer's six (same M×N×K space).
    EXPECT_TRUE(count_contractions(k) <= 1 || count_contractions(k) == 6) << kernel::print_program(f.result.after);
    if (count_contractions(k) == 1 && k.space == ir::Shape{6, 32, 64}) {
      const kernel::BranchPlan versions = kernel::plan_branches(k);
      int sigmoids = 0;
      for (size_t i = 0; i < k.exprs.size(); ++i)
        sigmoids += k.exprs[i].kind == KernelExpr::Kind::kElementwise && k.exprs[i].op == ir::Op::Sigmoid;
      if (sigmoids == 0) {
        ++batched_layer_1;  // reads x itself: no prologue
        continue;
      }
      ++batched_with_silu;
      EXPECT_EQ(versions.leaves.size(), 6u) << k.name;
      for (const kernel::BranchPlan::Leaf& leaf : versions.leaves) {
        int live_sigmoids = 0;
        for (size_t i = 0; i < k.exprs.size(); ++i)
          live_sigmoids +=
              leaf.live[i] && k.exprs[i].kind == KernelExpr::Kind::kElementwise && k.exprs[i].op == ir::Op::Sigmoid;
        EXPECT_EQ(live_sigmoids, 1) << k.name;
      }
    }
  }
  std::printf("[ towers   ] %d kernels, %d with gemms (%d gemm nodes), layer 1: %s, %d batched with SiLU prologues\n",
              static_cast<int>(f.result.kernels_after), gemm_kernels, gemms,
              six_gemm_kernels ? "six-gemm group" : "batched", batched_with_silu);
  // Every gemm kernel is one batched gemm or a layer's six gemms.
  EXPECT_EQ(batched_layer_1 + batched_with_silu + six_gemm_kernels, gemm_kernels) << kernel::print_program(f.result.after);
  EXPECT_EQ(gemms, batched_layer_1 + batched_with_silu + 6 * six_gemm_kernels);
  EXPECT_EQ(gemm_kernels, 4);
  // The last layer's six outputs: its batched gemm's members, stored by one
  // epilogue kernel. (Before masks of constants folded, a member sliced out
  // of the stacked operands read every member's buffer under dead masks, which
  // let the six gemms merge into one [32, 64] kernel that stored them: 4.)
  EXPECT_EQ(f.result.kernels_after, 5u) << kernel::print_program(f.result.after);
  EXPECT_LT(f.result.predicted_us_after, f.result.predicted_us_before);
  EXPECT_EQ(check_program(f.graph, f.result.after, 6), "");
}

// 4 towers x 2 layers on a 3-D activation [2,16,64] (exported Linears): each
// layer's four gemms are one kernel, either one batched gemm over the towers
// concatenated along the batch axis ([8,16,64], batch-matmuls-same-shape-
// batched) or, for layer 1, along the columns ([2,16,256]), or one contraction
// group (which one is the cost model's choice);
// without the rank-3 batching rules layer 2 took four kernels (5 in all).
TEST(FusionExamples, RankThreeTowersBatchBothLayers) {
  Fused f(test_graph("towers_3d_4x2"));
  const kernel::KernelProgram& p = f.result.after;
  int gemm_kernels = 0, batched = 0, groups = 0;
  for (const kernel::Kernel& k : p.kernels) {
    const int gemms = count_contractions(k);
    gemm_kernels += gemms > 0;
    // one gemm over the towers stacked on the batch axis, or (layer 1, which
    // reads x itself) on the columns: x @ [W0 W1 W2 W3]
    batched += gemms == 1 && (k.space == ir::Shape{8, 16, 64} || k.space == ir::Shape{2, 16, 256});
    groups += gemms == 4;
  }
  std::printf("[ towers3d ] %zu kernels (unfused %zu), %d batched gemms, %d four-gemm groups\n",
              f.result.kernels_after, f.result.kernels_before, batched, groups);
  EXPECT_LE(f.result.kernels_after, 3u) << kernel::print_program(p);
  EXPECT_EQ(gemm_kernels, 2) << kernel::print_program(p);
  EXPECT_EQ(batched + groups, 2) << "one kernel per layer's four gemms\n" << kernel::print_program(p);
  EXPECT_EQ(check_program(f.graph, p, 12), "");
}

// More towers than the example (10 x 4 layers, 2-D): each layer's ten gemms
// are one gemm (the group rules' instance for 10 members, built from their
// member lemma).
TEST(FusionExamples, TenTowersBatchEveryLayer) {
  Fused f(test_graph("towers_10x4"));
  const kernel::KernelProgram& p = f.result.after;
  int gemm_kernels = 0;
  for (const kernel::Kernel& k : p.kernels) gemm_kernels += count_contractions(k) > 0;
  std::printf("[ towers10 ] %zu kernels (unfused %zu), %d with gemms\n", f.result.kernels_after,
              f.result.kernels_before, gemm_kernels);
  EXPECT_LE(f.result.kernels_after, 5u) << kernel::print_program(p);
  EXPECT_EQ(gemm_kernels, 4) << kernel::print_program(p);
  EXPECT_EQ(check_program(f.graph, p, 13), "");
}

// A 1x1 convolution keeps its bias and ReLU in its own kernel, which the
// 3x3 convolution reads, not recomputed in the 3x3's loop (nine times per
// element). With the shipped profile (as `smelt compile` costs it) the 1x1 is
// taken as a gemm under a reshape; the bias and ReLU move inside the reshape
// (hoist-binary-above-merging-reshape, hoist-unary-above-reshape) and pay
// only with that value stored, two moves at once (improve_choice tries a view
// with the value it views stored). Without that move: the ReLU in the 3x3's loop.
TEST(FusionExamples, AOneByOneConvolutionAsAGemmKeepsItsBiasAndReluInItsKernel) {
  const ir::Graph g = test_graph("conv1x1_bias_relu");
  smelt::FuseOptions options;
  options.threads = 2;
  const smelt::FusionResult r = smelt::fuse(g, options);
  const kernel::KernelProgram& p = r.after;
  ASSERT_EQ(r.kernels_after, 2u) << kernel::print_program(p);
  for (const kernel::Kernel& k : p.kernels) {
    EXPECT_EQ(count_contractions(k), 1) << kernel::print_program(p);
    const bool three_by_three = k.reduction == ir::Shape{144};
    for (const kernel::KernelExpr& e : k.exprs)
      EXPECT_FALSE(three_by_three && e.kind == kernel::KernelExpr::Kind::kElementwise && e.op == ir::Op::Relu)
          << kernel::print_program(p);
  }
  EXPECT_EQ(count_ops(p, ir::Op::Relu), 1);
  EXPECT_EQ(check_program(g, p, 21), "");
}

// Two ResNet bottleneck blocks: every convolution carries its bias and ReLU,
// and each block's last 1x1 convolution its residual add too: six kernels,
// each one convolution, under both shipped host profiles at 1 and 2 threads.
// The fused 1x1 keeps its positions as two column axes; priced as packing
// windows (a padded 3x3's rate), the residual add and ReLU stayed a kernel of
// their own: eight kernels under the AMD EPYC's profile, 12 residual kernels in
// ResNet-50 (kernel::b_columns_are_flat).
TEST(FusionExamples, ResNetBottlenecksCarryBiasReluAndResidualInTheirConvolutions) {
  const ir::Graph g = test_graph("resnet_bottlenecks");
  for (const cost::ShippedProfile& shipped : shipped_host_profiles()) {
    for (unsigned threads : {1u, 2u}) {
      smelt::FuseOptions options;
      options.threads = threads;
      options.profile = shipped.profile;
      const smelt::FusionResult r = smelt::fuse(g, options);
      const kernel::KernelProgram& p = r.after;
      SCOPED_TRACE(shipped.file + ", " + std::to_string(threads) + " threads");
      EXPECT_EQ(r.kernels_after, 6u) << kernel::print_program(p);
      for (const kernel::Kernel& k : p.kernels) EXPECT_EQ(count_contractions(k), 1) << kernel::print_program(p);
      EXPECT_EQ(count_ops(p, ir::Op::Relu), 6);
      if (threads == 1) {
        EXPECT_EQ(check_program(g, p, 5), "");
      }
    }
  }
}

// C = A·B + bias (64×4096) never exists: one kernel, its contraction group
// A × B[:, :2048] and A × B[:, 2048:], bias, sigmoid and mul in the epilogue.
TEST(FusionExamples, MlirDotSliceIsOneDualGemmKernel) {
  Fused f("mlir_dot_slice");
  const kernel::KernelProgram& p = f.result.after;
  for (const kernel::Buffer& b : p.buffers)
    EXPECT_TRUE(b.kind == kernel::BufferKind::kInput || b.kind == kernel::BufferKind::kOutput) << b.name;
  ASSERT_EQ(p.kernels.size(), 1u);
  const kernel::Kernel& k = p.kernels[0];
  EXPECT_EQ(k.space, (ir::Shape{64, 2048}));
  EXPECT_EQ(k.reduction, (ir::Shape{1024}));
  const int b = buffer_named(p, "b");
  std::set<int64_t> column_offsets;
  for (const KernelExpr& e : k.exprs) {
    if (e.kind != KernelExpr::Kind::kReduce) continue;
    EXPECT_TRUE(e.contraction);
    for (int load : loads_under(k, e.operands[0]))
      if (k.exprs[load].buffer == b) column_offsets.insert(element(k, k.exprs[load], {0, 0, 0})[1]);
  }
  EXPECT_EQ(column_offsets, (std::set<int64_t>{0, 2048}));
  EXPECT_EQ(count_ops(p, ir::Op::Sigmoid), 1);
  EXPECT_GE(count_ops(p, ir::Op::Mul), 3) << "two products and the epilogue's mul";
  // The values on the scaled-down copy (M=4, K=8, N=6).
  const ir::Graph small = scaled_example("mlir_dot_slice");
  const smelt::FusionResult fused_small = smelt::fuse(small);
  EXPECT_EQ(fused_small.kernels_after, 1u);
  EXPECT_EQ(check_program(small, fused_small.after, 7), "");
}

// The same pattern as an imported ONNX Linear makes it: a [2,64,128]
// activation times a 2-D [128,256] weight (rank 3 @ rank 2). Gemm splitting
// across ranks gives one kernel whose contraction group reads w's two column
// halves; the [2,64,256] product is never stored.
TEST(FusionExamples, RankThreeDotSliceIsOneDualGemmKernel) {
  Fused f(test_graph("dot_slice_3d"));
  const kernel::KernelProgram& p = f.result.after;
  for (const kernel::Buffer& b : p.buffers)
    EXPECT_TRUE(b.kind == kernel::BufferKind::kInput || b.kind == kernel::BufferKind::kOutput) << b.name;
  ASSERT_EQ(p.kernels.size(), 1u) << kernel::print_program(p);
  const kernel::Kernel& k = p.kernels[0];
  EXPECT_EQ(k.space, (ir::Shape{2, 64, 128}));
  EXPECT_EQ(count_contractions(k), 2);
  const int w = buffer_named(p, "w");
  std::set<int64_t> column_offsets;
  for (const KernelExpr& e : k.exprs) {
    if (e.kind != KernelExpr::Kind::kReduce) continue;
    for (int load : loads_under(k, e.operands[0]))
      if (k.exprs[load].buffer == w) column_offsets.insert(element(k, k.exprs[load], {0, 0, 0, 0})[1]);
  }
  EXPECT_EQ(column_offsets, (std::set<int64_t>{0, 128}));
  std::printf("[ dot3d    ] %zu kernels (unfused %zu), %.1f us (unfused %.1f us)\n", f.result.kernels_after,
              f.result.kernels_before, f.result.predicted_us_after, f.result.predicted_us_before);
  EXPECT_EQ(check_program(f.graph, p, 11), "");
}

// The dot-slice seed with its halves taken by a view [M, 2N] -> [M, 2, N] and
// a slice of the middle axis (tests/fusion/graphs/dot_chunk_by_view.sg): the
// slices move through the reshape into the matmul's operand, so it is still one
// kernel of two gemms and C is never stored.
TEST(FusionExamples, DotSliceChunkedByViewIsOneDualGemmKernel) {
  const ir::Graph g = ir::parse_graph_file(std::string(SMELT_SOURCE_DIR) + "/tests/fusion/graphs/dot_chunk_by_view.sg");
  const smelt::FusionResult f = smelt::fuse(g, seed_options());
  const kernel::KernelProgram& p = f.after;
  for (const kernel::Buffer& b : p.buffers)
    EXPECT_TRUE(b.kind == kernel::BufferKind::kInput || b.kind == kernel::BufferKind::kOutput) << b.name;
  ASSERT_EQ(p.kernels.size(), 1u);
  int contractions = 0;
  for (const kernel::Kernel& k : p.kernels) contractions += count_contractions(k);
  EXPECT_EQ(contractions, 2) << "one gemm per half of B";
  EXPECT_EQ(check_program(g, p, 9), "");
}

// No buffer of the program holds a value computed from factories alone (the
// full, its casts, pads of it): they are recomputed or folded where used.
TEST(FusionExamples, NvfuserRopeBwdNeverStoresTheFull) {
  Fused f("nvfuser_rope_bwd");
  const ir::Graph& g = f.result.graph;
  std::vector<bool> factory_only(g.size(), false);
  for (size_t v = 0; v < g.size(); ++v) {
    const ir::Node& n = g.node(static_cast<ir::ValueId>(v));
    bool only = n.op != ir::Op::Input;
    for (ir::ValueId operand : n.operands) only = only && factory_only[operand];
    factory_only[v] = only;
    EXPECT_FALSE(factory_only[v] && f.result.materialized[v]) << "value " << v << " (" << ir::op_name(n.op) << ")";
  }
  for (const kernel::Buffer& b : f.result.after.buffers) EXPECT_NE(b.kind, kernel::BufferKind::kConstant) << b.name;
  std::printf("[ nvfuser  ] %zu kernels (unfused %zu), %.1f us (unfused %.1f us)\n", f.result.kernels_after,
              f.result.kernels_before, f.result.predicted_us_after, f.result.predicted_us_before);
  EXPECT_EQ(check_program(f.graph, f.result.after, 8), "");
}

// Every example: kernel interpreter == reference interpreter, after ≤ before.
// The three with large gemms are compared on scaled-down copies.
// Issue 14: a value that is a graph output and read by the next op is stored
// by that op's kernel (b = exp(a); c = sin(b); output b, c: one kernel). Under
// the measured profile the model keeps exp and sin in two loops (chained math
// calls: one loop measured slower, see docs/cost.md), so the seed profile
// shows the structure; with plain arithmetic after exp it pays under any.
TEST(FusionExamples, AnOutputAlsoReadByTheNextOpSharesItsKernel) {
  const ir::Graph exp_sin = ir::parse_graph(R"(graph exp_sin
a = input() : f32[64,128]
b = exp(a)
c = sin(b)
output b, c
)");
  const smelt::FusionResult seed = smelt::fuse(exp_sin, seed_options());
  EXPECT_EQ(seed.kernels_after, 1u) << kernel::print_program(seed.after);
  EXPECT_EQ(count_ops(seed.after, ir::Op::Exp), 1);
  EXPECT_EQ(check_program(exp_sin, seed.after, 21), "");

  const ir::Graph exp_affine = ir::parse_graph(R"(graph exp_affine
a = input() : f32[2,64,128]
b = exp(a)
b2 = mul(b, b)
c = add(b2, a)
output b, c
)");
  const smelt::FusionResult measured = smelt::fuse(exp_affine);
  EXPECT_EQ(measured.kernels_after, 1u) << kernel::print_program(measured.after);
  EXPECT_EQ(check_program(exp_affine, measured.after, 22), "");
}

TEST(FusionExamples, EveryExampleMatchesTheReferenceAndIsNeverSlower) {
  for (const std::string& name : example_names()) {
    SCOPED_TRACE(name);
    const auto start = std::chrono::steady_clock::now();
    const smelt::FusionResult real = smelt::fuse(example(name));
    EXPECT_LE(real.predicted_us_after, real.predicted_us_before);
    EXPECT_LE(real.kernels_after, real.kernels_before);
    // Every index simplification of the compiled program is proved by Z3; none
    // fell back to the composed form (that would mean a simplifier bug or a timeout).
    EXPECT_EQ(real.index_validation.kernels.size(), real.after.kernels.size());
    EXPECT_EQ(real.index_validation.count(verify::IndexOutcome::kCounterexample), 0) << real.index_validation.str();
    EXPECT_EQ(real.index_validation.count(verify::IndexOutcome::kUnknown), 0) << real.index_validation.str();
    const ir::Graph checked = scaled_example(name);
    const smelt::FusionResult run = is_large_example(name) ? smelt::fuse(checked) : real;
    EXPECT_LE(run.predicted_us_after, run.predicted_us_before);
    EXPECT_EQ(check_program(checked, run.after, 9), "");
    EXPECT_EQ(check_program(checked, run.before, 10), "");
    std::printf("[ fuse     ] %-22s kernels %3zu -> %2zu  predicted %10.2f -> %10.2f us  %s %.2f s\n", name.c_str(),
                real.kernels_before, real.kernels_after, real.predicted_us_before, real.predicted_us_after,
                is_large_example(name) ? "(values checked scaled)" : "                       ",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
}

}  // namespace
}  // namespace smelt::fusion_testing
