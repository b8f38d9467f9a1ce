// Family 2: view algebra.
#include <gtest/gtest.h>

#include "tests/rules/rule_case.h"

namespace smelt::rules::testing {

std::span<const RuleCase> view_cases() {
  static const std::vector<RuleCase> cases = {
      {"reshape-reshape",
       "x = input() : f32[2,6]\na = reshape(x, shape=[3,4])\nb = reshape(a, shape=[4,3])\noutput b",
       "x = input() : f32[2,6]\nb = reshape(x, shape=[4,3])\noutput b"},
      {"reshape-identity", "x = input() : f32[2,6]\na = reshape(x, shape=[2,6])\noutput a",
       "x = input() : f32[2,6]\noutput x"},
      {"permute-permute",
       "x = input() : f32[2,3,4]\na = permute(x, perm=[1,2,0])\nb = permute(a, perm=[1,0,2])\noutput b",
       "x = input() : f32[2,3,4]\nb = permute(x, perm=[2,1,0])\noutput b"},
      {"permute-identity", "x = input() : f32[2,3]\na = permute(x, perm=[0,1])\noutput a",
       "x = input() : f32[2,3]\noutput x"},
      // x[1:9:2] = x[1,3,5,7]; from its index 3 down by 2: x[7], x[3].
      {"slice-slice",
       "x = input() : f32[10]\na = slice(x, start=[1], stop=[9], step=[2])\n"
       "b = slice(a, start=[3], stop=[-1], step=[-2])\noutput b",
       "x = input() : f32[10]\nb = slice(x, start=[7], stop=[2], step=[-4])\noutput b"},
      {"slice-slice",
       "x = input() : f32[6,8]\na = slice(x, start=[1,7], stop=[6,-1], step=[1,-1])\n"
       "b = slice(a, start=[0,2], stop=[5,8], step=[2,3])\noutput b",
       "x = input() : f32[6,8]\nb = slice(x, start=[1,5], stop=[6,-1], step=[2,-3])\noutput b"},
      // An empty outer slice stays empty.
      {"slice-slice",
       "x = input() : f32[10]\na = slice(x, start=[2], stop=[10], step=[3])\n"
       "b = slice(a, start=[2], stop=[1], step=[1])\noutput b",
       "x = input() : f32[10]\nb = slice(x, start=[0], stop=[0], step=[3])\noutput b"},
      {"slice-identity", "x = input() : f32[10]\na = slice(x, start=[0], stop=[10], step=[1])\noutput a",
       "x = input() : f32[10]\noutput x"},
      {"slice-identity", "x = input() : f32[10]\na = slice(x, start=[9], stop=[-1], step=[-1])\noutput a", "", false},
      {"pad-pad",
       "x = input() : f32[3]\na = pad(x, lo=[1], hi=[0], value=0)\nb = pad(a, lo=[0], hi=[2], value=0)\noutput b",
       "x = input() : f32[3]\nb = pad(x, lo=[1], hi=[2], value=0)\noutput b"},
      {"pad-pad",
       "x = input() : f32[3]\na = pad(x, lo=[1], hi=[0], value=0)\nb = pad(a, lo=[0], hi=[2], value=1)\noutput b", "",
       false},
      {"pad-pad",
       "x = input() : f32[3]\na = pad(x, lo=[1], hi=[0], value=0)\nb = pad(a, lo=[0], hi=[2], value=-0.0)\noutput b",
       "", false},
      {"pad-identity", "x = input() : f32[2,3]\na = pad(x, lo=[0,0], hi=[0,0], value=5)\noutput a",
       "x = input() : f32[2,3]\noutput x"},
      // pad(x, 2, 3)[3:6:2] = x[1], x[3].
      {"slice-inside-pad",
       "x = input() : f32[4]\np = pad(x, lo=[2], hi=[3], value=0)\ns = slice(p, start=[3], stop=[6], step=[2])\n"
       "output s",
       "x = input() : f32[4]\ns = slice(x, start=[1], stop=[4], step=[2])\noutput s"},
      {"slice-inside-pad",
       "x = input() : f32[4]\np = pad(x, lo=[2], hi=[3], value=0)\ns = slice(p, start=[1], stop=[4], step=[1])\n"
       "output s",
       "", false},
      {"slice-of-concat-first",
       "a = input() : f32[2,3]\nb = input() : f32[2,5]\nc = concat(a, b, axis=1)\n"
       "s = slice(c, start=[0,1], stop=[2,3], step=[1,1])\noutput s",
       "a = input() : f32[2,3]\ns = slice(a, start=[0,1], stop=[2,3], step=[1,1])\noutput s"},
      {"slice-of-concat-first",
       "a = input() : f32[2,3]\nb = input() : f32[2,5]\nc = concat(a, b, axis=1)\n"
       "s = slice(c, start=[0,2], stop=[2,5], step=[1,1])\noutput s",
       "", false},
      {"slice-of-concat-second",
       "a = input() : f32[2,3]\nb = input() : f32[2,5]\nc = concat(a, b, axis=1)\n"
       "s = slice(c, start=[0,4], stop=[2,8], step=[1,2])\noutput s",
       "b = input() : f32[2,5]\ns = slice(b, start=[0,1], stop=[2,4], step=[1,2])\noutput s"},
      {"concat-adjacent-slices",
       "x = input() : f32[4,6]\na = slice(x, start=[1,0], stop=[2,6], step=[1,1])\n"
       "b = slice(x, start=[2,0], stop=[4,6], step=[1,1])\nc = concat(a, b, axis=0)\noutput c",
       "x = input() : f32[4,6]\ns = slice(x, start=[1,0], stop=[4,6], step=[1,1])\noutput s"},
      {"concat-adjacent-slices",
       "x = input() : f32[4,6]\na = slice(x, start=[2,0], stop=[4,6], step=[1,1])\n"
       "b = slice(x, start=[1,0], stop=[2,6], step=[1,1])\nc = concat(a, b, axis=0)\noutput c",
       "", false},
      {"broadcast-broadcast",
       "x = input() : f32[3]\na = broadcast(x, shape=[1,3])\nb = broadcast(a, shape=[2,4,3])\noutput b",
       "x = input() : f32[3]\nb = broadcast(x, shape=[2,4,3])\noutput b"},
      {"broadcast-identity", "x = input() : f32[3]\na = broadcast(x, shape=[3])\noutput a",
       "x = input() : f32[3]\noutput x"},
      {"slice-of-broadcast",
       "x = input() : f32[1,4]\nb = broadcast(x, shape=[3,5,4])\n"
       "s = slice(b, start=[0,1,1], stop=[3,5,4], step=[2,2,1])\noutput s",
       "x = input() : f32[1,4]\nxs = slice(x, start=[0,1], stop=[1,4], step=[1,1])\n"
       "b = broadcast(xs, shape=[2,2,3])\noutput b"},
      {"slice-of-broadcast",
       "bias = input() : f32[8]\nb = broadcast(bias, shape=[4,8])\n"
       "s = slice(b, start=[0,4], stop=[4,8], step=[1,1])\noutput s",
       "bias = input() : f32[8]\nh = slice(bias, start=[4], stop=[8], step=[1])\nb = broadcast(h, shape=[4,4])\n"
       "output b"},
      {"slice-of-broadcast",
       "x = input() : f32[3,1]\nb = broadcast(x, shape=[3,6])\n"
       "s = slice(b, start=[2,5], stop=[-1,0], step=[-2,-2])\noutput s",
       "x = input() : f32[3,1]\nxs = slice(x, start=[2,0], stop=[-1,1], step=[-2,1])\n"
       "b = broadcast(xs, shape=[2,3])\noutput b"},
      {"reshape-of-unit-broadcast",
       "x = input() : f32[3]\nb = broadcast(x, shape=[1,3])\nr = reshape(b, shape=[3,1])\noutput r",
       "x = input() : f32[3]\nr = reshape(x, shape=[3,1])\noutput r"},
      {"reshape-of-unit-broadcast",
       "x = input() : f32[1]\nb = broadcast(x, shape=[3])\nr = reshape(b, shape=[3,1])\noutput r", "", false},
      {"permute-of-broadcast",
       "x = input() : f32[1,4]\nb = broadcast(x, shape=[3,4])\np = permute(b, perm=[1,0])\noutput p",
       "x = input() : f32[1,4]\nt = permute(x, perm=[1,0])\nb = broadcast(t, shape=[4,3])\noutput b"},
      // The second half of a chunk-by-view: x[3,8] as [3,2,4], row 1 of the middle axis = x[:, 4:8].
      {"slice-of-split-reshape",
       "x = input() : f32[3,8]\nr = reshape(x, shape=[3,2,4])\n"
       "s = slice(r, start=[0,1,0], stop=[3,2,4], step=[1,1,1])\noutput s",
       "x = input() : f32[3,8]\nh = slice(x, start=[0,4], stop=[3,8], step=[1,1])\n"
       "r = reshape(h, shape=[3,1,4])\noutput r"},
      // Leading axes are sliced as they are: rows 1..2 of x, blocks 1..3 of 2 = columns 2..6.
      {"slice-of-split-reshape",
       "x = input() : f32[3,8]\nr = reshape(x, shape=[3,4,2])\n"
       "s = slice(r, start=[1,1,0], stop=[3,3,2], step=[1,1,1])\noutput s",
       "x = input() : f32[3,8]\nh = slice(x, start=[1,2], stop=[3,6], step=[1,1])\n"
       "r = reshape(h, shape=[2,2,2])\noutput r"},
      // Part of a row of q is not a run of x: the slice of the q axis stays.
      {"slice-of-split-reshape",
       "x = input() : f32[3,8]\nr = reshape(x, shape=[3,2,4])\n"
       "s = slice(r, start=[0,0,1], stop=[3,2,3], step=[1,1,1])\noutput s",
       "", false},
      // A reshape that regroups x's axes across the sliced one ([2,6] as [3,2,2]): no run of x's last axis.
      {"slice-of-split-reshape",
       "x = input() : f32[2,6]\nr = reshape(x, shape=[3,2,2])\n"
       "s = slice(r, start=[0,1,0], stop=[3,2,2], step=[1,1,1])\noutput s",
       "", false},
      // Every other row of the p axis is strided, not one run.
      {"slice-of-split-reshape",
       "x = input() : f32[3,8]\nr = reshape(x, shape=[3,4,2])\n"
       "s = slice(r, start=[0,0,0], stop=[3,3,2], step=[1,2,1])\noutput s",
       "", false},
      // x[2,3,4] merged to [2,12]: columns 4..12 are rows 1..3 of x's middle axis.
      {"slice-of-merged-reshape",
       "x = input() : f32[2,3,4]\nr = reshape(x, shape=[2,12])\n"
       "s = slice(r, start=[1,4], stop=[2,12], step=[1,1])\noutput s",
       "x = input() : f32[2,3,4]\nh = slice(x, start=[1,1,0], stop=[2,3,4], step=[1,1,1])\n"
       "r = reshape(h, shape=[1,8])\noutput r"},
      // Columns 2..8 cut rows of 4 in half.
      {"slice-of-merged-reshape",
       "x = input() : f32[2,3,4]\nr = reshape(x, shape=[2,12])\n"
       "s = slice(r, start=[0,2], stop=[2,8], step=[1,1])\noutput s",
       "", false},
      // Merging x's first two axes ([2,3,4] as [6,4]): rows 1..4 cross from x[0] into x[1].
      {"slice-of-merged-reshape",
       "x = input() : f32[2,3,4]\nr = reshape(x, shape=[6,4])\n"
       "s = slice(r, start=[1,0], stop=[4,4], step=[1,1])\noutput s",
       "", false},
      // torch.cat of a [3,4] and a [3,8] chunk, viewed as rows of 4: one row of a, two of b.
      {"reshape-split-of-concat",
       "a = input() : f32[3,4]\nb = input() : f32[3,8]\nc = concat(a, b, axis=1)\nr = reshape(c, shape=[3,3,4])\n"
       "output r",
       "a = input() : f32[3,4]\nb = input() : f32[3,8]\nra = reshape(a, shape=[3,1,4])\n"
       "rb = reshape(b, shape=[3,2,4])\nc = concat(ra, rb, axis=1)\noutput c"},
      // A row of 3 would straddle a and b (4 is not a multiple of 3).
      {"reshape-split-of-concat",
       "a = input() : f32[3,4]\nb = input() : f32[3,2]\nc = concat(a, b, axis=1)\nr = reshape(c, shape=[3,2,3])\n"
       "output r",
       "", false},
      {"reshape-merge-of-concat",
       "a = input() : f32[2,1,4]\nb = input() : f32[2,2,4]\nc = concat(a, b, axis=1)\nr = reshape(c, shape=[2,12])\n"
       "output r",
       "a = input() : f32[2,1,4]\nb = input() : f32[2,2,4]\nra = reshape(a, shape=[2,4])\n"
       "rb = reshape(b, shape=[2,8])\nc = concat(ra, rb, axis=1)\noutput c"},
      // Concatenated along the last axis, the merged rows interleave a's and b's columns.
      {"reshape-merge-of-concat",
       "a = input() : f32[2,3,1]\nb = input() : f32[2,3,2]\nc = concat(a, b, axis=2)\nr = reshape(c, shape=[2,9])\n"
       "output r",
       "", false},
      {"reshape-split-of-pad",
       "x = input() : f32[3,4]\np = pad(x, lo=[0,2], hi=[0,2], value=0)\nr = reshape(p, shape=[3,4,2])\noutput r",
       "x = input() : f32[3,4]\nr = reshape(x, shape=[3,2,2])\np = pad(r, lo=[0,1,0], hi=[0,1,0], value=0)\n"
       "output p"},
      // A pad of one column is half a row of 2.
      {"reshape-split-of-pad",
       "x = input() : f32[3,4]\np = pad(x, lo=[0,1], hi=[0,1], value=0)\nr = reshape(p, shape=[3,3,2])\noutput r",
       "", false},
      {"reshape-merge-of-pad",
       "x = input() : f32[2,2,3]\np = pad(x, lo=[0,1,0], hi=[0,0,0], value=1)\nr = reshape(p, shape=[2,9])\noutput r",
       "x = input() : f32[2,2,3]\nr = reshape(x, shape=[2,6])\np = pad(r, lo=[0,3], hi=[0,0], value=1)\noutput p"},
      // A pad of the last axis puts a pad value inside every merged row.
      {"reshape-merge-of-pad",
       "x = input() : f32[2,2,3]\np = pad(x, lo=[0,0,1], hi=[0,0,0], value=1)\nr = reshape(p, shape=[2,8])\noutput r",
       "", false},
  };
  return cases;
}

namespace {

class ViewRules : public ::testing::TestWithParam<size_t> {};

TEST_P(ViewRules, Case) { check_rule_case(view_cases()[GetParam()]); }

INSTANTIATE_TEST_SUITE_P(Family2, ViewRules, ::testing::Range<size_t>(0, view_cases().size()),
                         [](const auto& p) { return case_name(view_cases()[p.param], p.param); });

}  // namespace
}  // namespace smelt::rules::testing
