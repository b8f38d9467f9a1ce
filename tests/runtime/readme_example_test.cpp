// README.md's C++ example must be examples/api/compile_and_run.cpp verbatim,
// so the example a reader copies is the one the test suite compiles and runs.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ReadmeExample, QuotesTheApiExampleVerbatim) {
  const std::string readme = read(std::string(SMELT_SOURCE_DIR) + "/README.md");
  const std::string example = read(std::string(SMELT_SOURCE_DIR) + "/examples/api/compile_and_run.cpp");
  ASSERT_FALSE(example.empty());
  const std::string marker = "<!-- examples/api/compile_and_run.cpp -->\n```cpp\n";
  const size_t start = readme.find(marker);
  ASSERT_NE(start, std::string::npos) << "README.md lacks the marked example block";
  const size_t body = start + marker.size();
  const size_t end = readme.find("```\n", body);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(readme.substr(body, end - body), example);
}

}  // namespace
