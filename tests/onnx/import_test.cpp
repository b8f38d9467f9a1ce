// The ONNX importer on small models built in memory: ONNX semantics that differ
// from smelt's are translated exactly, and what smelt cannot express is an error
// naming the node, the op and the attribute.
#include <gtest/gtest.h>

#include <cmath>

#include "import/import_error.h"
#include "import/onnx_import.h"
#include "import/op_versions.h"
#include "import/tensor_proto.h"
#include "ir/interpreter.h"
#include "error/memory_limit.h"
#include "ir/text_format.h"
#include "tests/onnx/import_helpers.h"
#include "tests/onnx/model_builder.h"
#include "tests/support/scoped_memory_limit.h"

namespace smelt {
namespace {

using importer::ImportError;
using importer::UnsupportedError;
using onnx::TensorProto;
using onnx_testing::ModelBuilder;

using onnx_testing::import;
using onnx_testing::kF32;
using onnx_testing::kI64;
using onnx_testing::unsupported_message;

ir::HostTensor f32(ir::Shape shape, std::vector<double> values) {
  return ir::HostTensor::from_values({ir::DType::F32, std::move(shape)}, values);
}

std::vector<double> values_of(const ir::HostTensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.get(i));
  return v;
}

TEST(OnnxImport, SliceCountsNegativeIndicesFromTheEndAndClampsLikeOnnx) {
  // x[-2:-100:-1] on a length-5 vector = [3, 2, 1, 0]; x[-3:INT64_MAX] = [2, 3, 4].
  ModelBuilder m;
  m.input("x", kF32, {5}).output("backward", kF32, {4}).output("tail", kF32, {3});
  m.int64_initializer("s1", {-2}).int64_initializer("e1", {-100}).int64_initializer("a", {0});
  m.int64_initializer("st1", {-1}).int64_initializer("s2", {-3}).int64_initializer("e2", {INT64_MAX});
  m.node("Slice", {"x", "s1", "e1", "a", "st1"}, {"backward"});
  m.node("Slice", {"x", "s2", "e2"}, {"tail"});
  importer::ImportResult r = import(m);
  auto out = ir::interpret(r.graph, {f32({5}, {0, 1, 2, 3, 4})});
  EXPECT_EQ(values_of(out[0]), (std::vector<double>{3, 2, 1, 0}));
  EXPECT_EQ(values_of(out[1]), (std::vector<double>{2, 3, 4}));
}

TEST(OnnxImport, BroadcastingBecomesExplicit) {
  ModelBuilder m;
  m.input("a", kF32, {2, 3}).input("b", kF32, {3}).output("y", kF32, {2, 3});
  m.node("Add", {"a", "b"}, {"y"});
  importer::ImportResult r = import(m);
  bool has_broadcast = false;
  for (const ir::Node& n : r.graph.nodes()) has_broadcast |= n.op == ir::Op::Broadcast;
  EXPECT_TRUE(has_broadcast);
  auto out = ir::interpret(r.graph, {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({3}, {10, 20, 30})});
  EXPECT_EQ(values_of(out[0]), (std::vector<double>{11, 22, 33, 14, 25, 36}));
}

TEST(OnnxImport, GemmHandlesAlphaBetaAndTransposes) {
  // Y = 2 * A^T * B^T + 0.5 * C, A: [2,1] (A^T = [1,2]), B: [1,2] (B^T = [2,1]).
  ModelBuilder m;
  m.input("A", kF32, {2, 1}).input("B", kF32, {1, 2}).input("C", kF32, {1}).output("Y", kF32, {1, 1});
  onnx::NodeProto& gemm = m.node("Gemm", {"A", "B", "C"}, {"Y"});
  onnx_testing::add_float_attr(gemm, "alpha", 2);
  onnx_testing::add_float_attr(gemm, "beta", 0.5);
  onnx_testing::add_int_attr(gemm, "transA", 1);
  onnx_testing::add_int_attr(gemm, "transB", 1);
  importer::ImportResult r = import(m);
  auto out = ir::interpret(r.graph, {f32({2, 1}, {1, 2}), f32({1, 2}, {3, 4}), f32({1}, {10})});
  EXPECT_EQ(values_of(out[0]), (std::vector<double>{2 * (1 * 3 + 2 * 4) + 5}));
}

// torch.nn.Linear exports Gemm(x, W, b, transB=1) with W [out, in] an
// initializer: the transposed weight is stored transposed, not permuted on
// every run; so is a Transpose of an initializer. Non-constants keep the permute.
TEST(OnnxImport, TransposedWeightsAreStoredInTheLayoutRead) {
  auto permutes = [](const ir::Graph& g) {
    int n = 0;
    for (const ir::Node& node : g.nodes()) n += node.op == ir::Op::Permute;
    return n;
  };
  ModelBuilder m;
  m.input("x", kF32, {1, 3}).output("y", kF32, {1, 2}).output("z", kF32, {3, 2});
  m.float_initializer("W", {2, 3}, {1, 2, 3, 4, 5, 6});
  onnx::NodeProto& gemm = m.node("Gemm", {"x", "W"}, {"y"});
  onnx_testing::add_int_attr(gemm, "transB", 1);
  m.node("Transpose", {"W"}, {"z"});
  importer::ImportResult r = import(m);
  EXPECT_EQ(permutes(r.graph), 0);
  auto out = ir::interpret(r.graph, {f32({1, 3}, {1, 10, 100})});
  EXPECT_EQ(values_of(out[0]), (std::vector<double>{321, 654}));
  EXPECT_EQ(values_of(out[1]), (std::vector<double>{1, 4, 2, 5, 3, 6}));

  ModelBuilder n;
  n.input("x", kF32, {1, 3}).input("W", kF32, {2, 3}).output("y", kF32, {1, 2});
  onnx::NodeProto& g2 = n.node("Gemm", {"x", "W"}, {"y"});
  onnx_testing::add_int_attr(g2, "transB", 1);
  EXPECT_EQ(permutes(import(n).graph), 1);
}

// The folded transpose of a matrix is copied in 64 x 64 tiles
// (import/constant_views.cpp): 70 x 130 cuts tiles in both directions.
TEST(OnnxImport, ATransposedInitializerLargerThanATileHasEveryElementInPlace) {
  const int64_t rows = 70, cols = 130;
  std::vector<float> w;
  for (int64_t i = 0; i < rows * cols; ++i) w.push_back(static_cast<float>(i));
  ModelBuilder m;
  m.output("z", kF32, {cols, rows});
  m.float_initializer("W", {rows, cols}, w);
  m.node("Transpose", {"W"}, {"z"});
  importer::ImportResult r = import(m);
  const std::vector<double> z = values_of(ir::interpret(r.graph, {})[0]);
  ASSERT_EQ(z.size(), static_cast<size_t>(rows * cols));
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t row = 0; row < rows; ++row)
      ASSERT_EQ(z[static_cast<size_t>(c * rows + row)], static_cast<double>(row * cols + c)) << c << "," << row;
}

TEST(OnnxImport, ShapeOfAStaticShapeIsFoldedIntoReshape) {
  ModelBuilder m;
  m.input("x", kF32, {2, 3}).output("y", kF32, {3, 2});
  m.node("Shape", {"x"}, {"s"});
  m.int64_initializer("rev", {1, 0});
  onnx::NodeProto& gather = m.node("Gather", {"s", "rev"}, {"t"});
  onnx_testing::add_int_attr(gather, "axis", 0);
  m.node("Reshape", {"x", "t"}, {"y"});
  importer::ImportResult r = import(m);
  // Only the input and the reshape remain: the shape arithmetic was folded.
  ASSERT_EQ(r.graph.size(), 2u);
  EXPECT_EQ(r.graph.type(r.graph.outputs()[0]).shape, (ir::Shape{3, 2}));
}

TEST(OnnxImport, SoftmaxIsDecomposedWithTheMaxSubtracted) {
  ModelBuilder m;
  m.input("x", kF32, {1, 3}).output("y", kF32, {1, 3});
  m.node("Softmax", {"x"}, {"y"});
  importer::ImportResult r = import(m);
  // Large inputs: without the max subtracted exp would overflow to inf.
  auto out = ir::interpret(r.graph, {f32({1, 3}, {1000, 1000, 1000})});
  for (double v : values_of(out[0])) EXPECT_NEAR(v, 1.0 / 3, 1e-6);
}

TEST(OnnxImport, GatherElementsWithDataIndicesKeepsValuesExactly) {
  // Indices are a graph input (known only at run time); -1 counts from the end,
  // and the picked -0.0 and NaN come through unchanged.
  ModelBuilder m;
  m.input("x", kF32, {1, 3}).input("i", kI64, {1, 3}).output("y", kF32, {1, 3});
  onnx::NodeProto& gather = m.node("GatherElements", {"x", "i"}, {"y"});
  onnx_testing::add_int_attr(gather, "axis", 1);
  importer::ImportResult r = import(m);
  ir::HostTensor index = ir::HostTensor::zeros({ir::DType::I64, {1, 3}});
  index.ints = {-1, 0, 1};
  auto out = ir::interpret(r.graph, {f32({1, 3}, {-0.0, NAN, 7}), index});
  EXPECT_EQ(out[0].reals[0], 7);
  EXPECT_EQ(out[0].reals[1], 0.0);
  EXPECT_TRUE(std::signbit(out[0].reals[1]));
  EXPECT_TRUE(std::isnan(out[0].reals[2]));
}

// Indices computed from constants alone (T5's position buckets: a float
// computation cast to integers) are folded at import: a gather from a constant
// literal, whose values are exact (error scale 0), not a cast the compiled code
// might round to another bucket.
TEST(OnnxImport, GatherAtIndicesComputedFromConstantsReadsThemFolded) {
  ModelBuilder m;
  m.input("table", kF32, {8, 2}).output("y", kF32, {70, 2});
  std::vector<float> positions;
  for (int k = 0; k < 70; ++k) positions.push_back(static_cast<float>((k * 37) % 8) + 0.25f);
  m.float_initializer("p", {70}, positions);
  onnx::NodeProto& cast = m.node("Cast", {"p"}, {"i"});
  onnx_testing::add_int_attr(cast, "to", kI64);
  m.node("Gather", {"table", "i"}, {"y"});
  importer::ImportResult r = import(m);
  int gathers = 0, casts = 0;
  for (const ir::Node& n : r.graph.nodes()) {
    gathers += n.op == ir::Op::Gather;
    casts += n.op == ir::Op::Cast;
  }
  EXPECT_EQ(gathers, 1);
  EXPECT_EQ(casts, 0) << "the indices are a literal";
  std::vector<double> table;
  for (int k = 0; k < 16; ++k) table.push_back(k);
  const ir::Reference want = ir::interpret_with_error_scales(r.graph, {f32({8, 2}, table)});
  EXPECT_EQ(want.values[0].reals[2], 2.0 * ((37 % 8)));  // row 5's first column
  for (double s : want.error_scales[0].reals) EXPECT_EQ(s, 0.0);
}

TEST(OnnxImport, ArgMaxTakesTheFirstMaximumAndTheFirstNaN) {
  ModelBuilder m;
  m.input("x", kF32, {2, 4}).output("y", kI64, {2});
  onnx::NodeProto& argmax = m.node("ArgMax", {"x"}, {"y"});
  onnx_testing::add_int_attr(argmax, "axis", 1);
  onnx_testing::add_int_attr(argmax, "keepdims", 0);
  importer::ImportResult r = import(m);
  auto out = ir::interpret(r.graph, {f32({2, 4}, {1, 5, 5, 2, 1, NAN, 9, NAN})});
  EXPECT_EQ(out[0].ints, (std::vector<int64_t>{1, 1}));  // numpy.argmax
}

TEST(OnnxImport, UnsupportedOpNamesTheNodeAndTheOp) {
  ModelBuilder m;
  m.input("x", kF32, {4}).output("y", kF32, {4});
  m.node("Floor", {"x"}, {"y"}, "my_floor");
  const std::string message = unsupported_message(m);
  EXPECT_NE(message.find("'my_floor'"), std::string::npos) << message;
  EXPECT_NE(message.find("Floor"), std::string::npos) << message;
}

TEST(OnnxImport, UnsupportedAttributeValueNamesTheAttribute) {
  ModelBuilder m;
  m.input("x", kF32, {4}).output("y", kF32, {6});
  m.int64_initializer("pads", {1, 1});
  onnx::NodeProto& pad = m.node("Pad", {"x", "pads"}, {"y"}, "reflect_pad");
  onnx_testing::add_string_attr(pad, "mode", "reflect");
  const std::string message = unsupported_message(m);
  EXPECT_NE(message.find("'reflect_pad' (Pad)"), std::string::npos) << message;
  EXPECT_NE(message.find("'mode'"), std::string::npos) << message;
}

TEST(OnnxImport, UnknownAttributeIsAnErrorNotIgnored) {
  ModelBuilder m;
  m.input("x", kF32, {4}).output("y", kF32, {4});
  onnx::NodeProto& relu = m.node("Relu", {"x"}, {"y"});
  onnx_testing::add_int_attr(relu, "inplace", 1);
  EXPECT_NE(unsupported_message(m).find("attribute 'inplace'"), std::string::npos);
}

TEST(OnnxImport, IntegerDivIsRejectedBecauseItsRoundingDiffers) {
  ModelBuilder m;
  m.input("a", kI64, {2}).input("b", kI64, {2}).output("y", kI64, {2});
  m.node("Div", {"a", "b"}, {"y"});
  EXPECT_NE(unsupported_message(m).find("Div"), std::string::npos);
}

TEST(OnnxImport, DtypeSmeltLacksIsUnsupported) {
  ModelBuilder m;
  m.input("x", TensorProto::DOUBLE, {2}).output("y", TensorProto::DOUBLE, {2});
  m.node("Relu", {"x"}, {"y"});
  EXPECT_NE(unsupported_message(m).find("DOUBLE"), std::string::npos);
}

TEST(OnnxImport, ShapeFedByAGraphInputNamesItAndCanBeBound) {
  ModelBuilder m;
  m.input("x", kF32, {2, 3}).input("shape", kI64, {2}).output("y", kF32, {3, 2});
  m.node("Reshape", {"x", "shape"}, {"y"});
  try {
    import(m);
    FAIL() << "expected an UnsupportedError";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(e.static_input(), "shape");
  }
  importer::ImportOptions options;
  ir::HostTensor shape = ir::HostTensor::zeros({ir::DType::I64, {2}});
  shape.ints = {3, 2};
  options.static_inputs["shape"] = shape;
  importer::ImportResult r = import(m, options);
  EXPECT_EQ(r.input_names, (std::vector<std::string>{"x"}));
  EXPECT_EQ(r.graph.type(r.graph.outputs()[0]).shape, (ir::Shape{3, 2}));
}

TEST(OnnxImport, OldOpsetWithDifferentSemanticsIsRejected) {
  ModelBuilder m(/*opset=*/11);
  m.input("x", kF32, {2, 3}).output("y", kF32, {2, 3});
  m.node("Softmax", {"x"}, {"y"});  // before opset 13 Softmax flattened to 2-D
  EXPECT_NE(unsupported_message(m).find("opset 11"), std::string::npos);
}

TEST(OnnxImport, MalformedBytesAreAnImportErrorNotUnsupported) {
  try {
    importer::import_model_bytes("definitely not protobuf \xff\xff", "bad.onnx");
    FAIL() << "expected an ImportError";
  } catch (const UnsupportedError&) {
    FAIL() << "a malformed file is not 'unsupported'";
  } catch (const ImportError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.onnx"), std::string::npos);
  }
}

TEST(OnnxImport, OutputTypeThatDisagreesWithTheModelIsAnError) {
  ModelBuilder m;
  m.input("x", kF32, {2}).output("y", kF32, {3});  // Relu cannot produce [3]
  m.node("Relu", {"x"}, {"y"});
  EXPECT_THROW(import(m), ImportError);
}

// ---- hostile models: each a clear ImportError (exit 1), never a crash or std::bad_alloc

// The message of the ImportError (not UnsupportedError) that importing `m` throws.
std::string import_error_message(const ModelBuilder& m) {
  try {
    import(m);
  } catch (const UnsupportedError& e) {
    ADD_FAILURE() << "expected an ImportError, got an UnsupportedError: " << e.what();
  } catch (const ImportError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an ImportError";
  return {};
}

TEST(OnnxImport, ErrorsNameTheFile) {
  ModelBuilder m;
  m.input("x", kF32, {4}).output("y", kF32, {4});
  m.node("Floor", {"x"}, {"y"}, "my_floor");
  EXPECT_EQ(unsupported_message(m).rfind("test.onnx: node 'my_floor' (Floor): ", 0), 0u) << unsupported_message(m);
}

TEST(OnnxImport, NegativeDimensionIsAnImportError) {
  ModelBuilder m;
  m.input("x", kF32, {2, -3}).output("y", kF32, {2, 3});
  m.node("Relu", {"x"}, {"y"});
  const std::string message = import_error_message(m);
  EXPECT_NE(message.find("test.onnx: graph input 'x': shape [2,-3] has a negative extent"), std::string::npos)
      << message;
}

TEST(OnnxImport, InitializerOfHugeShapeWithoutDataAllocatesNothing) {
  // 4e9 x 4e9 overflows int64; 1e9 (8 GB as a host tensor) fits but holds no data:
  // both are refused before anything is allocated.
  const std::pair<std::vector<int64_t>, std::string> cases[] = {
      {{4'000'000'000, 4'000'000'000}, "shape [4000000000,4000000000] has more than 2^53 elements"},
      {{1'000'000'000}, "float_data holds 0 values, the shape needs 1000000000"}};
  for (const auto& [dims, expected] : cases) {
    ModelBuilder m;
    m.input("x", kF32, {2}).output("y", kF32, {2});
    onnx::TensorProto* w = m.model().mutable_graph()->add_initializer();
    w->set_name("w");
    w->set_data_type(TensorProto::FLOAT);
    for (int64_t d : dims) w->add_dims(d);
    m.node("Relu", {"x"}, {"y"});
    const std::string message = import_error_message(m);
    EXPECT_EQ(message, "test.onnx: initializer 'w': " + expected);
  }
}

TEST(OnnxImport, InitializerAboveTheMemoryLimitIsRefusedBeforeAllocating) {
  ModelBuilder m;
  m.input("x", kF32, {1000}).output("y", kF32, {1000});
  m.float_initializer("w", {1000}, std::vector<float>(1000, 1.0f));
  m.node("Add", {"x", "w"}, {"y"});
  smelt_testing::ScopedMemoryLimit limit(4000);
  try {
    import(m);
    FAIL() << "expected a MemoryLimitError";
  } catch (const MemoryLimitError& e) {
    EXPECT_EQ(e.needed_bytes(), 8000u);
    EXPECT_EQ(std::string(e.what()).rfind("test.onnx: initializer 'w' (f32[1000], 8 bytes per element) needs", 0), 0u)
        << e.what();
  }
}

TEST(OnnxImport, ConstantOfShapeAboveTheMemoryLimitNamesTheNode) {
  ModelBuilder m;
  m.input("x", kF32, {1}).output("y", kF32, {4'000'000'000});
  m.int64_initializer("shape", {4'000'000'000});
  m.node("ConstantOfShape", {"shape"}, {"c"}, "fill");
  m.node("Add", {"x", "c"}, {"y"});
  smelt_testing::ScopedMemoryLimit limit(uint64_t{1} << 30);
  try {
    import(m);
    FAIL() << "expected a MemoryLimitError";
  } catch (const MemoryLimitError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("test.onnx: node 'fill' (ConstantOfShape): a host tensor f32[4000000000]", 0),
              0u)
        << e.what();
  }
}

TEST(OnnxImport, ConstantOfShapeBeyond2To53ElementsIsAnImportError) {
  ModelBuilder m;
  m.input("x", kF32, {1}).output("y", kF32, {4'000'000'000, 4'000'000'000});
  m.int64_initializer("shape", {4'000'000'000, 4'000'000'000});  // the element count overflows int64
  m.node("ConstantOfShape", {"shape"}, {"c"});
  m.node("Add", {"x", "c"}, {"y"});
  const std::string message = import_error_message(m);
  EXPECT_NE(message.find("shape [4000000000,4000000000] has more than 2^53 elements"), std::string::npos) << message;
}

TEST(OnnxImport, HugeExpandIsAGraphOpThatTheInterpreterRefusesToRun) {
  ModelBuilder m;
  m.input("x", kF32, {1}).output("y", kF32, {4'000'000'000});
  m.int64_initializer("shape", {4'000'000'000});
  m.node("Expand", {"x", "shape"}, {"y"});
  importer::ImportResult r = import(m);  // a broadcast: nothing is allocated at import
  smelt_testing::ScopedMemoryLimit limit(uint64_t{1} << 30);
  EXPECT_THROW(ir::interpret(r.graph, {f32({1}, {2})}), MemoryLimitError);
}

TEST(OnnxImport, TwoNodesWritingOneValueIsAnError) {
  ModelBuilder m;
  m.input("x", kF32, {2}).output("y", kF32, {2});
  m.node("Relu", {"x"}, {"y"});
  m.node("Neg", {"x"}, {"y"}, "second");
  const std::string message = import_error_message(m);
  EXPECT_NE(message.find("test.onnx: node 'second' (Neg): value 'y' is defined twice"), std::string::npos) << message;
}

TEST(OnnxImport, NodeOverwritingAGraphInputIsAnError) {
  ModelBuilder m;
  m.input("x", kF32, {2}).output("y", kF32, {2});
  m.node("Relu", {"x"}, {"x"});
  m.node("Neg", {"x"}, {"y"});
  EXPECT_NE(import_error_message(m).find("value 'x' is defined twice"), std::string::npos);
}

TEST(OnnxImport, OpsetNewerThanSmeltKnowsIsRejectedNamingTheRange) {
  ModelBuilder m(/*opset=*/99999);
  m.input("x", kF32, {2}).output("y", kF32, {2});
  m.node("Relu", {"x"}, {"y"});
  const std::string message = unsupported_message(m);
  EXPECT_NE(message.find("opset 99999"), std::string::npos) << message;
  EXPECT_NE(message.find("opsets 1 to " + std::to_string(importer::kNewestOpset)), std::string::npos) << message;
  ModelBuilder newest(importer::kNewestOpset);
  newest.input("x", kF32, {2}).output("y", kF32, {2});
  newest.node("Relu", {"x"}, {"y"});
  EXPECT_NO_THROW(import(newest));
}

TEST(OnnxImport, OutputsWithoutShapeOrTypeGetTheComputedType) {
  ModelBuilder m;
  m.input("x", kF32, {2, 3}).output_without_shape("y", kF32).output_without_shape("z", TensorProto::UNDEFINED);
  m.node("Relu", {"x"}, {"y"});
  m.node("Cast", {"x"}, {"z"}).add_attribute()->CopyFrom([] {
    onnx::AttributeProto to;
    to.set_name("to");
    to.set_type(onnx::AttributeProto::INT);
    to.set_i(TensorProto::INT64);
    return to;
  }());
  importer::ImportResult r = import(m);
  EXPECT_EQ(r.graph.type(r.graph.outputs()[0]), (ir::TensorType{ir::DType::F32, {2, 3}}));
  EXPECT_EQ(r.graph.type(r.graph.outputs()[1]), (ir::TensorType{ir::DType::I64, {2, 3}}));
}

TEST(OnnxImport, OutputWithSymbolicDimensionsChecksTheOthers) {
  ModelBuilder m;
  m.input("x", kF32, {2, 3}).output("y", kF32, {2, 3});
  m.node("Relu", {"x"}, {"y"});
  m.model().mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("batch");
  EXPECT_EQ(import(m).graph.type(import(m).graph.outputs()[0]).shape, (ir::Shape{2, 3}));
  m.model().mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_value(4);
  const std::string message = import_error_message(m);
  EXPECT_NE(message.find("graph output 'y' is declared f32[?,4] but the imported graph computes f32[2,3]"),
            std::string::npos)
      << message;
}

TEST(OnnxImport, SliceWithInt64ExtremesRoundTripsThroughText) {
  // Exporters write INT64_MAX / INT64_MIN for "to the end" and for steps; the
  // .sg text holds integers up to 2^53, so the import must not carry them.
  ModelBuilder m;
  m.input("x", kF32, {5}).output("first", kF32, {1}).output("reversed", kF32, {5});
  m.int64_initializer("s1", {0}).int64_initializer("e1", {INT64_MAX}).int64_initializer("a", {0});
  m.int64_initializer("st1", {INT64_MAX});
  m.int64_initializer("s2", {INT64_MAX}).int64_initializer("e2", {INT64_MIN}).int64_initializer("st2", {-1});
  m.node("Slice", {"x", "s1", "e1", "a", "st1"}, {"first"});
  m.node("Slice", {"x", "s2", "e2", "a", "st2"}, {"reversed"});
  importer::ImportResult r = import(m);
  const std::string text = ir::print_graph(r.graph);
  const ir::Graph reparsed = ir::parse_graph(text, "imported.sg");
  EXPECT_EQ(ir::print_graph(reparsed), text);
  auto out = ir::interpret(reparsed, {f32({5}, {0, 1, 2, 3, 4})});
  EXPECT_EQ(values_of(out[0]), (std::vector<double>{0}));
  EXPECT_EQ(values_of(out[1]), (std::vector<double>{4, 3, 2, 1, 0}));
  ModelBuilder min_step;
  min_step.input("x", kF32, {5}).output("last", kF32, {1});
  min_step.int64_initializer("s", {-1}).int64_initializer("e", {INT64_MIN}).int64_initializer("a", {0});
  min_step.int64_initializer("st", {INT64_MIN});
  min_step.node("Slice", {"x", "s", "e", "a", "st"}, {"last"});
  const ir::Graph g = ir::parse_graph(ir::print_graph(import(min_step).graph), "imported.sg");
  EXPECT_EQ(values_of(ir::interpret(g, {f32({5}, {0, 1, 2, 3, 4})})[0]), (std::vector<double>{4}));
}

TEST(TensorProto, RawDataAndTypedFieldsReadTheSame) {
  TensorProto typed, raw;
  for (TensorProto* p : {&typed, &raw}) {
    p->set_data_type(TensorProto::FLOAT);
    p->add_dims(3);
  }
  const float values[] = {1.5f, -2.0f, 3.25f};
  for (float v : values) typed.add_float_data(v);
  raw.set_raw_data(std::string(reinterpret_cast<const char*>(values), sizeof values));
  EXPECT_EQ(values_of(importer::tensor_from_proto(typed, "typed")), (std::vector<double>{1.5, -2, 3.25}));
  EXPECT_EQ(values_of(importer::tensor_from_proto(raw, "raw")), (std::vector<double>{1.5, -2, 3.25}));
  raw.set_raw_data("xx");  // too short for 3 floats
  EXPECT_THROW(importer::tensor_from_proto(raw, "short"), ImportError);
}

}  // namespace
}  // namespace smelt
