// The `smelt` command line.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <vector>

#include "cli/command.h"
#include "cli/commands.h"
#include "smelt/smelt.h"

namespace {

const char* kDescription =
    "smelt: an equality-saturation superoptimizer for tensor programs (kernel fusion).\n"
    "Exit codes: 0 ok, 1 bad input, 2 usage error, 3 internal error.";

}  // namespace

int main(int argc, char** argv) {
  using namespace smelt::cli;
  CLI::App app{kDescription, "smelt"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print help for every subcommand and exit");
  app.footer(
      "Environment: SMELT_OBJECT_CACHE=DIR keeps the host objects LLVM compiles in DIR and loads them when the\n"
      "same program is compiled again; SMELT_LIBDEVICE (CUDA's libdevice.10.bc), SMELT_LD_LLD (ld.lld-19) and\n"
      "SMELT_ROCM_DEVICE_LIBS (a folder) locate what --target cuda / hip need where it is not found (docs/cli.md).");
  SharedOptions shared;
  // Each command registers its own options (cli/*_command.cpp), in the order `--help` lists them.
  const std::vector<Registered> commands = {
      register_check(app, shared),     register_run(app, shared),          register_extract(app, shared),
      register_compile(app, shared),   register_saturate(app, shared),     register_calibrate(app, shared),
      register_verify_rules(app, shared), register_import(app, shared),    register_onnx_test(app, shared)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kOk : kUsage;
  }

  if (!shared.memory_limit.empty()) smelt::set_memory_limit(*smelt::parse_byte_count(shared.memory_limit));
  if (!shared.work_limit.empty()) smelt::set_work_limit(*smelt::parse_visit_count(shared.work_limit));

  try {
    for (const Registered& command : commands)
      if (command.command->parsed()) return command.run();
  } catch (const smelt::Error& e) {
    return report_error(e);
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return kInternalError;
  }
  return kUsage;
}
