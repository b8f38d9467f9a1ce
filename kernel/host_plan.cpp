#include "kernel/host_plan.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

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
  // One column axis: blocks whose packed B (K x block per B side) is a
  // product's of kHostColumnBlock columns. A dot-slice's two 2048-wide halves
  // as one block per row range packed all 16 MB of B on each of two threads:
  // 11.0 ms at 2 threads against 12.9 at one, the unfused product in two
  // blocks 8.2 (AMD EPYC, 2026-11-30).
  if (group.columns.size() <= 1) {
    const int64_t b_sides = std::max<int64_t>(1, static_cast<int64_t>(group.b_sides.size()));
    return std::max<int64_t>(kHostMinPositionBlock, kHostColumnBlock / b_sides / 32 * 32);
  }
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

bool host_packs_b_once(const KernelProgram& program, const Kernel& kernel, const ContractionGroup& group,
                       const BranchPlan& versions, double packed_b_floats) {
  constexpr double kMostPackedBFloats = double(int64_t{1} << 28);  // 1 GiB: larger, packed per call
  return !group.b_sides_read_batch && !versions.versioned() && packed_b_floats <= kMostPackedBFloats &&
         b_sides_are_constant(program, kernel, group);
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

namespace {
// An index expression as c·j + e, j the innermost space variable (c > 0) and e
// a sum of constants and reduction variables times constants, with e's range
// [lo, hi] over the reduction domain: a window's column `2·j + r − 1`.
struct InnerLinear {
  int64_t c = 0, lo = 0, hi = 0;
};
std::optional<InnerLinear> inner_linear(const Kernel& kernel, IndexRef r, int depth = 0);
// Coefficients past 2^40 (a hostile index) are not read: their sums and
// products stay far inside int64.
std::optional<InnerLinear> bounded(std::optional<InnerLinear> x) {
  constexpr int64_t kLimit = int64_t{1} << 40;
  if (x && (std::abs(x->c) > kLimit || std::abs(x->lo) > kLimit || std::abs(x->hi) > kLimit)) return std::nullopt;
  return x;
}
std::optional<InnerLinear> inner_linear(const Kernel& kernel, IndexRef r, int depth) {
  const IndexPool& pool = kernel.indices;
  const int64_t inner = static_cast<int64_t>(kernel.space.size()) - 1;
  if (r == kNoIndex || depth > 8) return std::nullopt;
  const IndexPool::Node& n = pool.node(r);
  switch (n.kind) {
    case IndexPool::Kind::kConst: return bounded(InnerLinear{0, n.value, n.value});
    case IndexPool::Kind::kVar: {
      if (n.value == inner) return InnerLinear{1, 0, 0};
      const int64_t reduction = n.value - static_cast<int64_t>(kernel.space.size());
      if (reduction < 0 || reduction >= static_cast<int64_t>(kernel.reduction.size()) ||
          kernel.reduction[static_cast<size_t>(reduction)] < 1)
        return std::nullopt;
      return bounded(InnerLinear{0, 0, kernel.reduction[static_cast<size_t>(reduction)] - 1});
    }
    case IndexPool::Kind::kAdd:
    case IndexPool::Kind::kSub: {
      const std::optional<InnerLinear> a = bounded(inner_linear(kernel, n.a, depth + 1)),
                                       b = bounded(inner_linear(kernel, n.b, depth + 1));
      if (!a || !b) return std::nullopt;
      if (n.kind == IndexPool::Kind::kAdd) return InnerLinear{a->c + b->c, a->lo + b->lo, a->hi + b->hi};
      return InnerLinear{a->c - b->c, a->lo - b->hi, a->hi - b->lo};
    }
    case IndexPool::Kind::kMul: {
      const bool a_const = pool.node(n.a).kind == IndexPool::Kind::kConst;
      if (!a_const && pool.node(n.b).kind != IndexPool::Kind::kConst) return std::nullopt;
      const int64_t k = pool.node(a_const ? n.a : n.b).value;
      const std::optional<InnerLinear> x = bounded(inner_linear(kernel, a_const ? n.b : n.a, depth + 1));
      if (!x || k < 0 || k > (int64_t{1} << 20)) return std::nullopt;
      return InnerLinear{x->c * k, x->lo * k, x->hi * k};
    }
    default: return std::nullopt;
  }
}
int64_t ceil_div_signed(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
}  // namespace

std::vector<int64_t> host_column_cuts(const Kernel& kernel) {
  if (kernel.space.size() < 2 || host_column_blocks(kernel) > 1) return {};
  const IndexPool& pool = kernel.indices;
  const int64_t n = kernel.space.back();
  std::set<int64_t> cuts;
  for (size_t r = 0; r < pool.size(); ++r) {
    const IndexPool::Node& node = pool.node(static_cast<IndexRef>(r));
    if (node.kind != IndexPool::Kind::kLt && node.kind != IndexPool::Kind::kLe) continue;
    const int64_t le = node.kind == IndexPool::Kind::kLe;
    for (const bool var_left : {true, false}) {
      const std::optional<InnerLinear> side = bounded(inner_linear(kernel, var_left ? node.a : node.b));
      const IndexPool::Node& other = pool.node(var_left ? node.b : node.a);
      if (!side || side->c <= 0 || other.kind != IndexPool::Kind::kConst) continue;
      // As c·j + e < d: j + s < C is d = C, j + s ≤ C is d = C + 1, C < j + s is
      // not (j + s < C + 1), C ≤ j + s not (j + s < C). It holds for every e
      // in [lo, hi] below ceil((d − hi) / c) and for none from ceil((d − lo) / c):
      // cut at both (equal for a plain j + s).
      const int64_t d = var_left ? other.value + le : other.value + 1 - le;
      for (const int64_t cut : {ceil_div_signed(d - side->hi, side->c), ceil_div_signed(d - side->lo, side->c)})
        if (cut > 0 && cut < n) cuts.insert(cut);
    }
  }
  if (cuts.empty() || cuts.size() + 1 > kHostMaxColumnSegments) return {};
  return {cuts.begin(), cuts.end()};
}

std::vector<InteriorCondition> host_interior_conditions(const Kernel& kernel) {
  const IndexPool& pool = kernel.indices;
  const int num_vars = kernel.num_vars();
  if (kernel.space.size() < 2 || !is_contraction(kernel) || num_vars >= 63) return {};
  std::vector<bool> in_loop;
  try {
    in_loop = reduction_loop_nodes(kernel);
  } catch (const std::invalid_argument&) {
    return {};
  }
  const uint64_t all_vars = (uint64_t{1} << num_vars) - 1;
  const int column = static_cast<int>(kernel.space.size()) - 1;
  std::vector<IndexRef> comparisons;  // every mask's conjunction, down to its comparisons, each once
  for (size_t i = 0; i < kernel.exprs.size(); ++i) {
    const KernelExpr& e = kernel.exprs[i];
    if (in_loop[i] && e.kind == KernelExpr::Kind::kLoad) pool.append_conjuncts(e.valid, comparisons);
  }
  std::vector<InteriorCondition> conditions;
  for (const IndexRef at : comparisons) {
    const IndexPool::Node& n = pool.node(at);
    if (n.kind != IndexPool::Kind::kLt && n.kind != IndexPool::Kind::kLe) return {};
    if ((pool.vars_used(at) & ~all_vars) != 0) return {};
    InteriorCondition c{at, std::vector<int64_t>(static_cast<size_t>(num_vars), 0)};
    for (int v = column; v < num_vars; ++v) {
      const std::optional<int64_t> a = pool.coefficient(n.a, v), b = pool.coefficient(n.b, v);
      if (!a || !b) return {};
      c.slope[static_cast<size_t>(v)] = *a - *b;
    }
    conditions.push_back(std::move(c));
  }
  return conditions;
}

bool host_tiled_contraction(const Kernel& kernel) {
  return is_contraction(kernel) && host_tiled_contraction(kernel, match_contraction_group(kernel));
}

bool host_tiled_contraction(const Kernel& kernel, const std::optional<ContractionGroup>& group) {
  if (!group || group->n <= 1) return false;
  for (int64_t extent : kernel.space)
    if (extent <= 0) return false;
  for (int64_t extent : kernel.reduction)
    if (extent <= 0) return false;
  return true;
}

bool host_masked_loads_as_branches(const Kernel& kernel) {
  return host_masked_loads_as_branches(kernel, host_column_cuts(kernel));
}

bool host_masked_loads_as_branches(const Kernel& kernel, const std::vector<int64_t>& cuts) {
  int masked = 0;
  for (const KernelExpr& e : kernel.exprs) masked += e.kind == KernelExpr::Kind::kLoad && e.valid != kNoIndex;
  return masked <= kHostMaxBranchedMaskedLoads || !cuts.empty();
}

bool host_reduces_down_columns(const Kernel& kernel) {
  const size_t rank = kernel.space.size();
  if (rank < 2 || kernel.reduction.empty() || is_scatter_kernel(kernel) || is_contraction(kernel)) return false;
  if (kernel.space.back() > kHostColumnReduceMaxColumns || ir::numel(kernel.space) == 0 || ir::numel(kernel.reduction) == 0)
    return false;
  for (const KernelExpr& e : kernel.exprs)
    if (e.kind == KernelExpr::Kind::kReduce && e.op == Op::ReduceSum && is_float(e.dtype) &&
        ir::numel(kernel.reduction) > kHostColumnReduceMaxSteps)
      return false;
  const int column = static_cast<int>(rank) - 1, innermost = kernel.num_vars() - 1;
  // Unit stride in `var`: the last axis moves by one with it, no other axis moves.
  auto unit_stride = [&](const KernelExpr& load, int var) {
    for (size_t a = 0; a < load.index.size(); ++a)
      if (kernel.indices.coefficient(load.index[a], var) != (a + 1 == load.index.size() ? 1 : 0)) return false;
    return true;
  };
  std::vector<bool> in_loop;
  try {
    in_loop = reduction_loop_nodes(kernel);
  } catch (const std::invalid_argument&) {
    return false;
  }
  bool along_row = false;
  for (size_t i = 0; i < kernel.exprs.size(); ++i) {
    const KernelExpr& e = kernel.exprs[i];
    if (!in_loop[i] || e.kind != KernelExpr::Kind::kLoad || e.index.empty()) continue;
    if (!e.operands.empty()) return false;  // an address loaded per element (a gather)
    uint64_t used = 0;
    for (IndexRef r : e.index) used |= kernel.indices.vars_used(r);
    if (used >> innermost & 1 && unit_stride(e, innermost)) return false;  // the plain reduce loop vectorizes
    if (!(used >> column & 1)) continue;                                     // the same along the row
    if (!unit_stride(e, column)) return false;
    along_row = true;
  }
  return along_row;
}

bool host_math_call(const Kernel& kernel, const KernelExpr& e) {
  if (e.kind != KernelExpr::Kind::kElementwise) return false;
  if (e.op == Op::Pow && e.operands.size() == 2) {
    const KernelExpr& base = kernel.exprs[static_cast<size_t>(e.operands[0])];
    const KernelExpr& exponent = kernel.exprs[static_cast<size_t>(e.operands[1])];
    if (base.kind == KernelExpr::Kind::kConstant && base.value == 2) return true;  // exp2
    if (exponent.kind == KernelExpr::Kind::kConstant)
      for (double arithmetic : {1.0, 2.0, 3.0, 4.0, -1.0, 0.5})
        if (exponent.value == arithmetic) return false;
    return true;
  }
  switch (e.op) {
    case Op::Exp: case Op::Exp2: case Op::Log: case Op::Log2: case Op::Sin: case Op::Cos:
    case Op::Tanh: case Op::Erf: case Op::Sigmoid: case Op::Gelu: case Op::Pow:
      return true;
    default: return false;
  }
}

namespace {
// The passes of host_row_stages whatever the row's width: none for a kernel
// with a reduce or a scatter.
std::vector<std::vector<int>> chained_calls(const Kernel& kernel) {
  if (is_scatter_kernel(kernel)) return {};
  for (const KernelExpr& e : kernel.exprs)
    if (e.kind == KernelExpr::Kind::kReduce) return {};
  const size_t n = kernel.exprs.size();
  // depth: the math calls on the longest path ending at a node, itself included.
  std::vector<int> depth(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (int operand : kernel.exprs[i].operands) depth[i] = std::max(depth[i], depth[static_cast<size_t>(operand)]);
    if (host_math_call(kernel, kernel.exprs[i])) ++depth[i];
  }
  // feeds_call: a math call depends on the node (operands come before their users).
  std::vector<bool> feeds_call(n, false);
  for (size_t i = n; i-- > 0;) {
    if (!feeds_call[i] && !host_math_call(kernel, kernel.exprs[i])) continue;
    for (int operand : kernel.exprs[i].operands) feeds_call[static_cast<size_t>(operand)] = true;
  }
  std::vector<std::vector<int>> stages;
  for (size_t i = 0; i < n; ++i) {
    if (!feeds_call[i] || !host_math_call(kernel, kernel.exprs[i])) continue;
    const size_t pass = static_cast<size_t>(depth[i]) - 1;
    if (stages.size() <= pass) stages.resize(pass + 1);
    stages[pass].push_back(static_cast<int>(i));
  }
  return stages;
}
}  // namespace

bool host_chains_math_calls(const Kernel& kernel) { return !chained_calls(kernel).empty(); }

std::vector<std::vector<int>> host_row_stages(const Kernel& kernel, const std::vector<Buffer>& buffers) {
  const size_t rank = kernel.space.size();
  if (rank == 0 || ir::numel(kernel.space) == 0) return {};
  const int64_t columns = rank == 1 ? std::min(kernel.space[0], kHostRank1Chunk) : kernel.space.back();
  if (columns < kHostRowStageMinColumns || columns > kHostRowStageMaxColumns) return {};
  // Every load reads along the row at unit stride (its last axis, or its last
  // two read as one: IndexPool::flattened_pair), or the same element.
  const int column = static_cast<int>(rank) - 1;
  for (const KernelExpr& e : kernel.exprs) {
    if (e.kind != KernelExpr::Kind::kLoad || e.index.empty()) continue;
    if (!e.operands.empty()) return {};  // a gather's address, loaded
    size_t axes = e.index.size();
    IndexRef last = e.index.back();
    const Shape& shape = buffers.at(static_cast<size_t>(e.buffer)).type.shape;
    if (axes >= 2 && shape.size() == axes) {
      const IndexRef flat = kernel.indices.flattened_pair(e.index[axes - 2], e.index[axes - 1], shape[axes - 1]);
      if (flat != kNoIndex) --axes, last = flat;
    }
    for (size_t a = 0; a + 1 < axes; ++a)
      if (kernel.indices.coefficient(e.index[a], column) != std::optional<int64_t>(0)) return {};
    const std::optional<int64_t> step = kernel.indices.coefficient(last, column);
    if (step != std::optional<int64_t>(0) && step != std::optional<int64_t>(1)) return {};
  }
  return chained_calls(kernel);
}

}  // namespace smelt::kernel
