// Family 5: horizontal batching of matmuls.
#include <gtest/gtest.h>

#include "tests/rules/rule_case.h"

namespace rules::testing {

const std::string kXW = "x = input() : f32[4,3]\nw1 = input() : f32[3,5]\nw2 = input() : f32[3,5]\n";

std::span<const RuleCase> batching_cases() {
  static const std::vector<RuleCase> cases = {
      {"concat-matmuls-sharing-lhs",
       "x = input() : f32[4,3]\nw1 = input() : f32[3,2]\nw2 = input() : f32[3,5]\np = matmul(x, w1)\n"
       "q = matmul(x, w2)\nc = concat(p, q, axis=1)\noutput c",
       "x = input() : f32[4,3]\nw1 = input() : f32[3,2]\nw2 = input() : f32[3,5]\nw = concat(w1, w2, axis=1)\n"
       "m = matmul(x, w)\noutput m"},
      {"concat-matmuls-sharing-rhs",
       "x1 = input() : f32[2,3]\nx2 = input() : f32[4,3]\nw = input() : f32[3,5]\np = matmul(x1, w)\n"
       "q = matmul(x2, w)\nc = concat(p, q, axis=0)\noutput c",
       "x1 = input() : f32[2,3]\nx2 = input() : f32[4,3]\nw = input() : f32[3,5]\nx = concat(x1, x2, axis=0)\n"
       "m = matmul(x, w)\noutput m"},
      // Two matmuls sharing x are the column blocks of one over [w1 w2].
      {"batch-matmuls-sharing-lhs", kXW + "p = matmul(x, w1)\nq = matmul(x, w2)\noutput p, q",
       kXW + "w = concat(w1, w2, axis=1)\nm = matmul(x, w)\ns = slice(m, start=[0,0], stop=[4,5], step=[1,1])\n"
             "output s"},
      {"batch-matmuls-sharing-lhs",
       "x = input() : f32[4,3]\nw1 = input() : f32[3,5]\nw2 = input() : f32[3,2]\np = matmul(x, w1)\n"
       "q = matmul(x, w2)\noutput p, q",
       "", false},
      // Two matmuls of one shape are the two entries of one batched matmul.
      {"batch-matmuls-same-shape",
       "a1 = input() : f32[4,3]\na2 = input() : f32[4,3]\nw1 = input() : f32[3,5]\nw2 = input() : f32[3,5]\n"
       "p = matmul(a1, w1)\nq = matmul(a2, w2)\noutput p, q",
       "a1 = input() : f32[4,3]\na2 = input() : f32[4,3]\nw1 = input() : f32[3,5]\nw2 = input() : f32[3,5]\n"
       "r1 = reshape(a1, shape=[1,4,3])\nr2 = reshape(a2, shape=[1,4,3])\na = concat(r1, r2, axis=0)\n"
       "v1 = reshape(w1, shape=[1,3,5])\nv2 = reshape(w2, shape=[1,3,5])\nw = concat(v1, v2, axis=0)\n"
       "m = matmul(a, w)\ns = slice(m, start=[0,0,0], stop=[1,4,5], step=[1,1,1])\nr = reshape(s, shape=[4,5])\n"
       "output r"},
      {"batch-matmuls-same-shape",
       "a1 = input() : f32[4,3]\na2 = input() : f32[2,3]\nw = input() : f32[3,5]\np = matmul(a1, w)\n"
       "q = matmul(a2, w)\noutput p, q",
       "", false},
      // Stacking needs one dtype (found by the Z3 prover: i64 and f32 matmuls of one shape).
      {"batch-matmuls-same-shape",
       "a1 = input() : i64[4,3]\nw1 = input() : i64[3,5]\na2 = input() : f32[4,3]\nw2 = input() : f32[3,5]\n"
       "p = matmul(a1, w1)\nq = matmul(a2, w2)\noutput p, q",
       "", false},
  };
  return cases;
}

namespace {

class BatchingRules : public ::testing::TestWithParam<size_t> {};

TEST_P(BatchingRules, Case) { check_rule_case(batching_cases()[GetParam()]); }

INSTANTIATE_TEST_SUITE_P(Family5, BatchingRules, ::testing::Range<size_t>(0, batching_cases().size()),
                         [](const auto& p) { return case_name(batching_cases()[p.param], p.param); });

}  // namespace
}  // namespace rules::testing
