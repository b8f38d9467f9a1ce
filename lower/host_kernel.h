#pragma once
// Host kernel functions (private to lower/): void f(ptr buffers, i64 begin,
// i64 end) computing parallel units [begin, end) of one kernel (lower.h).
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "kernel/kernel.h"
#include "lower/kernel_emitter.h"

namespace smelt::lower {

// The function being emitted: its arguments and the buffer pointers loaded in
// its entry block (null for buffers the kernel does not use).
struct HostFunction {
  llvm::Function* function = nullptr;
  llvm::Value* begin = nullptr;  // first parallel unit (i64)
  llvm::Value* end = nullptr;    // one past the last
  std::vector<llvm::Value*> buffers;
};

// Declares kernel `kernel`'s function in `module` and positions `builder` in
// its entry block, after the buffer pointer loads.
HostFunction begin_host_function(llvm::Module& module, llvm::IRBuilder<>& builder, const kernel::KernelProgram& program,
                                 size_t kernel);

// The target's vector registers and their f32 lanes (host_vector_registers,
// lower/host_target.h): what the tiled contraction's register blocking fits.
struct VectorRegisters {
  int count = 32;   // AVX-512: 32 zmm
  int floats = 16;  // of 16 lanes
};

// The generic loop nest over units [begin, end): rows of the outer dims, an
// innermost loop over the last dim evaluating the body per element (reduces as
// sequential loops inside); ends with `ret void`.
void emit_host_rows(llvm::IRBuilder<>& builder, const HostFunction& host, KernelEmitter& emitter);

// Emits the whole function of kernel `kernel` (contraction kernels through
// emit_host_contraction).
llvm::Function* emit_host_kernel(llvm::Module& module, const kernel::KernelProgram& program, size_t kernel,
                                 const VectorRegisters& registers);

// Kernel `kernel`'s function as a call of `body`, a kernel_body's function
// (lower/kernel_body.h): the buffers it touches, `buffers[i]` of the program
// as local buffer i, passed in an array on the stack.
llvm::Function* emit_host_kernel_call(llvm::Module& module, const kernel::KernelProgram& program, size_t kernel,
                                      const std::vector<int>& buffers, llvm::Function* body);

// host_contraction.cpp: a kernel whose anchor is a contraction group. Today the
// straightforward loop (per output element, a loop over K); a tiled
// register-blocked version (host_matmul.cpp) hooks in here.
void emit_host_contraction(llvm::IRBuilder<>& builder, const HostFunction& host, KernelEmitter& emitter,
                           const VectorRegisters& registers);

bool has_contraction(const kernel::Kernel& kernel);

}  // namespace smelt::lower
