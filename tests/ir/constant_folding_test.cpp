// smelt::kernel::fold_constant_kernels: kernels computing only from constants are
// evaluated at compile time; the program computes the same outputs.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "ir/builder.h"
#include "kernel/constant_folding.h"
#include "ir/interpreter.h"
#include "kernel/kernel_interpreter.h"
#include "fusion/kernelize.h"
#include "ir/tensor_compare.h"

namespace smelt {
namespace {

using kernel::BufferKind;
using ir::DType;

std::vector<double> ramp(int64_t n, double scale) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(scale * static_cast<double>(i % 7) - 1);
  return v;
}

size_t count(const kernel::KernelProgram& p, BufferKind kind) {
  size_t n = 0;
  for (const kernel::Buffer& b : p.buffers) n += b.kind == kind;
  return n;
}

// x @ concat(w1, w2ᵀ, axis 1): the concat and the transpose read only constants.
ir::Graph batched_weights() {
  ir::Graph g("batched_weights");
  auto x = ir::input(g, "x", DType::F32, {5, 4});
  auto w1 = ir::constant(g, ramp(12, 0.5), DType::F32, {4, 3});
  auto w2t = ir::constant(g, ramp(8, 0.25), DType::F32, {2, 4});
  g.add_output(ir::matmul(x, ir::concat({w1, ir::exp(ir::permute(w2t, {1, 0}))}, 1)));
  return g;
}

TEST(ConstantFolding, ConstantOnlyKernelsBecomeConstantsWithTheSameOutputs) {
  const ir::Graph g = batched_weights();
  const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_everything(g));
  const kernel::KernelProgram folded = kernel::fold_constant_kernels(program);
  ASSERT_LT(folded.kernels.size(), program.kernels.size()) << kernel::print_program(folded);
  // Only the matmul is left, reading x and one folded constant; the weights it replaced are gone.
  ASSERT_EQ(folded.kernels.size(), 1u) << kernel::print_program(folded);
  EXPECT_EQ(count(folded, BufferKind::kConstant), 1u) << kernel::print_program(folded);
  for (const kernel::Kernel& k : folded.kernels) EXPECT_FALSE(kernel::folds_at_compile_time(folded, k));
  kernel::validate(folded);
  std::mt19937_64 rng(3);
  const std::vector<ir::HostTensor> inputs{ir::random_tensor(g.type(g.inputs()[0]), rng)};
  EXPECT_EQ(ir::compare_outputs(kernel::run_kernels(program, inputs), kernel::run_kernels(folded, inputs)), "");
  EXPECT_EQ(ir::compare_outputs(ir::interpret_with_error_scales(g, inputs), kernel::run_kernels(folded, inputs)), "");
}

TEST(ConstantFolding, KernelsReadingInputsOrWritingOutputsStay) {
  ir::Graph g("mixed");
  auto x = ir::input(g, "x", DType::F32, {6});
  auto c = ir::constant(g, ramp(6, 1), DType::F32, {6});
  g.add_output(ir::exp(c));   // constant-only, but a program output: written every run
  g.add_output(ir::add(x, c));
  const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_outputs(g));
  for (const kernel::Kernel& k : program.kernels) EXPECT_FALSE(kernel::folds_at_compile_time(program, k)) << k.name;
  const kernel::KernelProgram folded = kernel::fold_constant_kernels(program);
  EXPECT_EQ(folded.kernels.size(), program.kernels.size());
  EXPECT_EQ(folded.buffers.size(), program.buffers.size());
}

TEST(ConstantFolding, FactoriesAndHugeResultsAreNotFolded) {
  ir::Graph g("big");
  auto x = ir::input(g, "x", DType::F32, {kernel::kMaxFoldedElements + 1});
  auto c = ir::constant(g, 2.0);
  auto big = ir::exp(ir::broadcast(c, {kernel::kMaxFoldedElements + 1}));  // reads a constant, too large to fold
  auto iota = ir::iota(g, {kernel::kMaxFoldedElements + 1}, 0, DType::F32);  // reads nothing: recomputed, never stored
  g.add_output(ir::add(ir::add(x, big), iota));
  const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_everything(g));
  for (const kernel::Kernel& k : program.kernels) EXPECT_FALSE(kernel::folds_at_compile_time(program, k)) << k.name;
}

// A bias broadcast over a whole activation is not folded into a constant as
// large as the activation (it stays a broadcast the run computes); a small one
// still folds.
TEST(ConstantFolding, ALargeExpansionOfAConstantIsNotFolded) {
  auto program_of = [](int64_t side) {
    ir::Graph g("bias");
    auto x = ir::input(g, "x", DType::F32, {1, 64, side, side});
    auto b = ir::constant(g, ramp(64, 0.1), DType::F32, {64});
    auto wide = ir::broadcast(ir::reshape(b, {1, 64, 1, 1}), {1, 64, side, side});
    g.add_output(ir::add(x, wide));
    // One kernel per op, as the unfused program is built (smelt::fuse's `before`).
    return fusion::kernelize(g, fusion::materialize_everything(g), fusion::KernelizeOptions::unmerged()).program;
  };
  // Folded in order (the reshape first, then what reads it): the add alone
  // is left where the broadcast folds.
  const kernel::KernelProgram wide = kernel::fold_constant_kernels(program_of(56));
  EXPECT_EQ(wide.kernels.size(), 2u) << "64 x 56 x 56 from 64 values: " << kernel::print_program(wide);
  const kernel::KernelProgram small = kernel::fold_constant_kernels(program_of(4));
  EXPECT_EQ(small.kernels.size(), 1u) << "64 x 4 x 4 from 64 values: " << kernel::print_program(small);
}

// x[4, k] @ (W1[k, r] @ W2[r, k]) with both weights constants (a merged low-rank weight).
ir::Graph product_of_constants(const std::string& name, int64_t k, int64_t r) {
  ir::Graph g(name);
  auto x = ir::input(g, "x", DType::F32, {4, k});
  auto w1 = ir::constant(g, ramp(k * r, 0.01), DType::F32, {k, r});
  auto w2 = ir::constant(g, ramp(r * k, 0.02), DType::F32, {r, k});
  g.add_output(ir::matmul(x, ir::matmul(w1, w2)));
  return g;
}

TEST(ConstantFolding, AProductOfLargeConstantsIsNotFolded) {
  // 1M outputs, each a 64-long reduction: 64M evaluations, seconds in the interpreter.
  const ir::Graph g = product_of_constants("merged_weights", 1024, 64);
  const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_everything(g));
  bool found = false;
  for (const kernel::Kernel& k : program.kernels) {
    if (k.space == ir::Shape{1024, 1024}) {
      found = true;
      EXPECT_FALSE(kernel::folds_at_compile_time(program, k)) << "64M evaluations";
    }
  }
  EXPECT_TRUE(found) << kernel::print_program(program);
  // A small product of constants still folds.
  const ir::Graph small = product_of_constants("small_product", 16, 8);
  const kernel::KernelProgram p = fusion::kernelize_program(small, fusion::materialize_everything(small));
  const kernel::KernelProgram folded = kernel::fold_constant_kernels(p);
  ASSERT_LT(folded.kernels.size(), p.kernels.size());
  EXPECT_EQ(folded.kernels.size(), 1u) << kernel::print_program(folded);  // only x @ (W1 @ W2) runs
  std::mt19937_64 rng(5);
  const std::vector<ir::HostTensor> inputs{ir::random_tensor(small.type(small.inputs()[0]), rng)};
  EXPECT_EQ(ir::compare_outputs(ir::interpret_with_error_scales(small, inputs), kernel::run_kernels(folded, inputs)), "");
}

}  // namespace
}  // namespace smelt
