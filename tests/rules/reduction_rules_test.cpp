// Family 9: a reduce_max over axes where its operand is uniform (a full, or a
// broadcast copy) folds away; so does a float sum of a full, to the value the
// reference's sum gives (where that is n times the element, exactly).
#include <gtest/gtest.h>

#include "tests/rules/rule_case.h"

namespace smelt::rules::testing {

std::span<const RuleCase> reduction_cases() {
  static const std::vector<RuleCase> cases = {
      {"reduce-max-of-full", "f = full(value=2.5) : f32[4,6]\nm = reduce_max(f, axes=[1])\noutput m",
       "f = full(value=2.5) : f32[4]\noutput f"},
      {"reduce-max-of-full", "f = full(value=-3) : i32[2,3,5]\nm = reduce_max(f, axes=[0,2], keepdims=true)\noutput m",
       "f = full(value=-3) : i32[1,3,1]\noutput f"},
      // The max over an empty axis is the dtype's lowest value, not the full's.
      {"reduce-max-of-full", "f = full(value=1) : f32[4,0]\nm = reduce_max(f, axes=[1])\noutput m", "", false},
      {"reduce-sum-of-full", "f = full(value=2.5) : f32[4,6]\nm = reduce_sum(f, axes=[1])\noutput m",
       "f = full(value=15) : f32[4]\noutput f"},
      // 0.1 is 0.0999755859375 in f16: 35 copies, kept dims.
      {"reduce-sum-of-full", "f = full(value=0.1) : f16[5,3,7]\nm = reduce_sum(f, axes=[0,2], keepdims=true)\noutput m",
       "f = full(value=3.4991455078125) : f16[1,3,1]\noutput f"},
      // 2^20 copies of 0.1f: every partial sum exact in the reference's double.
      {"reduce-sum-of-full", "f = full(value=0.1) : f32[1024,1024]\nm = reduce_sum(f, axes=[0,1])\noutput m",
       "f = full(value=104857.6015625) : f32[]\noutput f"},
      // Copies of -0.0 sum to +0.0 (the reference's sum starts at +0.0).
      {"reduce-sum-of-full", "f = full(value=-0.0) : bf16[3,2]\nm = reduce_sum(f, axes=[0])\noutput m",
       "f = full(value=0) : bf16[2]\noutput f"},
      {"reduce-sum-of-full", "f = full(value=inf) : f32[3]\nm = reduce_sum(f, axes=[0])\noutput m",
       "f = full(value=inf) : f32[]\noutput f"},
      // Not for integers (no value: they wrap where floats round), not over an
      // empty axis, and not past 2^53 / v's mantissa copies (2^30 of 0.1f).
      {"reduce-sum-of-full", "f = full(value=3) : i32[4,6]\nm = reduce_sum(f, axes=[1])\noutput m", "", false},
      {"reduce-sum-of-full", "f = full(value=1) : f32[4,0]\nm = reduce_sum(f, axes=[1])\noutput m", "", false},
      {"reduce-sum-of-full", "f = full(value=0.1) : f32[1073741824]\nm = reduce_sum(f, axes=[0])\noutput m", "",
       false},
      // Over a new leading axis: x itself.
      {"reduce-max-of-broadcast",
       "x = input() : f32[3,4]\nb = broadcast(x, shape=[5,3,4])\nm = reduce_max(b, axes=[0])\noutput m",
       "x = input() : f32[3,4]\nr = reshape(x, shape=[3,4])\nb = broadcast(r, shape=[3,4])\noutput b"},
      // Over an extent-1 axis of x, keeping the dims, and along an axis that is not reduced.
      {"reduce-max-of-broadcast",
       "x = input() : f32[3,1]\nb = broadcast(x, shape=[2,3,6])\nm = reduce_max(b, axes=[0,2], keepdims=true)\n"
       "output m",
       "x = input() : f32[3,1]\nr = reshape(x, shape=[1,3,1])\nb = broadcast(r, shape=[1,3,1])\noutput b"},
      // Axis 1 is x's own (extent 3): its maximum is not one element of x.
      {"reduce-max-of-broadcast",
       "x = input() : f32[3,4]\nb = broadcast(x, shape=[5,3,4])\nm = reduce_max(b, axes=[0,1])\noutput m", "", false},
      // An empty broadcast axis: the lowest value.
      {"reduce-max-of-broadcast",
       "x = input() : f32[3]\nb = broadcast(x, shape=[0,3])\nm = reduce_max(b, axes=[0])\noutput m", "", false},
      // i64 broadcast, reduced to a scalar.
      {"reduce-max-of-broadcast",
       "x = input() : i64[]\nb = broadcast(x, shape=[7,2])\nm = reduce_max(b, axes=[0,1])\noutput m",
       "x = input() : i64[]\nr = reshape(x, shape=[])\nb = broadcast(r, shape=[])\noutput b"},
  };
  return cases;
}

namespace {

class ReductionRules : public ::testing::TestWithParam<size_t> {};

TEST_P(ReductionRules, Case) { check_rule_case(reduction_cases()[GetParam()]); }

INSTANTIATE_TEST_SUITE_P(Family9, ReductionRules, ::testing::Range<size_t>(0, reduction_cases().size()),
                         [](const auto& p) { return case_name(reduction_cases()[p.param], p.param); });

}  // namespace
}  // namespace smelt::rules::testing
