// Every layer's error reaches a user as one smelt::Error with its kind and,
// for bad input in a file, file:line:col (error/error.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "smelt/smelt.h"
#include "tools/verify_rules.h"

namespace smelt {
namespace {

namespace fs = std::filesystem;

class ErrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("smelt_error_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  fs::path dir_;
};

// The Error a call throws; fails the test when it throws nothing or something else.
template <typename Fn>
Error error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no smelt::Error thrown";
  return Error(ErrorKind::kParse, "none");
}

TEST_F(ErrorTest, ABadGraphFileIsAParseErrorWithItsPosition) {
  const std::string path = write("bad.sg", "graph g\nx = input() : f32[4]\ny = bogus(x) : f32[4]\noutput y\n");
  const Error e = error_of([&] { load_graph(path); });
  EXPECT_EQ(e.kind(), ErrorKind::kParse);
  EXPECT_EQ(e.location().file, path);
  EXPECT_GT(e.location().line, 1);
  EXPECT_GT(e.location().col, 0);
  EXPECT_EQ(std::string(e.what()), path + ":" + std::to_string(e.location().line) + ":" +
                                       std::to_string(e.location().col) + ": " + e.message());
}

TEST_F(ErrorTest, ABadRuleFileIsARuleErrorWithItsPosition) {
  const std::string path = write("bad.rules", "(rule broken\n  :lhs (add ?a\n");
  const Error e = error_of([&] { tools::verify_rules({path}); });
  EXPECT_EQ(e.kind(), ErrorKind::kRule);
  EXPECT_EQ(e.location().file, path);
  EXPECT_GE(e.location().line, 1);
}

TEST_F(ErrorTest, AMalformedOnnxModelIsAnImportError) {
  const std::string path = write("bad.onnx", "this is not protobuf \xff\xff");
  const Error e = error_of([&] { load_graph(path); });
  EXPECT_EQ(e.kind(), ErrorKind::kImport);
  EXPECT_NE(std::string(e.what()).find("bad.onnx"), std::string::npos) << e.what();
}

TEST_F(ErrorTest, InputsOfTheWrongShapeAreAnInputError) {
  Graph g("neg");
  g.add_output(neg(input(g, "x", DType::F32, {4})));
  CompileOptions options;
  options.fusion = false;
  Program prog = compile(g, options);
  Graph other("other");
  input(other, "x", DType::F32, {5});
  const Error e = error_of([&] { prog.run(random_inputs(other, 1)); });
  EXPECT_EQ(e.kind(), ErrorKind::kInput);
  EXPECT_TRUE(e.location().file.empty());
}

TEST_F(ErrorTest, AShapeMismatchWhileBuildingIsAShapeError) {
  Graph g("add");
  auto a = input(g, "a", DType::F32, {4});
  auto b = input(g, "b", DType::F32, {5});
  EXPECT_EQ(error_of([&] { add(a, b); }).kind(), ErrorKind::kShape);
}

TEST(ErrorKinds, EveryKindHasItsOwnName) {
  std::set<std::string> names;
  for (int k = 0; k <= static_cast<int>(ErrorKind::kExtractInput); ++k)
    names.insert(std::string(error_kind_name(static_cast<ErrorKind>(k))));
  EXPECT_EQ(names.size(), static_cast<size_t>(ErrorKind::kExtractInput) + 1);
  EXPECT_EQ(names.count("error"), 0u);
}

}  // namespace
}  // namespace smelt
