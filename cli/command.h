#pragma once
// How a subcommand of `smelt` joins the command line: its file registers its
// options on the app, beside its code, and gives back what runs it once the
// command line names it (cli/main.cpp only lists them).
#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace smelt::cli {

struct Registered {
  CLI::App* command;
  std::function<int()> run;  // the exit code
};

// What several subcommands share.
struct SharedOptions {
  std::string memory_limit;  // --memory-limit as given ("" = the default)
  std::string work_limit;    // --work-limit as given ("" = the default)
};

// --memory-limit, on the commands that read graphs and allocate tensors.
void add_memory_limit_option(CLI::App* command, SharedOptions& shared);
// --work-limit, on the commands that run graphs (run, test).
void add_work_limit_option(CLI::App* command, SharedOptions& shared);
// The help text of --unsafe-fp (run, compile).
extern const char* const kUnsafeFpHelp;

Registered register_check(CLI::App& app, SharedOptions& shared);
Registered register_run(CLI::App& app, SharedOptions& shared);
Registered register_extract(CLI::App& app, SharedOptions& shared);
Registered register_compile(CLI::App& app, SharedOptions& shared);
Registered register_saturate(CLI::App& app, SharedOptions& shared);
Registered register_calibrate(CLI::App& app, SharedOptions& shared);
Registered register_verify_rules(CLI::App& app, SharedOptions& shared);
Registered register_import(CLI::App& app, SharedOptions& shared);
Registered register_onnx_test(CLI::App& app, SharedOptions& shared);

}  // namespace smelt::cli
