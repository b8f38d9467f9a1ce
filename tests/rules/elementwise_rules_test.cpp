// Family 1: elementwise algebra. Each rule fires on a graph that needs it and
// keeps every extraction's values bit-identical (or within tolerance for the
// :unsafe-fp rules); the cases marked `fires = false` pin down where a rule
// must not apply (signed zeros, lossy casts).
#include <gtest/gtest.h>

#include "tests/rules/rule_case.h"

namespace smelt::rules::testing {

const std::string kXY = "x = input() : f32[4]\ny = input() : f32[4]\n";
const std::string kIJ = "i = input() : i32[4]\nj = input() : i32[4]\n";

std::span<const RuleCase> elementwise_cases() {
  static const std::vector<RuleCase> cases = {
      {"add-commute", kXY + "z = add(x, y)\noutput z", kXY + "z = add(y, x)\noutput z"},
      {"mul-commute", kIJ + "z = mul(i, j)\noutput z", kIJ + "z = mul(j, i)\noutput z"},
      {"eq-commute", kXY + "z = eq(x, y)\noutput z", kXY + "z = eq(y, x)\noutput z"},
      {"mul-one", kXY + "one = full(value=1) : f32[4]\nz = mul(x, one)\noutput z", kXY + "output x"},
      // The constant is seen through the broadcast of a scalar.
      {"mul-one", kXY + "c = constant(value=1) : f32[]\nb = broadcast(c, shape=[4])\nz = mul(x, b)\noutput z",
       kXY + "output x"},
      {"mul-one", kXY + "z = mul(x, y)\noutput z", "", false},
      {"div-one", kIJ + "one = full(value=1) : i32[4]\nz = div(i, one)\noutput z", kIJ + "output i"},
      {"sub-zero", kXY + "zero = full(value=0) : f32[4]\nz = sub(x, zero)\noutput z", kXY + "output x"},
      // x - (-0) = x + 0, which turns x = -0 into +0.
      {"sub-zero", kXY + "zero = full(value=-0.0) : f32[4]\nz = sub(x, zero)\noutput z", "", false},
      {"add-negative-zero", kXY + "zero = full(value=-0.0) : f32[4]\nz = add(x, zero)\noutput z", kXY + "output x"},
      {"add-negative-zero", kXY + "zero = full(value=0) : f32[4]\nz = add(x, zero)\noutput z", "", false},
      {"add-zero-int", kIJ + "zero = full(value=0) : i32[4]\nz = add(i, zero)\noutput z", kIJ + "output i"},
      {"add-zero-int", kXY + "zero = full(value=0) : f32[4]\nz = add(x, zero)\noutput z", "", false},
      {"mul-minus-one", kXY + "m = full(value=-1) : f32[4]\nz = mul(x, m)\noutput z", kXY + "z = neg(x)\noutput z"},
      {"mul-minus-one", kIJ + "m = full(value=-1) : i32[4]\nz = mul(i, m)\noutput z", kIJ + "z = neg(i)\noutput z"},
      {"div-minus-one", kIJ + "m = full(value=-1) : i32[4]\nz = div(i, m)\noutput z", kIJ + "z = neg(i)\noutput z"},
      {"div-minus-one", kXY + "m = full(value=-1) : f32[4]\nz = div(x, m)\noutput z", kXY + "z = neg(x)\noutput z"},
      {"mul-zero-int", kIJ + "zero = full(value=0) : i32[4]\nz = mul(i, zero)\noutput z",
       "z = full(value=0) : i32[4]\noutput z"},
      {"mul-zero-int", kXY + "zero = full(value=0) : f32[4]\nz = mul(x, zero)\noutput z", "", false},
      {"sub-self-int", kIJ + "z = sub(i, i)\noutput z", "z = full(value=0) : i32[4]\noutput z"},
      {"sub-self-int", kXY + "z = sub(x, x)\noutput z", "", false},
      {"sub-to-add-neg", kXY + "z = sub(x, y)\noutput z", kXY + "n = neg(y)\nz = add(x, n)\noutput z"},
      {"add-neg-to-sub", kIJ + "n = neg(j)\nz = add(i, n)\noutput z", kIJ + "z = sub(i, j)\noutput z"},
      {"neg-neg", kIJ + "a = neg(i)\nz = neg(a)\noutput z", kIJ + "output i"},
      {"neg-out-of-mul", kXY + "n = neg(x)\nz = mul(n, y)\noutput z", kXY + "m = mul(x, y)\nz = neg(m)\noutput z"},
      {"abs-abs", kIJ + "a = abs(i)\nz = abs(a)\noutput z", kIJ + "z = abs(i)\noutput z"},
      {"abs-neg", kXY + "n = neg(x)\nz = abs(n)\noutput z", kXY + "z = abs(x)\noutput z"},
      {"relu-relu", kXY + "r = relu(x)\nz = relu(r)\noutput z", kXY + "z = relu(x)\noutput z"},
      {"where-true", kXY + "c = full(value=true) : bool[4]\nz = where(c, x, y)\noutput z", kXY + "output x"},
      {"where-false", kXY + "c = full(value=false) : bool[4]\nz = where(c, x, y)\noutput z", kXY + "output y"},
      {"where-same", kXY + "c = lt(x, y)\nz = where(c, x, x)\noutput z", kXY + "output x"},
      {"cast-identity", kXY + "z = cast(x, to=f32)\noutput z", kXY + "output x"},
      {"cast-round-trip", "x = input() : bf16[4]\nw = cast(x, to=f32)\nz = cast(w, to=bf16)\noutput z",
       "x = input() : bf16[4]\noutput x"},
      {"cast-round-trip", "b = input() : bool[4]\nw = cast(b, to=f16)\nz = cast(w, to=bool)\noutput z",
       "b = input() : bool[4]\noutput b"},
      // i32 -> f32 -> i32 loses every odd integer beyond 2^24.
      {"cast-round-trip", kIJ + "w = cast(i, to=f32)\nz = cast(w, to=i32)\noutput z", "", false},
      {"neg-through-float-cast", kXY + "n = neg(x)\nz = cast(n, to=bf16)\noutput z",
       kXY + "c = cast(x, to=bf16)\nz = neg(c)\noutput z"},
      // neg(+inf) cast to i32 is 0, neg of +inf cast to i32 is 1: not for integer targets.
      {"neg-through-float-cast", kXY + "n = neg(x)\nz = cast(n, to=i32)\noutput z", "", false},
      // ---- :unsafe-fp ----
      {"add-zero", kXY + "zero = full(value=0) : f32[4]\nz = add(x, zero)\noutput z", kXY + "output x"},
      {"mul-zero", kXY + "zero = full(value=0) : f32[4]\nz = mul(x, zero)\noutput z",
       "z = full(value=0) : f32[4]\noutput z"},
      {"sub-self", kXY + "z = sub(x, x)\noutput z", "z = full(value=0) : f32[4]\noutput z"},
      {"add-assoc", kXY + "w = input() : f32[4]\na = add(x, y)\nz = add(a, w)\noutput z",
       kXY + "w = input() : f32[4]\na = add(y, w)\nz = add(x, a)\noutput z"},
      {"mul-assoc", kXY + "w = input() : f32[4]\na = mul(x, y)\nz = mul(a, w)\noutput z",
       kXY + "w = input() : f32[4]\na = mul(y, w)\nz = mul(x, a)\noutput z"},
      {"distribute", kXY + "w = input() : f32[4]\na = add(y, w)\nz = mul(x, a)\noutput z",
       kXY + "w = input() : f32[4]\np = mul(x, y)\nq = mul(x, w)\nz = add(p, q)\noutput z"},
      {"factor", kXY + "w = input() : f32[4]\np = mul(x, y)\nq = mul(x, w)\nz = add(p, q)\noutput z",
       kXY + "w = input() : f32[4]\na = add(y, w)\nz = mul(x, a)\noutput z"},
      {"max-commute", kXY + "z = max(x, y)\noutput z", kXY + "z = max(y, x)\noutput z"},
      {"min-commute", kXY + "z = min(x, y)\noutput z", kXY + "z = min(y, x)\noutput z"},
  };
  return cases;
}

namespace {

class ElementwiseRules : public ::testing::TestWithParam<size_t> {};

TEST_P(ElementwiseRules, Case) { check_rule_case(elementwise_cases()[GetParam()]); }

INSTANTIATE_TEST_SUITE_P(Family1, ElementwiseRules, ::testing::Range<size_t>(0, elementwise_cases().size()),
                         [](const auto& p) { return case_name(elementwise_cases()[p.param], p.param); });

}  // namespace
}  // namespace smelt::rules::testing
