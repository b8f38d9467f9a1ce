#pragma once
// `smelt compile FILE --target host|cuda|hip --emit kernels|llvm|asm|ptx|hsaco [-o OUT]`:
// the fused program as readable kernels, LLVM IR, assembly (PTX on cuda) or an
// AMDGPU code object. Emitting needs no GPU or driver.
#include "cli/compile_command.h"
#include "smelt/smelt.h"

namespace smelt::cli {

// Usage errors found before any work: an emit kind the target lacks (ptx is
// cuda's, hsaco hip's), -o without --emit, a binary bound for a terminal.
// Prints the error; returns kUsage, or kOk when the options are coherent.
int check_emit_options(const CompileCommandOptions& options);

// Writes the artifact of `fused.after` to options.output (or stdout).
int emit_command(const smelt::FusionResult& fused, const CompileCommandOptions& options);

}  // namespace smelt::cli
