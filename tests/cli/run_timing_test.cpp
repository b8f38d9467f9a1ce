// `smelt run --reps N`: the measured time of the kernels beside the cost
// model's prediction, and `smelt run --profile`, run as a user would.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tests/support/smelt_cli_fixture.h"

namespace fs = std::filesystem;

namespace {

using Result = smelt::smelt_testing::CliResult;

class RunTimingTest : public smelt::smelt_testing::SmeltCliTest {
 protected:
  static std::string host_profile() { return std::string(SMELT_SOURCE_DIR) + "/cost/profiles/host.json"; }
};

TEST_F(RunTimingTest, RepsJsonHasMedianMinAndThePrediction) {
  Result r = smelt("run --json --reps 3 --threads 2 " + example("luminal_fusion.sg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"median_us", "min_us", "reps", "predicted_us", "threads"}) {
    ASSERT_TRUE(j.contains(key)) << key << " missing: " << r.out;
    ASSERT_TRUE(j[key].is_number()) << key << ": " << j[key];
    EXPECT_GT(j[key].get<double>(), 0) << key;
  }
  EXPECT_EQ(j["reps"], 3);
  EXPECT_EQ(j["threads"], 2);
  EXPECT_LE(j["min_us"].get<double>(), j["median_us"].get<double>());
  ASSERT_TRUE(j["samples_us"].is_array()) << r.out;
  ASSERT_EQ(j["samples_us"].size(), 3u);
  std::vector<double> samples = j["samples_us"].get<std::vector<double>>();
  std::sort(samples.begin(), samples.end());
  EXPECT_DOUBLE_EQ(samples[0], j["min_us"].get<double>());
  EXPECT_DOUBLE_EQ(samples[1], j["median_us"].get<double>());
  EXPECT_DOUBLE_EQ(j["measured_over_predicted"].get<double>(),
                   j["median_us"].get<double>() / j["predicted_us"].get<double>());
}

// Checks only what holds on any machine, however loaded: how long things take
// is not compared here (a ratio of measured times fails on a busy machine; the
// timings' spread is bench/runtime's to measure).
TEST_F(RunTimingTest, PerKernelJsonTimesEachKernelBesideItsPrediction) {
  Result r = smelt("run --json --reps 3 --threads 1 --per-kernel " + example("llama_mlp_swiglu.sg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["kernel_times"].is_array()) << r.out;
  // One entry per kernel of the program, each a different kernel.
  ASSERT_EQ(j["kernel_times"].size(), j["kernels"].get<size_t>());
  ASSERT_GT(j["kernels"].get<size_t>(), 1u) << "the test needs a program of several kernels";
  const double run_median = j["median_us"].get<double>();
  ASSERT_TRUE(std::isfinite(run_median) && run_median > 0) << r.out;
  std::set<std::string> names;
  double predicted = 0;
  for (const auto& k : j["kernel_times"]) {
    ASSERT_TRUE(k["name"].is_string()) << k;
    EXPECT_TRUE(names.insert(k["name"].get<std::string>()).second) << "two entries for " << k;
    const double median = k["median_us"].get<double>();
    EXPECT_TRUE(std::isfinite(median) && median > 0) << k;
    // Every run runs every kernel and its time is their sum: no kernel's time
    // exceeds its run's in any run, so no kernel's median exceeds the runs'.
    EXPECT_LE(median, run_median) << k;
    EXPECT_GT(k["predicted_us"].get<double>(), 0) << k;
    EXPECT_DOUBLE_EQ(k["measured_over_predicted"].get<double>(), median / k["predicted_us"].get<double>());
    predicted += k["predicted_us"].get<double>();
    // What the kernel is: its space and reduction (extents), its flops and bytes.
    ASSERT_TRUE(k["space"].is_array() && !k["space"].empty()) << k;
    for (const auto& extent : k["space"]) EXPECT_GE(extent.get<int64_t>(), 1) << k;
    ASSERT_TRUE(k["reduction"].is_array()) << k;
    EXPECT_GE(k["flops"].get<double>(), 0) << k;
    EXPECT_GT(k["bytes"].get<double>(), 0) << k;
    if (!k["reduction"].empty() && k["name"].get<std::string>().rfind("matmul", 0) == 0) {
      EXPECT_GT(k["flops"].get<double>(), 0) << k;
    }
  }
  EXPECT_EQ(names.size(), j["kernels"].get<size_t>());
  // The program's prediction is its kernels' plus a fixed cost per run.
  EXPECT_LE(predicted, j["predicted_us"].get<double>() * (1 + 1e-9));
  EXPECT_GT(predicted, 0.9 * j["predicted_us"].get<double>());

  // With one run each median is that run's time of the kernel, and the run's
  // time is exactly their sum.
  Result once = smelt("run --json --reps 1 --threads 1 --per-kernel " + example("llama_mlp_swiglu.sg"));
  ASSERT_EQ(once.exit_code, 0) << once.err;
  const nlohmann::json one = nlohmann::json::parse(once.out);
  double sum = 0;
  for (const auto& k : one["kernel_times"]) sum += k["median_us"].get<double>();
  EXPECT_NEAR(sum, one["median_us"].get<double>(), 1e-9 * one["median_us"].get<double>()) << once.out;
}

TEST_F(RunTimingTest, PerKernelPrintsOneLinePerKernel) {
  Result r = smelt("run --reps 2 --threads 1 --per-kernel " + example("llama_mlp_swiglu.sg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("per kernel (medians of the same runs):"), std::string::npos) << r.out;
  const size_t table = r.out.find("meas/pred");
  ASSERT_NE(table, std::string::npos) << r.out;
  Result json = smelt("run --json --reps 1 --threads 1 --per-kernel " + example("llama_mlp_swiglu.sg"));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json report = nlohmann::json::parse(json.out);  // outlives the loop over its field
  for (const auto& k : report["kernel_times"]) {
    const std::string name = k["name"];
    EXPECT_NE(r.out.find("\n  " + name.substr(0, 45)), std::string::npos) << name << " not in\n" << r.out;
  }
}

TEST_F(RunTimingTest, PerKernelWithoutRepsIsAUsageError) {
  Result r = smelt("run --per-kernel " + example("luminal_fusion.sg"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--per-kernel"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--reps"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(RunTimingTest, RepsLeaveTheOutputsAsTheyAre) {
  const std::string file = example("mlir_dot_slice.sg");
  Result plain = smelt("run --json --seed 3 " + file);
  Result timed = smelt("run --json --seed 3 --reps 2 " + file);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(timed.exit_code, 0) << timed.err;
  auto p = nlohmann::json::parse(plain.out), t = nlohmann::json::parse(timed.out);
  EXPECT_EQ(p["outputs"], t["outputs"]);
  EXPECT_FALSE(p.contains("median_us")) << "untimed runs gain no timing keys";
  EXPECT_GT(t["threads"].get<unsigned>(), 0u);
}

TEST_F(RunTimingTest, RepsPrintOneTimingLine) {
  Result r = smelt("run --reps 3 --threads 1 " + example("luminal_fusion.sg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t at = r.out.find("timing: median ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
  EXPECT_NE(line.find(" us, min "), std::string::npos) << line;
  EXPECT_NE(line.find(" us over 3 runs; predicted "), std::string::npos) << line;
  EXPECT_NE(line.find(" us (measured/predicted "), std::string::npos) << line;
  EXPECT_EQ(line.back(), ')') << line;
  EXPECT_NE(r.out.find("y: f32[10] checksum="), std::string::npos) << r.out;
}

TEST_F(RunTimingTest, RepsBelowOneAreAUsageError) {
  for (const char* reps : {"0", "-2"}) {
    Result r = smelt("run --reps " + std::string(reps) + " " + example("luminal_fusion.sg"));
    EXPECT_EQ(r.exit_code, 2) << reps << r.out << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("--reps must be at least 1"), std::string::npos) << r.err;
  }
}

// --warmup N: N untimed runs first (0 allowed); without --reps, or negative, a usage error.
TEST_F(RunTimingTest, WarmupRunsBeforeTheTimedOnes) {
  for (const char* warmup : {"0", "4"}) {
    Result r = smelt("run --json --reps 2 --warmup " + std::string(warmup) + " " + example("luminal_fusion.sg"));
    ASSERT_EQ(r.exit_code, 0) << warmup << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["samples_us"].size(), 2u);
  }
  for (const std::string& bad : {std::string("--warmup 3"), std::string("--reps 2 --warmup -1")}) {
    Result r = smelt("run " + bad + " " + example("luminal_fusion.sg"));
    EXPECT_EQ(r.exit_code, 2) << bad << r.out;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("--warmup N (N >= 0)"), std::string::npos) << r.err;
  }
}

// --warmup-s S: untimed runs go on for S seconds (the command cannot end
// sooner); JSON says so; without --reps, negative or past an hour, a usage error.
TEST_F(RunTimingTest, WarmupSecondsKeepTheUntimedRunsGoing) {
  const auto start = std::chrono::steady_clock::now();
  Result r = smelt("run --json --reps 2 --warmup 0 --warmup-s 0.5 " + example("luminal_fusion.sg"));
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(wall_s, 0.5);
  const nlohmann::json out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["samples_us"].size(), 2u);
  EXPECT_EQ(out["warmup"], 0);
  EXPECT_EQ(out["warmup_s"], 0.5);
  for (const std::string& bad : {std::string("--warmup-s 1"), std::string("--reps 2 --warmup-s -1"),
                                 std::string("--reps 2 --warmup-s 4000")}) {
    Result e = smelt("run " + bad + " " + example("luminal_fusion.sg"));
    EXPECT_EQ(e.exit_code, 2) << bad << e.out;
    EXPECT_TRUE(e.out.empty()) << e.out;
    EXPECT_NE(e.err.find("--warmup-s S (0 <= S <= 3600)"), std::string::npos) << e.err;
  }
}

TEST_F(RunTimingTest, RepsWithTheReferenceTargetIsAUsageError) {
  Result r = smelt("run --reps 3 --target reference " + example("luminal_fusion.sg"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("the reference interpreter is not timed"), std::string::npos) << r.err;
}

TEST_F(RunTimingTest, ProfileWithTheReferenceTargetIsAUsageError) {
  Result r = smelt("run --profile " + host_profile() + " --target reference " + example("luminal_fusion.sg"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("--profile costs compiled kernels"), std::string::npos) << r.err;
}

TEST_F(RunTimingTest, MissingProfileIsBadInputNamingTheFile) {
  const fs::path missing = dir_ / "no_such_profile.json";
  Result r = smelt("run --reps 2 --profile " + missing.string() + " " + example("luminal_fusion.sg"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find(missing.string()), std::string::npos) << r.err;
}

TEST_F(RunTimingTest, MalformedProfileIsBadInputNamingTheFile) {
  const fs::path bad = write("bad_profile.json", "{\"name\": \"x\"");
  Result r = smelt("run --json --profile " + bad.string() + " " + example("luminal_fusion.sg"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find(bad.string()), std::string::npos) << r.err;
}

// Every fixed per-kernel cost of a profile (the fields named *_us, wherever
// they are) made 1 ms slower: a profile no kernel runs as fast with.
void slow_fixed_costs(nlohmann::json& j) {
  if (j.is_array())
    for (auto& e : j) slow_fixed_costs(e);
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    if (it->is_number() && key.size() > 3 && key.compare(key.size() - 3, 3, "_us") == 0)
      *it = it->get<double>() + 1000;
    else
      slow_fixed_costs(*it);
  }
}

// The prediction is the compiled program's, costed with --profile: the shipped
// host profile predicts what the default does; a slower one predicts more.
TEST_F(RunTimingTest, ProfileIsWhatThePredictionIsCostedWith) {
  const std::string file = example("luminal_fusion.sg");
  Result plain = smelt("run --json --reps 1 --threads 1 " + file);
  const std::string default_profile = default_profile_file();
  ASSERT_NE(default_profile, "") << "the profile the default prices with ships in cost/profiles";
  Result shipped = smelt("run --json --reps 1 --threads 1 --profile " + default_profile + " " + file);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(shipped.exit_code, 0) << shipped.err;
  const double predicted = nlohmann::json::parse(plain.out)["predicted_us"].get<double>();
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(shipped.out)["predicted_us"].get<double>(), predicted);

  nlohmann::json profile = nlohmann::json::parse(smelt::smelt_testing::read_text_file(default_profile));
  slow_fixed_costs(profile);
  const fs::path slow = write("slow.json", profile.dump());
  Result r = smelt("run --json --reps 1 --threads 1 --profile " + slow.string() + " " + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(nlohmann::json::parse(r.out)["predicted_us"].get<double>(), predicted + 500);
}

TEST_F(RunTimingTest, HelpDescribesRepsAndProfile) {
  Result r = smelt("run --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--reps"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--profile"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not with --target reference"), std::string::npos) << r.out;
}

}  // namespace
