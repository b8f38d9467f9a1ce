// ConvTranspose and Resize on small models built in memory: what the ONNX
// backend node tests do not cover (groups with output_padding and asymmetric
// pads, how an odd total padding is split, graphs of bounded size, hostile sizes).
#include <gtest/gtest.h>


#include "import/import_error.h"
#include "import/onnx_import.h"
#include "ir/interpreter.h"
#include "tests/onnx/import_helpers.h"
#include "tests/onnx/model_builder.h"

namespace smelt {
namespace {

using importer::UnsupportedError;
using onnx::TensorProto;
using onnx_testing::ModelBuilder;

using onnx_testing::import;
using onnx_testing::kF32;
using onnx_testing::unsupported_message;

std::vector<double> run(const importer::ImportResult& r, const ir::HostTensor& x) {
  const ir::HostTensor y = ir::interpret(r.graph, {x}).at(0);
  std::vector<double> v;
  for (int64_t i = 0; i < y.numel(); ++i) v.push_back(y.get(i));
  return v;
}

// Inputs as formulas of the element index, all exact in f32.
std::vector<float> pattern(int64_t count, int64_t multiplier, int64_t modulus, int64_t offset, float divisor) {
  std::vector<float> v;
  for (int64_t i = 0; i < count; ++i) v.push_back(static_cast<float>((i * multiplier) % modulus - offset) / divisor);
  return v;
}

ir::HostTensor float_tensor(ir::Shape shape, const std::vector<float>& values) {
  return ir::HostTensor::from_values({ir::DType::F32, std::move(shape)}, std::vector<double>(values.begin(), values.end()));
}

TEST(OnnxConvTranspose, GroupsOutputPaddingAsymmetricPadsDilationsAndBias) {
  // X [1, 4, 3, 2] (x = i % 7 - 3), W [4, 3, 2, 3] (w = ((5i) % 11 - 5) / 4), B [6]
  // (b = (i - 2) / 2); group 2, strides [2, 3], dilations [1, 2], pads [1, 0, 0, 1],
  // output_padding [1, 0]. Expected: the definition (every input element scattered
  // through its group's kernels) in numpy, which ONNX Runtime matches exactly.
  ModelBuilder m;
  m.input("x", kF32, {1, 4, 3, 2}).output("y", kF32, {1, 6, 6, 7});
  m.float_initializer("w", {4, 3, 2, 3}, pattern(72, 5, 11, 5, 4));
  m.float_initializer("b", {6}, pattern(6, 1, 6, 2, 2));
  onnx::NodeProto& n = m.node("ConvTranspose", {"x", "w", "b"}, {"y"});
  onnx_testing::add_int_attr(n, "group", 2);
  onnx_testing::add_ints_attr(n, "strides", {2, 3});
  onnx_testing::add_ints_attr(n, "dilations", {1, 2});
  onnx_testing::add_ints_attr(n, "pads", {1, 0, 0, 1});
  onnx_testing::add_ints_attr(n, "output_padding", {1, 0});
  const std::vector<double> expected = {
      0.5, -1, -7.75, -1.25, 0.5, 0.75, -1, 1.75, -1, -2, -0.25, -0.25, -1.5, -1, -1.25, -1, 0.5, -1.25, -0.5,
      0.25, -1, -2.25, -1, -1, -4.25, 0.25, -0.5, -1, -1.25, -1, 0, -1.25, -1.5, -0.25, -1, -1, -1, -1, -1, -1,
      -1, -1, 1, -0.5, 1, 3, 1, -3.25, -0.5, -3.75, -0.5, 0.75, -1.75, -3, -0.25, -0.5, 1.5, -0.5, -2.25, 0,
      2.25, -1.25, -0.5, 0.25, -0.5, -1.25, 2.25, 0, -2.25, -0.5, -1.5, -0.5, -0.25, -3, -1.75, 0.75, -0.5,
      -0.5, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5, -6.75, 0, 1.5, 1.75, 1.5, 1, 0, -1, 0, 0.75, -0.5, -0.25, 1, 0,
      1.5, 0, 0.5, 1.25, -3.25, 0, 0, 0, 0, 1.25, 0.5, -0.25, 1.5, 0, 1, 0, -0.5, 0.75, 0.75, -1, 0, 0, 0, 0,
      0, 0, 0, 0, 3.25, 0.5, -1.25, 5.25, 2.5, -2.25, 0.5, 2, 0.5, -6.25, 0.25, 2, 2.25, 0.5, 2, 0.5, 2, -4.75,
      2, 2.75, 0.5, 0.25, 0.5, 2, 0.25, 1, 1.75, 0.5, -2.75, 0.5, 1.75, -0.75, -2, 0.75, 0.5, 0.5, 0.5, 0.5,
      0.5, 0.5, 0.5, 0.5, 1.5, 1, 2.5, 2, 0.75, 2.75, 1, 2.5, 1, 2.5, 4.5, 2.5, -1.75, 1, 2.5, 1, -5.75, -0.5,
      2.5, 1.5, 1, 3, 1, -0.75, 1.5, 3.75, 0.25, 1, 0, 1, 1.75, 0.5, 0.75, 2, 1, 1, 1, 1, 1, 1, 1, 1, -0.25,
      1.5, 3.5, -1.25, -1, 5, 1.5, -5.25, 1.5, 3, 3.25, 3, 2.5, 1.5, 3, 1.5, 3, 3.75, 3, -2.5, 1.5, 3, 1.5, 2,
      2.75, -1.75, 1.5, 1.5, 2.75, 1.5, -1, 1.75, 3.5, 0.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5
};
  const std::vector<double> y = run(import(m), float_tensor({1, 4, 3, 2}, pattern(24, 1, 7, 3, 1)));
  ASSERT_EQ(y.size(), expected.size());
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], expected[i], 1e-5) << "at " << i;
}

TEST(OnnxConvTranspose, OutputShapeSplitsAnOddTotalPaddingLikeOnnxRuntime) {
  // X [1, 1, 4] = [-3, -2, -1, 0], W [1, 1, 3] = [-1.25, 0, 1.25], stride 2: the
  // full output has 9 positions [3.75, 0, -1.25, 0, -1.25, 0, -1.25, 0, 0];
  // output_shape [6] leaves a total padding of 3: NOTSET and SAME_LOWER drop 2
  // at the start, SAME_UPPER 1 (as ONNX Runtime does).
  for (const std::string auto_pad : {"NOTSET", "SAME_LOWER", "SAME_UPPER"}) {
    ModelBuilder m;
    m.input("x", kF32, {1, 1, 4}).output("y", kF32, {1, 1, 6});
    m.float_initializer("w", {1, 1, 3}, {-1.25f, 0, 1.25f});
    onnx::NodeProto& n = m.node("ConvTranspose", {"x", "w"}, {"y"});
    onnx_testing::add_ints_attr(n, "strides", {2});
    onnx_testing::add_ints_attr(n, "output_shape", {6});
    onnx_testing::add_string_attr(n, "auto_pad", auto_pad);
    const std::vector<double> y = run(import(m), float_tensor({1, 1, 4}, {-3, -2, -1, 0}));
    const std::vector<double> expected =
        auto_pad == "SAME_UPPER" ? std::vector<double>{0, -1.25, 0, -1.25, 0, -1.25}
                                 : std::vector<double>{-1.25, 0, -1.25, 0, -1.25, 0};
    EXPECT_EQ(y, expected) << auto_pad;
  }
}

TEST(OnnxConvTranspose, InconsistentAttributesAreImportErrors) {
  ModelBuilder m;
  m.input("x", kF32, {1, 2, 4}).output("y", kF32, {1, 2, 6});
  m.float_initializer("w", {2, 1, 3}, pattern(6, 1, 6, 0, 1));
  onnx::NodeProto& n = m.node("ConvTranspose", {"x", "w"}, {"y"});
  onnx_testing::add_int_attr(n, "group", 2);
  onnx_testing::add_ints_attr(n, "kernel_shape", {2});  // W's kernel is 3
  EXPECT_THROW(import(m), importer::ImportError);
}

// Resize of X [1, 1, 2, 3] with constant scales, mode nearest (half_pixel,
// round_prefer_floor unless given).
ModelBuilder nearest_resize(std::vector<float> scales, std::vector<int64_t> out_shape) {
  ModelBuilder m(/*opset=*/19);
  m.input("x", kF32, {1, 1, 2, 3}).output("y", kF32, out_shape);
  m.float_initializer("scales", {4}, scales);
  m.node("Resize", {"x", "", "scales"}, {"y"});
  return m;
}

TEST(OnnxResize, IntegerNearestUpscaleIsABroadcastNotSlices) {
  importer::ImportResult r = import(nearest_resize({1, 1, 2, 3}, {1, 1, 4, 9}));
  for (const ir::Node& n : r.graph.nodes()) {
    EXPECT_NE(n.op, ir::Op::Concat);
    EXPECT_NE(n.op, ir::Op::Slice);
  }
  const std::vector<double> y = run(r, float_tensor({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(y, (std::vector<double>{1, 1, 1, 2, 2, 2, 3, 3, 3, 1, 1, 1, 2, 2, 2, 3, 3, 3,
                                    4, 4, 4, 5, 5, 5, 6, 6, 6, 4, 4, 4, 5, 5, 5, 6, 6, 6}));
}

TEST(OnnxResize, FractionalNearestUpscaleRepeatsAPatternOfSlices) {
  // 2.5x on rows of 2: half_pixel puts output positions 0..4 at -0.3, 0.1, 0.5,
  // 0.9, 1.3, rounded (ties down) and clamped to rows 0, 0, 0, 1, 1.
  importer::ImportResult r = import(nearest_resize({1, 1, 2.5f, 1}, {1, 1, 5, 3}));
  int slices = 0;
  for (const ir::Node& n : r.graph.nodes()) slices += n.op == ir::Op::Slice;
  EXPECT_LE(slices, 2);
  const std::vector<double> y = run(r, float_tensor({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(y, (std::vector<double>{1, 2, 3, 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
}

// Refused from the extents alone, before anything of that size exists: a
// refusal after building 3e9 output positions would need gigabytes, and
// end in an allocation failure (another message) or a run ctest stops. How
// long the refusal takes is not measured (that would fail on a busy machine).
TEST(OnnxResize, HostileSizesAreRefusedBeforeBuildingAnything) {
  ModelBuilder m(/*opset=*/19);
  m.input("x", kF32, {1, 1, 2, 3}).output("y", kF32, {1, 1, 1000000000, 3});
  m.int64_initializer("sizes", {1, 1, 1000000000, 3});
  m.node("Resize", {"x", "", "", "sizes"}, {"y"});
  const std::string message = unsupported_message(m);
  EXPECT_NE(message.find("at most 4194304 positions"), std::string::npos) << message;
  // A scale of 1e30 is refused the same way, without an overflowing cast.
  const std::string scaled = unsupported_message(nearest_resize({1, 1, 1e30f, 1}, {1, 1, 1, 3}));
  EXPECT_NE(scaled.find("at most 4194304 positions"), std::string::npos) << scaled;
}

TEST(OnnxResize, CubicAntialiasReadingTooManyPositionsIsRefused) {
  // Antialiased cubic at scale 1/8 reads 32 input positions per output position.
  ModelBuilder m(/*opset=*/19);
  m.input("x", kF32, {1, 1, 64, 3}).output("y", kF32, {1, 1, 8, 3});
  m.float_initializer("scales", {4}, {1, 1, 0.125f, 1});
  onnx::NodeProto& n = m.node("Resize", {"x", "", "scales"}, {"y"});
  onnx_testing::add_string_attr(n, "mode", "cubic");
  onnx_testing::add_int_attr(n, "antialias", 1);
  const std::string message = unsupported_message(m);
  EXPECT_NE(message.find("more than 16 input positions"), std::string::npos) << message;
}

TEST(OnnxResize, ScalesFromAGraphInputAreUnsupportedNamingIt) {
  ModelBuilder m(/*opset=*/19);
  m.input("x", kF32, {1, 1, 2, 3}).input("scales", kF32, {4}).output("y", kF32, {1, 1, 4, 6});
  m.node("Resize", {"x", "", "scales"}, {"y"});
  try {
    import(m);
    FAIL() << "expected an UnsupportedError";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(e.static_input(), "scales");
  }
}

TEST(OnnxResize, ScalesAndSizesTogetherAreAnImportError) {
  ModelBuilder m(/*opset=*/19);
  m.input("x", kF32, {1, 1, 2, 3}).output("y", kF32, {1, 1, 4, 6});
  m.float_initializer("scales", {4}, {1, 1, 2, 2}).int64_initializer("sizes", {1, 1, 4, 6});
  m.node("Resize", {"x", "", "scales", "sizes"}, {"y"});
  EXPECT_THROW(import(m), importer::ImportError);
}

}  // namespace
}  // namespace smelt
