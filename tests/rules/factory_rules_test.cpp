// Family 6: factories seen through views and elementwise ops stay factories.
#include <gtest/gtest.h>

#include "tests/rules/rule_case.h"

namespace smelt::rules::testing {

std::span<const RuleCase> factory_cases() {
  static const std::vector<RuleCase> cases = {
      {"slice-of-full", "f = full(value=2.5) : f32[4,6]\ns = slice(f, start=[1,0], stop=[3,6], step=[1,2])\n"
                        "output s",
       "f = full(value=2.5) : f32[2,3]\noutput f"},
      // A negative step: elements 4 and 2.
      {"slice-of-full", "f = full(value=-3) : i32[5]\ns = slice(f, start=[4], stop=[0], step=[-2])\noutput s",
       "f = full(value=-3) : i32[2]\noutput f"},
      {"reshape-of-full", "f = full(value=7) : i64[2,3]\nr = reshape(f, shape=[3,2])\noutput r",
       "f = full(value=7) : i64[3,2]\noutput f"},
      {"permute-of-full", "f = full(value=1) : f16[2,3,4]\np = permute(f, perm=[2,0,1])\noutput p",
       "f = full(value=1) : f16[4,2,3]\noutput f"},
      {"broadcast-of-full", "f = full(value=0.5) : f32[3]\nb = broadcast(f, shape=[2,3])\noutput b",
       "f = full(value=0.5) : f32[2,3]\noutput f"},
      {"pad-of-full", "f = full(value=0) : f32[2]\np = pad(f, lo=[1], hi=[2], value=0)\noutput p",
       "f = full(value=0) : f32[5]\noutput f"},
      {"pad-of-full", "f = full(value=0) : f32[2]\np = pad(f, lo=[1], hi=[2], value=1)\noutput p", "", false},
      {"concat-of-fulls",
       "a = full(value=1) : f32[2,3]\nb = full(value=1) : f32[2,4]\nc = concat(a, b, axis=1)\noutput c",
       "f = full(value=1) : f32[2,7]\noutput f"},
      {"concat-of-fulls",
       "a = full(value=1) : f32[2,3]\nb = full(value=2) : f32[2,4]\nc = concat(a, b, axis=1)\noutput c", "", false},
      {"unary-of-full", "f = full(value=1.5) : f32[3]\nn = neg(f)\noutput n",
       "f = full(value=-1.5) : f32[3]\noutput f"},
      {"unary-of-full", "f = full(value=1.5) : f32[3]\nn = cast(f, to=i32)\noutput n", "", false},
      {"binary-of-fulls", "a = full(value=1.5) : f32[3]\nb = full(value=2) : f32[3]\nc = add(a, b)\noutput c",
       "f = full(value=3.5) : f32[3]\noutput f"},
      {"compare-of-fulls", "a = full(value=1) : i32[3]\nb = full(value=2) : i32[3]\nc = lt(a, b)\noutput c",
       "f = full(value=true) : bool[3]\noutput f"},
      {"slice-of-iota", "i = iota(axis=1) : i32[4,6]\ns = slice(i, start=[1,0], stop=[3,4], step=[1,1])\noutput s",
       "i = iota(axis=1) : i32[2,4]\noutput i"},
      // Sliced along its axis from 1, the iota would start at 1.
      {"slice-of-iota", "i = iota(axis=1) : i32[4,6]\ns = slice(i, start=[0,1], stop=[4,6], step=[1,1])\noutput s",
       "", false},
      {"permute-of-iota", "i = iota(axis=0) : i32[3,5]\np = permute(i, perm=[1,0])\noutput p",
       "i = iota(axis=1) : i32[5,3]\noutput i"},
      {"broadcast-of-iota", "i = iota(axis=0) : f32[4]\nb = broadcast(i, shape=[2,4])\noutput b",
       "i = iota(axis=1) : f32[2,4]\noutput i"},
      {"broadcast-of-iota", "i = iota(axis=1) : f32[3,1]\nb = broadcast(i, shape=[3,4])\noutput b", "", false},
      {"iota-on-unit-axis", "i = iota(axis=1) : i32[3,1]\noutput i", "f = full(value=0) : i32[3,1]\noutput f"},
  };
  return cases;
}

namespace {

class FactoryRules : public ::testing::TestWithParam<size_t> {};

TEST_P(FactoryRules, Case) { check_rule_case(factory_cases()[GetParam()]); }

INSTANTIATE_TEST_SUITE_P(Family6, FactoryRules, ::testing::Range<size_t>(0, factory_cases().size()),
                         [](const auto& p) { return case_name(factory_cases()[p.param], p.param); });

}  // namespace
}  // namespace smelt::rules::testing
