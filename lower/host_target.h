#pragma once
// The host's LLVM target (private to lower/): a TargetMachine for this CPU (or
// a named x86 CPU), the module of a program's kernels, and the O3 pipeline
// that vectorizes them.
#include <memory>
#include <string>

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "kernel/kernel.h"
#include "lower/host_kernel.h"

namespace smelt::lower {

// Initializes LLVM's native target once (thread-safe).
void initialize_host_llvm();

// True when glibc's libmvec is loaded: optimized host code may then call its
// vector math functions (an object file from emit_binary links with -lmvec).
bool host_vector_math_available();

// `cpu` empty: this machine's CPU name and features. Throws LowerError.
std::unique_ptr<llvm::TargetMachine> host_target_machine(const std::string& cpu);

// The vector registers of `machine`'s CPU as the tiled contraction counts them:
// 32 of 16 floats with AVX-512, 16 of 8 with AVX, 16 of 4 with SSE (x86-64);
// 32 of 4 elsewhere (AArch64's NEON).
VectorRegisters host_vector_registers(const llvm::TargetMachine& machine);

// Every kernel of `program` as a host function (kernel_symbol names), verified
// and optimized (O3, loop vectorization) for `machine`. Throws LowerError.
std::unique_ptr<llvm::Module> build_host_module(llvm::LLVMContext& context, const kernel::KernelProgram& program,
                                                llvm::TargetMachine& machine);
// build_host_module's two steps: the verified module as emitted, then the
// pipeline that optimizes it (and inlines the host math left as calls).
std::unique_ptr<llvm::Module> emit_host_module(llvm::LLVMContext& context, const kernel::KernelProgram& program,
                                               llvm::TargetMachine& machine);
void optimize_host_module(llvm::Module& module, llvm::TargetMachine& machine);

// The version of what turns an emitted module into an object: optimize_host_module's
// passes and HostJit's code generation options. Compiled objects are cached
// under it (host_object_cache.h): change it with either.
inline constexpr int kHostPipelineVersion = 1;

}  // namespace smelt::lower
