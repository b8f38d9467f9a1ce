// Family 7: convolutions — a zero pad folded into the convolution's padding,
// convolutions of one input batched into one over their stacked weights, 1x1
// convolutions as matmuls, a per-map scale into the weights (:unsafe-fp).
#include <gtest/gtest.h>

#include "tests/rules/rule_case.h"

namespace smelt::rules::testing {

const std::string kXW = "x = input() : f32[1,2,5,5]\nw = input() : f32[3,2,3,3]\n";

// n 3x3 convolutions of one input: the last member is the last block of maps
// of one convolution over the n stacked weights (shipped instances and those
// built from the template past them).
RuleCase sharing_input_case(int n) {
  std::string inputs = "x = input() : f32[1,3,6,6]\n", body, ws, outputs;
  for (int k = 0; k < n; ++k) {
    const std::string w = "w" + std::to_string(k), c = "c" + std::to_string(k);
    inputs += w + " = input() : f32[2,3,3,3]\n";
    body += c + " = conv(x, " + w + ", lo=[1,1], hi=[1,1])\n";
    ws += (k ? ", " : "") + w;
    outputs = k == n - 1 ? c + (outputs.empty() ? "" : ", " + outputs) : (outputs.empty() ? c : outputs + ", " + c);
  }
  const std::string expect = inputs + "w = concat(" + ws + ", axis=0)\ny = conv(x, w, lo=[1,1], hi=[1,1])\n" +
                             "s = slice(y, start=[0," + std::to_string(2 * (n - 1)) + ",0,0], stop=[1," +
                             std::to_string(2 * n) + ",6,6], step=[1,1,1,1])\noutput s";
  return {"batch-convs-sharing-input." + std::to_string(n), inputs + body + "output " + outputs, expect};
}

std::span<const RuleCase> conv_cases() {
  static const std::vector<RuleCase> cases = [] {
    std::vector<RuleCase> all = {
      // Spatial pads, asymmetric, onto the conv's own.
      {"pad-into-conv",
       kXW + "p = pad(x, lo=[0,0,1,2], hi=[0,0,0,1], value=0)\n"
             "c = conv(p, w, strides=[1,2], lo=[1,0], hi=[0,0])\noutput c",
       kXW + "c = conv(x, w, strides=[1,2], lo=[2,2], hi=[0,1])\noutput c"},
      // A pad of another value is not the conv's zero padding.
      {"pad-into-conv",
       kXW + "p = pad(x, lo=[0,0,1,1], hi=[0,0,1,1], value=1)\nc = conv(p, w)\noutput c", "", false},
      // -0.0 is not +0.0: the pad must not be folded (a sum of -0 products is -0).
      {"pad-into-conv",
       kXW + "p = pad(x, lo=[0,0,1,1], hi=[0,0,1,1], value=-0.0)\nc = conv(p, w)\noutput c", "", false},
      // A pad of the channels changes which channels the windows read.
      {"pad-into-conv",
       "x = input() : f32[1,2,5,5]\nw = input() : f32[3,3,3,3]\n"
       "p = pad(x, lo=[0,1,0,0], hi=[0,0,0,0], value=0)\nc = conv(p, w)\noutput c",
       "", false},
      // Three 1x1 convolutions of one input (an Inception block's branches): the
      // last member is the last block of maps of one conv over the stacked weights.
      {"batch-convs-sharing-input.3",
       "x = input() : f32[2,4,6,6]\nw1 = input() : f32[5,4,1,1]\nw2 = input() : f32[5,4,1,1]\n"
       "w3 = input() : f32[5,4,1,1]\na = conv(x, w1)\nb = conv(x, w2)\nc = conv(x, w3)\noutput c, a, b",
       "x = input() : f32[2,4,6,6]\nw1 = input() : f32[5,4,1,1]\nw2 = input() : f32[5,4,1,1]\n"
       "w3 = input() : f32[5,4,1,1]\nw = concat(w1, w2, w3, axis=0)\ny = conv(x, w)\n"
       "s = slice(y, start=[0,10,0,0], stop=[2,15,6,6], step=[1,1,1,1])\noutput s"},
      // 3x3, padded and strided alike.
      {"batch-convs-sharing-input.2",
       "x = input() : f32[1,3,7,7]\nw1 = input() : f32[4,3,3,3]\nw2 = input() : f32[4,3,3,3]\n"
       "a = conv(x, w1, strides=[2,2], lo=[1,1], hi=[1,1])\nb = conv(x, w2, strides=[2,2], lo=[1,1], hi=[1,1])\n"
       "output b, a",
       "x = input() : f32[1,3,7,7]\nw1 = input() : f32[4,3,3,3]\nw2 = input() : f32[4,3,3,3]\n"
       "w = concat(w1, w2, axis=0)\ny = conv(x, w, strides=[2,2], lo=[1,1], hi=[1,1])\n"
       "s = slice(y, start=[0,4,0,0], stop=[1,8,4,4], step=[1,1,1,1])\noutput s"},
      // Different geometry: not one convolution.
      {"batch-convs-sharing-input.2",
       "x = input() : f32[1,3,7,7]\nw1 = input() : f32[4,3,3,3]\nw2 = input() : f32[4,3,3,3]\n"
       "a = conv(x, w1, lo=[1,1], hi=[1,1])\nb = conv(x, w2)\noutput a, b",
       "", false},
      // Two 1x1 convolutions of different widths (an Inception block's 32- and
      // 48-map branches, scaled down): the first is the first maps of one conv.
      {"batch-two-convs-sharing-input",
       "x = input() : f32[1,4,5,5]\nw1 = input() : f32[3,4,1,1]\nw2 = input() : f32[5,4,1,1]\n"
       "a = conv(x, w1)\nb = conv(x, w2)\noutput a, b",
       "x = input() : f32[1,4,5,5]\nw1 = input() : f32[3,4,1,1]\nw2 = input() : f32[5,4,1,1]\n"
       "w = concat(w1, w2, axis=0)\ny = conv(x, w)\n"
       "s = slice(y, start=[0,0,0,0], stop=[1,3,5,5], step=[1,1,1,1])\noutput s"},
      // Different dilations: not one convolution.
      {"batch-two-convs-sharing-input",
       "x = input() : f32[1,4,7,7]\nw1 = input() : f32[3,4,3,3]\nw2 = input() : f32[5,4,3,3]\n"
       "a = conv(x, w1, dilations=[2,2])\nb = conv(x, w2)\noutput a, b",
       "", false},
      // Grouped convolutions are left alone (the stacked weights' groups would mix).
      {"batch-convs-sharing-input.2",
       "x = input() : f32[1,4,5,5]\nw1 = input() : f32[4,2,3,3]\nw2 = input() : f32[4,2,3,3]\n"
       "a = conv(x, w1, groups=2)\nb = conv(x, w2, groups=2)\noutput a, b",
       "", false},
      // A 1x1 convolution is a matmul of its weights with the input's positions.
      {"conv-1x1-as-matmul",
       "x = input() : f32[2,4,3,5]\nw = input() : f32[6,4,1,1]\nc = conv(x, w)\noutput c",
       "x = input() : f32[2,4,3,5]\nw = input() : f32[6,4,1,1]\nw2 = reshape(w, shape=[6,4])\n"
       "x3 = reshape(x, shape=[2,4,15])\nm = matmul(w2, x3)\nc = reshape(m, shape=[2,6,3,5])\noutput c"},
      // One spatial axis; the dilation of a 1x1 kernel reads nothing more.
      {"conv-1x1-as-matmul",
       "x = input() : f32[1,3,7]\nw = input() : f32[2,3,1]\nc = conv(x, w, dilations=[3])\noutput c",
       "x = input() : f32[1,3,7]\nw = input() : f32[2,3,1]\nw2 = reshape(w, shape=[2,3])\n"
       "x3 = reshape(x, shape=[1,3,7])\nm = matmul(w2, x3)\nc = reshape(m, shape=[1,2,7])\noutput c"},
      // A 3x3 kernel, a padded or grouped 1x1 convolution: not one matmul.
      {"conv-1x1-as-matmul", kXW + "c = conv(x, w)\noutput c", "", false},
      {"conv-1x1-as-matmul",
       "x = input() : f32[1,2,5,5]\nw = input() : f32[3,2,1,1]\nc = conv(x, w, lo=[1,0], hi=[0,0])\noutput c", "",
       false},
      {"conv-1x1-as-matmul",
       "x = input() : f32[1,4,5,5]\nw = input() : f32[4,2,1,1]\nc = conv(x, w, groups=2)\noutput c", "", false},
      // A strided 1x1 convolution (a ResNet downsample) reads a strided slice.
      {"strided-1x1-conv-of-slice",
       "x = input() : f32[1,4,7,6]\nw = input() : f32[3,4,1,1]\nc = conv(x, w, strides=[2,3])\noutput c",
       "x = input() : f32[1,4,7,6]\nw = input() : f32[3,4,1,1]\n"
       "s = slice(x, start=[0,0,0,0], stop=[1,4,7,6], step=[1,1,2,3])\nc = conv(s, w)\noutput c"},
      // ... and then is a matmul over it.
      {"strided-1x1-conv-of-slice",
       "x = input() : f32[1,4,7,6]\nw = input() : f32[3,4,1,1]\nc = conv(x, w, strides=[2,2])\noutput c",
       "x = input() : f32[1,4,7,6]\nw = input() : f32[3,4,1,1]\n"
       "s = slice(x, start=[0,0,0,0], stop=[1,4,7,6], step=[1,1,2,2])\nw2 = reshape(w, shape=[3,4])\n"
       "x3 = reshape(s, shape=[1,4,12])\nm = matmul(w2, x3)\nc = reshape(m, shape=[1,3,4,3])\noutput c",
       true, 2, {"conv-1x1-as-matmul"}},
      // Unit strides or a padded input: left alone.
      {"strided-1x1-conv-of-slice",
       "x = input() : f32[1,4,7,6]\nw = input() : f32[3,4,1,1]\nc = conv(x, w)\noutput c", "", false},
      {"strided-1x1-conv-of-slice",
       "x = input() : f32[1,4,7,6]\nw = input() : f32[3,4,1,1]\nc = conv(x, w, strides=[2,2], lo=[1,1], hi=[1,1])\n"
       "output c", "", false},
      // A per-map factor (a batch-norm's scale) into the weights of its maps.
      {"conv-scale-into-weights",
       kXW + "k = input() : f32[1,3,1,1]\nc = conv(x, w, lo=[1,1], hi=[1,1])\n"
             "b = broadcast(k, shape=[1,3,5,5])\nm = mul(c, b)\noutput m",
       kXW + "k = input() : f32[1,3,1,1]\nr = reshape(k, shape=[3,1,1,1])\nb = broadcast(r, shape=[3,2,3,3])\n"
             "v = mul(w, b)\nc = conv(x, v, lo=[1,1], hi=[1,1])\noutput c"},
      // A factor per position is not one per map.
      {"conv-scale-into-weights",
       kXW + "k = input() : f32[1,1,3,3]\nc = conv(x, w)\nb = broadcast(k, shape=[1,3,3,3])\nm = mul(c, b)\noutput m",
       "", false},
    };
    for (int n : {2, 4, 5, 7}) all.push_back(sharing_input_case(n));
    return all;
  }();
  return cases;
}

namespace {

class ConvRules : public ::testing::TestWithParam<size_t> {};

TEST_P(ConvRules, Case) { check_rule_case(conv_cases()[GetParam()]); }

INSTANTIATE_TEST_SUITE_P(Family7, ConvRules, ::testing::Range<size_t>(0, conv_cases().size()),
                         [](const auto& p) { return case_name(conv_cases()[p.param], p.param); });

}  // namespace
}  // namespace smelt::rules::testing
