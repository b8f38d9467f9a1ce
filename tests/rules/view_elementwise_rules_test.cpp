// Family 3: views and elementwise ops commute; pads carry f(pad value).
#include <gtest/gtest.h>

#include "tests/rules/rule_case.h"

namespace smelt::rules::testing {

const std::string kX8 = "x = input() : f32[8]\n";
const std::string kXY8 = "x = input() : f32[8]\ny = input() : f32[8]\n";
const std::string kX4 = "x = input() : f32[4]\n";
const std::string kXY4 = "x = input() : f32[4]\ny = input() : f32[4]\n";

std::span<const RuleCase> view_elementwise_cases() {
  static const std::vector<RuleCase> cases = {
      {"sink-slice-unary", kX8 + "e = exp(x)\ns = slice(e, start=[2], stop=[6], step=[1])\noutput s",
       kX8 + "s = slice(x, start=[2], stop=[6], step=[1])\ne = exp(s)\noutput e"},
      {"sink-slice-unary",
       kX8 + "r = reshape(x, shape=[2,4])\ns = slice(r, start=[0,0], stop=[1,4], step=[1,1])\noutput s", "", false},
      {"hoist-unary-above-slice", kX8 + "s = slice(x, start=[7], stop=[-1], step=[-3])\ne = exp(s)\noutput e",
       kX8 + "e = exp(x)\ns = slice(e, start=[7], stop=[-1], step=[-3])\noutput s"},
      {"hoist-unary-above-slice", kX8 + "s = slice(x, start=[1], stop=[5], step=[1])\nc = cast(s, to=f16)\noutput c",
       kX8 + "c = cast(x, to=f16)\ns = slice(c, start=[1], stop=[5], step=[1])\noutput s"},
      {"sink-slice-binary", kXY8 + "a = add(x, y)\ns = slice(a, start=[2], stop=[6], step=[2])\noutput s",
       kXY8 + "p = slice(x, start=[2], stop=[6], step=[2])\nq = slice(y, start=[2], stop=[6], step=[2])\n"
              "a = add(p, q)\noutput a"},
      {"hoist-binary-above-slices",
       kXY8 + "p = slice(x, start=[2], stop=[6], step=[1])\nq = slice(y, start=[2], stop=[6], step=[1])\n"
              "a = mul(p, q)\noutput a",
       kXY8 + "m = mul(x, y)\ns = slice(m, start=[2], stop=[6], step=[1])\noutput s"},
      {"hoist-binary-above-slices",
       kXY8 + "p = slice(x, start=[2], stop=[6], step=[1])\nq = slice(y, start=[3], stop=[7], step=[1])\n"
              "a = mul(p, q)\noutput a",
       "", false},
      {"sink-slice-ternary",
       kXY8 + "c = lt(x, y)\nw = where(c, x, y)\ns = slice(w, start=[1], stop=[8], step=[3])\noutput s",
       kXY8 + "c = lt(x, y)\nsc = slice(c, start=[1], stop=[8], step=[3])\n"
              "sx = slice(x, start=[1], stop=[8], step=[3])\nsy = slice(y, start=[1], stop=[8], step=[3])\n"
              "w = where(sc, sx, sy)\noutput w"},
      {"hoist-ternary-above-slices",
       kXY8 + "c = lt(x, y)\nsc = slice(c, start=[1], stop=[8], step=[3])\n"
              "sx = slice(x, start=[1], stop=[8], step=[3])\nsy = slice(y, start=[1], stop=[8], step=[3])\n"
              "w = where(sc, sx, sy)\noutput w",
       kXY8 + "c = lt(x, y)\nw = where(c, x, y)\ns = slice(w, start=[1], stop=[8], step=[3])\noutput s"},
      // cos(pad(x, 0)) = pad(cos(x), cos(0)) = pad(cos(x), 1): never pad(cos(x), 0).
      {"unary-into-pad", kX4 + "p = pad(x, lo=[1], hi=[2], value=0)\nc = cos(p)\noutput c",
       kX4 + "c = cos(x)\np = pad(c, lo=[1], hi=[2], value=1)\noutput p"},
      {"unary-into-pad", kX4 + "p = pad(x, lo=[0], hi=[1], value=2)\nc = cast(p, to=i32)\noutput c",
       kX4 + "c = cast(x, to=i32)\np = pad(c, lo=[0], hi=[1], value=2)\noutput p"},
      // luminal's slice -> cos -> pad: nothing of the form f(pad(...)) to rewrite.
      {"unary-into-pad",
       kX8 + "h = slice(x, start=[0], stop=[1], step=[1])\nc = cos(h)\ny = pad(c, lo=[0], hi=[1], value=0)\n"
             "output y",
       "", false},
      {"binary-into-pads",
       kXY4 + "p = pad(x, lo=[1], hi=[0], value=1)\nq = pad(y, lo=[1], hi=[0], value=2)\na = add(p, q)\noutput a",
       kXY4 + "a = add(x, y)\np = pad(a, lo=[1], hi=[0], value=3)\noutput p"},
      {"binary-into-pads",
       kXY4 + "p = pad(x, lo=[1], hi=[0], value=1)\nq = pad(y, lo=[0], hi=[1], value=2)\na = add(p, q)\noutput a", "",
       false},
      {"binary-into-pad-const-right",
       kX4 + "p = pad(x, lo=[1], hi=[1], value=2)\nc = full(value=3) : f32[6]\nm = mul(p, c)\noutput m",
       kX4 + "c = full(value=3) : f32[4]\nm = mul(x, c)\np = pad(m, lo=[1], hi=[1], value=6)\noutput p"},
      {"binary-into-pad-const-right",
       kXY4 + "p = pad(x, lo=[1], hi=[1], value=2)\nq = pad(y, lo=[1], hi=[1], value=0)\nm = mul(p, q)\noutput m",
       "", false},
      {"binary-into-pad-const-left",
       kX4 + "p = pad(x, lo=[2], hi=[0], value=0.5)\nc = full(value=1) : f32[6]\ns = sub(c, p)\noutput s",
       kX4 + "c = full(value=1) : f32[4]\ns = sub(c, x)\np = pad(s, lo=[2], hi=[0], value=0.5)\noutput p"},
      {"unary-into-concat", kXY4 + "c = concat(x, y, axis=0)\ne = exp(c)\noutput e",
       kXY4 + "a = exp(x)\nb = exp(y)\nc = concat(a, b, axis=0)\noutput c"},
      {"unary-out-of-concat", kXY4 + "a = exp(x)\nb = exp(y)\nc = concat(a, b, axis=0)\noutput c",
       kXY4 + "c = concat(x, y, axis=0)\ne = exp(c)\noutput e"},
      // The same cast of operands of different dtypes cannot be concatenated first.
      {"unary-out-of-concat",
       kX4 + "h = input() : f16[4]\na = cast(x, to=f16)\nb = cast(h, to=f16)\nc = concat(a, b, axis=0)\noutput c", "",
       false},
      {"binary-into-concats",
       kXY4 + "u = input() : f32[2]\nv = input() : f32[2]\np = concat(x, u, axis=0)\nq = concat(y, v, axis=0)\n"
              "a = sub(p, q)\noutput a",
       kXY4 + "u = input() : f32[2]\nv = input() : f32[2]\nl = sub(x, y)\nr = sub(u, v)\na = concat(l, r, axis=0)\n"
              "output a"},
      {"binary-out-of-concat",
       kXY4 + "u = input() : f32[2]\nv = input() : f32[2]\nl = sub(x, y)\nr = sub(u, v)\na = concat(l, r, axis=0)\n"
              "output a",
       kXY4 + "u = input() : f32[2]\nv = input() : f32[2]\np = concat(x, u, axis=0)\nq = concat(y, v, axis=0)\n"
              "a = sub(p, q)\noutput a"},
      {"sink-permute-unary", "x = input() : f32[2,3]\ng = gelu(x)\np = permute(g, perm=[1,0])\noutput p",
       "x = input() : f32[2,3]\np = permute(x, perm=[1,0])\ng = gelu(p)\noutput g"},
      {"hoist-unary-above-permute", "x = input() : f32[2,3]\np = permute(x, perm=[1,0])\ng = gelu(p)\noutput g",
       "x = input() : f32[2,3]\ng = gelu(x)\np = permute(g, perm=[1,0])\noutput p"},
      {"hoist-binary-above-permutes",
       "x = input() : f32[2,3]\ny = input() : f32[2,3]\np = permute(x, perm=[1,0])\nq = permute(y, perm=[1,0])\n"
       "m = max(p, q)\noutput m",
       "x = input() : f32[2,3]\ny = input() : f32[2,3]\nm = max(x, y)\np = permute(m, perm=[1,0])\noutput p"},
      {"sink-reshape-unary", "x = input() : f32[2,3]\ne = exp(x)\nr = reshape(e, shape=[6])\noutput r",
       "x = input() : f32[2,3]\nr = reshape(x, shape=[6])\ne = exp(r)\noutput e"},
      {"hoist-unary-above-reshape", "x = input() : f32[2,3]\nr = reshape(x, shape=[6])\ne = exp(r)\noutput e",
       "x = input() : f32[2,3]\ne = exp(x)\nr = reshape(e, shape=[6])\noutput r"},
      {"hoist-unary-above-broadcast", "x = input() : f32[3]\nb = broadcast(x, shape=[4,3])\ne = rsqrt(b)\noutput e",
       "x = input() : f32[3]\ne = rsqrt(x)\nb = broadcast(e, shape=[4,3])\noutput b"},
      {"hoist-binary-above-broadcasts",
       "x = input() : f32[3]\ny = input() : f32[3]\na = broadcast(x, shape=[4,3])\nb = broadcast(y, shape=[4,3])\n"
       "d = div(a, b)\noutput d",
       "x = input() : f32[3]\ny = input() : f32[3]\nd = div(x, y)\nb = broadcast(d, shape=[4,3])\noutput b"},
      {"hoist-binary-above-broadcasts",
       "x = input() : f32[1,3]\ny = input() : f32[3]\na = broadcast(x, shape=[4,3])\n"
       "b = broadcast(y, shape=[4,3])\nd = div(a, b)\noutput d",
       "", false},
      {"hoist-binary-above-merging-reshape",
       "m = input() : f32[2,4,6]\nb = input() : f32[1,4,1,1]\nr = reshape(m, shape=[2,4,2,3])\n"
       "c = broadcast(b, shape=[2,4,2,3])\na = sub(r, c)\noutput a",
       "m = input() : f32[2,4,6]\nb = input() : f32[1,4,1,1]\nq = reshape(b, shape=[1,4,1])\n"
       "c = broadcast(q, shape=[2,4,6])\na = sub(m, c)\nr = reshape(a, shape=[2,4,2,3])\noutput r"},
      {"hoist-binary-above-merging-reshape",  // the bias varies over a merged axis: not the same over h*w
       "m = input() : f32[2,4,6]\nb = input() : f32[1,4,2,1]\nr = reshape(m, shape=[2,4,2,3])\n"
       "c = broadcast(b, shape=[2,4,2,3])\na = add(r, c)\noutput a",
       "", false},
  };
  return cases;
}

namespace {

class ViewElementwiseRules : public ::testing::TestWithParam<size_t> {};

TEST_P(ViewElementwiseRules, Case) { check_rule_case(view_elementwise_cases()[GetParam()]); }

INSTANTIATE_TEST_SUITE_P(Family3, ViewElementwiseRules, ::testing::Range<size_t>(0, view_elementwise_cases().size()),
                         [](const auto& p) { return case_name(view_elementwise_cases()[p.param], p.param); });

}  // namespace
}  // namespace smelt::rules::testing
