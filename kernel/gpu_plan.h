#pragma once
// How a GPU (cuda, hip) runs a kernel: which of three loop shapes, how many
// threads per block and how many work items (blocks or elements) it covers.
// One definition for the code generator (lower/gpu_kernel.cpp), its launch
// configuration, and the cost model (cost/predict.cpp), which must agree on it
// as they do on kernel/host_plan.h for the host.
#include <cstdint>
#include <optional>

#include "kernel/kernel.h"
#include "kernel/kernel_branches.h"

namespace smelt::kernel {

enum class GpuShape {
  kElementwise,  // no reduce: one thread per run of elements_per_thread output elements, a grid-stride loop;
                 // a scatter: one thread in all, its elements in order
  kBlockReduce,  // any reduce the tiled matmul does not take: one block per output element
  kTiledMatmul,  // a contraction group (kernel/contraction_group.h): 64x64 output tiles per block
  // One contraction of two f16 / bf16 sides on tensor cores (NVIDIA, sm_80 and
  // later: mma.sync m16n8k16, f32 accumulation): 128x128 output tiles per block.
  kTensorCoreMatmul,
};

// Whether the device has tensor cores smelt drives (cuda, and the host
// emulation of its kernels); hip kernels take the tiled matmul.
enum class GpuMatrixUnits : uint8_t { kNone, kNvidiaMma };

inline constexpr int64_t kGpuTileM = 64, kGpuTileN = 64, kGpuTileK = 16;
inline constexpr uint32_t kGpuMatmulThreads = 256;  // 16x16 threads, 4x4 outputs each
// The tensor-core matmul: 8 warps of 64x32 outputs (2 x 4 warps), K in steps of
// 32 through double-buffered shared memory (2 x 2 x 128 x 40 x 2 bytes = 40 KiB).
inline constexpr int64_t kGpuMmaTileM = 128, kGpuMmaTileN = 128, kGpuMmaTileK = 32;
inline constexpr uint32_t kGpuMmaThreads = 256;
inline constexpr uint32_t kGpuElementwiseThreads = 256;
inline constexpr uint32_t kGpuMaxGridBlocks = 65536;  // more work strides over the grid
// Static shared memory per block that the tiled matmul may use (cuda and hip
// both allow 48 KiB without opt-in).
inline constexpr int64_t kGpuMaxSharedBytes = 48 * 1024;
// An elementwise kernel of at least this many elements gives each thread a run
// of consecutive elements along the innermost axis, as many as fill 16 bytes
// of its widest dtype (8 bf16, 4 f32): their loads and stores become one
// 16-byte access each and the index math is shared. One element per thread
// spent ~100 instructions per bf16 element on the RoPE backward (H200: 157 us
// where the bytes take 33). Below, the kernel keeps one thread per element:
// 2^20 elements in runs of 8 are still 131,072 threads, half of what an H100
// keeps resident.
inline constexpr int64_t kGpuRunMinElements = int64_t{1} << 20;
inline constexpr int64_t kGpuRunBytes = 16;

// Tiles (blocks) of `b` that cover `a`.
inline constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct GpuPlan {
  GpuShape shape = GpuShape::kElementwise;
  uint32_t block_threads = kGpuElementwiseThreads;
  uint64_t work_items = 0;  // blocks: of elements (elementwise), output elements (reduce), output tiles (matmul)
  // Elementwise: consecutive elements along the innermost axis per thread (a
  // power of two dividing that axis' extent); 1 for the other shapes.
  int64_t elements_per_thread = 1;
};

GpuPlan plan_gpu_kernel(const Kernel& kernel, GpuMatrixUnits units);

// The f16 / bf16 dtype both sides of the kernel's contraction have, when the
// kernel is a contraction group of one term whose A and B sides are subtrees of
// that dtype (their product is exact in f32, so tensor cores with f32
// accumulation compute what the f32 sum does, in another order); nullopt else.
std::optional<DType> tensor_core_dtype(const Kernel& kernel);

// The kernel's versions (kernel/kernel_branches.h) as the GPU code runs them: a
// kernel with runs of elements also decides conditions on the innermost axis
// once per run (where the run agrees on them; lower/gpu_kernel.cpp checks).
BranchPlan gpu_branch_plan(const Kernel& kernel, const GpuPlan& plan);

// Blocks the launch really has: work_items clamped to [1, kGpuMaxGridBlocks].
uint32_t gpu_grid_blocks(const GpuPlan& plan);

// Threads of the launch that have work: the space's elements for an
// elementwise kernel (at most the grid's threads), for a block reduction its
// blocks times the threads that find a reduction step (fewer than the block
// when the reduction is shorter), every thread of a tiled matmul. What fills
// (or leaves idle) a GPU's multiprocessors; the cost model's `fill` curve is
// measured against it.
double gpu_busy_threads(const Kernel& kernel, const GpuPlan& plan);

}  // namespace smelt::kernel
