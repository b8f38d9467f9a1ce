#pragma once
// The subcommands of the `smelt` command line. Each returns the process exit code.
#include <cstdint>
#include <string>

#include "error/error.h"

namespace smelt::cli {

// Exit codes shared by every subcommand.
enum ExitCode : int { kOk = 0, kBadInput = 1, kUsage = 2, kInternalError = 3 };

// Prints an error the way every subcommand reports one, on stderr, and returns
// its exit code: an error at a place in a file as "FILE:LINE:COL: message",
// others as "error: message". Bad input (files, models, rules, run inputs, the
// memory limit, a device this machine lacks) is kBadInput; a failure inside
// smelt (code generation, a device fault, a shape error past the parser) is
// kInternalError, printed as "internal error: ...".
int report_error(const Error& e);

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
  // Compiled runs (cli/run_command.h); "reference" runs the interpreter.
  std::string target = "host";  // host | cuda | hip | reference
  std::string arch;             // cuda / hip code-generation architecture; "" = the device's
  bool check = false;           // compare every output with the reference interpreter
  bool no_fusion = false;
  bool unsafe_fp = false;       // also the rules exact only in real arithmetic (FuseOptions::unsafe_fp)
  unsigned threads = 0;         // host threads; 0 = every core
  std::string outputs;          // a folder to write each output into as <name>.npy; "" = none
  std::string mutation;         // testing the checks: a deliberate bug (kernel/mutation.h)
};
int run_command(const RunOptions& options);

}  // namespace smelt::cli
