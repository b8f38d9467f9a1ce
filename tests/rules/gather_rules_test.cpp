// Family 8: gathers — a slice of a gather slices its indices; a table scaled
// by one number is scaled before it is gathered from (:unsafe-fp).
#include <gtest/gtest.h>

#include "tests/rules/rule_case.h"

namespace smelt::rules::testing {

std::span<const RuleCase> gather_cases() {
  static const std::vector<RuleCase> cases = {
      // Columns 1 and 3 of rows gathered along axis 0: the table's columns 1 and
      // 3, read at the ids' columns 1 and 3.
      {"slice-of-gather",
       "t = input() : f32[5,4]\ni = input() : i64[3,4]\ng = gather(t, i, axis=0)\n"
       "s = slice(g, start=[0,1], stop=[3,4], step=[1,2])\noutput s",
       "t = input() : f32[5,4]\ni = input() : i64[3,4]\nu = slice(t, start=[0,1], stop=[5,4], step=[1,2])\n"
       "j = slice(i, start=[0,1], stop=[3,4], step=[1,2])\ns = gather(u, j, axis=0)\noutput s"},
      // Along the gathered axis, backwards: the indices reversed, the table whole.
      {"slice-of-gather",
       "t = input() : f32[5,2]\ni = input() : i32[4,2]\ng = gather(t, i, axis=0)\n"
       "s = slice(g, start=[3,0], stop=[-1,2], step=[-1,1])\noutput s",
       "t = input() : f32[5,2]\ni = input() : i32[4,2]\nu = slice(t, start=[0,0], stop=[5,2], step=[1,1])\n"
       "j = slice(i, start=[3,0], stop=[-1,2], step=[-1,1])\ns = gather(u, j, axis=0)\noutput s"},
      {"gather-of-scaled",
       "t = input() : f32[6,3]\ni = input() : i64[2,3]\ng = gather(t, i, axis=0)\nc = constant(value=0.125) : f32[]\n"
       "b = broadcast(c, shape=[2,3])\ny = mul(g, b)\noutput y",
       "t = input() : f32[6,3]\ni = input() : i64[2,3]\nc = constant(value=0.125) : f32[]\n"
       "b = broadcast(c, shape=[6,3])\nu = mul(t, b)\ny = gather(u, i, axis=0)\noutput y"},
      // A scale per column is not one number: no rewrite.
      {"gather-of-scaled",
       "t = input() : f32[6,3]\ni = input() : i64[2,3]\ng = gather(t, i, axis=0)\nc = input() : f32[3]\n"
       "b = broadcast(c, shape=[2,3])\ny = mul(g, b)\noutput y",
       "", false},
  };
  return cases;
}

namespace {

class GatherRules : public ::testing::TestWithParam<size_t> {};

TEST_P(GatherRules, Case) { check_rule_case(gather_cases()[GetParam()]); }

INSTANTIATE_TEST_SUITE_P(Family8, GatherRules, ::testing::Range<size_t>(0, gather_cases().size()),
                         [](const auto& p) { return case_name(gather_cases()[p.param], p.param); });

}  // namespace
}  // namespace smelt::rules::testing
