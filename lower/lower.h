#pragma once
// lower/: a verified smelt::kernel::KernelProgram turned into code that runs (DESIGN.md,
// "Kernelization and runtime"). Host code is compiled by LLVM's ORC JIT for this
// CPU; CUDA and HIP targets produce PTX / an AMDGPU code object. No LLVM type
// appears here: only lower/*.cpp compile LLVM headers.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>


#include "error/error.h"
#include "kernel/host_plan.h"
#include "kernel/kernel.h"

namespace smelt::lower {

enum class Target { kHost, kCuda, kHip };

struct TargetOptions {
  Target target = Target::kHost;
  std::string arch;  // host: "" = this CPU; cuda: "sm_80" (default) | "sm_90"; hip: "gfx90a" (default) | "gfx942"
};

// A program that cannot be lowered (an unknown target or arch, a malformed
// kernel, an LLVM failure); the message says which kernel and why.
class LowerError : public Error {
 public:
  explicit LowerError(const std::string& message) : Error(ErrorKind::kLower, message) {}
};

// Memory layout of every buffer (all targets): dense row-major; f32 = float;
// f16 = IEEE binary16 bits (uint16); bf16 = upper 16 bits of an f32 (uint16),
// stored rounded to nearest even; i32; i64; bool = uint8 0/1.
//
// Kernel ABI: one function per kernel::Kernel, symbol kernel_symbol(program, i).
//  host:  void f(void* const* buffers, int64_t begin, int64_t end); buffers[b]
//         is the base pointer of KernelProgram buffer b (every kind; the
//         runtime materializes kConstant buffers); computes the parallel units
//         [begin, end) of the kernel (0 <= begin <= end <= parallel_units).
//         The buffers one kernel reads must not overlap the buffers it writes
//         (the code is compiled assuming distinct buffers do not alias).
//  cuda/hip: kernel entry f(void* const* buffers) (a device pointer to an array
//         of device pointers); launched with launch_config(kernel, options).
std::string kernel_symbol(const kernel::KernelProgram& program, size_t kernel);

// Host work split. Rank >= 2: one unit per row, i.e. per index of all space
// dims but the innermost (their product), times the column blocks of a
// contraction of few rows (kernel::host_column_blocks, block-major). Rank 1: chunks of
// kHostRank1Chunk consecutive elements (ceil(n / chunk) units). Rank 0: one
// unit. An empty space has 0 units (rank 1) or rows of 0 elements.
// (kernel/host_plan.h defines the split for lower/, runtime/ and cost/.)
inline constexpr int64_t kHostRank1Chunk = kernel::kHostRank1Chunk;
inline int64_t parallel_units(const kernel::Kernel& kernel) { return kernel::host_parallel_units(kernel); }

struct LaunchConfig {
  uint32_t grid[3], block[3];
  uint32_t shared_bytes;
};
LaunchConfig launch_config(const kernel::Kernel& kernel, const TargetOptions& options);  // cuda/hip

std::string emit_llvm_ir(const kernel::KernelProgram& program, const TargetOptions& options);   // optimized, textual
std::string emit_assembly(const kernel::KernelProgram& program, const TargetOptions& options);  // host asm | PTX | AMDGPU asm
// host: ELF object (PIC; it may call libm and, where glibc's libmvec is
// present, its vector functions: link with -lm -lmvec); cuda: PTX text; hip:
// hsaco (ld.lld-19 linked).
std::vector<uint8_t> emit_binary(const kernel::KernelProgram& program, const TargetOptions& options);

// The program compiled for this CPU with ORC LLJIT, its kernels callable.
// compile() may run on several threads at once; a kernel function may be
// called from several threads at once on disjoint unit ranges. The functions
// live as long as the HostJit.
class HostJit {
 public:
  using KernelFn = void (*)(void* const* buffers, int64_t begin, int64_t end);
  static std::unique_ptr<HostJit> compile(const kernel::KernelProgram& program);  // throws lower::LowerError
  KernelFn kernel(size_t i) const;
  size_t num_kernels() const;
  ~HostJit();

 private:
  struct State;
  explicit HostJit(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace smelt::lower
