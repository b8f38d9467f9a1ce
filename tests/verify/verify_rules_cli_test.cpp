// `smelt verify-rules`: text and JSON output, exit codes.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/wait.h>

#include "tests/support/smelt_binary.h"

namespace {

struct CommandRun {
  int exit_code = -1;
  std::string out;
};

CommandRun smelt(const std::string& args) {
  std::string command = std::string(SMELT_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  CommandRun run;
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) run.out.append(buf.data(), n);
  int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

std::string write_temp(const std::string& name, const std::string& text) {
  std::filesystem::path path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(VerifyRulesCli, FailuresExitOneWithCounterexamples) {
  CommandRun run = smelt("verify-rules --rules " SMELT_SOURCE_DIR "/verify/fixtures/wrong_elementwise.rules");
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_NE(run.out.find("cos-keeps-pad-value"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("FAILED"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("left:  cos:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("0 proved"), std::string::npos) << run.out;
}

TEST(VerifyRulesCli, SoundRulesExitZero) {
  std::string file = write_temp("smelt_verify_sound.rules", R"(
(rule neg-neg :lhs (neg (neg ?x)) :rhs ?x)
(rule hoist-unary-above-permute
  :lhs (?f (permute ?x :perm ?p))
  :rhs (permute (?f ?x) :perm ?p)
  :if (elementwise ?f))
)");
  CommandRun run = smelt("verify-rules --rules " + file);
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("neg-neg"), std::string::npos);
  EXPECT_NE(run.out.find("proved"), std::string::npos);
  EXPECT_NE(run.out.find("2 rules: 2 proved, 0 FAILED, 0 UNKNOWN"), std::string::npos) << run.out;

  CommandRun json = smelt("verify-rules --json --rules " + file);
  EXPECT_EQ(json.exit_code, 0) << json.out;
  nlohmann::json out = nlohmann::json::parse(json.out);
  ASSERT_EQ(out["rules"].size(), 2u);
  EXPECT_EQ(out["rules"][0]["name"], "neg-neg");
  EXPECT_EQ(out["rules"][0]["verdict"], "proved");
  EXPECT_EQ(out["rules"][0]["mode"], "symbolic");
  EXPECT_EQ(out["proved"], 2);
}

TEST(VerifyRulesCli, BadRuleFilesExitOneWithThePlace) {
  std::string file = write_temp("smelt_verify_bad.rules", "(rule r :lhs (frob ?x) :rhs ?x)\n");
  CommandRun run = smelt("verify-rules --rules " + file);
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_NE(run.out.find(":1:15: rule r: unknown op 'frob'"), std::string::npos) << run.out;
}

}  // namespace
