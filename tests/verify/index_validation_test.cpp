// Translation validation of index simplification: proved simplifications are
// used, wrong or unproved ones fall back to the raw expression.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "kernel/kernel_builder.h"
#include "kernel/kernel_interpreter.h"
#include "verify/index_validation.h"

namespace smelt::verify {
namespace {

using kernel::BufferKind;
using ir::DType;
using kernel::IndexRef;
using kernel::KernelBuilder;
using kernel::KernelProgram;

const std::vector<std::string> kNames{"i0", "i1", "r0"};

std::string index_str(const kernel::Kernel& k, int expr, int axis) {
  return k.indices.str(kernel::slot_ref(k, {expr, axis}), kNames);
}

const IndexCheck& check_of(const KernelValidation& v, int expr, int axis) {
  for (const IndexCheck& c : v.checks)
    if (c.slot.expr == expr && c.slot.axis == axis) return c;
  throw std::out_of_range("no such slot");
}

// y[i] = x[(i/4)*4 + i%4] over 24 elements: a reshape round trip.
KernelProgram round_trip_program() {
  KernelProgram p;
  int x = kernel::add_buffer(p, "x", {DType::F32, {24}}, BufferKind::kInput, 0);
  int y = kernel::add_buffer(p, "y", {DType::F32, {24}}, BufferKind::kOutput, 0);
  p.kernels.push_back({"round_trip", {24}, {}, {}, {}, {}});
  KernelBuilder kb(p.kernels.back());
  kernel::IndexPool& ix = kb.indices();
  IndexRef i = kb.var(0), four = ix.constant(4);
  kb.output(y, kb.load(x, {ix.add(ix.mul(ix.floor_div(i, four), four), ix.mod(i, four))}, DType::F32));
  return p;
}

TEST(IndexValidation, ReshapeRoundTripIsProvedAndSimplified) {
  KernelProgram p = round_trip_program();
  const KernelProgram raw = p;
  ValidationReport report = validate_and_simplify(p);
  ASSERT_EQ(report.kernels.size(), 1u);
  const IndexCheck& index = check_of(report.kernels[0], 0, 0);
  EXPECT_EQ(index.outcome, IndexOutcome::kProved);
  EXPECT_EQ(index.raw, "(((i0 / 4) * 4) + (i0 % 4))");
  EXPECT_EQ(index.simplified, "i0");
  EXPECT_EQ(check_of(report.kernels[0], 0, kernel::IndexSlot::kMaskSlot).outcome, IndexOutcome::kUnchanged);
  EXPECT_EQ(index_str(p.kernels[0], 0, 0), "i0");
  EXPECT_EQ(report.count(IndexOutcome::kCounterexample) + report.count(IndexOutcome::kUnknown), 0);

  std::mt19937_64 rng(1);
  std::vector<ir::HostTensor> inputs{ir::random_tensor(raw.buffers[0].type, rng)};
  EXPECT_EQ(kernel::run_kernels(p, inputs)[0].reals, kernel::run_kernels(raw, inputs)[0].reals);
}

// A whole model repeats its layers: a query already proved in an earlier
// kernel (same printed expressions, same variable ranges) is not asked again;
// over other ranges it is a different query and is proved on its own.
TEST(IndexValidation, AQueryProvedInAnEarlierKernelIsReusedOnlyOverTheSameRanges) {
  KernelProgram p;
  auto add_round_trip = [&p](int64_t n) {
    int x = kernel::add_buffer(p, "x" + std::to_string(p.buffers.size()), {DType::F32, {n}}, BufferKind::kInput,
                               static_cast<int>(p.buffers.size()));
    int y = kernel::add_buffer(p, "y" + std::to_string(p.buffers.size()), {DType::F32, {n}}, BufferKind::kOutput,
                               static_cast<int>(p.buffers.size()));
    p.kernels.push_back({"round_trip_" + std::to_string(p.kernels.size()), {n}, {}, {}, {}, {}});
    KernelBuilder kb(p.kernels.back());
    kernel::IndexPool& ix = kb.indices();
    IndexRef i = kb.var(0), four = ix.constant(4);
    kb.output(y, kb.load(x, {ix.add(ix.mul(ix.floor_div(i, four), four), ix.mod(i, four))}, DType::F32));
  };
  add_round_trip(24);
  add_round_trip(24);
  add_round_trip(32);
  ValidationReport report = validate_and_simplify(p);
  ASSERT_EQ(report.kernels.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    const IndexCheck& index = check_of(report.kernels[k], 0, 0);
    EXPECT_EQ(index.outcome, IndexOutcome::kProved) << k;
    EXPECT_EQ(index.simplified, "i0") << k;
    EXPECT_EQ(index.reused, k == 1) << k;  // kernel 2's i0 ranges over 0..31, not 0..23
    EXPECT_EQ(index_str(p.kernels[k], 0, 0), "i0") << k;
  }
}

// The same kernel with the hand-made "simplification" `replacement` in place of
// load 0's index; returns the validation of it.
KernelValidation validate_replacement(const kernel::Kernel& raw, kernel::Kernel& candidate,
                                      const std::function<IndexRef(kernel::IndexPool&)>& replacement,
                                      const IndexValidationOptions& options = {}) {
  candidate = raw;
  candidate.exprs[0].index[0] = replacement(candidate.indices);
  return validate_kernel(raw, candidate, options);
}

TEST(IndexValidation, WrongSimplificationIsRejectedWithACounterexample) {
  KernelProgram p;
  int x = kernel::add_buffer(p, "x", {DType::F32, {8}}, BufferKind::kInput, 0);
  int y = kernel::add_buffer(p, "y", {DType::F32, {8}}, BufferKind::kOutput, 0);
  p.kernels.push_back({"k", {8}, {}, {}, {}, {}});
  KernelBuilder kb(p.kernels.back());
  IndexRef i = kb.var(0);
  kb.output(y, kb.load(x, {kb.indices().mod(i, kb.constant_index(4))}, DType::F32));
  const kernel::Kernel& raw = p.kernels[0];

  // i % 4 "simplified" to i: wrong from i = 4 on.
  kernel::Kernel candidate;
  KernelValidation v = validate_replacement(raw, candidate, [](kernel::IndexPool& ix) { return ix.var(0); });
  const IndexCheck& index = check_of(v, 0, 0);
  EXPECT_EQ(index.outcome, IndexOutcome::kCounterexample);
  EXPECT_EQ(index.simplified, "i0");
  ASSERT_EQ(index.counterexample.size(), 1u);
  EXPECT_GE(index.counterexample[0], 4);
  EXPECT_LT(index.counterexample[0], 8);
  EXPECT_EQ(index_str(candidate, 0, 0), "(i0 % 4)");  // the raw form is kept

  ValidationReport report{{v}};
  EXPECT_NE(report.str().find("they differ at i0=" + std::to_string(index.counterexample[0])), std::string::npos)
      << report.str();

  // The correct form (a different expression, equal in range) is proved.
  v = validate_replacement(raw, candidate, [](kernel::IndexPool& ix) {
    IndexRef i0 = ix.var(0);
    return ix.select(ix.lt(i0, ix.constant(4)), i0, ix.sub(i0, ix.constant(4)));
  });
  EXPECT_EQ(check_of(v, 0, 0).outcome, IndexOutcome::kProved);
  EXPECT_EQ(index_str(candidate, 0, 0), "((i0 < 4) ? i0 : (i0 - 4))");
}

// luminal's slice→cos→pad (tests/ir/kernel_test.cpp): the pad's mask is not
// always true, so it must survive simplification, and the padded element must
// still read the pad value.
TEST(IndexValidation, SliceCosPadKeepsItsMask) {
  KernelProgram p;
  int bx = kernel::add_buffer(p, "x", {DType::F32, {8}}, BufferKind::kInput, 0);
  int by = kernel::add_buffer(p, "y", {DType::F32, {2}}, BufferKind::kOutput, 0);
  p.kernels.push_back({"slice_cos_pad", {2}, {}, {}, {}, {}});
  KernelBuilder kb(p.kernels.back());
  IndexRef i = kb.var(0);
  IndexRef in_slice = kb.indices().lt(i, kb.constant_index(1));
  int cosine = kb.op(ir::Op::Cos, {kb.load(bx, {i}, DType::F32, in_slice, 0)}, DType::F32);
  int mask = kb.index_value(in_slice, DType::Bool);
  kb.output(by, kb.op(ir::Op::Where, {mask, cosine, kb.constant(0, DType::F32)}, DType::F32));

  ValidationReport report = validate_and_simplify(p);
  EXPECT_EQ(report.count(IndexOutcome::kCounterexample) + report.count(IndexOutcome::kUnknown), 0) << report.str();
  EXPECT_EQ(index_str(p.kernels[0], 0, kernel::IndexSlot::kMaskSlot), "(i0 < 1)");
  EXPECT_EQ(index_str(p.kernels[0], 2, 0), "(i0 < 1)");  // the where's condition
  ir::HostTensor x = ir::HostTensor::from_values({DType::F32, {8}}, {0.5, 0.25, 0, 0, 0, 0, 0, 0});
  ir::HostTensor out = kernel::run_kernels(p, {x})[0];
  EXPECT_FLOAT_EQ(static_cast<float>(out.get(0)), std::cos(0.5f));
  EXPECT_EQ(out.get(1), 0.0);

  // Dropping the mask is exactly the seed's bug: rejected.
  kernel::Kernel candidate = p.kernels[0];
  candidate.exprs[0].valid = kernel::kNoIndex;
  KernelValidation v = validate_kernel(p.kernels[0], candidate);
  EXPECT_EQ(check_of(v, 0, kernel::IndexSlot::kMaskSlot).outcome, IndexOutcome::kCounterexample);
  EXPECT_EQ(check_of(v, 0, kernel::IndexSlot::kMaskSlot).counterexample, std::vector<int64_t>{1});
  EXPECT_EQ(index_str(candidate, 0, kernel::IndexSlot::kMaskSlot), "(i0 < 1)");
}

// y[i] = pad(x, lo 2)[i] over 8 with x of 4: the index (i − 2) % 4 equals
// i − 2 only where the mask 2 ≤ i < 6 holds — which is all that is needed.
TEST(IndexValidation, IndexEquivalenceIsRequiredOnlyWhereTheMaskHolds) {
  KernelProgram p;
  int bx = kernel::add_buffer(p, "x", {DType::F32, {4}}, BufferKind::kInput, 0);
  int by = kernel::add_buffer(p, "y", {DType::F32, {8}}, BufferKind::kOutput, 0);
  p.kernels.push_back({"pad", {8}, {}, {}, {}, {}});
  KernelBuilder kb(p.kernels.back());
  kernel::IndexPool& ix = kb.indices();
  IndexRef i = kb.var(0);
  IndexRef mask = ix.logical_and(ix.le(ix.constant(2), i), ix.lt(i, ix.constant(6)));
  kb.output(by, kb.load(bx, {ix.mod(ix.sub(i, ix.constant(2)), ix.constant(4))}, DType::F32, mask, -1));
  const KernelProgram raw = p;

  ValidationReport report = validate_and_simplify(p);
  EXPECT_EQ(check_of(report.kernels[0], 0, 0).outcome, IndexOutcome::kProved) << report.str();
  EXPECT_EQ(index_str(p.kernels[0], 0, 0), "(i0 - 2)");
  ir::HostTensor x = ir::HostTensor::from_values({DType::F32, {4}}, {1, 2, 3, 4});
  EXPECT_EQ(kernel::run_kernels(p, {x})[0].reals, (std::vector<double>{-1, -1, 1, 2, 3, 4, -1, -1}));
  EXPECT_EQ(kernel::run_kernels(raw, {x})[0].reals, kernel::run_kernels(p, {x})[0].reals);

  // Without the mask the same replacement is wrong (at i = 0, 1, 6, 7).
  kernel::Kernel unmasked = raw.kernels[0];
  unmasked.exprs[0].valid = kernel::kNoIndex;
  kernel::Kernel candidate;
  KernelValidation v = validate_replacement(unmasked, candidate, [](kernel::IndexPool& pool) {
    return pool.sub(pool.var(0), pool.constant(2));
  });
  EXPECT_EQ(check_of(v, 0, 0).outcome, IndexOutcome::kCounterexample);
}

// (i0·i1) % 7 = ((i0 % 7)·(i1 % 7)) % 7 holds, but it is non-linear: with a
// starved resource limit Z3 answers "unknown", which must not count as proved.
TEST(IndexValidation, UnknownIsNotProved) {
  KernelProgram p;
  int bx = kernel::add_buffer(p, "x", {DType::F32, {7}}, BufferKind::kInput, 0);
  int by = kernel::add_buffer(p, "y", {DType::F32, {64, 64}}, BufferKind::kOutput, 0);
  p.kernels.push_back({"product_mod", {64, 64}, {}, {}, {}, {}});
  KernelBuilder kb(p.kernels.back());
  kernel::IndexPool& ix = kb.indices();
  kb.output(by, kb.load(bx, {ix.mod(ix.mul(kb.var(0), kb.var(1)), ix.constant(7))}, DType::F32));

  IndexValidationOptions starved;
  starved.query_resource_limit = 1;
  kernel::Kernel candidate;
  KernelValidation v = validate_replacement(p.kernels[0], candidate, [](kernel::IndexPool& pool) {
    IndexRef seven = pool.constant(7);
    return pool.mod(pool.mul(pool.mod(pool.var(0), seven), pool.mod(pool.var(1), seven)), seven);
  }, starved);
  const IndexCheck& index = check_of(v, 0, 0);
  EXPECT_EQ(index.outcome, IndexOutcome::kUnknown);
  EXPECT_FALSE(index.reason.empty());
  EXPECT_EQ(index_str(candidate, 0, 0), "((i0 * i1) % 7)");
  ValidationReport report{{v}};
  EXPECT_NE(report.str().find("unknown ("), std::string::npos) << report.str();
}

// Past the program's time limit no slot is proved: each simplified one keeps
// its raw form, the report says the limit stopped the proofs, and the kernel
// still computes the same values.
TEST(IndexValidation, APassedTimeLimitKeepsEveryRawFormAndSaysSo) {
  KernelProgram p = round_trip_program();
  const KernelProgram raw = p;
  ValidationReport report = validate_and_simplify(p, {.time_limit_s = 0});
  EXPECT_TRUE(report.stopped_at_time_limit);
  const IndexCheck& index = check_of(report.kernels[0], 0, 0);
  EXPECT_EQ(index.outcome, IndexOutcome::kUnknown);
  EXPECT_NE(index.reason.find("time limit"), std::string::npos) << index.reason;
  EXPECT_EQ(index_str(p.kernels[0], 0, 0), "(((i0 / 4) * 4) + (i0 % 4))");
  EXPECT_EQ(check_of(report.kernels[0], 0, kernel::IndexSlot::kMaskSlot).outcome, IndexOutcome::kUnchanged);

  KernelProgram in_time = round_trip_program();
  EXPECT_FALSE(validate_and_simplify(in_time).stopped_at_time_limit);
}

// A coordinate of a reshape round trip, x[8,16,32,64] flattened, viewed as
// [8,16,32,64] again, axis 1: under a resource limit too small for one query,
// the proof goes node by node through the simplifier's intermediate forms.
// (The limit counts Z3 4.8's work units: 1000 to 50000 all behave so.)
TEST(IndexValidation, AHardQueryIsProvedStepByStep) {
  KernelProgram p;
  const ir::Shape shape{8, 16, 32, 64};
  const std::vector<int64_t> strides = ir::row_major_strides(shape);
  int bx = kernel::add_buffer(p, "x", {DType::F32, {ir::numel(shape)}}, BufferKind::kInput, 0);
  int by = kernel::add_buffer(p, "y", {DType::F32, {ir::numel(shape) / 64, 64}}, BufferKind::kOutput, 0);
  p.kernels.push_back({"coordinate", {ir::numel(shape) / 64, 64}, {}, {}, {}, {}});
  KernelBuilder kb(p.kernels.back());
  kernel::IndexPool& ix = kb.indices();
  IndexRef flat = ix.add(ix.mul(kb.var(0), ix.constant(64)), kb.var(1)), offset = ix.constant(0);
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    IndexRef coordinate = ix.mod(ix.floor_div(flat, ix.constant(strides[axis])), ix.constant(shape[axis]));
    offset = ix.add(offset, ix.mul(coordinate, ix.constant(strides[axis])));
  }
  kb.output(by, kb.load(bx, {ix.mod(ix.floor_div(offset, ix.constant(strides[1])), ix.constant(16))}, DType::F32));

  const KernelProgram raw = p;
  IndexValidationOptions limited;
  limited.query_resource_limit = 5000;
  ValidationReport report = validate_and_simplify(p, limited);
  const IndexCheck& index = check_of(report.kernels[0], 0, 0);
  EXPECT_EQ(index.outcome, IndexOutcome::kProved) << report.str();
  EXPECT_GT(index.steps, 0);
  EXPECT_EQ(index_str(p.kernels[0], 0, 0), "((i0 / 32) % 16)");

  // The intermediate forms are proved, not trusted: a wrong final form still fails.
  kernel::Kernel candidate;
  KernelValidation v = validate_replacement(raw.kernels[0], candidate, [](kernel::IndexPool& pool) {
    return pool.mod(pool.floor_div(pool.var(0), pool.constant(32)), pool.constant(8));
  }, limited);
  EXPECT_NE(check_of(v, 0, 0).outcome, IndexOutcome::kProved);
  EXPECT_NE(check_of(v, 0, 0).outcome, IndexOutcome::kUnchanged);
}

// An empty reduction domain must not make the outer loads' queries vacuous.
TEST(IndexValidation, EmptyReductionDomainDoesNotProveOuterIndices) {
  KernelProgram p;
  int bx = kernel::add_buffer(p, "x", {DType::F32, {4}}, BufferKind::kInput, 0);
  int bw = kernel::add_buffer(p, "w", {DType::F32, {4, 0}}, BufferKind::kInput, 1);
  int by = kernel::add_buffer(p, "y", {DType::F32, {4}}, BufferKind::kOutput, 0);
  p.kernels.push_back({"sum_plus_x", {4}, {0}, {}, {}, {}});
  KernelBuilder kb(p.kernels.back());
  int x = kb.load(bx, {kb.var(0)}, DType::F32);
  int sum = kb.reduce(ir::Op::ReduceSum, kb.load(bw, {kb.var(0), kb.var(1)}, DType::F32), DType::F32);
  kb.output(by, kb.op(ir::Op::Add, {x, sum}, DType::F32));

  kernel::Kernel candidate;
  KernelValidation v = validate_replacement(p.kernels[0], candidate, [](kernel::IndexPool& ix) {
    return ix.mod(ix.var(0), ix.constant(2));
  });
  EXPECT_EQ(check_of(v, 0, 0).outcome, IndexOutcome::kCounterexample);
}

TEST(IndexValidation, ANewVariableIsNeverAccepted) {
  KernelProgram p;
  int bx = kernel::add_buffer(p, "x", {DType::F32, {4}}, BufferKind::kInput, 0);
  int by = kernel::add_buffer(p, "y", {DType::F32, {4}}, BufferKind::kOutput, 0);
  p.kernels.push_back({"row_sum", {4}, {1}, {}, {}, {}});
  KernelBuilder kb(p.kernels.back());
  kb.output(by, kb.reduce(ir::Op::ReduceSum, kb.load(bx, {kb.var(0)}, DType::F32), DType::F32));
  kernel::Kernel candidate;  // i0 + r0 equals i0 (r0 is always 0) but moves the load into the loop
  KernelValidation v = validate_replacement(p.kernels[0], candidate, [](kernel::IndexPool& ix) {
    return ix.add(ix.var(0), ix.var(1));
  });
  EXPECT_EQ(check_of(v, 0, 0).outcome, IndexOutcome::kUnknown);
  EXPECT_EQ(index_str(candidate, 0, 0), "i0");
}

// A transpose of a reshaped input, a broadcast and a concat in one program:
// every simplification is proved and the results do not change.
TEST(IndexValidation, ViewChainsOfAProgramAreProved) {
  KernelProgram p;
  int bx = kernel::add_buffer(p, "x", {DType::F32, {24}}, BufferKind::kInput, 0);
  int bb = kernel::add_buffer(p, "b", {DType::F32, {3}}, BufferKind::kInput, 1);
  int bt = kernel::add_buffer(p, "t", {DType::F32, {4, 6}}, BufferKind::kIntermediate);
  int by = kernel::add_buffer(p, "y", {DType::F32, {4, 9}}, BufferKind::kOutput, 0);
  {  // t[a, c] = reshape(x, [6, 4])ᵀ[a, c] + b[c % 3]  (x viewed as [2, 3, 4], merged)
    p.kernels.push_back({"transpose", {4, 6}, {}, {}, {}, {}});
    KernelBuilder kb(p.kernels.back());
    kernel::IndexPool& ix = kb.indices();
    IndexRef a = kb.var(0), c = kb.var(1);
    IndexRef flat = ix.add(ix.mul(c, ix.constant(4)), a);  // element (c, a) of [6, 4]
    IndexRef d0 = ix.floor_div(flat, ix.constant(12)), d1 = ix.mod(ix.floor_div(flat, ix.constant(4)), ix.constant(3)),
             d2 = ix.mod(flat, ix.constant(4));
    IndexRef offset = ix.add(ix.add(ix.mul(d0, ix.constant(12)), ix.mul(d1, ix.constant(4))), d2);
    int xv = kb.load(bx, {ix.mod(offset, ix.constant(24))}, DType::F32);
    int bv = kb.load(bb, {ix.mod(c, ix.constant(3))}, DType::F32);
    kb.output(bt, kb.op(ir::Op::Add, {xv, bv}, DType::F32));
  }
  {  // y = concat(t, t[:, ::2], axis 1)
    p.kernels.push_back({"concat", {4, 9}, {}, {}, {}, {}});
    KernelBuilder kb(p.kernels.back());
    kernel::IndexPool& ix = kb.indices();
    IndexRef r = kb.var(0), c = kb.var(1);
    IndexRef first = ix.lt(c, ix.constant(6));
    IndexRef second = ix.logical_and(ix.le(ix.constant(6), c), ix.lt(c, ix.constant(9)));
    int left = kb.load(bt, {ix.min(r, ix.constant(3)), ix.min(c, ix.constant(5))}, DType::F32, first, 0);
    int right = kb.load(bt, {r, ix.mul(ix.sub(c, ix.constant(6)), ix.constant(2))}, DType::F32, second, 0);
    kb.output(by, kb.op(ir::Op::Add, {left, right}, DType::F32));
  }
  const KernelProgram raw = p;
  ValidationReport report = validate_and_simplify(p);
  EXPECT_EQ(report.count(IndexOutcome::kCounterexample) + report.count(IndexOutcome::kUnknown), 0) << report.str();
  EXPECT_GE(report.count(IndexOutcome::kProved), 5) << report.str();
  EXPECT_EQ(index_str(p.kernels[0], 0, 0), "(i0 + (i1 * 4))");
  EXPECT_EQ(index_str(p.kernels[1], 0, 0), "i0");                      // min(r, 3) with r < 4
  EXPECT_EQ(index_str(p.kernels[1], 0, 1), "i1");                      // min(c, 5) under c < 6
  EXPECT_EQ(index_str(p.kernels[1], 1, kernel::IndexSlot::kMaskSlot), "(6 <= i1)");  // c < 9 always
  std::mt19937_64 rng(5);
  std::vector<ir::HostTensor> inputs{ir::random_tensor(raw.buffers[0].type, rng), ir::random_tensor(raw.buffers[1].type, rng)};
  EXPECT_EQ(kernel::run_kernels(p, inputs)[0].reals, kernel::run_kernels(raw, inputs)[0].reals);
  std::printf("%s", report.str().c_str());
}

}  // namespace
}  // namespace smelt::verify
