#include "kernel/gpu_plan.h"

#include <algorithm>
#include <optional>

#include "kernel/contraction_group.h"

namespace smelt::kernel {

using namespace ir;  // the graph IR's vocabulary: dtypes, shapes, ops, scalars, host tensors
namespace {

bool has_reduce(const Kernel& kernel) {
  for (const KernelExpr& e : kernel.exprs)
    if (e.kind == KernelExpr::Kind::kReduce) return true;
  return false;
}

// The smallest power of two from 32 (a warp) to 256 that covers the steps.
uint32_t reduce_block_threads(int64_t steps) {
  uint32_t threads = 32;
  while (threads < 256 && threads < steps) threads *= 2;
  return threads;
}

// Bytes per element of the widest dtype the kernel loads or stores.
int64_t widest_access_bytes(const Kernel& kernel) {
  int64_t widest = 1;
  for (const KernelExpr& e : kernel.exprs)
    if (e.kind == KernelExpr::Kind::kLoad) widest = std::max<int64_t>(widest, dtype_bytes(e.dtype));
  for (const KernelOutput& out : kernel.outputs)
    widest = std::max<int64_t>(widest, dtype_bytes(kernel.exprs.at(static_cast<size_t>(out.expr)).dtype));
  return widest;
}

int64_t elementwise_run(const Kernel& kernel) {
  if (kernel.space.empty() || numel(kernel.space) < kGpuRunMinElements) return 1;
  int64_t run = std::max<int64_t>(1, kGpuRunBytes / widest_access_bytes(kernel));
  while (run > 1 && kernel.space.back() % run != 0) run /= 2;
  return run;
}

}  // namespace

std::optional<DType> tensor_core_dtype(const Kernel& kernel) {
  const std::optional<ContractionGroup> group = match_contraction_group(kernel);
  if (!group || group->terms.size() != 1) return std::nullopt;
  const DType a = kernel.exprs.at(static_cast<size_t>(group->a_sides.at(0))).dtype;
  const DType b = kernel.exprs.at(static_cast<size_t>(group->b_sides.at(0))).dtype;
  if (a != b || (a != DType::F16 && a != DType::BF16)) return std::nullopt;
  return a;
}

GpuPlan plan_gpu_kernel(const Kernel& kernel, GpuMatrixUnits units) {
  GpuPlan plan;
  const int64_t elements = numel(kernel.space);
  if (is_scatter_kernel(kernel)) {  // its elements in order: one thread
    plan.block_threads = 1;
    plan.work_items = 1;
    return plan;
  }
  if (!has_reduce(kernel)) {
    plan.shape = GpuShape::kElementwise;
    plan.block_threads = kGpuElementwiseThreads;
    plan.elements_per_thread = elementwise_run(kernel);
    plan.work_items = static_cast<uint64_t>(ceil_div(elements / plan.elements_per_thread, plan.block_threads));
    return plan;
  }
  if (std::optional<ContractionGroup> matmul = match_contraction_group(kernel)) {
    int64_t batch = 1;
    for (int64_t extent : matmul->batch) batch *= extent;
    if (units == GpuMatrixUnits::kNvidiaMma && tensor_core_dtype(kernel)) {
      plan.shape = GpuShape::kTensorCoreMatmul;
      plan.block_threads = kGpuMmaThreads;
      plan.work_items =
          static_cast<uint64_t>(batch * ceil_div(matmul->m, kGpuMmaTileM) * ceil_div(matmul->n, kGpuMmaTileN));
      return plan;
    }
    const int64_t sides = static_cast<int64_t>(matmul->a_sides.size() + matmul->b_sides.size());
    if (sides * kGpuTileK * kGpuTileM * 4 <= kGpuMaxSharedBytes) {
      plan.shape = GpuShape::kTiledMatmul;
      plan.block_threads = kGpuMatmulThreads;
      plan.work_items = static_cast<uint64_t>(batch * ceil_div(matmul->m, kGpuTileM) * ceil_div(matmul->n, kGpuTileN));
      return plan;
    }
  }
  plan.shape = GpuShape::kBlockReduce;
  plan.block_threads = reduce_block_threads(numel(kernel.reduction));
  plan.work_items = static_cast<uint64_t>(elements);
  return plan;
}

BranchPlan gpu_branch_plan(const Kernel& kernel, const GpuPlan& plan) {
  if (plan.shape != GpuShape::kElementwise || plan.elements_per_thread == 1) return plan_branches(kernel);
  const size_t rank = kernel.space.size();
  return plan_branches_over(kernel, rank >= 64 ? ~uint64_t{0} : (uint64_t{1} << rank) - 1);
}

uint32_t gpu_grid_blocks(const GpuPlan& plan) {
  return static_cast<uint32_t>(std::clamp<uint64_t>(plan.work_items, 1, kGpuMaxGridBlocks));
}

double gpu_busy_threads(const Kernel& kernel, const GpuPlan& plan) {
  const double blocks = gpu_grid_blocks(plan);
  switch (plan.shape) {
    case GpuShape::kElementwise:
      return std::max(1.0, std::min(static_cast<double>(numel(kernel.space) / plan.elements_per_thread),
                                    blocks * plan.block_threads));
    case GpuShape::kBlockReduce:
      return std::max(1.0, blocks * std::min<double>(plan.block_threads, static_cast<double>(numel(kernel.reduction))));
    case GpuShape::kTiledMatmul:
    case GpuShape::kTensorCoreMatmul: return blocks * plan.block_threads;
  }
  return 1;
}

}  // namespace smelt::kernel
