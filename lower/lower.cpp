#include "lower/lower.h"

#include <cctype>

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/raw_ostream.h>

#include "lower/gpu_lower.h"
#include "lower/gpu_lower.h"
#include "lower/host_target.h"

namespace smelt::lower {

std::string kernel_symbol(const kernel::KernelProgram& program, size_t kernel) {
  if (kernel >= program.kernels.size())
    throw LowerError("kernel " + std::to_string(kernel) + " of a program of " +
                     std::to_string(program.kernels.size()));
  // Kernel names are free text: keep what every assembler accepts.
  std::string symbol = "smelt_k" + std::to_string(kernel) + "_";
  for (char c : program.kernels[kernel].name)
    symbol += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return symbol;
}

namespace {
std::vector<uint8_t> host_code(const kernel::KernelProgram& program, const TargetOptions& options,
                               llvm::CodeGenFileType kind) {
  std::unique_ptr<llvm::TargetMachine> machine = host_target_machine(options.arch);
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = build_host_module(context, program, *machine);
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream out(bytes);
  llvm::legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, out, nullptr, kind))
    throw LowerError("host: the target cannot emit this file type");
  passes.run(*module);
  return {bytes.begin(), bytes.end()};
}
}  // namespace

LaunchConfig launch_config(const kernel::Kernel& kernel, const TargetOptions& options) {
  if (options.target == Target::kHost) throw LowerError("launch_config: the host has no launches (use parallel_units)");
  return gpu_launch_config(kernel, options);  // lower/gpu_lower.h
}

std::string emit_llvm_ir(const kernel::KernelProgram& program, const TargetOptions& options) {
  if (options.target != Target::kHost) return gpu_emit_llvm_ir(program, options);
  std::unique_ptr<llvm::TargetMachine> machine = host_target_machine(options.arch);
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = build_host_module(context, program, *machine);
  std::string text;
  llvm::raw_string_ostream out(text);
  module->print(out, nullptr);
  return text;
}

std::string emit_assembly(const kernel::KernelProgram& program, const TargetOptions& options) {
  if (options.target != Target::kHost) return gpu_emit_assembly(program, options);
  std::vector<uint8_t> text = host_code(program, options, llvm::CodeGenFileType::AssemblyFile);
  return {text.begin(), text.end()};
}

std::vector<uint8_t> emit_binary(const kernel::KernelProgram& program, const TargetOptions& options) {
  if (options.target != Target::kHost) return gpu_emit_binary(program, options);
  return host_code(program, options, llvm::CodeGenFileType::ObjectFile);
}

}  // namespace smelt::lower
