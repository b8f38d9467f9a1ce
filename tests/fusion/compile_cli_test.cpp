// `smelt compile`, run as a user would: the report, the JSON line, profiles,
// and the exit codes (0 ok, 1 bad input, 2 usage).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/support/smelt_cli_fixture.h"

namespace {

namespace fs = std::filesystem;

using Result = smelt_testing::CliResult;

class CompileCli : public smelt_testing::SmeltCliTest {
 protected:
  static std::string example(const std::string& name) {
    return std::string(SMELT_SOURCE_DIR) + "/examples/" + name + ".sg";
  }
};

TEST_F(CompileCli, JsonGivesKernelCountsAndPredictedTimesFirst) {
  const Result r = smelt("compile " + example("mlir_dot_slice") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(r.out);
  auto key = j.begin();
  for (const char* expected : {"kernels_before", "kernels_after", "predicted_us_before", "predicted_us_after"})
    EXPECT_EQ((key++).key(), expected);
  EXPECT_EQ(j["kernels_before"], 7);
  EXPECT_EQ(j["kernels_after"], 1);
  EXPECT_LT(j["predicted_us_after"].get<double>(), j["predicted_us_before"].get<double>());
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line";
}

TEST_F(CompileCli, ReportPrintsTimesAndReadableKernels) {
  const Result r = smelt("compile " + example("luminal_slice_pad") + " --report");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("graph luminal_slice_pad"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("before (one kernel per op): 3 kernels"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("after (fused):              1 kernel,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kernel y over [2]"), std::string::npos) << r.out;
  // The index under the mask i0 < 1 simplifies to 0, proved by Z3 and reported.
  EXPECT_NE(r.out.find("load x[0] if (i0 < 1) else 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("proved 1, unchanged"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("where("), std::string::npos) << r.out;
}

TEST_F(CompileCli, NoFusionKeepsOneKernelPerOp) {
  const Result r = smelt("compile " + example("luminal_fusion") + " --json --no-fusion");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kernels_after"], j["kernels_before"]);
  EXPECT_EQ(j["predicted_us_after"], j["predicted_us_before"]);
  const Result plain = smelt("compile " + example("luminal_fusion"));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.out.find("1 kernel, "), std::string::npos) << plain.out;
}

// A profile with a 1000 µs launch: every kernel costs at least that.
TEST_F(CompileCli, ProfileChangesThePrediction) {
  nlohmann::json profile = nlohmann::json::parse(smelt_testing::read_text_file(fs::path(SMELT_SOURCE_DIR) / "cost/profiles/host.json"));
  profile["launch_overhead_us"] = 1000.0;
  const fs::path path = write("slow_launch.json", profile.dump());
  const Result r = smelt("compile " + example("luminal_subexpr") + " --json --profile '" + path.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_GE(j["predicted_us_before"].get<double>(), 3000.0);
  EXPECT_GE(j["predicted_us_after"].get<double>(), 1000.0);
  EXPECT_LT(j["predicted_us_after"].get<double>(), 1100.0);
}

TEST_F(CompileCli, BadInputExitsOneAndUsageTwo) {
  EXPECT_EQ(smelt("compile '" + (dir_ / "missing.sg").string() + "'").exit_code, 1);
  const fs::path bad = write("bad.sg", "graph g\nx = input() : f32[2]\ny = exp(x, x)\noutput y\n");
  const Result malformed = smelt("compile '" + bad.string() + "' --json");
  EXPECT_EQ(malformed.exit_code, 1);
  EXPECT_TRUE(malformed.out.empty());
  const fs::path not_a_profile = write("profile.json", "{\"launch_overhead_us\": \"fast\"}");
  const Result profile = smelt("compile " + example("luminal_fusion") + " --profile '" + not_a_profile.string() + "'");
  EXPECT_EQ(profile.exit_code, 1);
  EXPECT_NE(profile.err.find("profile.json"), std::string::npos) << profile.err;
  EXPECT_EQ(smelt("compile").exit_code, 2);
  EXPECT_EQ(smelt("compile " + example("luminal_fusion") + " --json --report").exit_code, 2);
  EXPECT_EQ(smelt("compile " + example("luminal_fusion") + " --time-limit 0").exit_code, 2);
}

}  // namespace
