#pragma once
// The cuda and hip targets of lower.h's entry points (no LLVM types):
// lower.cpp dispatches here for Target::kCuda and Target::kHip.
#include <cstdint>
#include <string>
#include <vector>

#include "kernel/kernel.h"
#include "lower/lower.h"

namespace smelt::lower {

std::string gpu_emit_llvm_ir(const kernel::KernelProgram& program, const TargetOptions& options);
// PTX (cuda) or AMDGPU assembly (hip).
std::string gpu_emit_assembly(const kernel::KernelProgram& program, const TargetOptions& options);
// PTX text (cuda) or an ld.lld-linked code object (hip).
std::vector<uint8_t> gpu_emit_binary(const kernel::KernelProgram& program, const TargetOptions& options);
LaunchConfig gpu_launch_config(const kernel::Kernel& kernel, const TargetOptions& options);

// For tests without a GPU: the GPU kernels' loop structure (the same grid-
// stride loops, block reductions and tiled matmuls, launched with
// launch_config) as LLVM IR for this CPU, math through the host's functions,
// shared memory an ordinary global. Each kernel is `void f(ptr buffers)`;
// thread and block index, the grid's block count and the barrier are calls to
// extern "C" functions an emulator defines: int smelt_gpu_emu_thread_index(),
// int smelt_gpu_emu_block_index(), int smelt_gpu_emu_grid_blocks(),
// void smelt_gpu_emu_barrier(). Optimized, textual; no triple or layout set.
std::string gpu_emulation_llvm_ir(const kernel::KernelProgram& program);

}  // namespace smelt::lower
