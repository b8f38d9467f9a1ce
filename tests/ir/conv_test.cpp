// The conv op (docs/ops.md): shape inference and its errors, the text format,
// and the interpreter against an independent formulation — one matmul over a
// group's channels per kernel position, on a strided slice of the padded input,
// summed (how an ONNX Conv was imported before conv was an op).
#include <gtest/gtest.h>

#include <optional>
#include <random>

#include "ir/builder.h"
#include "ir/interpreter.h"
#include "ir/tensor_compare.h"
#include "ir/text_format.h"

namespace smelt::ir {
namespace {

struct Geometry {
  Shape x, w;
  ConvParams params;
};

// conv(x, w) built from pads, slices, reshapes and matmuls.
Tensor conv_by_positions(Tensor x, Tensor w, const ConvParams& p) {
  const Shape xs = x.shape(), ws = w.shape();
  const size_t spatial = xs.size() - 2;
  const int64_t n = xs[0], channels = xs[1], maps = ws[0], cg = channels / p.groups, mg = maps / p.groups;
  std::vector<int64_t> lo(2, 0), hi(2, 0);
  lo.insert(lo.end(), p.lo.begin(), p.lo.end());
  hi.insert(hi.end(), p.hi.begin(), p.hi.end());
  Tensor padded = pad(x, lo, hi, 0);
  const Shape ps = padded.shape();
  Shape out{n, maps};
  int64_t positions = 1;
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t span = p.dilations[i] * (ws[i + 2] - 1) + 1;
    out.push_back((ps[i + 2] - span) / p.strides[i] + 1);
    positions *= out.back();
  }
  // Every kernel offset, row-major.
  std::vector<std::vector<int64_t>> offsets{{}};
  for (size_t i = 0; i < spatial; ++i) {
    std::vector<std::vector<int64_t>> next;
    for (const auto& prefix : offsets)
      for (int64_t o = 0; o < ws[i + 2]; ++o) {
        next.push_back(prefix);
        next.back().push_back(o);
      }
    offsets = next;
  }
  std::vector<Tensor> groups;
  for (int64_t g = 0; g < p.groups; ++g) {
    std::optional<Tensor> sum;
    for (const auto& o : offsets) {
      std::vector<int64_t> start{0, g * cg}, stop{n, (g + 1) * cg}, step{1, 1};
      std::vector<int64_t> wstart{g * mg, 0}, wstop{(g + 1) * mg, cg}, wstep(spatial + 2, 1);
      for (size_t i = 0; i < spatial; ++i) {
        start.push_back(o[i] * p.dilations[i]);
        stop.push_back(start.back() + (out[i + 2] - 1) * p.strides[i] + 1);
        step.push_back(p.strides[i]);
        wstart.push_back(o[i]);
        wstop.push_back(o[i] + 1);
      }
      Tensor window = reshape(slice(padded, start, stop, step), {n, cg, positions});
      Tensor weights = reshape(slice(w, wstart, wstop, wstep), {mg, cg});
      Tensor term = matmul(weights, window);
      sum = sum ? add(*sum, term) : term;
    }
    groups.push_back(*sum);
  }
  return reshape(p.groups == 1 ? groups.front() : concat(groups, 1), out);
}

class ConvGeometries : public ::testing::TestWithParam<Geometry> {};

TEST_P(ConvGeometries, InterpreterMatchesMatmulsPerKernelPosition) {
  const Geometry& geo = GetParam();
  Graph g("conv");
  Tensor x = input(g, "x", DType::F32, geo.x), w = input(g, "w", DType::F32, geo.w);
  Tensor direct = conv(x, w, geo.params);
  const Attrs a = g.node(direct.id).attrs;  // the geometry with its defaults filled in
  Tensor by_positions = conv_by_positions(x, w, ConvParams{a.strides, a.dilations, a.lo, a.hi, a.groups});
  ASSERT_EQ(direct.shape(), by_positions.shape());
  g.add_output(direct);
  g.add_output(by_positions);
  std::mt19937_64 rng(5);
  const std::vector<HostTensor> inputs{random_tensor(g.type(x.id), rng), random_tensor(g.type(w.id), rng)};
  const Reference got = interpret_with_error_scales(g, inputs);
  EXPECT_EQ(compare_outputs(Reference({got.values[0]}, {got.error_scales[0]}), {got.values[1]}), "");
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvGeometries,
    ::testing::Values(
        Geometry{{1, 3, 7, 7}, {4, 3, 3, 3}, {}},                                       // valid, no padding
        Geometry{{2, 4, 8, 6}, {6, 4, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 1}},      // same padding
        Geometry{{1, 4, 9, 9}, {8, 4, 3, 3}, {{2, 2}, {1, 1}, {1, 0}, {0, 1}, 1}},      // stride 2, asymmetric
        Geometry{{1, 4, 10, 10}, {4, 2, 3, 3}, {{1, 1}, {2, 2}, {2, 2}, {2, 2}, 2}},    // dilated, 2 groups
        Geometry{{1, 6, 5, 5}, {6, 1, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 6}},      // depthwise
        Geometry{{2, 3, 11}, {5, 3, 4}, {{3}, {1}, {2}, {1}, 1}},                       // 1-D
        Geometry{{1, 2, 4, 5, 3}, {3, 2, 2, 3, 2}, {{1, 2, 1}, {1, 1, 1}, {1, 0, 1}, {0, 1, 1}, 1}}));  // 3-D

TEST(Conv, ShapeErrorsSayWhatWasExpected) {
  Graph g("bad");
  Tensor x = input(g, "x", DType::F32, {1, 4, 5, 5});
  Tensor w = input(g, "w", DType::F32, {8, 3, 3, 3});
  EXPECT_THROW(conv(x, w), ShapeError);  // 3 channels per group, x has 4
  Tensor w2 = input(g, "w2", DType::F32, {8, 2, 3, 3});
  try {
    conv(x, w2, {{1, 1}, {1, 1}, {0, 0}, {0, 0}, 3});
    FAIL() << "groups 3 does not divide 4 channels";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("groups"), std::string::npos) << e.what();
  }
  Tensor big = input(g, "big", DType::F32, {8, 4, 7, 7});
  EXPECT_THROW(conv(x, big), ShapeError);  // window larger than the input
  Tensor ints = input(g, "ints", DType::I32, {1, 4, 5, 5});
  Tensor wints = input(g, "wints", DType::I32, {8, 4, 3, 3});
  EXPECT_THROW(conv(ints, wints), ShapeError);  // float only
}

TEST(Conv, TextFormatRoundTripsAndDefaultsTheGeometry) {
  const std::string text =
      "graph c\n"
      "x = input() : f32[1,2,6,6]\n"
      "w = input() : f32[4,1,3,3]\n"
      "y = conv(x, w, strides=[2,1], lo=[1,0], hi=[0,1], groups=2) : f32[1,4,3,5]\n"
      "output y\n";
  Graph g = parse_graph(text);
  const Node& y = g.node(g.outputs().front());
  EXPECT_EQ(y.attrs.dilations, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(y.attrs.groups, 2);
  Graph again = parse_graph(print_graph(g));
  EXPECT_EQ(print_graph(again), print_graph(g));
  EXPECT_EQ(again.node(again.outputs().front()).attrs, y.attrs);
}

}  // namespace
}  // namespace smelt::ir
