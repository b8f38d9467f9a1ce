#include "cli/emit_command.h"

#include <unistd.h>

#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "smelt/compile.h"

namespace smelt::cli {
namespace {

bool to_stdout(const CompileCommandOptions& options) { return options.output.empty() || options.output == "-"; }

}  // namespace

int check_emit_options(const CompileCommandOptions& options) {
  if (options.emit.empty()) {
    if (!options.output.empty()) {
      std::cerr << "error: -o needs --emit (kernels|llvm|asm|ptx|hsaco)\n";
      return kUsage;
    }
    return kOk;
  }
  if (options.json || options.report) {
    std::cerr << "error: --emit writes code; it does not combine with --json or --report\n";
    return kUsage;
  }
  const std::optional<smelt::EmitKind> kind = smelt::parse_emit_kind(options.emit);
  const std::optional<lower::Target> target = smelt::parse_target(options.target);
  if (!kind || !target) {
    std::cerr << "error: unknown --emit " << options.emit << " or --target " << options.target << "\n";
    return kUsage;
  }
  if (!smelt::emit_kind_fits(*kind, *target)) {
    std::cerr << "error: --emit " << options.emit << " is for --target " << (*kind == smelt::EmitKind::kPtx ? "cuda" : "hip")
              << ", not " << options.target << " (asm gives each target's assembly)\n";
    return kUsage;
  }
  if (*kind == smelt::EmitKind::kHsaco && to_stdout(options) && ::isatty(STDOUT_FILENO)) {
    std::cerr << "error: refusing to write a binary code object to a terminal; use -o FILE\n";
    return kUsage;
  }
  return kOk;
}

int emit_command(const smelt::FusionResult& fused, const CompileCommandOptions& options) {
  const smelt::EmitKind kind = *smelt::parse_emit_kind(options.emit);
  const lower::TargetOptions target{*smelt::parse_target(options.target), options.arch};
  const std::vector<uint8_t> artifact = smelt::emit(fused.after, target, kind);
  if (to_stdout(options)) {
    std::cout.write(reinterpret_cast<const char*>(artifact.data()), static_cast<std::streamsize>(artifact.size()));
    std::cout.flush();
    return kOk;
  }
  std::ofstream out(options.output, std::ios::binary);
  out.write(reinterpret_cast<const char*>(artifact.data()), static_cast<std::streamsize>(artifact.size()));
  out.close();
  if (!out) {
    std::cerr << "error: cannot write " << options.output << "\n";
    return kBadInput;
  }
  std::cout << options.output << ": " << options.emit << " for " << options.target
            << (options.arch.empty() ? "" : " (" + options.arch + ")") << ", " << fused.after.kernels.size()
            << (fused.after.kernels.size() == 1 ? " kernel, " : " kernels, ") << artifact.size() << " bytes\n";
  return kOk;
}

}  // namespace smelt::cli
