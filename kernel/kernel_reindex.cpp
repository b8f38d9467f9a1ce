#include "kernel/kernel_reindex.h"

#include "kernel/host_plan.h"
#include "kernel/index_simplify.h"

#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace smelt::kernel {

using namespace ir;  // the graph IR's vocabulary: dtypes, shapes, ops, scalars, host tensors
namespace {

// Copies expressions of `from` into `to`, each variable replaced by its
// expression; shared subexpressions are copied once.
class Rewriter {
 public:
  Rewriter(const IndexPool& from, IndexPool& to, std::vector<IndexRef> vars)
      : from_(from), to_(to), vars_(std::move(vars)) {}

  IndexRef operator()(IndexRef r) {
    if (r == kNoIndex) return kNoIndex;
    if (auto it = done_.find(r); it != done_.end()) return it->second;
    using K = IndexPool::Kind;
    const IndexPool::Node& n = from_.node(r);
    IndexRef result = kNoIndex;
    switch (n.kind) {
      case K::kConst: result = to_.constant(n.value); break;
      case K::kVar:
        if (is_indirect_var(n.value)) {  // a loaded value, not a loop variable: kept
          result = to_.var(static_cast<int>(n.value));
          break;
        }
        if (n.value < 0 || static_cast<size_t>(n.value) >= vars_.size())
          throw std::logic_error("change_variables: variable " + std::to_string(n.value) + " out of range");
        result = vars_[static_cast<size_t>(n.value)];
        break;
      case K::kAdd: result = to_.add((*this)(n.a), (*this)(n.b)); break;
      case K::kSub: result = to_.sub((*this)(n.a), (*this)(n.b)); break;
      case K::kMul: result = to_.mul((*this)(n.a), (*this)(n.b)); break;
      case K::kFloorDiv: result = to_.floor_div((*this)(n.a), (*this)(n.b)); break;
      case K::kMod: result = to_.mod((*this)(n.a), (*this)(n.b)); break;
      case K::kMin: result = to_.min((*this)(n.a), (*this)(n.b)); break;
      case K::kMax: result = to_.max((*this)(n.a), (*this)(n.b)); break;
      case K::kSelect: result = to_.select((*this)(n.a), (*this)(n.b), (*this)(n.c)); break;
      case K::kLt: result = to_.lt((*this)(n.a), (*this)(n.b)); break;
      case K::kLe: result = to_.le((*this)(n.a), (*this)(n.b)); break;
      case K::kEq: result = to_.eq((*this)(n.a), (*this)(n.b)); break;
      case K::kAnd: result = to_.logical_and((*this)(n.a), (*this)(n.b)); break;
      case K::kOr: result = to_.logical_or((*this)(n.a), (*this)(n.b)); break;
      case K::kNot: result = to_.logical_not((*this)(n.a)); break;
    }
    done_.emplace(r, result);
    return result;
  }

 private:
  const IndexPool& from_;
  IndexPool& to_;
  std::vector<IndexRef> vars_;
  std::unordered_map<IndexRef, IndexRef> done_;
};

// Row-major delinearization of new variable `var` over `extents`: one
// expression per extent.
std::vector<IndexRef> delinearize(IndexPool& pool, IndexRef var, const Shape& extents) {
  std::vector<IndexRef> parts(extents.size());
  int64_t inner = 1;
  for (size_t i = extents.size(); i-- > 0;) {
    IndexRef part = inner == 1 ? var : pool.floor_div(var, pool.constant(inner));
    if (i > 0) part = pool.mod(part, pool.constant(extents[i]));
    parts[i] = part;
    inner *= extents[i];
  }
  return parts;
}

}  // namespace

void change_variables(Kernel& kernel, Shape space, Shape reduction,
                      const std::function<IndexRef(IndexPool&, int)>& old_var) {
  IndexPool pool;
  std::vector<IndexRef> vars;
  for (int v = 0; v < kernel.num_vars(); ++v) vars.push_back(old_var(pool, v));
  Rewriter rewrite(kernel.indices, pool, std::move(vars));
  for (KernelExpr& e : kernel.exprs) {
    for (IndexRef& i : e.index) i = rewrite(i);
    e.valid = rewrite(e.valid);
  }
  kernel.indices = std::move(pool);
  kernel.space = std::move(space);
  kernel.reduction = std::move(reduction);
}

void to_contraction_form(Kernel& kernel, const ConvLayout& layout) {
  const Shape& out = layout.out;
  if (layout.groups < 1 || kernel.space != out || out.size() < 3 || kernel.reduction.empty()) return;
  const int64_t maps_per_group = out[1] / layout.groups;
  if (maps_per_group < kMinContractionRows) return;
  const Shape old_reduction = kernel.reduction;
  int64_t k = 1;
  for (int64_t e : old_reduction) k *= e;
  const bool grouped = layout.groups > 1;
  // [N, groups, maps per group, out...] (groups only when several) x [K].
  Shape space{out[0]};
  if (grouped) space.push_back(layout.groups);
  space.push_back(maps_per_group);
  space.insert(space.end(), out.begin() + 2, out.end());
  const int first_new_reduction = static_cast<int>(space.size());
  const int first_position = grouped ? 3 : 2;
  const size_t spatial = out.size() - 2;
  change_variables(kernel, space, Shape{k}, [&](IndexPool& pool, int v) {
    if (v == 0) return pool.var(0);  // n
    if (v == 1)                      // m
      return grouped ? pool.add(pool.mul(pool.var(1), pool.constant(maps_per_group)), pool.var(2)) : pool.var(1);
    if (static_cast<size_t>(v) < 2 + spatial) return pool.var(first_position + v - 2);  // out...
    return delinearize(pool, pool.var(first_new_reduction), old_reduction).at(static_cast<size_t>(v) - 2 - spatial);
  });
  // The group of map m, (groups' · mg + mg') / mg, is the group variable: the
  // input side must be seen not to read the row variable.
  kernel = simplify_kernel(kernel);
}

namespace {

// Whether every load of `kernel` reads space axes `a` and a + 1 as adjacent
// buffer axes (var a, var a + 1) whose second has the space's extent, or reads
// neither; no mask and no index value reads them.
bool reads_axes_as_one(const Kernel& kernel, const std::vector<Buffer>& buffers, int a) {
  const IndexPool& pool = kernel.indices;
  const uint64_t both = (uint64_t{1} << a) | (uint64_t{1} << (a + 1));
  auto is_var = [&](IndexRef r, int v) {
    return r != kNoIndex && pool.node(r).kind == IndexPool::Kind::kVar && pool.node(r).value == v;
  };
  for (const KernelExpr& e : kernel.exprs) {
    if (pool.vars_used(e.valid) & both) return false;
    if (e.kind == KernelExpr::Kind::kIndex) {
      for (IndexRef r : e.index)
        if (pool.vars_used(r) & both) return false;
      continue;
    }
    if (e.kind != KernelExpr::Kind::kLoad) continue;
    const Shape& shape = buffers.at(static_cast<size_t>(e.buffer)).type.shape;
    for (size_t axis = 0; axis < e.index.size(); ++axis) {
      if (!(pool.vars_used(e.index[axis]) & both)) continue;
      if (!is_var(e.index[axis], a) || axis + 1 >= e.index.size() || !is_var(e.index[axis + 1], a + 1) ||
          shape.at(axis + 1) != kernel.space[static_cast<size_t>(a) + 1])
        return false;
      ++axis;  // the pair's second axis
    }
  }
  return true;
}

}  // namespace

void merge_contiguous_rows(Kernel& kernel, const std::vector<Buffer>& buffers) {
  if (is_scatter_kernel(kernel) || !kernel.indirect.empty()) return;
  for (const KernelExpr& e : kernel.exprs)
    if (e.kind == KernelExpr::Kind::kReduce && e.contraction) return;
  const size_t rank = kernel.space.size();
  if (rank < 2) return;
  const int64_t inner = kernel.space[rank - 1], outer = kernel.space[rank - 2];
  int64_t rows = 1;
  for (size_t axis = 0; axis + 2 < rank; ++axis) rows *= kernel.space[axis];
  if (inner >= kMergeRowsBelow || inner < 1 || outer < 1) return;
  if (rows < kMergeKeepRows && !host_chains_math_calls(kernel)) return;
  const int a = static_cast<int>(rank) - 2;
  if (!reads_axes_as_one(kernel, buffers, a)) return;
  Shape space(kernel.space.begin(), kernel.space.end() - 2);
  space.push_back(outer * inner);
  const Shape reduction = kernel.reduction;
  change_variables(kernel, space, reduction, [&](IndexPool& pool, int v) {
    if (v < a) return pool.var(v);
    const IndexRef x = pool.var(a);
    if (v == a) return pool.floor_div(x, pool.constant(inner));
    if (v == a + 1) return pool.mod(x, pool.constant(inner));
    return pool.var(v - 1);  // the reduction's variables follow the space's
  });
}

}  // namespace smelt::kernel
