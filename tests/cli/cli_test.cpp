// Runs the `smelt` binary as a user would and checks exit codes and output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/support/smelt_cli_fixture.h"

namespace fs = std::filesystem;

namespace {

using Result = smelt::smelt_testing::CliResult;

class CliTest : public smelt::smelt_testing::SmeltCliTest {};

TEST_F(CliTest, HelpListsTheSubcommandsAndExitsZero) {
  Result r = smelt("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("check"), std::string::npos);
  EXPECT_NE(r.out.find("run"), std::string::npos);
  EXPECT_NE(r.out.find("Exit codes"), std::string::npos);
}

TEST_F(CliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(smelt("").exit_code, 2);
  EXPECT_EQ(smelt("frobnicate").exit_code, 2);
  EXPECT_EQ(smelt("check").exit_code, 2);
  EXPECT_EQ(smelt("check a.sg --bogus").exit_code, 2);
  Result r = smelt("run " + example("luminal_fusion.sg") + " --inputs somewhere");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
}

TEST_F(CliTest, CheckPrintsOneLineSummary) {
  Result r = smelt("check " + example("luminal_fusion.sg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_NE(r.out.find("ok"), std::string::npos);
  EXPECT_NE(r.out.find("f32[10]"), std::string::npos);
}

TEST_F(CliTest, CheckJsonDescribesTheGraph) {
  Result r = smelt("check --json " + example("mlir_dot_slice.sg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["graph"], "mlir_dot_slice");
  EXPECT_EQ(j["ops"]["matmul"], 1);
  ASSERT_EQ(j["outputs"].size(), 1u);
  EXPECT_EQ(j["outputs"][0]["shape"], nlohmann::json({64, 2048}));
}

TEST_F(CliTest, MissingFileIsBadInputWithPosition) {
  fs::path missing = dir_ / "nope.sg";
  Result r = smelt("check " + missing.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(r.err.rfind(missing.string() + ":1:1:", 0), 0u) << r.err;
}

TEST_F(CliTest, MalformedFileReportsFileLineColumnAndWritesNothing) {
  fs::path bad = write("bad.sg", "graph g\nx = input() : f32[4]\ny = exp(z)\noutput y\n");
  for (const char* cmd : {"check ", "run ", "check --json ", "run --json "}) {
    Result r = smelt(cmd + bad.string());
    EXPECT_EQ(r.exit_code, 1) << cmd;
    EXPECT_TRUE(r.out.empty()) << cmd << r.out;
    EXPECT_EQ(r.err.rfind(bad.string() + ":3:", 0), 0u) << r.err;
  }
}

TEST_F(CliTest, ShapeErrorIsBadInput) {
  fs::path bad = write("shape.sg",
                       "a = input() : f32[4]\nb = input() : f32[5]\nc = add(a, b)\noutput c\n");
  Result r = smelt("check " + bad.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(":3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("f32[5]"), std::string::npos) << r.err;
}

TEST_F(CliTest, RunIsReproducibleBySeed) {
  std::string file = example("luminal_subexpr.sg");
  Result a = smelt("run --json " + file + " --seed 7");
  Result b = smelt("run --json " + file + " --seed 7");
  Result c = smelt("run --json " + file + " --seed 8");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out),
       jc = nlohmann::json::parse(c.out);
  EXPECT_EQ(ja["outputs"], jb["outputs"]);
  EXPECT_NE(ja["outputs"][0]["checksum"], jc["outputs"][0]["checksum"]);
  EXPECT_EQ(ja["outputs"][0]["shape"], nlohmann::json({10}));
}

TEST_F(CliTest, RunComputesTheRightValues) {
  // A graph with no inputs has one right answer: sum of iota(5) * 2 = 20.
  fs::path p = write("iota.sg",
                     "graph iota_sum\n"
                     "i = iota(axis=0) : f32[5]\n"
                     "two = full(value=2) : f32[5]\n"
                     "y = mul(i, two)\n"
                     "s = reduce_sum(y, axes=[0])\n"
                     "output s\n");
  Result r = smelt("run " + p.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("s: f32[] checksum=20\n"), std::string::npos) << r.out;
}

TEST_F(CliTest, EveryExampleChecksAndRuns) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(std::string(SMELT_SOURCE_DIR) + "/examples")) {
    if (entry.path().extension() != ".sg") continue;
    ++count;
    Result check = smelt("check " + entry.path().string());
    EXPECT_EQ(check.exit_code, 0) << entry.path() << check.err;
    Result run = smelt("run --json " + entry.path().string());
    ASSERT_EQ(run.exit_code, 0) << entry.path() << run.err;
    auto j = nlohmann::json::parse(run.out);
    EXPECT_FALSE(j["outputs"].empty()) << entry.path();
  }
  EXPECT_GE(count, 10);
}

}  // namespace
