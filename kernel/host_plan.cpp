#include "kernel/host_plan.h"

#include <algorithm>
#include <optional>
#include <set>

#include "kernel/contraction_group.h"

namespace smelt::kernel {

using namespace ir;  // the graph IR's vocabulary: dtypes, shapes, ops, scalars, host tensors

namespace {
bool is_contraction(const Kernel& kernel) {
  return std::any_of(kernel.exprs.begin(), kernel.exprs.end(),
                     [](const KernelExpr& e) { return e.kind == KernelExpr::Kind::kReduce && e.contraction; });
}
}  // namespace

namespace {
int64_t column_block_of(const ContractionGroup& group) {
  if (group.columns.size() <= 1) return kHostColumnBlock;
  const int64_t quarter = (group.n + kHostPositionBlocks - 1) / kHostPositionBlocks;
  return std::max(kHostMinPositionBlock, (quarter + 31) / 32 * 32);
}
}  // namespace

int64_t host_column_block(const Kernel& kernel) {
  if (kernel.space.size() < 2 || !is_contraction(kernel)) return kHostColumnBlock;
  const std::optional<ContractionGroup> group = match_contraction_group(kernel);
  return group ? column_block_of(*group) : kHostColumnBlock;
}

int64_t host_column_blocks(const Kernel& kernel) {
  if (kernel.space.size() < 2 || !is_contraction(kernel)) return 1;
  const std::optional<ContractionGroup> group = match_contraction_group(kernel);
  if (!group) return 1;
  for (int64_t extent : group->batch)
    if (extent != 1) return 1;
  const int64_t block = column_block_of(*group);
  if (group->m > kHostFewRows || group->n < 2 * block) return 1;
  return (group->n + block - 1) / block;
}

int64_t host_parallel_units(const Kernel& kernel) {
  const Shape& space = kernel.space;
  if (space.empty() || is_scatter_kernel(kernel)) return 1;
  if (space.size() == 1) return (space[0] + kHostRank1Chunk - 1) / kHostRank1Chunk;
  // Rows: every axis but the columns (the innermost, or a contraction's
  // several column axes).
  size_t column_axes = 1;
  if (is_contraction(kernel))
    if (const std::optional<ContractionGroup> group = match_contraction_group(kernel)) column_axes = group->columns.size();
  int64_t rows = 1;
  for (size_t axis = 0; axis + column_axes < space.size(); ++axis) rows *= space[axis];
  return rows * host_column_blocks(kernel);
}

int64_t host_min_units_per_chunk(const Kernel& kernel, int64_t units, unsigned threads) {
  if (units <= 0) return 1;
  const int64_t work = std::max<int64_t>(1, numel(kernel.space)) * std::max<int64_t>(1, numel(kernel.reduction));
  const int64_t work_per_unit = std::max<int64_t>(1, work / units);
  const int64_t by_work = std::max<int64_t>(1, (kHostMinWorkPerChunk + work_per_unit - 1) / work_per_unit);
  if (!is_contraction(kernel)) return by_work;
  const int64_t per_thread = (units + std::max(1u, threads) - 1) / std::max(1u, threads);
  return std::max(by_work, per_thread);
}

HostSplit host_split(const Kernel& kernel, unsigned threads) {
  HostSplit s;
  s.units = host_parallel_units(kernel);
  // The pool's own rule (runtime/thread_pool.cpp): about four chunks per thread.
  const int64_t target_chunks = static_cast<int64_t>(std::max(1u, threads)) * 4;
  s.min_chunk = std::max(host_min_units_per_chunk(kernel, s.units, threads), (s.units + target_chunks - 1) / target_chunks);
  s.min_chunk = std::max<int64_t>(1, s.min_chunk);
  s.chunks = s.units <= 0 ? 0 : (s.units + s.min_chunk - 1) / s.min_chunk;
  s.threads_used = static_cast<unsigned>(std::clamp<int64_t>(std::min<int64_t>(threads, s.chunks), 1, 1 << 16));
  return s;
}

std::vector<int64_t> host_column_cuts(const Kernel& kernel) {
  if (kernel.space.size() < 2 || host_column_blocks(kernel) > 1) return {};
  const IndexPool& pool = kernel.indices;
  const int64_t inner = static_cast<int64_t>(kernel.space.size()) - 1, n = kernel.space.back();
  std::set<int64_t> cuts;
  for (size_t r = 0; r < pool.size(); ++r) {
    const IndexPool::Node& node = pool.node(static_cast<IndexRef>(r));
    if (node.kind != IndexPool::Kind::kLt && node.kind != IndexPool::Kind::kLe) continue;
    const int64_t le = node.kind == IndexPool::Kind::kLe;
    for (const bool var_left : {true, false}) {
      const auto [base, shift] = pool.base_and_offset(var_left ? node.a : node.b);
      const IndexPool::Node& other = pool.node(var_left ? node.b : node.a);
      const IndexPool::Node& v = pool.node(base);
      if (v.kind != IndexPool::Kind::kVar || v.value != inner || other.kind != IndexPool::Kind::kConst) continue;
      // j + shift < c  ⇔  j < c − shift;  c < j + shift  ⇔  j ≥ c − shift + 1 (≤: one less / more)
      const int64_t cut = var_left ? other.value - shift + le : other.value - shift + 1 - le;
      if (cut > 0 && cut < n) cuts.insert(cut);
    }
  }
  if (cuts.empty() || cuts.size() + 1 > kHostMaxColumnSegments) return {};
  return {cuts.begin(), cuts.end()};
}

bool host_masked_loads_as_branches(const Kernel& kernel) {
  int masked = 0;
  for (const KernelExpr& e : kernel.exprs) masked += e.kind == KernelExpr::Kind::kLoad && e.valid != kNoIndex;
  return masked <= kHostMaxBranchedMaskedLoads || !host_column_cuts(kernel).empty();
}

}  // namespace smelt::kernel
