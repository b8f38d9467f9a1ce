// smelt::ir::fold_constant_kernels: kernels computing only from constants are
// evaluated at compile time; the program computes the same outputs.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "ir/builder.h"
#include "ir/constant_folding.h"
#include "ir/interpreter.h"
#include "ir/kernel_interpreter.h"
#include "ir/lower_to_kernels.h"
#include "ir/tensor_compare.h"

namespace smelt {
namespace {

using ir::BufferKind;
using ir::DType;

std::vector<double> ramp(int64_t n, double scale) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(scale * static_cast<double>(i % 7) - 1);
  return v;
}

size_t count(const ir::KernelProgram& p, BufferKind kind) {
  size_t n = 0;
  for (const ir::Buffer& b : p.buffers) n += b.kind == kind;
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
  const ir::KernelProgram program = ir::lower_to_kernels(g, ir::materialize_everything(g));
  const ir::KernelProgram folded = ir::fold_constant_kernels(program);
  ASSERT_LT(folded.kernels.size(), program.kernels.size()) << ir::print_program(folded);
  // Only the matmul is left, reading x and one folded constant; the weights it replaced are gone.
  ASSERT_EQ(folded.kernels.size(), 1u) << ir::print_program(folded);
  EXPECT_EQ(count(folded, BufferKind::kConstant), 1u) << ir::print_program(folded);
  for (const ir::Kernel& k : folded.kernels) EXPECT_FALSE(ir::folds_at_compile_time(folded, k));
  ir::validate(folded);
  std::mt19937_64 rng(3);
  const std::vector<ir::HostTensor> inputs{ir::random_tensor(g.type(g.inputs()[0]), rng)};
  EXPECT_EQ(ir::compare_outputs(ir::run_kernels(program, inputs), ir::run_kernels(folded, inputs)), "");
  EXPECT_EQ(ir::compare_outputs(ir::interpret(g, inputs), ir::run_kernels(folded, inputs)), "");
}

TEST(ConstantFolding, KernelsReadingInputsOrWritingOutputsStay) {
  ir::Graph g("mixed");
  auto x = ir::input(g, "x", DType::F32, {6});
  auto c = ir::constant(g, ramp(6, 1), DType::F32, {6});
  g.add_output(ir::exp(c));   // constant-only, but a program output: written every run
  g.add_output(ir::add(x, c));
  const ir::KernelProgram program = ir::lower_to_kernels(g, ir::materialize_outputs(g));
  for (const ir::Kernel& k : program.kernels) EXPECT_FALSE(ir::folds_at_compile_time(program, k)) << k.name;
  const ir::KernelProgram folded = ir::fold_constant_kernels(program);
  EXPECT_EQ(folded.kernels.size(), program.kernels.size());
  EXPECT_EQ(folded.buffers.size(), program.buffers.size());
}

TEST(ConstantFolding, FactoriesAndHugeResultsAreNotFolded) {
  ir::Graph g("big");
  auto x = ir::input(g, "x", DType::F32, {ir::kMaxFoldedElements + 1});
  auto c = ir::constant(g, 2.0);
  auto big = ir::exp(ir::broadcast(c, {ir::kMaxFoldedElements + 1}));  // reads a constant, too large to fold
  auto iota = ir::iota(g, {ir::kMaxFoldedElements + 1}, 0, DType::F32);  // reads nothing: recomputed, never stored
  g.add_output(ir::add(ir::add(x, big), iota));
  const ir::KernelProgram program = ir::lower_to_kernels(g, ir::materialize_everything(g));
  for (const ir::Kernel& k : program.kernels) EXPECT_FALSE(ir::folds_at_compile_time(program, k)) << k.name;
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
  const ir::KernelProgram program = ir::lower_to_kernels(g, ir::materialize_everything(g));
  bool found = false;
  for (const ir::Kernel& k : program.kernels) {
    if (k.space == ir::Shape{1024, 1024}) {
      found = true;
      EXPECT_FALSE(ir::folds_at_compile_time(program, k)) << "64M evaluations";
    }
  }
  EXPECT_TRUE(found) << ir::print_program(program);
  // A small product of constants still folds.
  const ir::Graph small = product_of_constants("small_product", 16, 8);
  const ir::KernelProgram p = ir::lower_to_kernels(small, ir::materialize_everything(small));
  const ir::KernelProgram folded = ir::fold_constant_kernels(p);
  ASSERT_LT(folded.kernels.size(), p.kernels.size());
  EXPECT_EQ(folded.kernels.size(), 1u) << ir::print_program(folded);  // only x @ (W1 @ W2) runs
  std::mt19937_64 rng(5);
  const std::vector<ir::HostTensor> inputs{ir::random_tensor(small.type(small.inputs()[0]), rng)};
  EXPECT_EQ(ir::compare_outputs(ir::interpret(small, inputs), ir::run_kernels(folded, inputs)), "");
}

}  // namespace
}  // namespace smelt
