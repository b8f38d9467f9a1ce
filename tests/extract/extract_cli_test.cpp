// `smelt extract` as a user runs it: one JSON line, exit codes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "egraph/json.h"
#include "tests/support/smelt_cli_fixture.h"
#include "tests/extract/test_util.h"

namespace smelt::extract {
namespace {

namespace fs = std::filesystem;

using Result = smelt::smelt_testing::CliResult;

class ExtractCli : public smelt::smelt_testing::SmeltCliTest {
 protected:
  std::string write(const std::string& text) { return SmeltCliTest::write("egraph.json", text).string(); }
};

const char* kSmall = R"({"nodes": {
  "r": {"op": "f", "eclass": "R", "children": ["a", "a"], "cost": 1},
  "a": {"op": "g", "eclass": "A", "children": ["x"], "cost": 2},
  "x": {"op": "x", "eclass": "X", "cost": 3}}, "root_eclasses": ["R"]})";

TEST_F(ExtractCli, PrintsOneJsonLineWithCostsTimeAndBound) {
  const std::string file = write(kSmall);
  for (const char* extractor : {"bottom-up", "greedy-dag", "local-search", "exact"}) {
    const Result r = smelt("extract '" + file + "' --extractor " + extractor + " --time-limit 5");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    const egraph::JsonValue line = egraph::parse_json(r.out);
    std::vector<std::string> keys;
    for (const auto& member : line.object) keys.push_back(member.key);
    EXPECT_EQ(keys, (std::vector<std::string>{"file", "extractor", "tree", "dag", "micros", "lower_bound"}));
    EXPECT_EQ(line.find("file")->string, file);
    EXPECT_EQ(line.find("extractor")->string, extractor);
    EXPECT_EQ(line.find("tree")->number, 11);
    EXPECT_EQ(line.find("dag")->number, 6);
    EXPECT_GE(line.find("micros")->number, 0);
    if (std::string(extractor) == "exact") EXPECT_EQ(line.find("lower_bound")->number, 6);
    else EXPECT_EQ(line.find("lower_bound")->kind, egraph::JsonValue::Kind::kNull);
  }
}

TEST_F(ExtractCli, MalformedFilesExitOneWithTheProblemNamed) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"nodes": {"a": {"op": "f", "eclass": "c", "children": ["zz"]}}})", "child \"zz\" is not a node"},
      {R"({"nodes": {"a": {"op": "f", "eclass": "c"}}, "root_eclasses": ["nope"]})", "root e-class \"nope\" has no node"},
      {R"({"nodes": {"a": {"op": "f", "eclass": "c", "children": [1]}}})", "children must be node names"},
      {R"({"nodes": {"a": {"op": "f", "eclass": "c", "children": ["a"]}}, "root_eclasses": ["c"]})", "has no acyclic term"},
      {R"({"nodes": {"a": {"op": "f", "eclass": "c", "cost": -2}}})", "is not a finite number >= 0"},
      {R"({"nodes": {"a": )", "unexpected end of input"},
  };
  for (const auto& [json, message] : cases) {
    const Result r = smelt("extract '" + write(json) + "' --extractor exact");
    EXPECT_EQ(r.exit_code, 1) << json;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  const Result missing = smelt("extract '" + (dir_ / "missing.json").string() + "' --extractor bottom-up");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("cannot open the file"), std::string::npos) << missing.err;
}

TEST_F(ExtractCli, UnknownExtractorOrBadTimeLimitIsAUsageError) {
  const std::string file = write(kSmall);
  EXPECT_EQ(smelt("extract '" + file + "' --extractor fastest").exit_code, 2);
  EXPECT_EQ(smelt("extract '" + file + "' --extractor exact --time-limit -1").exit_code, 2);
  EXPECT_EQ(smelt("extract '" + file + "'").exit_code, 2);  // --extractor is required
}

}  // namespace
}  // namespace smelt::extract
