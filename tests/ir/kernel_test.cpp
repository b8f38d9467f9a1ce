// The kernel IR and its interpreter: hand-built fused kernels must compute what
// the reference interpreter computes for the unfused graph.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ir/builder.h"
#include "ir/interpreter.h"
#include "kernel/kernel.h"
#include "kernel/kernel_builder.h"
#include "kernel/kernel_interpreter.h"

namespace smelt::ir {
using namespace kernel;
namespace {

void expect_near_all(const HostTensor& a, const HostTensor& b, double tol = 1e-6) {
  ASSERT_EQ(a.type, b.type);
  for (int64_t i = 0; i < a.numel(); ++i) EXPECT_NEAR(a.get(i), b.get(i), tol) << "element " << i;
}

TEST(IndexPool, FloorDivAndModRoundTowardNegativeInfinity) {
  IndexPool pool;
  IndexRef x = pool.var(0);
  IndexRef d = pool.floor_div(x, pool.constant(4)), m = pool.mod(x, pool.constant(4));
  for (int64_t v : {-9, -4, -1, 0, 3, 7}) {
    int64_t vars[] = {v};
    EXPECT_EQ(pool.eval(d, vars) * 4 + pool.eval(m, vars), v);
    EXPECT_GE(pool.eval(m, vars), 0);
  }
  EXPECT_EQ(pool.str(pool.add(pool.mul(d, pool.constant(4)), m)), "(((v0 / 4) * 4) + (v0 % 4))");
}

TEST(IndexPool, BuildersFoldConstantsAndShareNodes) {
  IndexPool pool;
  IndexRef x = pool.var(0);
  EXPECT_EQ(pool.add(x, pool.constant(0)), x);
  EXPECT_EQ(pool.mul(pool.constant(1), x), x);
  EXPECT_TRUE(pool.is_const(pool.add(pool.constant(2), pool.constant(3)), 5));
  EXPECT_EQ(pool.add(x, pool.constant(1)), pool.add(x, pool.constant(1)));
  EXPECT_EQ(pool.logical_and(kNoIndex, pool.lt(x, pool.constant(3))), pool.lt(x, pool.constant(3)));
}

// A concat's branch mask at an index a slice made constant ((4 <= 1) && (1 <
// 5)) folds to 0, so the kernel builder drops the branch (fusion/kernelize.cpp).
TEST(IndexPool, ComparisonsAndLogicOfConstantsFold) {
  IndexPool pool;
  const IndexRef one = pool.constant(1), four = pool.constant(4), five = pool.constant(5), x = pool.var(0);
  EXPECT_TRUE(pool.is_const(pool.logical_and(pool.le(four, one), pool.lt(one, five)), 0));
  EXPECT_TRUE(pool.is_const(pool.logical_and(pool.le(one, one), pool.lt(one, four)), 1));
  EXPECT_TRUE(pool.is_const(pool.eq(four, four), 1));
  EXPECT_TRUE(pool.is_const(pool.logical_or(pool.lt(five, one), pool.le(four, five)), 1));
  EXPECT_TRUE(pool.is_const(pool.logical_not(pool.lt(five, one)), 1));
  EXPECT_TRUE(pool.is_const(pool.logical_and(pool.lt(x, four), pool.lt(five, one)), 0));
  EXPECT_EQ(pool.logical_or(pool.lt(five, one), pool.lt(x, four)), pool.lt(x, four));
  EXPECT_TRUE(pool.is_const(pool.floor_div(pool.constant(-7), pool.constant(2)), -4));
  EXPECT_TRUE(pool.is_const(pool.mod(pool.constant(-7), pool.constant(2)), 1));
  EXPECT_TRUE(pool.is_const(pool.min(four, five), 4));
  EXPECT_TRUE(pool.is_const(pool.max(four, five), 5));
  EXPECT_EQ(pool.select(pool.lt(four, five), x, one), x);
  // Division by a constant zero is left for eval to report, not folded.
  EXPECT_FALSE(pool.is_const(pool.floor_div(four, pool.constant(0)), 0));
}

TEST(IndexPool, LogicYieldsTruthValuesEvenForNonBooleanOperands) {
  IndexPool pool;
  IndexRef x = pool.var(0);
  IndexRef both = pool.logical_and(pool.constant(1), x), either = pool.logical_or(x, x);
  for (int64_t v : {0, 1, 5}) {
    int64_t vars[] = {v};
    EXPECT_EQ(pool.eval(both, vars), v != 0);
    EXPECT_EQ(pool.eval(either, vars), v != 0);
  }
}

// luminal's fusion test as ONE kernel: ((exp2(a) - sin(b)).relu() + c / d).
TEST(IndexPool, BaseAndOffsetSplitsAConstantOff) {
  IndexPool p;
  const IndexRef i = p.var(0), j = p.var(1);
  EXPECT_EQ(p.base_and_offset(p.add(i, p.constant(64))), (std::pair<IndexRef, int64_t>{i, 64}));
  EXPECT_EQ(p.base_and_offset(p.sub(i, p.constant(64))), (std::pair<IndexRef, int64_t>{i, -64}));
  EXPECT_EQ(p.base_and_offset(i), (std::pair<IndexRef, int64_t>{i, 0}));
  const IndexRef sum = p.add(i, j);
  EXPECT_EQ(p.base_and_offset(sum), (std::pair<IndexRef, int64_t>{sum, 0}));
  const IndexRef twice = p.mul(i, p.constant(2));
  EXPECT_EQ(p.base_and_offset(p.sub(p.add(p.constant(2), twice), p.constant(1))), (std::pair<IndexRef, int64_t>{twice, 1}));
}

TEST(KernelInterpreter, FusedElementwiseChainMatchesReference) {
  Graph g;
  Tensor a = input(g, "a", DType::F32, {10}), b = input(g, "b", DType::F32, {10}),
         d = input(g, "d", DType::F32, {10});
  Tensor c = broadcast(constant(g, 2.123), {10});
  g.add_output(relu(exp2(a) - sin(b)) + c / d);

  KernelProgram p;
  int ba = add_buffer(p, "a", {DType::F32, {10}}, BufferKind::kInput, 0);
  int bb = add_buffer(p, "b", {DType::F32, {10}}, BufferKind::kInput, 1);
  int bd = add_buffer(p, "d", {DType::F32, {10}}, BufferKind::kInput, 2);
  int by = add_buffer(p, "y", {DType::F32, {10}}, BufferKind::kOutput, 0);
  p.kernels.push_back({"fused", {10}, {}, {}, {}, {}});
  KernelBuilder kb(p.kernels.back());
  IndexRef i = kb.var(0);
  int lhs = kb.op(Op::Relu, {kb.op(Op::Sub, {kb.op(Op::Exp2, {kb.load(ba, {i}, DType::F32)}, DType::F32), kb.op(Op::Sin, {kb.load(bb, {i}, DType::F32)}, DType::F32)}, DType::F32)}, DType::F32);
  int rhs = kb.op(Op::Div, {kb.constant(2.123, DType::F32), kb.load(bd, {i}, DType::F32)}, DType::F32);
  p.kernels.back().outputs = {{by, kb.op(Op::Add, {lhs, rhs}, DType::F32)}};

  std::mt19937_64 rng(1);
  std::vector<HostTensor> inputs;
  for (ValueId v : g.inputs()) inputs.push_back(random_tensor(g.type(v), rng));
  expect_near_all(run_kernels(p, inputs)[0], interpret(g, inputs)[0], 0);
}

// luminal's slice→cos→pad: the pad's mask must guard the computed cos, so the
// padded element is the pad value, never cos(0) = 1.
TEST(KernelInterpreter, PadOfComputedValueReadsThePadValue) {
  KernelProgram p;
  int bx = add_buffer(p, "x", {DType::F32, {8}}, BufferKind::kInput, 0);
  int by = add_buffer(p, "y", {DType::F32, {2}}, BufferKind::kOutput, 0);
  p.kernels.push_back({"slice_cos_pad", {2}, {}, {}, {}, {}});
  KernelBuilder kb(p.kernels.back());
  IndexRef i = kb.var(0);
  IndexRef in_slice = kb.indices().lt(i, kb.constant_index(1));
  int cosine = kb.op(Op::Cos, {kb.load(bx, {i}, DType::F32, in_slice, 0)}, DType::F32);
  int mask = kb.index_value(in_slice, DType::Bool);
  p.kernels.back().outputs = {{by, kb.op(Op::Where, {mask, cosine, kb.constant(0, DType::F32)}, DType::F32)}};

  HostTensor x = HostTensor::from_values({DType::F32, {8}}, {0.5, 0.25, 0, 0, 0, 0, 0, 0});
  HostTensor y = run_kernels(p, {x})[0];
  EXPECT_FLOAT_EQ(static_cast<float>(y.get(0)), std::cos(0.5f));
  EXPECT_EQ(y.get(1), 0.0);

  // The seed's bug, for contrast: masking only the leaf leaks cos(0) = 1.
  p.kernels.back().outputs = {{by, cosine}};
  EXPECT_EQ(run_kernels(p, {x})[0].get(1), 1.0);
}

// mlir_dot_slice in small: y = (A·B[:, :N] + bias[:N]) * sigmoid(A·B[:, N:] + bias[N:]),
// one kernel with a contraction group of two gemms sharing A; C never exists.
TEST(KernelInterpreter, DualGemmContractionGroupMatchesReference) {
  const int64_t M = 3, K = 5, N = 4;
  Graph g;
  Tensor A = input(g, "A", DType::F32, {M, K}), B = input(g, "B", DType::F32, {K, 2 * N}),
         bias = input(g, "bias", DType::F32, {2 * N});
  Tensor C = matmul(A, B) + broadcast(bias, {M, 2 * N});
  g.add_output(mul(slice_axis(C, 1, 0, N), sigmoid(slice_axis(C, 1, N, 2 * N))));

  KernelProgram p;
  int ba = add_buffer(p, "A", {DType::F32, {M, K}}, BufferKind::kInput, 0);
  int bb = add_buffer(p, "B", {DType::F32, {K, 2 * N}}, BufferKind::kInput, 1);
  int bbias = add_buffer(p, "bias", {DType::F32, {2 * N}}, BufferKind::kInput, 2);
  int by = add_buffer(p, "y", {DType::F32, {M, N}}, BufferKind::kOutput, 0);
  p.kernels.push_back({"dual_gemm", {M, N}, {K}, {}, {}, {}});
  KernelBuilder kb(p.kernels.back());
  IndexRef i = kb.var(0), j = kb.var(1), k = kb.var(2);
  IndexRef j_right = kb.indices().add(j, kb.constant_index(N));
  int a = kb.load(ba, {i, k}, DType::F32);
  int left = kb.reduce(Op::ReduceSum, kb.op(Op::Mul, {a, kb.load(bb, {k, j}, DType::F32)}, DType::F32), DType::F32, true);
  int right = kb.reduce(Op::ReduceSum, kb.op(Op::Mul, {a, kb.load(bb, {k, j_right}, DType::F32)}, DType::F32), DType::F32, true);
  int left_biased = kb.op(Op::Add, {left, kb.load(bbias, {j}, DType::F32)}, DType::F32);
  int right_biased = kb.op(Op::Add, {right, kb.load(bbias, {j_right}, DType::F32)}, DType::F32);
  p.kernels.back().outputs = {{by, kb.op(Op::Mul, {left_biased, kb.op(Op::Sigmoid, {right_biased}, DType::F32)}, DType::F32)}};

  std::mt19937_64 rng(2);
  std::vector<HostTensor> inputs;
  for (ValueId v : g.inputs()) inputs.push_back(random_tensor(g.type(v), rng));
  expect_near_all(run_kernels(p, inputs)[0], interpret(g, inputs)[0], 1e-6);
  EXPECT_NE(print_program(p).find("reduce_sum[contraction]"), std::string::npos);
}

// A row softmax denominator: reduce_sum(exp(x), axis 1, keepdims) in one kernel,
// and a second kernel consuming the intermediate buffer.
TEST(KernelInterpreter, ReductionThenEpilogueKernelMatchesReference) {
  Graph g;
  Tensor x = input(g, "x", DType::F32, {3, 6});
  Tensor denom = reduce_sum(exp(x), {1}, true);
  g.add_output(div(exp(x), broadcast(denom, {3, 6})));

  KernelProgram p;
  int bx = add_buffer(p, "x", {DType::F32, {3, 6}}, BufferKind::kInput, 0);
  int bt = add_buffer(p, "denom", {DType::F32, {3, 1}}, BufferKind::kIntermediate, -1);
  int by = add_buffer(p, "y", {DType::F32, {3, 6}}, BufferKind::kOutput, 0);
  p.kernels.push_back({"row_sum", {3, 1}, {6}, {}, {}, {}});
  {
    KernelBuilder kb(p.kernels.back());
    int e = kb.op(Op::Exp, {kb.load(bx, {kb.var(0), kb.var(2)}, DType::F32)}, DType::F32);
    p.kernels.back().outputs = {{bt, kb.reduce(Op::ReduceSum, e, DType::F32)}};
  }
  p.kernels.push_back({"normalize", {3, 6}, {}, {}, {}, {}});
  {
    KernelBuilder kb(p.kernels.back());
    int e = kb.op(Op::Exp, {kb.load(bx, {kb.var(0), kb.var(1)}, DType::F32)}, DType::F32);
    int d = kb.load(bt, {kb.var(0), kb.constant_index(0)}, DType::F32);
    p.kernels.back().outputs = {{by, kb.op(Op::Div, {e, d}, DType::F32)}};
  }
  std::mt19937_64 rng(3);
  std::vector<HostTensor> inputs{random_tensor(g.type(g.inputs()[0]), rng)};
  expect_near_all(run_kernels(p, inputs)[0], interpret(g, inputs)[0], 1e-7);
}

TEST(KernelInterpreter, IntegerKernelsWrapLikeTheReference) {
  KernelProgram p;
  int bx = add_buffer(p, "x", {DType::I32, {2}}, BufferKind::kInput, 0);
  int by = add_buffer(p, "y", {DType::I32, {2}}, BufferKind::kOutput, 0);
  p.kernels.push_back({"wrap", {2}, {}, {}, {}, {}});
  KernelBuilder kb(p.kernels.back());
  int x = kb.load(bx, {kb.var(0)}, DType::I32);
  p.kernels.back().outputs = {{by, kb.op(Op::Add, {x, x}, DType::I32)}};
  HostTensor in = HostTensor::from_values({DType::I32, {2}}, {2147483647.0, -3});
  HostTensor y = run_kernels(p, {in})[0];
  EXPECT_EQ(y.ints[0], -2);
  EXPECT_EQ(y.ints[1], -6);
}

TEST(KernelValidation, RejectsMalformedKernelsWithAReason) {
  KernelProgram p;
  int bx = add_buffer(p, "x", {DType::F32, {4}}, BufferKind::kInput, 0);
  int by = add_buffer(p, "y", {DType::F32, {4}}, BufferKind::kOutput, 0);
  p.kernels.push_back({"k", {4}, {}, {}, {}, {}});
  KernelBuilder kb(p.kernels.back());
  int x = kb.load(bx, {kb.var(0)}, DType::F32);
  p.kernels.back().outputs = {{by, x}};
  EXPECT_NO_THROW(validate(p));

  auto expect_invalid = [](KernelProgram q, const std::string& fragment) {
    try {
      validate(q);
      ADD_FAILURE() << "accepted: " << fragment;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  KernelProgram bad = p;
  bad.kernels[0].exprs[0].index.push_back(bad.kernels[0].indices.var(0));
  expect_invalid(bad, "one index per buffer axis");
  bad = p;
  bad.kernels[0].exprs[0].index = {bad.kernels[0].indices.var(3)};
  expect_invalid(bad, "unknown variable");
  bad = p;
  bad.kernels[0].space = {5};
  expect_invalid(bad, "does not match the iteration space");
  bad = p;
  bad.kernels[0].outputs = {{bx, x}};
  expect_invalid(bad, "writes an input buffer");
  bad = p;
  KernelBuilder(bad.kernels[0]).reduce(Op::ReduceSum, x, DType::F32);
  expect_invalid(bad, "reduction domain");
  bad = p;
  bad.kernels[0].exprs.push_back(make_load(by, {bad.kernels[0].indices.var(0)}, DType::F32));
  expect_invalid(bad, "loads its own output y");

  // A scatter: y starts as a copy of z, x[i] written at element 3 - i.
  KernelProgram s = p;
  const int bz = add_buffer(s, "z", {DType::F32, {4}}, BufferKind::kInput, 1);
  {
    KernelBuilder sb(s.kernels[0]);
    IndexPool& pool = s.kernels[0].indices;
    s.kernels[0].outputs[0].scatter_at = sb.index_value(pool.sub(pool.constant(3), pool.var(0)), DType::I64);
    s.kernels[0].outputs[0].scatter_initial = bz;
  }
  EXPECT_NO_THROW(validate(s));
  HostTensor z = HostTensor::from_values({DType::F32, {4}}, {9, 9, 9, 9});
  EXPECT_EQ(run_kernels(s, {HostTensor::from_values({DType::F32, {4}}, {1, 2, 3, 4}), z})[0].reals,
            (std::vector<double>{4, 3, 2, 1}));
  bad = s;
  bad.kernels[0].outputs[0].scatter_initial = by;
  expect_invalid(bad, "starts from another buffer");
  bad = s;
  bad.kernels[0].exprs[bad.kernels[0].outputs[0].scatter_at].dtype = DType::I32;
  expect_invalid(bad, "not an i64 node");
  bad = s;
  bad.kernels[0].outputs.push_back({add_buffer(bad, "w", {DType::F32, {4}}, BufferKind::kOutput, 1), x});
  expect_invalid(bad, "all scatter or none");
}

TEST(KernelInterpreter, OutOfBoundsLoadIsAnErrorNotGarbage) {
  KernelProgram p;
  int bx = add_buffer(p, "x", {DType::F32, {4}}, BufferKind::kInput, 0);
  int by = add_buffer(p, "y", {DType::F32, {4}}, BufferKind::kOutput, 0);
  p.kernels.push_back({"shifted", {4}, {}, {}, {}, {}});
  KernelBuilder kb(p.kernels.back());
  p.kernels.back().outputs = {{by, kb.load(bx, {kb.indices().add(kb.var(0), kb.constant_index(1))}, DType::F32)}};
  HostTensor x = HostTensor::zeros({DType::F32, {4}});
  EXPECT_THROW(run_kernels(p, {x}), std::out_of_range);
}

}  // namespace
}  // namespace smelt::ir
