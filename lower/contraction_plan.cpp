#include "lower/contraction_plan.h"

#include <algorithm>
#include <utility>

namespace smelt::lower {
namespace {

// Per expr node: the kernel variables its value depends on (through an index
// map, a valid mask or an operand).
std::vector<uint64_t> node_vars(const ir::Kernel& kernel) {
  std::vector<uint64_t> vars(kernel.exprs.size(), 0);
  for (size_t i = 0; i < kernel.exprs.size(); ++i) {
    const ir::KernelExpr& e = kernel.exprs[i];
    for (ir::IndexRef ref : e.index) vars[i] |= kernel.indices.vars_used(ref);
    vars[i] |= kernel.indices.vars_used(e.valid);
    for (int operand : e.operands) vars[i] |= vars[static_cast<size_t>(operand)];
  }
  return vars;
}

int add_distinct(std::vector<int>& sides, int expr) {
  auto it = std::find(sides.begin(), sides.end(), expr);
  if (it != sides.end()) return static_cast<int>(it - sides.begin());
  sides.push_back(expr);
  return static_cast<int>(sides.size() - 1);
}

}  // namespace

std::optional<ContractionGroup> match_contraction_group(const ir::Kernel& kernel) {
  const size_t rank = kernel.space.size();
  if (rank < 2 || kernel.reduction.size() != 1 || kernel.num_vars() > 64) return std::nullopt;
  ContractionGroup group;
  group.batch.assign(kernel.space.begin(), kernel.space.end() - 2);
  group.m = kernel.space[rank - 2];
  group.n = kernel.space[rank - 1];
  group.k = kernel.reduction[0];
  const uint64_t row = uint64_t{1} << (rank - 2), col = uint64_t{1} << (rank - 1);
  const std::vector<uint64_t> vars = node_vars(kernel);
  auto float_node = [&](int e) { return ir::is_float(kernel.exprs[static_cast<size_t>(e)].dtype); };
  auto a_side = [&](int e) { return float_node(e) && !(vars[static_cast<size_t>(e)] & col); };
  auto b_side = [&](int e) { return float_node(e) && !(vars[static_cast<size_t>(e)] & row); };
  for (size_t i = 0; i < kernel.exprs.size(); ++i) {
    const ir::KernelExpr& e = kernel.exprs[i];
    if (e.kind != ir::KernelExpr::Kind::kReduce) continue;
    if (!e.contraction || e.op != ir::Op::ReduceSum || !ir::is_float(e.dtype)) return std::nullopt;
    const ir::KernelExpr& product = kernel.exprs[static_cast<size_t>(e.operands[0])];
    if (product.kind != ir::KernelExpr::Kind::kElementwise || product.op != ir::Op::Mul ||
        product.operands.size() != 2 || product.dtype != ir::DType::F32)
      return std::nullopt;
    int x = product.operands[0], y = product.operands[1];
    if (!(a_side(x) && b_side(y))) {
      if (!(a_side(y) && b_side(x))) return std::nullopt;
      std::swap(x, y);
    }
    group.terms.push_back({static_cast<int>(i), add_distinct(group.a_sides, x), add_distinct(group.b_sides, y)});
    if (vars[static_cast<size_t>(y)] & (row - 1)) group.b_sides_read_batch = true;
  }
  if (group.terms.empty()) return std::nullopt;
  return group;
}

}  // namespace smelt::lower
