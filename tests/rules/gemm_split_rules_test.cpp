// Family 4: a slice of a matmul is a matmul of slices.
#include <gtest/gtest.h>

#include "tests/rules/rule_case.h"

namespace smelt::rules::testing {

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
      // Batch axes that broadcast: a's extent-1 batch axis is read whole, b's is sliced.
      {"split-matmul",
       "a = input() : f32[1,4,3]\nb = input() : f32[2,3,5]\nm = matmul(a, b)\n"
       "s = slice(m, start=[1,0,0], stop=[2,4,5], step=[1,1,1])\noutput s",
       "a = input() : f32[1,4,3]\nb = input() : f32[2,3,5]\n"
       "as = slice(a, start=[0,0,0], stop=[1,4,3], step=[1,1,1])\n"
       "bs = slice(b, start=[1,0,0], stop=[2,3,5], step=[1,1,1])\nm = matmul(as, bs)\noutput m"},
      // A batch slice going backwards still takes the broadcast axis's one element.
      {"split-matmul",
       "a = input() : f32[1,4,3]\nb = input() : f32[3,3,5]\nm = matmul(a, b)\n"
       "s = slice(m, start=[2,0,0], stop=[-1,4,5], step=[-2,1,1])\noutput s",
       "a = input() : f32[1,4,3]\nb = input() : f32[3,3,5]\n"
       "as = slice(a, start=[0,0,0], stop=[-1,4,3], step=[-2,1,1])\n"
       "bs = slice(b, start=[2,0,0], stop=[-1,3,5], step=[-2,1,1])\nm = matmul(as, bs)\noutput m"},
      // Rank 3 @ rank 2 (an ONNX Linear): the batch and row bounds go to a, the columns to b.
      {"split-matmul",
       "a = input() : f32[2,4,3]\nb = input() : f32[3,6]\nm = matmul(a, b)\n"
       "s = slice(m, start=[1,1,2], stop=[2,4,6], step=[1,1,1])\noutput s",
       "a = input() : f32[2,4,3]\nb = input() : f32[3,6]\n"
       "as = slice(a, start=[1,1,0], stop=[2,4,3], step=[1,1,1])\n"
       "bs = slice(b, start=[0,2], stop=[3,6], step=[1,1])\nm = matmul(as, bs)\noutput m"},
      // Rank 2 @ rank 3: the batch bounds go to b.
      {"split-matmul",
       "a = input() : f32[4,3]\nb = input() : f32[2,3,6]\nm = matmul(a, b)\n"
       "s = slice(m, start=[1,0,0], stop=[2,2,6], step=[1,1,3])\noutput s",
       "a = input() : f32[4,3]\nb = input() : f32[2,3,6]\n"
       "as = slice(a, start=[0,0], stop=[2,3], step=[1,1])\n"
       "bs = slice(b, start=[1,0,0], stop=[2,3,6], step=[1,1,3])\nm = matmul(as, bs)\noutput m"},
      // Rank 4 @ rank 2, strided rows and columns.
      {"split-matmul",
       "a = input() : f32[2,3,4,5]\nb = input() : f32[5,6]\nm = matmul(a, b)\n"
       "s = slice(m, start=[0,1,1,0], stop=[2,3,4,3], step=[1,1,2,2])\noutput s",
       "a = input() : f32[2,3,4,5]\nb = input() : f32[5,6]\n"
       "as = slice(a, start=[0,1,1,0], stop=[2,3,4,5], step=[1,1,2,1])\n"
       "bs = slice(b, start=[0,0], stop=[5,3], step=[1,2])\nm = matmul(as, bs)\noutput m"},
      // A slice on the contracted axis sits under the matmul, not over it: nothing to split.
      {"split-matmul",
       "a = input() : f32[2,4,6]\nb = input() : f32[3,5]\nak = slice(a, start=[0,0,0], stop=[2,4,3], step=[1,1,1])\n"
       "m = matmul(ak, b)\noutput m",
       "", false},
      {"split-matmul-add",
       kAB + "c = input() : f32[4,6]\nm = matmul(a, b)\nz = add(m, c)\n"
             "s = slice(z, start=[0,3], stop=[4,6], step=[1,1])\noutput s",
       kAB + "c = input() : f32[4,6]\nas = slice(a, start=[0,0], stop=[4,3], step=[1,1])\n"
             "bs = slice(b, start=[0,3], stop=[3,6], step=[1,1])\nm = matmul(as, bs)\n"
             "cs = slice(c, start=[0,3], stop=[4,6], step=[1,1])\nz = add(m, cs)\noutput z"},
      // Rank 3 @ rank 2 with an imported bias (an explicit broadcast of a vector).
      {"split-matmul-add",
       "a = input() : f32[2,4,3]\nb = input() : f32[3,6]\nbias = input() : f32[6]\n"
       "c = broadcast(bias, shape=[2,4,6])\nm = matmul(a, b)\nz = add(m, c)\n"
       "s = slice(z, start=[0,0,3], stop=[2,4,6], step=[1,1,1])\noutput s",
       "a = input() : f32[2,4,3]\nb = input() : f32[3,6]\nbias = input() : f32[6]\n"
       "c = broadcast(bias, shape=[2,4,6])\n"
       "as = slice(a, start=[0,0,0], stop=[2,4,3], step=[1,1,1])\n"
       "bs = slice(b, start=[0,3], stop=[3,6], step=[1,1])\nm = matmul(as, bs)\n"
       "cs = slice(c, start=[0,0,3], stop=[2,4,6], step=[1,1,1])\nz = add(m, cs)\noutput z"},
      // Broadcast batch axes under a bias add.
      {"split-matmul-add",
       "a = input() : f32[2,1,4,3]\nb = input() : f32[3,3,5]\nc = input() : f32[2,3,4,5]\n"
       "m = matmul(a, b)\nz = add(m, c)\n"
       "s = slice(z, start=[1,1,0,0], stop=[2,3,2,5], step=[1,1,1,1])\noutput s",
       "a = input() : f32[2,1,4,3]\nb = input() : f32[3,3,5]\nc = input() : f32[2,3,4,5]\n"
       "as = slice(a, start=[1,0,0,0], stop=[2,1,2,3], step=[1,1,1,1])\n"
       "bs = slice(b, start=[1,0,0], stop=[3,3,5], step=[1,1,1])\nm = matmul(as, bs)\n"
       "cs = slice(c, start=[1,1,0,0], stop=[2,3,2,5], step=[1,1,1,1])\nz = add(m, cs)\noutput z"},
  };
  return cases;
}

namespace {

class GemmSplitRules : public ::testing::TestWithParam<size_t> {};

TEST_P(GemmSplitRules, Case) { check_rule_case(gemm_split_cases()[GetParam()]); }

INSTANTIATE_TEST_SUITE_P(Family4, GemmSplitRules, ::testing::Range<size_t>(0, gemm_split_cases().size()),
                         [](const auto& p) { return case_name(gemm_split_cases()[p.param], p.param); });

}  // namespace
}  // namespace smelt::rules::testing
