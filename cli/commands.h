#pragma once
// The subcommands of the `smelt` command line. Each returns the process exit code.
#include <cstdint>
#include <string>

namespace cli {

// Exit codes shared by every subcommand.
enum ExitCode : int { kOk = 0, kBadInput = 1, kUsage = 2, kInternalError = 3 };

struct CheckOptions {
  std::string file;
  bool json = false;
};
int check_command(const CheckOptions& options);

struct RunOptions {
  std::string file;
  std::string inputs = "random";
  uint64_t seed = 0;
  bool json = false;
};
int run_command(const RunOptions& options);

}  // namespace cli
