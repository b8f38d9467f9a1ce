// `smelt compile`, run as a user would: the report, the JSON line, profiles,
// and the exit codes (0 ok, 1 bad input, 2 usage).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tools/picture.h"
#include "tests/support/scoped_env.h"
#include "tests/support/smelt_cli_fixture.h"

namespace {

namespace fs = std::filesystem;

using Result = smelt::smelt_testing::CliResult;

class CompileCli : public smelt::smelt_testing::SmeltCliTest {
 protected:
  static std::string example(const std::string& name) { return SmeltCliTest::example(name + ".sg"); }
};

TEST_F(CompileCli, JsonGivesKernelCountsAndPredictedTimesFirst) {
  const Result r = smelt("compile " + example("mlir_dot_slice") + " --json --threads 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(r.out);
  auto key = j.begin();
  for (const char* expected : {"kernels_before", "kernels_after", "predicted_us_before", "predicted_us_after"})
    EXPECT_EQ((key++).key(), expected);
  EXPECT_EQ(j["kernels_before"], 7);
  EXPECT_LT(j["kernels_after"].get<int>(), 7);  // how far depends on the measured profile
  EXPECT_LT(j["predicted_us_after"].get<double>(), j["predicted_us_before"].get<double>());
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line";
  // Which rules changed the e-graph, and why saturation stopped.
  EXPECT_EQ(j["saturation_stop"], "saturated");
  EXPECT_EQ(j["rules_fired"]["split-matmul"], 2) << j["rules_fired"].dump();
  EXPECT_FALSE(j["rules_fired"].contains("relu-relu")) << "only rules that changed the e-graph";
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
  EXPECT_NE(r.out.find("rules that changed the e-graph: "), std::string::npos) << r.out;
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

nlohmann::json shipped_profile() {
  return nlohmann::json::parse(
      smelt::smelt_testing::read_text_file(fs::path(SMELT_SOURCE_DIR) / "cost/profiles/host.json"));
}

// A profile whose kernels cost 1000 µs each, at every thread count: every
// kernel costs at least that, and fusing down to one kernel saves it.
TEST_F(CompileCli, ProfileChangesThePrediction) {
  nlohmann::json profile = shipped_profile();
  for (nlohmann::json& rates : profile["rates"]) rates["kernel_us"] = 1000.0;
  const fs::path path = write("slow_kernels.json", profile.dump());
  const Result r = smelt("compile " + example("luminal_subexpr") + " --json --profile '" + path.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const Result plain = smelt("compile " + example("luminal_subexpr") + " --json");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const nlohmann::json shipped = nlohmann::json::parse(plain.out);
  EXPECT_LT(shipped["predicted_us_after"].get<double>(), 1000.0);
  EXPECT_GE(j["predicted_us_before"].get<double>(), 1000.0 * j["kernels_before"].get<double>());
  EXPECT_GE(j["kernels_before"].get<int>(), 3);
  EXPECT_EQ(j["kernels_after"], 1);
  EXPECT_GE(j["predicted_us_after"].get<double>(), 1000.0);
  EXPECT_LT(j["predicted_us_after"].get<double>(), 1100.0);
  // The shipped file itself predicts what the built-in profile does.
  const std::string default_profile = default_profile_file();
  ASSERT_NE(default_profile, "");
  const Result same = smelt("compile " + example("luminal_subexpr") + " --json --profile '" + default_profile + "'");
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(nlohmann::json::parse(same.out)["predicted_us_after"], shipped["predicted_us_after"]);
}

// A corrupt profile: exit 1, nothing on stdout, and the file and the field
// named on stderr, for `smelt compile` and `smelt run`.
TEST_F(CompileCli, CorruptProfileExitsOneNamingTheField) {
  struct Case {
    std::string what, field;
    std::function<std::string()> text;
  };
  auto edited = [](std::function<void(nlohmann::json&)> edit) {
    return [edit] {
      nlohmann::json j = shipped_profile();
      edit(j);
      return j.dump();
    };
  };
  const std::vector<Case> cases = {
      {"negative op", "rates[0].op_ns.exp", edited([](nlohmann::json& j) { j["rates"][0]["op_ns"]["exp"] = -1; })},
      {"kernel_us as text", "rates[1].kernel_us",
       edited([](nlohmann::json& j) { j["rates"][1]["kernel_us"] = "fast"; })},
      {"zero gflops", "rates[0].matmul[0].gflops",
       edited([](nlohmann::json& j) { j["rates"][0]["matmul"][0]["gflops"] = 0; })},
      {"sizes not increasing", "rates[0].read.strided[1]",
       edited([](nlohmann::json& j) {
         nlohmann::json& c = j["rates"][0]["read"]["strided"];
         c[1][0] = c[0][0];
       })},
      {"threads not increasing", "rates[1].threads", edited([](nlohmann::json& j) { j["rates"][1]["threads"] = 1; })},
      {"old format", "format", edited([](nlohmann::json& j) { j["format"] = 1; })},
      {"missing rates", "rates", edited([](nlohmann::json& j) { j.erase("rates"); })},
      {"device tpu", "device", edited([](nlohmann::json& j) { j["device"] = "tpu"; })},
      {"dispatch 1e400", "rates[1].dispatch_us",
       [] {
         nlohmann::json j = shipped_profile();
         j["rates"][1]["dispatch_us"] = 123456.5;
         std::string text = j.dump();
         text.replace(text.find("123456.5"), 8, "1e400");
         return text;
       }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const fs::path bad = write("bad profile.json", c.text());
    for (const std::string& command :
         {"compile " + example("luminal_fusion") + " --json", "run " + example("luminal_fusion") + " --json",
          "run " + example("luminal_fusion") + " --reps 2"}) {
      SCOPED_TRACE(command);
      const Result r = smelt(command + " --profile '" + bad.string() + "'");
      EXPECT_EQ(r.exit_code, 1) << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
      EXPECT_NE(r.err.find(bad.string()), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("'" + c.field + "'"), std::string::npos) << r.err;
      EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    }
  }
  const Result not_json = smelt("compile " + example("luminal_fusion") + " --profile '" +
                                write("not.json", "{\"format\": 2,").string() + "'");
  EXPECT_EQ(not_json.exit_code, 1);
  EXPECT_NE(not_json.err.find("not JSON"), std::string::npos) << not_json.err;
  const Result array = smelt("run " + example("luminal_fusion") + " --profile '" + write("array.json", "[]").string() + "'");
  EXPECT_EQ(array.exit_code, 1);
  EXPECT_TRUE(array.out.empty()) << array.out;
  EXPECT_NE(array.err.find("array.json"), std::string::npos) << array.err;
}

// A profile measured on another device costs the host wrongly: the host
// compile rejects it (smelt::cost::load_profile's expected_device).
TEST_F(CompileCli, ProfileForAnotherDeviceIsRejected) {
  nlohmann::json profile = shipped_profile();
  profile["device"] = "cuda";
  const fs::path path = write("cuda.json", profile.dump());
  for (const std::string& command : {"compile " + example("luminal_fusion") + " --json",
                                     "run " + example("luminal_fusion") + " --json --reps 1"}) {
    SCOPED_TRACE(command);
    const Result r = smelt(command + " --profile '" + path.string() + "'");
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("'device'"), std::string::npos) << r.err;
  }
}

// --measure: each candidate predicted and timed, the fastest measured kept.
TEST_F(CompileCli, MeasureReportsEveryCandidateAndKeepsTheFastest) {
  const Result r = smelt("compile " + example("ratchet_permute") + " --json --measure 4 --threads 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("measured")) << r.out;
  ASSERT_GE(j["measured"].size(), 2u);
  int chosen = 0, unfused = 0, picks = 0;
  double least = 1e300;
  for (const nlohmann::json& m : j["measured"])
    for (const char* key : {"predicted_us", "median_us", "over_pick", "round_us", "kernels", "model_pick", "chosen"})
      ASSERT_TRUE(m.contains(key)) << key << " in " << m.dump();
  for (const nlohmann::json& m : j["measured"]) least = std::min(least, m["over_pick"].get<double>());
  for (const nlohmann::json& m : j["measured"]) {
    chosen += m["chosen"].get<bool>();
    unfused += m["unfused"].get<bool>();
    picks += m["model_pick"].get<bool>();
    EXPECT_GE(m["round_us"].size(), 3u) << m.dump();  // compared round by round
    if (m["model_pick"].get<bool>()) {
      EXPECT_EQ(m["over_pick"].get<double>(), 1.0);
    }
    if (m["chosen"].get<bool>()) {
      EXPECT_EQ(m["over_pick"].get<double>(), least);
      EXPECT_EQ(m["kernels"], j["kernels_after"]);
      EXPECT_DOUBLE_EQ(j["model_pick_vs_fastest"].get<double>(), 1 / least);
    }
  }
  EXPECT_EQ(chosen, 1);
  EXPECT_EQ(unfused, 1);
  EXPECT_EQ(picks, 1);
  ASSERT_TRUE(j.contains("model_pick_fastest"));
  ASSERT_TRUE(j.contains("model_pick_vs_fastest"));
  EXPECT_GE(j["model_pick_vs_fastest"].get<double>(), 1.0);
  EXPECT_EQ(j["model_pick_fastest"].get<bool>(), least == 1.0);

  const Result text = smelt("compile " + example("luminal_fusion") + " --measure 2 --threads 1");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("median_us"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("unfused"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("chosen (fastest)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("over_pick"), std::string::npos) << text.out;
  // --measure-s out of its range is a usage error.
  const Result bad = smelt("compile " + example("luminal_fusion") + " --measure 2 --measure-s 0");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_TRUE(bad.out.empty()) << bad.out;
  // Without --measure the JSON has no measurements.
  const Result plain = smelt("compile " + example("luminal_fusion") + " --json");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(nlohmann::json::parse(plain.out).contains("measured"));
}

TEST_F(CompileCli, MeasureIsForTheHostOnly) {
  const Result r = smelt("compile " + example("luminal_fusion") + " --measure 2 --target cuda");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--measure"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST_F(CompileCli, BadInputExitsOneAndUsageTwo) {
  EXPECT_EQ(smelt("compile '" + (dir_ / "missing.sg").string() + "'").exit_code, 1);
  const fs::path bad = write("bad.sg", "graph g\nx = input() : f32[2]\ny = exp(x, x)\noutput y\n");
  const Result malformed = smelt("compile '" + bad.string() + "' --json");
  EXPECT_EQ(malformed.exit_code, 1);
  EXPECT_TRUE(malformed.out.empty());
  nlohmann::json corrupt = shipped_profile();
  corrupt["rates"][0]["kernel_us"] = "fast";
  const fs::path not_a_profile = write("profile.json", corrupt.dump());
  const Result profile = smelt("compile " + example("luminal_fusion") + " --profile '" + not_a_profile.string() + "'");
  EXPECT_EQ(profile.exit_code, 1);
  EXPECT_TRUE(profile.out.empty()) << profile.out;
  EXPECT_NE(profile.err.find("profile.json"), std::string::npos) << profile.err;
  EXPECT_NE(profile.err.find("'rates[0].kernel_us'"), std::string::npos) << profile.err;
  const Result missing = smelt("compile " + example("luminal_fusion") + " --profile '" + (dir_ / "none.json").string() + "'");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find((dir_ / "none.json").string()), std::string::npos) << missing.err;
  EXPECT_EQ(smelt("compile").exit_code, 2);
  EXPECT_EQ(smelt("compile " + example("luminal_fusion") + " --json --report").exit_code, 2);
  EXPECT_EQ(smelt("compile " + example("luminal_fusion") + " --time-limit 0").exit_code, 2);
}

// --dot / --svg: the fused kernel program drawn; stdout as without them.
TEST_F(CompileCli, DotAndSvgDrawTheFusedProgram) {
  const fs::path dot = dir_ / "program.dot", svg = dir_ / "program.svg";
  const Result plain = smelt("compile " + example("luminal_fusion"));
  ASSERT_TRUE(smelt::tools::graphviz_available()) << "graphviz is a dependency (scripts/bootstrap installs it)";
  const Result drawn =
      smelt("compile " + example("luminal_fusion") + " --dot '" + dot.string() + "' --svg '" + svg.string() + "'");
  ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  EXPECT_EQ(drawn.out, plain.out);
  const std::string text = smelt::smelt_testing::read_text_file(dot);
  EXPECT_EQ(text.rfind("digraph kernels {", 0), 0u) << text;
  for (const char* buffer : {"label=\"a\\nf32[10]\\ninput\"", "label=\"y\\nf32[10]\\noutput\""})
    EXPECT_NE(text.find(buffer), std::string::npos) << text;
  EXPECT_NE(text.find("label=\"kernel "), std::string::npos) << text;
  const std::string picture = smelt::smelt_testing::read_text_file(svg);
  EXPECT_EQ(picture.rfind("<?xml", 0), 0u) << picture.substr(0, 200);
  EXPECT_NE(picture.find("f32[10]"), std::string::npos);
  for (const fs::directory_entry& entry : fs::directory_iterator(dir_))
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << "temporary left: " << entry.path();
}

// Errors are one line on stderr, exit 1, nothing on stdout and no file.
TEST_F(CompileCli, PictureErrorsExitOneWithoutAFile) {
  auto expect_error = [&](const std::string& args, const std::string& message, const fs::path& absent) {
    const Result r = smelt("compile " + example("luminal_fusion") + " " + args);
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_EQ(r.err, "error: " + message + "\n") << args;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(fs::exists(absent)) << absent;
  };
  const fs::path nowhere = dir_ / "missing" / "p.svg";
  expect_error("--svg '" + nowhere.string() + "'",
               "cannot write " + nowhere.string() + " (no folder " + (dir_ / "missing").string() + ")", nowhere);
  expect_error("--dot '" + nowhere.string() + "'",
               "cannot write " + nowhere.string() + " (no folder " + (dir_ / "missing").string() + ")", nowhere);

  // No dot on the PATH: --svg refuses before compiling, --dot still works.
  fs::create_directories(dir_ / "empty");
  const fs::path svg = dir_ / "p.svg", dot = dir_ / "p.dot";
  {
    const smelt::smelt_testing::ScopedEnv no_dot("PATH", (dir_ / "empty").string());
    expect_error("--dot '" + dot.string() + "' --svg '" + svg.string() + "'",
                 "graphviz's `dot` is not installed (Debian: apt-get install graphviz); write --dot instead", svg);
    EXPECT_FALSE(fs::exists(dot));
    EXPECT_EQ(smelt("compile " + example("luminal_fusion") + " --dot '" + dot.string() + "'").exit_code, 0);
    EXPECT_TRUE(fs::exists(dot));
  }

  // A dot that fails: its complaint is the error, and no SVG appears.
  fs::create_directories(dir_ / "bin");
  const fs::path failing = write("bin/dot", "#!/bin/sh\necho 'Error: out of ink' >&2\nexit 3\n");
  fs::permissions(failing, fs::perms::owner_all);
  const smelt::smelt_testing::ScopedEnv fake_dot("PATH", (dir_ / "bin").string() + ":/usr/bin:/bin");
  expect_error("--svg '" + svg.string() + "'", "graphviz's dot failed (exit 3): Error: out of ink", svg);
}

}  // namespace
