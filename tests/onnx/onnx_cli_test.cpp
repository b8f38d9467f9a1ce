// `smelt import`, `smelt test` and .onnx files in the other commands, run as a
// user would, on models from Debian's libonnx-testdata; and `smelt test`'s
// default tolerances on a committed MLP whose outputs span five orders of
// magnitude (tests/onnx/span_mlp).
#include <algorithm>
#include <filesystem>

#include "tests/onnx/model_builder.h"
#include "tests/support/smelt_cli_fixture.h"

namespace {

namespace fs = std::filesystem;
using smelt::smelt_testing::SmeltCliTest;

const fs::path kNodeTests = "/usr/share/libonnx-testdata/data/node";

class OnnxCliTest : public SmeltCliTest {
 protected:
  void SetUp() override {
    if (!fs::exists(kNodeTests / "test_add")) GTEST_SKIP() << "libonnx-testdata is not installed";
    SmeltCliTest::SetUp();
  }
  // A copy of a shipped test directory that the test may change.
  fs::path copy_test(const std::string& name) {
    const fs::path to = dir_ / name;
    fs::copy(kNodeTests / name, to, fs::copy_options::recursive);
    return to;
  }
};

TEST_F(OnnxCliTest, ImportWritesAGraphThatChecksAndRuns) {
  const fs::path sg = dir_ / "softmax.sg";
  auto imported = smelt("import " + (kNodeTests / "test_softmax_axis_1/model.onnx").string() + " -o " + sg.string());
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  auto checked = smelt("check " + sg.string());
  EXPECT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_NE(checked.out.find("f32[3,4,5]"), std::string::npos) << checked.out;
  EXPECT_NE(smelt::smelt_testing::read_text_file(sg).find("reduce_max"), std::string::npos);
}

TEST_F(OnnxCliTest, CommandsTakingAGraphTakeOnnxModels) {
  const std::string model = (kNodeTests / "test_gemm_all_attributes/model.onnx").string();
  auto checked = smelt("check " + model);
  EXPECT_EQ(checked.exit_code, 0) << checked.err;
  auto run = smelt("run " + model);
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

TEST_F(OnnxCliTest, UnsupportedOpIsExitOneNamingTheOp) {
  auto r = smelt("import " + (kNodeTests / "test_floor/model.onnx").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Floor"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST_F(OnnxCliTest, NotAModelIsExitOne) {
  const fs::path bad = write("bad.onnx", "this is not protobuf \xff\xff\xff");
  auto r = smelt("import " + bad.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bad.onnx"), std::string::npos) << r.err;
}

TEST_F(OnnxCliTest, TestPassesAndPrintsErrorsPerOutput) {
  auto r = smelt("test " + (kNodeTests / "test_layer_normalization_3d_axis1_epsilon").string() + " --target reference");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("max abs error"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("passed"), std::string::npos) << r.out;
}

TEST_F(OnnxCliTest, TestWithWrongExpectedOutputIsAMismatch) {
  // test_add's model with test_sub's expected output: the numbers must differ.
  const fs::path dir = copy_test("test_add");
  fs::copy_file(kNodeTests / "test_sub/test_data_set_0/output_0.pb", dir / "test_data_set_0/output_0.pb",
                fs::copy_options::overwrite_existing);
  auto r = smelt("test " + dir.string() + " --target reference");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("MISMATCH"), std::string::npos) << r.out;
}

TEST_F(OnnxCliTest, ToleranceOptionsAreApplied) {
  // Add is exact, so it passes with zero tolerance; a wrong expected output
  // (a - b instead of a + b, inputs in [-3, 3]) passes only under a huge atol.
  const fs::path dir = copy_test("test_add");
  auto strict = smelt("test " + dir.string() + " --target reference --rtol 0 --atol 0");
  EXPECT_EQ(strict.exit_code, 0) << strict.out;  // add is exact
  fs::copy_file(kNodeTests / "test_sub/test_data_set_0/output_0.pb", dir / "test_data_set_0/output_0.pb",
                fs::copy_options::overwrite_existing);
  auto loose = smelt("test " + dir.string() + " --target reference --atol 1000");
  EXPECT_EQ(loose.exit_code, 0) << loose.out;
}

TEST_F(OnnxCliTest, TestOnAMissingDirectoryIsExitOne) {
  auto r = smelt("test " + (dir_ / "nope").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(r.err.empty());
}

// PyTorch-exported CNNs (examples/cnn: conv / batch-norm / ReLU / max-pool / mean
// / linear, and a ResNet-18-style stage) match PyTorch's outputs through the
// reference interpreter and the compiled host program. No skip: an op the
// importer cannot take is exit 1 here.
class CnnExampleTest : public SmeltCliTest {};

TEST_F(CnnExampleTest, PyTorchExportedCnnsMatchPyTorch) {
  for (const char* name : {"small_cnn", "resnet_stage"}) {
    auto r = smelt("test " + std::string(SMELT_SOURCE_DIR) + "/examples/cnn/" + name + " --target all");
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err << r.out;
    EXPECT_NE(r.out.find(std::string(name) + ": passed"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("host y:"), std::string::npos) << r.out;
  }
}

// Hostile models built in the test (no test data needed): each is exit 1 with a
// message naming the file, nothing on stdout, never an internal error (exit 3).
class HostileModelTest : public SmeltCliTest {
 protected:
  fs::path write_model(const std::string& name, const smelt::onnx_testing::ModelBuilder& m) {
    return write(name, m.bytes());
  }
  void expect_bad_input(const std::string& args, const std::string& message) {
    auto r = smelt(args);
    EXPECT_EQ(r.exit_code, 1) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args << ": " << r.out;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
  }
};

constexpr int kF32 = onnx::TensorProto::FLOAT;

TEST_F(HostileModelTest, MalformedModelsAreExitOneNamingTheFile) {
  smelt::onnx_testing::ModelBuilder negative;
  negative.input("x", kF32, {-1}).output("y", kF32, {1});
  negative.node("Relu", {"x"}, {"y"});
  const fs::path negative_path = write_model("negative.onnx", negative);
  expect_bad_input("check " + negative_path.string(), negative_path.string() + ": graph input 'x': shape [-1]");

  smelt::onnx_testing::ModelBuilder huge_initializer;
  huge_initializer.input("x", kF32, {1}).output("y", kF32, {1});
  onnx::TensorProto* w = huge_initializer.model().mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(kF32);
  w->add_dims(4'000'000'000);
  w->add_dims(4'000'000'000);
  huge_initializer.node("Relu", {"x"}, {"y"});
  const fs::path huge_path = write_model("huge.onnx", huge_initializer);
  expect_bad_input("import " + huge_path.string(), huge_path.string() + ": initializer 'w'");

  smelt::onnx_testing::ModelBuilder future(/*opset=*/99999);
  future.input("x", kF32, {1}).output("y", kF32, {1});
  future.node("Relu", {"x"}, {"y"});
  expect_bad_input("check " + write_model("future.onnx", future).string(), "opset 99999");

  smelt::onnx_testing::ModelBuilder two_writers;
  two_writers.input("x", kF32, {1}).output("y", kF32, {1});
  two_writers.node("Relu", {"x"}, {"y"});
  two_writers.node("Neg", {"x"}, {"y"});
  expect_bad_input("run " + write_model("two.onnx", two_writers).string(), "value 'y' is defined twice");
}

// Pooling is one slice per window position: a window of more than 64
// positions is pooled axis by axis (100 + 100 slices for 100x100, matching the
// reference), and one longer than 8192 along an axis is refused with the limit
// named, not built.
TEST_F(HostileModelTest, APoolingWithAHugeWindowIsPooledAxisByAxisOrRefused) {
  smelt::onnx_testing::ModelBuilder m;
  m.input("x", kF32, {1, 1, 128, 128}).output("y", kF32, {1, 1, 29, 29});
  smelt::onnx_testing::add_ints_attr(m.node("MaxPool", {"x"}, {"y"}), "kernel_shape", {100, 100});
  const fs::path pool = write_model("pool.onnx", m);
  const smelt::smelt_testing::CliResult imported = smelt("import " + pool.string() + " -o '" + (dir_ / "pool.sg").string() + "'");
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  // 200 slices, 198 maxes and the input: the one-stage form had 19,999 values.
  const std::string sg = smelt::smelt_testing::read_text_file(dir_ / "pool.sg");
  EXPECT_LT(std::count(sg.begin(), sg.end(), '\n'), 500) << sg.substr(0, 400);
  const smelt::smelt_testing::CliResult checked = smelt("run --check " + (dir_ / "pool.sg").string());
  EXPECT_EQ(checked.exit_code, 0) << checked.err;

  smelt::onnx_testing::ModelBuilder huge;
  huge.input("x", kF32, {1, 1, 10000, 2}).output("y", kF32, {1, 1, 1, 2});
  smelt::onnx_testing::add_ints_attr(huge.node("MaxPool", {"x"}, {"y"}), "kernel_shape", {10000, 1});
  expect_bad_input("check " + write_model("huge.onnx", huge).string(),
                   "a window of more than 8192 positions along one axis");
}

// A convolution is one op whatever its kernel; one whose window does not fit
// its padded input is a bad model.
TEST_F(HostileModelTest, AConvolutionWiderThanItsInputIsExitOne) {
  smelt::onnx_testing::ModelBuilder m;
  m.input("x", kF32, {1, 1, 8, 8}).input("w", kF32, {1, 1, 9, 9}).output("y", kF32, {1, 1, 1, 1});
  m.node("Conv", {"x", "w"}, {"y"});
  expect_bad_input("check " + write_model("conv.onnx", m).string(), "the window is larger than the padded input");
}

TEST_F(HostileModelTest, ConstantOfShapeAboveTheMemoryLimitIsExitOne) {
  smelt::onnx_testing::ModelBuilder m;
  m.input("x", kF32, {1}).output("y", kF32, {4'000'000'000});
  m.int64_initializer("shape", {4'000'000'000});
  m.node("ConstantOfShape", {"shape"}, {"c"});
  m.node("Add", {"x", "c"}, {"y"});
  expect_bad_input("import --memory-limit 1G " + write_model("fill.onnx", m).string(),
                   "more than the memory limit of 1.0 GiB");
}

TEST_F(HostileModelTest, OutputWithoutShapeImportsWithTheComputedType) {
  smelt::onnx_testing::ModelBuilder m;
  m.input("x", kF32, {2, 3}).output_without_shape("y", kF32);
  m.node("Relu", {"x"}, {"y"});
  auto r = smelt("check " + write_model("no_shape.onnx", m).string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("outputs: y f32[2,3]"), std::string::npos) << r.out;
}

// Conv (constant weights) -> BatchNormalization (constant statistics) -> Relu.
smelt::onnx_testing::ModelBuilder conv_batch_norm_model() {
  smelt::onnx_testing::ModelBuilder m;
  m.input("x", kF32, {2, 3, 10, 10}).output("y", kF32, {2, 8, 10, 10});
  std::vector<float> w(8 * 3 * 3 * 3), scale, bias, mean, var;
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i * 37 % 23) - 11) / 17.0f;
  for (int c = 0; c < 8; ++c) {
    scale.push_back(0.5f + 0.25f * static_cast<float>(c));
    bias.push_back(0.1f * static_cast<float>(c - 4));
    mean.push_back(0.05f * static_cast<float>(c));
    var.push_back(0.3f + 0.2f * static_cast<float>(c));
  }
  m.float_initializer("w", {8, 3, 3, 3}, w).float_initializer("scale", {8}, scale);
  m.float_initializer("b", {8}, bias).float_initializer("mean", {8}, mean).float_initializer("var", {8}, var);
  smelt::onnx_testing::add_ints_attr(m.node("Conv", {"x", "w"}, {"c"}), "pads", {1, 1, 1, 1});
  m.node("BatchNormalization", {"c", "scale", "b", "mean", "var"}, {"n"});
  m.node("Relu", {"n"}, {"y"});
  return m;
}

// --unsafe-fp lets conv-scale-into-weights put the batch-norm's scale into the
// convolution's constant weights (the extraction takes it where the model
// predicts a gain: here the epilogue's multiply costs nothing measurable, a
// tie, and the graph's form stays); by default the rules stay exact in IEEE
// arithmetic and it does not fire. Either way the program matches the reference.
TEST_F(HostileModelTest, UnsafeFpBringsBatchNormFoldingIntoTheSearch) {
  const std::string model = write_model("conv_bn.onnx", conv_batch_norm_model()).string();
  auto exact = smelt("compile --json " + model);
  ASSERT_EQ(exact.exit_code, 0) << exact.err;
  EXPECT_EQ(exact.out.find("conv-scale-into-weights"), std::string::npos) << exact.out;
  auto folded = smelt("compile --json --unsafe-fp " + model);
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  EXPECT_NE(folded.out.find("\"conv-scale-into-weights\""), std::string::npos) << folded.out;
  auto run = smelt("run --check --unsafe-fp " + model);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("every output matches the reference interpreter"), std::string::npos) << run.out;
}

}  // namespace

// An MLP whose outputs span 1e-4 to 500 (scripts/export_span_mlp.py, PyTorch's
// outputs shipped): `smelt test` with default tolerances passes it on every
// target, and fails each wrong copy of it, which ship the correct model's outputs.
class SpanMlpTest : public SmeltCliTest {
 protected:
  std::string folder(const std::string& name) {
    return (fs::path(SMELT_SOURCE_DIR) / "tests/onnx/span_mlp" / name).string();
  }
};

TEST_F(SpanMlpTest, TheCorrectModelPassesOnEveryTarget) {
  auto r = smelt("test " + folder("correct") + " --target all");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("reference y: max abs error"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("host y: max abs error"), std::string::npos) << r.out;
}

TEST_F(SpanMlpTest, AModelWrongByOnePercentInItsSmallOutputsFails) {
  // The last bias 1 % off, LeakyReLU's slope 5 % off, the smallest column (1e-3 of
  // the scale, outputs near 1e-5) masked to zero.
  for (const char* wrong : {"bias_1pct", "slope_5pct", "column_masked"}) {
    auto r = smelt("test " + folder(wrong) + " --target all");
    EXPECT_EQ(r.exit_code, 1) << wrong << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("reference y: element ["), std::string::npos) << wrong << "\n" << r.out;
    EXPECT_NE(r.out.find("host y: element ["), std::string::npos) << wrong << "\n" << r.out;
  }
}
