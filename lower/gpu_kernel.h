#pragma once
// lower-private (LLVM types): the loop structure of GPU kernels (cuda and
// hip), around the target-neutral per-element emitter (kernel_emitter.h).
//
// Kernel entry: f(ptr buffers) — a device array of device pointers, one per
// KernelProgram buffer (lower.h). Each kernel takes one of three shapes,
// chosen by plan_gpu_kernel, and launch_config gives the grid that shape
// expects (1-D grids and blocks; shared memory is static, shared_bytes = 0):
//
//  kElementwise (no reduce): one thread per output element, a grid-stride
//    loop over the row-major elements of the space.
//  kBlockReduce (any reduce, including contractions the tiled matmul does not
//    take): one block per output element, blocks striding over the elements.
//    Threads stride over the reduction domain, each accumulating every reduce
//    node of the kernel (f32 / integer accumulators, reduce_combine: max
//    propagates NaN; a float sum of more than kSerialSumBlock values per thread
//    adds f32 block sums into an f64 total, KernelEmitter::sums_in_blocks);
//    a shared-memory tree combines the block's partials; thread 0 runs the
//    epilogue and stores the outputs.
//  kTiledMatmul (contraction groups that match_contraction_group accepts, the
//    host's rule too: kernel/contraction_group.h):
//    64×64 output tiles per block of 256 threads, each thread a 4×4 register
//    tile, K in steps of 16. Every distinct A-side / B-side subtree (the
//    prologue) is evaluated while filling its shared-memory tile (zeros past
//    M, N, K); the group's products accumulate in f32; the epilogue runs per
//    output element through the emitter with the reduces' values preset.
#include <cstdint>
#include <optional>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "kernel/kernel.h"
#include "kernel/contraction_group.h"
#include "kernel/gpu_plan.h"
#include "lower/kernel_emitter.h"
#include "lower/lower.h"

namespace smelt::lower {

// The shapes, their plan and their constants are kernel/gpu_plan.h's (the cost
// model reads the same plan).
using kernel::GpuPlan;
using kernel::GpuShape;
using kernel::plan_gpu_kernel;
inline constexpr int64_t kTileM = kernel::kGpuTileM, kTileN = kernel::kGpuTileN, kTileK = kernel::kGpuTileK;
inline constexpr uint32_t kMatmulThreads = kernel::kGpuMatmulThreads;
inline constexpr int64_t kMaxSharedBytes = kernel::kGpuMaxSharedBytes;

LaunchConfig gpu_launch_config(const GpuPlan& plan);

// Emits kernel `kernel` of `program` into `module` (configured for `target`;
// Target::kHost = the host emulation of gpu_lower.h), its math through `math`.
llvm::Function* emit_gpu_kernel(llvm::Module& module, const kernel::KernelProgram& program, size_t kernel, Target target,
                                const MathHooks& math);

// The pieces the shapes share (gpu_kernel.cpp), used by gpu_matmul.cpp.
class GpuBuilder {
 public:
  GpuBuilder(llvm::IRBuilder<>& builder, Target target, uint32_t block_threads)
      : b(builder), target_(target), block_threads_(block_threads) {}
  llvm::IRBuilder<>& b;

  uint32_t block_threads() const { return block_threads_; }
  llvm::Value* thread_index();  // i64
  llvm::Value* block_index();   // i64
  llvm::Value* grid_blocks();   // i64: blocks in the launch
  void barrier();               // every thread of the block; orders shared memory
  // `for (i = begin; i < end; i += step) body(i)`, i64, at the insertion point.
  void strided_loop(llvm::Value* begin, llvm::Value* end, llvm::Value* step,
                    const std::function<void(llvm::Value*)>& body, const char* name);
  // `if (condition) then()`.
  void if_then(llvm::Value* condition, const std::function<void()>& then, const char* name);
  // Row-major coordinates of `linear` over `shape` (each i64).
  std::vector<llvm::Value*> delinearize(llvm::Value* linear, const std::vector<int64_t>& shape);
  // A zero-initialized-by-nobody array in shared memory.
  llvm::GlobalVariable* shared_array(llvm::Type* element, uint64_t count, const std::string& name);
  llvm::Value* shared_element(llvm::GlobalVariable* array, llvm::Value* index);
  // An entry-block stack slot (the target's alloca address space).
  llvm::AllocaInst* local(llvm::Type* type, const char* name);

 private:
  llvm::Value* emulator_call(const char* name, llvm::Type* result);

  Target target_;  // kCuda, kHip, or kHost for the host emulation (gpu_lower.h)
  uint32_t block_threads_;
};

void emit_tiled_matmul(GpuBuilder& gpu, KernelEmitter& emitter);

}  // namespace smelt::lower
