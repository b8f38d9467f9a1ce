// `smelt calibrate`, run as a user would: a quick calibration on one thread
// writes a profile the loader accepts, the scatter PNG beside it and the
// validation line last; bad options and unwritable outputs fail cleanly.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "cost/device_profile.h"
#include "tests/support/smelt_cli_fixture.h"

namespace fs = std::filesystem;

namespace {

using Result = smelt::smelt_testing::CliResult;

class CalibrateTest : public smelt::smelt_testing::SmeltCliTest {
 protected:
  std::string last_line(const std::string& text) {
    std::string t = text;
    while (!t.empty() && t.back() == '\n') t.pop_back();
    return t.substr(t.rfind('\n') == std::string::npos ? 0 : t.rfind('\n') + 1);
  }
};

TEST_F(CalibrateTest, QuickCalibrationWritesAProfileThePlotAndTheValidationLine) {
  const fs::path profile = dir_ / "quick.json";
  Result r = smelt("calibrate --quick --threads 1 --random 3 -o '" + profile.string() + "' --validate " +
                   example("luminal_fusion.sg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "") << "no progress bar when stdout is not a terminal";
  EXPECT_TRUE(std::regex_match(last_line(r.out),
                               std::regex(R"(spearman=-?[0-9.]+ median_abs_err=[0-9.]+ max_abs_err=[0-9.]+ kernels=[0-9]+)")))
      << last_line(r.out);
  const smelt::cost::DeviceProfile p = smelt::cost::load_profile(profile.string(), "host");
  ASSERT_EQ(p.rates.size(), 1u);
  EXPECT_EQ(p.rates[0].threads, 1u);
  EXPECT_FALSE(p.cpu.empty());
  EXPECT_GT(p.rates[0].matmul.size(), 4u);
  EXPECT_LT(smelt::cost::op_ns(p.rates[0], "add"), smelt::cost::op_ns(p.rates[0], "exp")) << "a transcendental costs more than an add";
  // The measurements keep their spread; the validation points are written too.
  std::ifstream in(profile);
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_TRUE(j.contains("samples"));
  EXPECT_TRUE(j["samples"][0].contains("spread"));
  EXPECT_GT(j["validation"]["kernels"]["count"].get<int>(), 3);
  // The plot is a PNG.
  std::ifstream png(dir_ / "quick.png", std::ios::binary);
  char magic[8] = {};
  png.read(magic, 8);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
  // The profile it wrote is one smelt compile takes.
  Result compiled = smelt("compile --json --profile '" + profile.string() + "' " + example("luminal_fusion.sg"));
  EXPECT_EQ(compiled.exit_code, 0) << compiled.err;
}

TEST_F(CalibrateTest, ValidateOnlyChecksAGivenProfileWithoutWritingOne) {
  const std::string shipped = std::string(SMELT_SOURCE_DIR) + "/cost/profiles/host.json";
  const fs::path out = dir_ / "unused.json";
  Result r = smelt("calibrate --json --threads 1 --random 2 --validate-only " + shipped + " -o '" + out.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["kernels"]["count"].get<int>(), 1);
  EXPECT_FALSE(fs::exists(out)) << "--validate-only writes no profile";
  EXPECT_TRUE(fs::exists(dir_ / "unused.png"));
}

TEST_F(CalibrateTest, AGpuWithoutItsDeviceIsBadInput) {
  Result r = smelt("calibrate --device cuda -o '" + (dir_ / "cuda.json").string() + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("cuda"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "cuda.json"));
}

TEST_F(CalibrateTest, BadInputsFailBeforeMeasuring) {
  const fs::path bad = write("bad.json", "{\"format\": 2}");
  Result r = smelt("calibrate --validate-only '" + bad.string() + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("'name'"), std::string::npos) << r.err;
  const fs::path graph = write("broken.sg", "graph g\nx = input() : f32[4\n");
  r = smelt("calibrate --quick --validate '" + graph.string() + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("broken.sg:2:"), std::string::npos) << r.err;
  r = smelt("calibrate --threads -1");
  EXPECT_EQ(r.exit_code, 2);
  // An output in a missing folder: said at once (this used to come after two minutes of measuring).
  const auto started = std::chrono::steady_clock::now();
  r = smelt("calibrate -o '" + (dir_ / "no_such_folder" / "p.json").string() + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("no_such_folder"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 20.0);
}

}  // namespace
