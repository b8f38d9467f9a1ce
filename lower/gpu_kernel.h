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
//  kTensorCoreMatmul (cuda; one contraction of two f16 / bf16 sides,
//    kernel::tensor_core_dtype): 128×128 output tiles per block of 256
//    threads, mma.sync m16n8k16 with f32 accumulators, K in steps of 32
//    through double-buffered shared memory (gpu_tensor_core.cpp).
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
  Target target() const { return target_; }
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

// What the two matmul shapes share (gpu_contraction.cpp). A block's output
// tile: its first row and column and its batch element.
struct ContractionTile {
  llvm::Value* row0 = nullptr;
  llvm::Value* col0 = nullptr;
  llvm::Value* batch_index = nullptr;       // row-major over the batch axes
  std::vector<llvm::Value*> batch_vars;     // its coordinates
};
// Blocks stride over the batch × ceil(M / tile_m) × ceil(N / tile_n) tiles
// (N's tiles fastest); `body` emits one.
void for_each_contraction_tile(GpuBuilder& gpu, const kernel::ContractionGroup& plan, int64_t tile_m, int64_t tile_n,
                               const std::function<void(const ContractionTile&)>& body);
// The kernel's variables [batch..., row, columns..., k] (the columns a
// convolution's output positions taken apart; k null for an output element).
std::vector<llvm::Value*> contraction_vars(GpuBuilder& gpu, const kernel::ContractionGroup& plan,
                                           const ContractionTile& tile, llvm::Value* row, llvm::Value* col,
                                           llvm::Value* k);
// Output element (row, col) of `tile` where it lies inside M × N: each term's
// reduce preset to `sum(term)` (f32, emitted there), then the epilogue and the
// stores, in the element's version.
void store_contraction_element(GpuBuilder& gpu, KernelEmitter& emitter, const kernel::ContractionGroup& plan,
                               const ContractionTile& tile, llvm::Value* row, llvm::Value* col,
                               const std::function<llvm::Value*(size_t term)>& sum);
void emit_tensor_core_matmul(GpuBuilder& gpu, KernelEmitter& emitter);  // gpu_tensor_core.cpp

// The matrix units of `target`'s kernels: cuda's tensor cores, and the host
// emulation's stand-in for them (it emulates the cuda kernels); none on hip.
kernel::GpuMatrixUnits gpu_matrix_units(Target target);

}  // namespace smelt::lower
