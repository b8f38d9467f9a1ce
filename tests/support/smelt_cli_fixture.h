#pragma once
// A GoogleTest fixture that runs the `smelt` binary as a user would (the test
// target links smelt_test_binary: smelt_binary.h) and captures its exit code, stdout and stderr,
// with a scratch folder per test for input files.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/smelt_binary.h"

namespace smelt::smelt_testing {

struct CliResult {
  int exit_code;
  std::string out, err;
};

inline std::string read_text_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class SmeltCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("smelt_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name() + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

#ifdef SMELT_SOURCE_DIR
  // examples/NAME in the source tree (targets that define SMELT_SOURCE_DIR).
  static std::string example(const std::string& name) { return std::string(SMELT_SOURCE_DIR) + "/examples/" + name; }
#endif

#ifdef SMELT_SOURCE_DIR
  // The shipped profile (cost/profiles/*.json) that prices a program when no
  // --profile is given: the one of this machine's CPU, or the nearest one (the
  // JSON's "profile" names it); empty when none matches.
  std::string default_profile_file() {
    const CliResult r = smelt("compile " + example("luminal_subexpr.sg") + " --json");
    const size_t key = r.out.find("\"profile\"");
    const size_t open = key == std::string::npos ? key : r.out.find('"', r.out.find(':', key));
    if (r.exit_code != 0 || open == std::string::npos) return "";
    const std::string name = r.out.substr(open + 1, r.out.find('"', open + 1) - open - 1);
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(SMELT_SOURCE_DIR) / "cost/profiles"))
      if (entry.path().extension() == ".json" &&
          read_text_file(entry.path()).find("\"name\": \"" + name + "\"") != std::string::npos)
        return entry.path().string();
    return "";
  }
#endif

  // `args` are passed through the shell as written (quote paths with spaces).
  CliResult smelt(const std::string& args) {
    const std::filesystem::path out = dir_ / "stdout", err = dir_ / "stderr";
    const std::string cmd = std::string("'") + SMELT_BINARY + "' " + args + " >'" + out.string() + "' 2>'" +
                            err.string() + "' </dev/null";
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text_file(out), read_text_file(err)};
  }

  std::filesystem::path write(const std::string& name, const std::string& text) {
    const std::filesystem::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }

  std::filesystem::path dir_;
};

}  // namespace smelt::smelt_testing
