// The prover's building blocks: products and quotients stay linear (or ask for
// finite parameters), and the value laws are instantiated on ground terms.
#include <gtest/gtest.h>

#include "verify/axioms.h"
#include "verify/int_arith.h"
#include "verify/value_domain.h"

namespace smelt::verify {
namespace {

TEST(IntArith, AProductOfSymbolicParametersAsksForFiniteOnes) {
  z3::context ctx;
  Case none;
  std::set<std::string> finite;
  Params params(ctx, none, finite);
  IntArith arith(ctx, params);
  z3::expr k = params.get("?k", ParamKind::kStep), n = params.get("?n", ParamKind::kExtent);
  z3::expr i = ctx.int_const("i");
  EXPECT_EQ(IntArith::numeral(arith.mul(ctx.int_val(3), ctx.int_val(4))), 12);
  try {
    arith.mul(i, k);
    FAIL() << "expected NeedFinite";
  } catch (const NeedFinite& f) {
    ASSERT_EQ(f.params.size(), 1u);
    EXPECT_EQ(f.params.begin()->first, "?k");
  }
  // Steps are preferred over extents.
  try {
    arith.mul(n, k);
    FAIL() << "expected NeedFinite";
  } catch (const NeedFinite& f) {
    EXPECT_EQ(f.params.begin()->first, "?k");
  }
  EXPECT_THROW(arith.mul(i, i), Unsupported);
}

TEST(IntArith, FiniteExpansionsAgreeWithArithmetic) {
  z3::context ctx;
  Case none;
  std::set<std::string> finite{"?k"};
  Params params(ctx, none, finite);
  IntArith arith(ctx, params);
  z3::expr k = params.get("?k", ParamKind::kStep), i = ctx.int_const("i");
  z3::expr_vector defined(ctx);
  z3::expr product = arith.mul(i, k), quotient = arith.floordiv(i, k, defined), rest = arith.mod(i, k, defined);
  EXPECT_TRUE(defined.empty());  // a step is never 0
  // For every step and a range of i, the expansions are i*k, floor(i/k), i - k*floor(i/k).
  z3::solver s(ctx);
  for (const z3::expr& d : params.domain()) s.add(d);
  s.add(i >= -20 && i <= 20);
  // floor(i/k) = q: k*q <= i < k*q + k for k > 0, k*q >= i > k*q + k for k < 0.
  z3::expr q = quotient;
  z3::expr floor_division = z3::ite(k > 0, k * q <= i && i < k * q + k, k * q >= i && i > k * q + k);
  s.add(!(product == i * k && floor_division && rest == i - k * q));
  EXPECT_EQ(s.check(), z3::unsat);
}

TEST(Axioms, GroundInstancesMatchConstantsUnderACondition) {
  z3::context ctx;
  ValueDomain values(ctx, false);
  z3::expr d = ctx.int_val(0), x = ctx.constant("x", values.sort()), c = ctx.constant("c", values.sort());
  z3::expr product = values.apply(ir::Op::Mul, d, {x, c});
  z3::expr_vector formulas(ctx);
  formulas.push_back(product == x);
  z3::expr_vector instances = ground_instances(values.laws(), formulas, 2);
  // c == 1 makes x*c = x: the instance "c == 1 -> mul(x, 1) = x" with congruence proves it.
  z3::solver s(ctx);
  for (const z3::expr& f : instances) s.add(f);
  for (const z3::expr& f : values.literal_facts()) s.add(f);
  s.add(c == values.literal(1));
  s.add(product != x);
  EXPECT_EQ(s.check(), z3::unsat);
  // Without the condition nothing follows.
  z3::solver t(ctx);
  for (const z3::expr& f : instances) t.add(f);
  t.add(product != x);
  EXPECT_EQ(t.check(), z3::sat);
}

TEST(ValueDomain, IntegerZerosAreOneElementFloatZerosTwo) {
  z3::context ctx;
  ValueDomain values(ctx, false);
  z3::expr i32 = ctx.int_val(static_cast<int>(ir::DType::I32)), f32 = ctx.int_val(static_cast<int>(ir::DType::F32));
  z3::solver s(ctx);
  z3::expr zero = values.literal(0.0), minus_zero = values.literal(-0.0);
  z3::expr same_int = values.element(i32, zero) == values.element(i32, minus_zero);
  z3::expr same_float = values.element(f32, zero) == values.element(f32, minus_zero);
  for (const z3::expr& f : values.literal_facts()) s.add(f);
  s.add(!same_int);
  EXPECT_EQ(s.check(), z3::unsat);
  z3::solver t(ctx);
  for (const z3::expr& f : values.literal_facts()) t.add(f);
  t.add(same_float);
  EXPECT_EQ(t.check(), z3::unsat);
}

}  // namespace
}  // namespace smelt::verify
