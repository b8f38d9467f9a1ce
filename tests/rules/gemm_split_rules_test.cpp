// Family 4: a slice of a matmul is a matmul of slices.
#include <gtest/gtest.h>

#include "tests/rules/rule_case.h"

namespace rules::testing {

const std::string kAB = "a = input() : f32[4,3]\nb = input() : f32[3,6]\n";

std::span<const RuleCase> gemm_split_cases() {
  static const std::vector<RuleCase> cases = {
      // Columns only: A is read whole (slice-identity removes its full slice).
      {"split-matmul",
       kAB + "m = matmul(a, b)\ns = slice(m, start=[0,2], stop=[4,6], step=[1,1])\noutput s",
       kAB + "bs = slice(b, start=[0,2], stop=[3,6], step=[1,1])\nm = matmul(a, bs)\noutput m",
       true,
       2,
       {"slice-identity"}},
      // Rows and strided columns.
      {"split-matmul", kAB + "m = matmul(a, b)\ns = slice(m, start=[1,0], stop=[4,6], step=[2,3])\noutput s",
       kAB +
           "as = slice(a, start=[1,0], stop=[4,3], step=[2,1])\n"
           "bs = slice(b, start=[0,0], stop=[3,6], step=[1,3])\nm = matmul(as, bs)\noutput m"},
      // Batched: the batch axis is sliced on both operands.
      {"split-matmul",
       "a = input() : f32[2,4,3]\nb = input() : f32[2,3,5]\nm = matmul(a, b)\n"
       "s = slice(m, start=[1,0,0], stop=[2,4,5], step=[1,1,2])\noutput s",
       "a = input() : f32[2,4,3]\nb = input() : f32[2,3,5]\n"
       "as = slice(a, start=[1,0,0], stop=[2,4,3], step=[1,1,1])\n"
       "bs = slice(b, start=[1,0,0], stop=[2,3,5], step=[1,1,2])\nm = matmul(as, bs)\noutput m"},
      // Broadcast batch axes are not split.
      {"split-matmul",
       "a = input() : f32[1,4,3]\nb = input() : f32[2,3,5]\nm = matmul(a, b)\n"
       "s = slice(m, start=[1,0,0], stop=[2,4,5], step=[1,1,1])\noutput s",
       "", false},
      {"split-matmul-add",
       kAB + "c = input() : f32[4,6]\nm = matmul(a, b)\nz = add(m, c)\n"
             "s = slice(z, start=[0,3], stop=[4,6], step=[1,1])\noutput s",
       kAB + "c = input() : f32[4,6]\nas = slice(a, start=[0,0], stop=[4,3], step=[1,1])\n"
             "bs = slice(b, start=[0,3], stop=[3,6], step=[1,1])\nm = matmul(as, bs)\n"
             "cs = slice(c, start=[0,3], stop=[4,6], step=[1,1])\nz = add(m, cs)\noutput z"},
  };
  return cases;
}

namespace {

class GemmSplitRules : public ::testing::TestWithParam<size_t> {};

TEST_P(GemmSplitRules, Case) { check_rule_case(gemm_split_cases()[GetParam()]); }

INSTANTIATE_TEST_SUITE_P(Family4, GemmSplitRules, ::testing::Range<size_t>(0, gemm_split_cases().size()),
                         [](const auto& p) { return case_name(gemm_split_cases()[p.param], p.param); });

}  // namespace
}  // namespace rules::testing
