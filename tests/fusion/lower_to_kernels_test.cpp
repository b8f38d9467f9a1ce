// smelt::fusion::kernelize: a graph and a materialization become kernels whose
// interpreter output equals the reference interpreter's, with views as index
// maps, masks that keep pads and concats exact, anchors only where legal and
// common subexpressions emitted once.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "ir/builder.h"
#include "ir/interpreter.h"
#include "kernel/constant_folding.h"
#include "kernel/kernel_builder.h"
#include "kernel/kernel_interpreter.h"
#include "fusion/kernelize.h"
#include "ir/text_format.h"
#include "tests/fusion/fusion_test_util.h"

namespace smelt::fusion_testing {
namespace {

using ir::DType;
using kernel::KernelExpr;

int count_reduces(const kernel::Kernel& k, bool contraction) {
  int n = 0;
  for (const KernelExpr& e : k.exprs) n += e.kind == KernelExpr::Kind::kReduce && e.contraction == contraction;
  return n;
}

int count_kind(const kernel::Kernel& k, KernelExpr::Kind kind) {
  int n = 0;
  for (const KernelExpr& e : k.exprs) n += e.kind == kind;
  return n;
}

size_t count_intermediates(const kernel::KernelProgram& p) {
  size_t n = 0;
  for (const kernel::Buffer& b : p.buffers) n += b.kind == kernel::BufferKind::kIntermediate;
  return n;
}

// (a) every value but the weights its own kernel, (b) maximal fusion: both compute exactly
// what the reference interpreter computes. The three examples with large gemms
// run scaled down (same graph text, smaller extents: see scaled_example).
TEST(LowerToKernels, EveryExampleUnfusedAndFusedMatchesTheReference) {
  for (const std::string& name : example_names()) {
    SCOPED_TRACE(name);
    const auto start = std::chrono::steady_clock::now();
    const ir::Graph g = scaled_example(name);
    // Constants (weights) are read in place, not copied by kernels of their own.
    size_t values = 0;
    for (const ir::Node& n : g.nodes()) values += n.op != ir::Op::Input && n.op != ir::Op::Constant;
    for (ir::ValueId out : g.outputs()) values += g.node(out).op == ir::Op::Constant;

    const fusion::Kernelization unfused = fusion::kernelize(g, fusion::materialize_everything(g), fusion::KernelizeOptions::unmerged());
    EXPECT_EQ(unfused.program.kernels.size(), values) << "one kernel per op";
    EXPECT_EQ(check_program(g, unfused.program, 1), "");

    const fusion::Kernelization fused = fusion::kernelize(g, fusion::materialize_outputs(g));
    EXPECT_EQ(check_program(g, fused.program, 2), "");
    EXPECT_LT(fused.program.kernels.size(), unfused.program.kernels.size());
    std::printf("[ lower    ] %-22s %s %3zu kernels unfused, %2zu fused, %.2f s\n", name.c_str(),
                is_large_example(name) ? "(scaled)" : "        ", unfused.program.kernels.size(),
                fused.program.kernels.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
}

// luminal's slice→cos→pad: the padded element is the pad value, not cos(0) = 1.
TEST(LowerToKernels, PadOfAComputedValueIsAWhereOverItsMask) {
  ir::Graph g;
  auto x = ir::input(g, "x", DType::F32, {8});
  g.add_output(ir::pad(ir::cos(ir::slice_axis(x, 0, 0, 1)), {0}, {1}, 0));
  const kernel::KernelProgram p = fusion::kernelize_program(g, fusion::materialize_outputs(g));
  ASSERT_EQ(p.kernels.size(), 1u);
  const kernel::Kernel& k = p.kernels[0];
  EXPECT_EQ(count_ops(p, ir::Op::Where), 1);
  for (const KernelExpr& e : k.exprs)
    if (e.kind == KernelExpr::Kind::kLoad) {
      EXPECT_NE(e.valid, kernel::kNoIndex) << "the load is guarded by the mask";
    }
  const ir::HostTensor zeros = ir::HostTensor::zeros({DType::F32, {8}});
  const ir::HostTensor y = kernel::run_kernels(p, {zeros})[0];
  EXPECT_EQ(y.get(0), 1.0);  // cos(x[0]) = cos(0)
  EXPECT_EQ(y.get(1), 0.0);  // the pad value
  EXPECT_EQ(check_program(g, p, 3), "");
}

// One member sliced back out of a concat (a batched tower's slice, the
// index on the concat's axis a constant): the kernel reads that member alone,
// no where over the other members' masked loads (six loads and five wheres
// before, which also made the kernel depend on every member's producer).
TEST(LowerToKernels, ASliceOfOneConcatMemberReadsThatMemberAlone) {
  ir::Graph g;
  std::vector<ir::Tensor> members;
  for (int i = 0; i < 6; ++i)
    members.push_back(ir::reshape(ir::input(g, "w" + std::to_string(i), DType::F32, {4, 8}), {1, 4, 8}));
  const ir::Tensor stacked = ir::concat(members, 0);
  g.add_output(ir::exp(ir::reshape(ir::slice_axis(stacked, 0, 2, 3), {4, 8})));
  const kernel::KernelProgram p = fusion::kernelize_program(g, fusion::materialize_outputs(g));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(count_ops(p, ir::Op::Where), 0);
  EXPECT_EQ(count_kind(p.kernels[0], KernelExpr::Kind::kLoad), 1);
  for (const KernelExpr& e : p.kernels[0].exprs)
    if (e.kind == KernelExpr::Kind::kLoad) {
      EXPECT_EQ(p.buffers[static_cast<size_t>(e.buffer)].name, "w2");
      EXPECT_EQ(e.valid, kernel::kNoIndex);
    }
  EXPECT_EQ(check_program(g, p, 3), "");
}

TEST(LowerToKernels, AnEmptyConstantLowersWithoutReadingItsLiteral) {
  // Found by the ONNX conformance run (ConstantOfShape with a zero extent): it crashed.
  const ir::Graph g = ir::parse_graph(
      "graph empty\nx = input() : f32[0]\nc = constant(value=[]) : f32[0]\ny = add(x, c)\noutput y\n");
  for (const kernel::KernelProgram& p : {fusion::kernelize_program(g, fusion::materialize_outputs(g)),
                                     fusion::kernelize_program(g, fusion::materialize_everything(g))}) {
    EXPECT_EQ(kernel::run_kernels(p, {ir::HostTensor::zeros({DType::F32, {0}})})[0].numel(), 0);
    EXPECT_EQ(check_program(g, p, 1), "");
  }
}

// A kernel that folds at compile time never joins another: two copies of
// 2.25M-element weights merged into one were past the folding's 4M-element
// limit and ran at every step (a Llama decode step's eight MLP weights: 2.1 ms
// of 4.4, 2026-12-02). Every kernel that reads only constants folds, with both
// the program kernelize builds and the incremental pricing's grouping.
TEST(LowerToKernels, KernelsThatFoldAtCompileTimeAreNeverMergedWithOthers) {
  ir::Graph g("folded_copies");
  const ir::Tensor x = ir::input(g, "x", DType::F32, {4, 2048});
  std::vector<double> values(2048 * 1100);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i % 7) / 7.0;
  const ir::Tensor w1 = ir::neg(ir::constant(g, values, DType::F32, {2048, 1100}));
  const ir::Tensor w2 = ir::exp(ir::constant(g, values, DType::F32, {2048, 1100}));
  g.add_output(ir::add(ir::matmul(x, w1), ir::matmul(x, w2)));
  const kernel::KernelProgram p = fusion::kernelize_program(g, fusion::materialize_everything(g));
  int folded = 0;
  for (const kernel::Kernel& k : p.kernels) {
    bool constants_only = true;
    for (const KernelExpr& e : k.exprs)
      if (e.kind == KernelExpr::Kind::kLoad)
        constants_only = constants_only && p.buffers.at(static_cast<size_t>(e.buffer)).kind == kernel::BufferKind::kConstant;
    if (!constants_only) continue;
    EXPECT_TRUE(kernel::folds_at_compile_time(p, k)) << k.name << " reads only constants and runs\n" << kernel::print_program(p);
    ++folded;
  }
  EXPECT_EQ(folded, 2) << kernel::print_program(p);
}

TEST(LowerToKernels, PadOfABufferIsAMaskedLoad) {
  ir::Graph g;
  auto x = ir::input(g, "x", DType::F32, {3, 4});
  g.add_output(ir::exp(ir::pad(ir::permute(x, {1, 0}), {1, 0}, {2, 1}, 3.5)));
  const kernel::KernelProgram p = fusion::kernelize_program(g, fusion::materialize_outputs(g));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(count_ops(p, ir::Op::Where), 0);
  ASSERT_EQ(count_kind(p.kernels[0], KernelExpr::Kind::kLoad), 1);
  for (const KernelExpr& e : p.kernels[0].exprs)
    if (e.kind == KernelExpr::Kind::kLoad) {
      EXPECT_EQ(e.value, 3.5);
    }
  EXPECT_EQ(check_program(g, p, 4), "");
}

TEST(LowerToKernels, ConcatSelectsItsOperandByPositionWithEveryBranchMasked) {
  ir::Graph g;
  auto a = ir::input(g, "a", DType::F32, {2, 3});
  auto b = ir::input(g, "b", DType::F32, {2, 2});
  auto c = ir::input(g, "c", DType::F32, {2, 1});
  g.add_output(ir::concat({ir::exp(a), b, ir::neg(c)}, 1));
  const kernel::KernelProgram p = fusion::kernelize_program(g, fusion::materialize_outputs(g));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(count_ops(p, ir::Op::Where), 2);
  for (const KernelExpr& e : p.kernels[0].exprs)
    if (e.kind == KernelExpr::Kind::kLoad) {
      EXPECT_NE(e.valid, kernel::kNoIndex);
    }
  EXPECT_EQ(check_program(g, p, 5), "");
}

// Reshapes that split and merge axes, permutes, broadcasts, negative steps
// and iota, all composed into the index maps of one kernel.
TEST(LowerToKernels, ViewChainsComposeIntoIndexMaps) {
  ir::Graph g;
  auto x = ir::input(g, "x", DType::F32, {4, 6});
  auto v = ir::reshape(ir::permute(ir::reshape(x, {2, 2, 3, 2}), {1, 0, 3, 2}), {4, 6});
  auto reversed = ir::slice(v, {3, 5}, {-1, -1}, {-1, -2});  // [4, 3]
  auto row = ir::broadcast(ir::reshape(ir::slice_axis(x, 0, 1, 2), {6}), {4, 6});
  auto counter = ir::cast(ir::iota(g, {4, 3}, 1, DType::I32), DType::F32);
  g.add_output(ir::add(reversed, counter));
  g.add_output(ir::mul(v, row));
  const fusion::Kernelization fused = fusion::kernelize(g, fusion::materialize_outputs(g));
  EXPECT_EQ(fused.program.kernels.size(), 2u);
  EXPECT_EQ(count_intermediates(fused.program), 0u);
  EXPECT_EQ(check_program(g, fused.program, 6), "");
}

// A squeeze-excite's scale over 7x7 maps: rows of 7 merge into rows of 49
// (kernel::merge_contiguous_rows), read through (x floordiv 7, x mod 7); a
// load that reads one of the two axes alone, a padded (masked) read, and a
// kernel of fewer than 64 rows keep their rows.
TEST(LowerToKernels, ShortRowsThatEveryLoadReadsAsOneAreMerged) {
  auto space_of = [](const ir::Graph& g) {
    const fusion::Kernelization fused = fusion::kernelize(g, fusion::materialize_outputs(g));
    EXPECT_EQ(fused.program.kernels.size(), 1u);
    EXPECT_EQ(check_program(g, fused.program, 6), "") << kernel::print_program(fused.program);
    return fused.program.kernels.at(0).space;
  };
  ir::Graph scale("scale");
  auto x = ir::input(scale, "x", DType::F32, {1, 96, 7, 7});
  auto s = ir::input(scale, "s", DType::F32, {1, 96, 1, 1});
  scale.add_output(ir::mul(ir::broadcast(ir::sigmoid(s), {1, 96, 7, 7}), x));
  EXPECT_EQ(space_of(scale), (ir::Shape{1, 96, 49}));

  ir::Graph column("column");  // a broadcast of one column: i2 alone
  auto y = ir::input(column, "y", DType::F32, {1, 96, 7, 7});
  auto c = ir::input(column, "c", DType::F32, {1, 96, 7, 1});
  column.add_output(ir::add(y, ir::broadcast(c, {1, 96, 7, 7})));
  EXPECT_EQ(space_of(column), (ir::Shape{1, 96, 7, 7}));

  ir::Graph padded("padded");
  auto z = ir::input(padded, "z", DType::F32, {1, 96, 5, 5});
  padded.add_output(ir::exp(ir::pad(z, {0, 0, 1, 1}, {0, 0, 1, 1})));
  EXPECT_EQ(space_of(padded), (ir::Shape{1, 96, 7, 7}));

  ir::Graph few("few_rows");
  auto w = ir::input(few, "w", DType::F32, {1, 8, 7, 7});
  few.add_output(ir::exp(w));
  EXPECT_EQ(space_of(few), (ir::Shape{1, 8, 7, 7}));

  // Two roots over one space merged into one kernel after each was finished
  // alone (horizontal merging) are emitted over their own space, then merged.
  ir::Graph two("two_roots");
  auto t = ir::input(two, "t", DType::F32, {64, 2, 3, 5});
  auto r = ir::reduce_max(t, {1}, true);
  two.add_output(ir::exp(ir::sub(t, ir::broadcast(r, {64, 2, 3, 5}))));
  two.add_output(ir::neg(ir::broadcast(r, {64, 2, 3, 5})));
  const fusion::Kernelization both = fusion::kernelize(two, fusion::materialize_outputs(two));
  EXPECT_EQ(check_program(two, both.program, 6), "") << kernel::print_program(both.program);

  ir::Graph once("once");  // one pair: rows of 7 become rows of 35, not 105
  auto v = ir::input(once, "v", DType::F32, {64, 3, 5, 7});
  once.add_output(ir::neg(v));
  EXPECT_EQ(space_of(once), (ir::Shape{64, 3, 35}));
}

// luminal_fusion's constant: a scalar broadcast is an immediate; a literal of
// different values is a constant buffer of the program.
TEST(LowerToKernels, ConstantsAreImmediatesOrConstantBuffers) {
  ir::Graph g;
  auto x = ir::input(g, "x", DType::F32, {2, 3});
  auto scale = ir::broadcast(ir::constant(g, 2.5), {2, 3});
  auto table = ir::constant(g, {1, 2, 3}, DType::F32, {3});
  g.add_output(ir::mul(ir::add(x, ir::broadcast(table, {2, 3})), scale));
  const kernel::KernelProgram p = fusion::kernelize_program(g, fusion::materialize_outputs(g));
  ASSERT_EQ(p.kernels.size(), 1u);
  int constants = 0;
  for (const kernel::Buffer& b : p.buffers) constants += b.kind == kernel::BufferKind::kConstant;
  EXPECT_EQ(constants, 1);
  EXPECT_EQ(count_kind(p.kernels[0], KernelExpr::Kind::kConstant), 1);
  EXPECT_NE(kernel::print_program(p).find("(constant) = 1.000000 2.000000 3.000000"), std::string::npos);
  EXPECT_EQ(check_program(g, p, 7), "");
}

TEST(LowerToKernels, AConstantBufferIsReadOnlyAndHoldsEveryElement) {
  kernel::KernelProgram p;
  const int table = kernel::add_constant_buffer(p, "table", {DType::F32, {3}}, {1, 2, 3});
  const int y = kernel::add_buffer(p, "y", {DType::F32, {3}}, kernel::BufferKind::kOutput, 0);
  p.kernels.push_back({"copy", {3}, {}, {}, {}, {}});
  kernel::KernelBuilder kb(p.kernels.back());
  p.kernels.back().outputs = {{y, kb.load(table, {kb.var(0)}, DType::F32)}};
  EXPECT_EQ(kernel::run_kernels(p, {})[0].reals, (std::vector<double>{1, 2, 3}));
  kernel::KernelProgram writes = p;
  writes.kernels[0].outputs = {{table, 0}};
  EXPECT_THROW(kernel::validate(writes), std::invalid_argument);
  kernel::KernelProgram short_literal = p;
  std::vector<double> shorter = short_literal.buffers[table].values;
  shorter.pop_back();
  short_literal.buffers[table].values = std::move(shorter);
  EXPECT_THROW(kernel::validate(short_literal), std::invalid_argument);
}

TEST(LowerToKernels, CommonSubexpressionsAreEmittedOnce) {
  ir::Graph g;
  auto a = ir::input(g, "a", DType::F32, {10});
  auto b = ir::exp(a);
  g.add_output(ir::add(b, ir::sin(b)));
  g.add_output(ir::mul(b, ir::exp(a)));  // a second exp(a) value: the same expression
  const kernel::KernelProgram p = fusion::kernelize_program(g, fusion::materialize_outputs(g));
  ASSERT_EQ(p.kernels.size(), 1u) << "two outputs over one space: merged";
  EXPECT_EQ(count_ops(p, ir::Op::Exp), 1);
  EXPECT_EQ(count_kind(p.kernels[0], KernelExpr::Kind::kLoad), 1);
  EXPECT_EQ(check_program(g, p, 8), "");
}

// A reduction is inlined only at its own output index: as the epilogue of its
// own kernel, never broadcast into a larger one.
TEST(LowerToKernels, AReductionIsInlinedOnlyAtItsOwnOutputIndex) {
  ir::Graph g;
  auto x = ir::input(g, "x", DType::F32, {3, 5});
  auto total = ir::reduce_sum(ir::exp(x), {1}, true);  // [3, 1]
  g.add_output(ir::div(ir::exp(x), ir::broadcast(total, {3, 5})));
  g.add_output(ir::sqrt(ir::reshape(ir::reduce_max(x, {1}), {3, 1})));
  const fusion::Kernelization fused = fusion::kernelize(g, fusion::materialize_outputs(g));
  EXPECT_TRUE(fused.materialized[total.id]) << "broadcast into [3,5]: not its own index";
  ASSERT_EQ(fused.program.kernels.size(), 2u) << "(sum + sqrt of max merged: same [3,1] domain [5]), division";
  EXPECT_EQ(count_reduces(fused.program.kernels[0], false), 2);
  EXPECT_EQ(fused.program.kernels[0].reduction, ir::Shape{5});
  EXPECT_EQ(check_program(g, fused.program, 9), "");
}

TEST(LowerToKernels, AKernelHoldsOneReductionDomain) {
  ir::Graph g;
  auto x = ir::input(g, "x", DType::F32, {4, 8});
  auto y = ir::input(g, "y", DType::F32, {4, 5});
  auto total = ir::reduce_sum(x, {1});
  auto other = ir::reduce_sum(y, {1});
  g.add_output(ir::add(total, other));
  const fusion::Kernelization fused = fusion::kernelize(g, fusion::materialize_outputs(g));
  EXPECT_FALSE(fused.materialized[total.id]);
  EXPECT_TRUE(fused.materialized[other.id]) << "a second domain ([5] besides [8]) needs its own kernel";
  EXPECT_EQ(fused.program.kernels.size(), 2u);
  EXPECT_EQ(check_program(g, fused.program, 10), "");
}

// mlir_dot_slice after gemm splitting, in small: two gemms over the same
// M×N×K space sharing A, one contraction group, the epilogue in registers.
TEST(LowerToKernels, GemmsOverOneSpaceFormOneContractionGroup) {
  ir::Graph g;
  auto a = ir::input(g, "a", DType::F32, {3, 5});
  auto b = ir::input(g, "b", DType::F32, {5, 8});
  auto left = ir::matmul(a, ir::slice_axis(b, 1, 0, 4));
  auto right = ir::matmul(a, ir::slice_axis(b, 1, 4, 8));
  g.add_output(ir::mul(left, ir::sigmoid(right)));
  const kernel::KernelProgram p = fusion::kernelize_program(g, fusion::materialize_outputs(g));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(count_reduces(p.kernels[0], true), 2);
  EXPECT_EQ(p.kernels[0].reduction, ir::Shape{5});
  EXPECT_EQ(check_program(g, p, 11), "");
}

// A gemm feeding another gemm's operand is evaluated inside the second's
// reduction loop: it must be materialized. Batched gemms broadcast their batch.
TEST(LowerToKernels, AGemmInsideAnotherGemmsBodyIsMaterialized) {
  ir::Graph g;
  auto a = ir::input(g, "a", DType::F32, {2, 3, 4});
  auto b = ir::input(g, "b", DType::F32, {1, 4, 5});
  auto c = ir::input(g, "c", DType::F32, {5, 2});
  auto inner = ir::matmul(a, b);  // [2,3,5]
  g.add_output(ir::matmul(ir::relu(inner), ir::broadcast(c, {2, 5, 2})));
  const fusion::Kernelization fused = fusion::kernelize(g, fusion::materialize_outputs(g));
  EXPECT_TRUE(fused.materialized[inner.id]);
  EXPECT_EQ(fused.program.kernels.size(), 2u);
  EXPECT_EQ(check_program(g, fused.program, 12), "");
}

// Independent kernels over one space merge; a kernel never merges with one
// it depends on.
TEST(LowerToKernels, HorizontalMergingRespectsDependencies) {
  ir::Graph g;
  auto x = ir::input(g, "x", DType::F32, {4, 4});
  auto m = ir::matmul(x, x);
  auto first = ir::exp(m);
  auto second = ir::matmul(first, x);
  g.add_output(first);
  g.add_output(ir::neg(x));
  g.add_output(second);
  const fusion::Kernelization fused = fusion::kernelize(g, fusion::materialize_outputs(g));
  // exp(x·x) and -x merge (one [4,4] space, independent; an elementwise root
  // joins the gemm's domain); the second gemm reads exp(x·x): its own kernel.
  ASSERT_EQ(fused.program.kernels.size(), 2u);
  EXPECT_EQ(fused.program.kernels[0].name, "%2, %4");
  EXPECT_EQ(fused.program.kernels[0].outputs.size(), 2u);
  EXPECT_EQ(check_program(g, fused.program, 13), "");
  const fusion::Kernelization unmerged = fusion::kernelize(g, fusion::materialize_outputs(g), fusion::KernelizeOptions::unmerged());
  EXPECT_EQ(unmerged.program.kernels.size(), 3u);
  EXPECT_EQ(check_program(g, unmerged.program, 13), "");
}

// A value that is stored (a graph output) and read by the next op at its own
// index is computed and stored by that op's kernel: one kernel with several
// outputs, no kernel boundary, no reload.
TEST(LowerToKernels, AStoredValueReadAtItsOwnIndexIsStoredByItsReader) {
  ir::Graph g;
  auto a = ir::input(g, "a", DType::F32, {8, 16});
  auto b = ir::mul(a, a);
  auto c = ir::add(b, a);
  auto d = ir::sub(c, b);
  g.add_output(b);
  g.add_output(c);
  g.add_output(d);
  const fusion::Kernelization fused = fusion::kernelize(g, fusion::materialize_outputs(g));
  ASSERT_EQ(fused.program.kernels.size(), 1u);
  const kernel::Kernel& k = fused.program.kernels[0];
  EXPECT_EQ(k.outputs.size(), 3u);
  EXPECT_EQ(count_kind(k, KernelExpr::Kind::kLoad), 1) << "only a: b and c are computed, not reloaded";
  EXPECT_EQ(count_ops(fused.program, ir::Op::Mul), 1);
  EXPECT_EQ(check_program(g, fused.program, 15), "");
  EXPECT_EQ(fusion::kernelize(g, fusion::materialize_outputs(g), fusion::KernelizeOptions::unmerged()).program.kernels.size(), 3u);
}

// Read anywhere but at its own index (here transposed), the value is loaded
// from its buffer after its own kernel has written all of it.
TEST(LowerToKernels, AValueReadAtAnotherIndexKeepsItsKernel) {
  ir::Graph g;
  auto a = ir::input(g, "a", DType::F32, {6, 6});
  auto b = ir::exp(a);
  g.add_output(b);
  g.add_output(ir::add(ir::permute(b, {1, 0}), a));
  const fusion::Kernelization fused = fusion::kernelize(g, fusion::materialize_outputs(g));
  EXPECT_EQ(fused.program.kernels.size(), 2u);
  EXPECT_EQ(check_program(g, fused.program, 16), "");
}

// Merging never closes a cycle: b feeds a reduction (another space) that the
// reader of b also needs, so b's kernel must run before the reduction's and
// that one before the reader's.
TEST(LowerToKernels, AProducerIsNotMergedPastAKernelBetweenThem) {
  ir::Graph g;
  auto a = ir::input(g, "a", DType::F32, {4, 6});
  auto b = ir::exp(a);
  auto total = ir::reduce_sum(b, {1}, true);  // [4, 1]
  g.add_output(b);
  g.add_output(ir::mul(b, ir::broadcast(total, {4, 6})));
  const fusion::Kernelization fused = fusion::kernelize(g, fusion::materialize_outputs(g));
  EXPECT_TRUE(fused.materialized[total.id]);
  EXPECT_EQ(fused.program.kernels.size(), 3u);
  EXPECT_EQ(check_program(g, fused.program, 17), "");
}

// With a price, a producer is merged only where the merged kernel costs no
// more than the two apart; kernelize and IncrementalKernelization agree.
TEST(LowerToKernels, APricedMergeHappensOnlyWhereItPays) {
  ir::Graph g;
  auto a = ir::input(g, "a", DType::F32, {8, 8});
  auto b = ir::exp(a);
  g.add_output(b);
  g.add_output(ir::sin(b));
  // A price that grows faster than the kernel: merging never pays.
  auto squared = [](const kernel::KernelProgram&, const kernel::Kernel& k) {
    return static_cast<double>(k.exprs.size() * k.exprs.size());
  };
  // One per kernel: merging always pays.
  auto per_kernel = [](const kernel::KernelProgram&, const kernel::Kernel&) { return 1.0; };
  std::vector<uint64_t> keys(g.size());
  for (size_t v = 0; v < keys.size(); ++v) keys[v] = v;
  for (auto [price, kernels] : {std::pair<fusion::IncrementalKernelization::KernelPrice, size_t>{squared, 2},
                                std::pair<fusion::IncrementalKernelization::KernelPrice, size_t>{per_kernel, 1}}) {
    fusion::KernelizeOptions options;
    options.price = price;
    const fusion::Kernelization lowered = fusion::kernelize(g, fusion::materialize_outputs(g), options);
    EXPECT_EQ(lowered.program.kernels.size(), kernels);
    EXPECT_EQ(check_program(g, lowered.program, 18), "");
    fusion::IncrementalKernelization incremental(price, options);
    EXPECT_EQ(incremental.price(g, keys, fusion::materialize_outputs(g)).kernel_prices.size(), kernels);
  }
}

TEST(LowerToKernels, AnOutputThatIsAnInputIsCopied) {
  ir::Graph g;
  auto x = ir::input(g, "x", DType::I32, {3});
  g.add_output(x);
  g.add_output(ir::add(x, x));
  g.add_output(x);
  const kernel::KernelProgram p = fusion::kernelize_program(g, fusion::materialize_outputs(g));
  EXPECT_EQ(p.kernels.size(), 1u) << "both copies and the sum over one space";
  EXPECT_EQ(check_program(g, p, 14), "");
}

}  // namespace
}  // namespace smelt::fusion_testing
