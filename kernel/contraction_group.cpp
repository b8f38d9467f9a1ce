#include "kernel/contraction_group.h"

#include <algorithm>
#include <utility>

namespace smelt::kernel {

using namespace ir;  // the graph IR's vocabulary: dtypes, shapes, ops, scalars, host tensors
namespace {

// Per expr node: the kernel variables its value depends on (through an index
// map, a valid mask or an operand).
std::vector<uint64_t> node_vars(const kernel::Kernel& kernel) {
  std::vector<uint64_t> vars(kernel.exprs.size(), 0);
  for (size_t i = 0; i < kernel.exprs.size(); ++i) {
    const kernel::KernelExpr& e = kernel.exprs[i];
    for (kernel::IndexRef ref : e.index) vars[i] |= kernel.indices.vars_used(ref);
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

// The group when the space's last `column_axes` axes are the columns.
std::optional<ContractionGroup> match_with_columns(const kernel::Kernel& kernel, const std::vector<uint64_t>& vars,
                                                   size_t column_axes) {
  const size_t rank = kernel.space.size();
  const size_t row_axis = rank - 1 - column_axes;
  ContractionGroup group;
  group.batch.assign(kernel.space.begin(), kernel.space.begin() + static_cast<std::ptrdiff_t>(row_axis));
  group.m = kernel.space[row_axis];
  group.columns.assign(kernel.space.begin() + static_cast<std::ptrdiff_t>(row_axis) + 1, kernel.space.end());
  group.n = 1;
  for (int64_t e : group.columns) group.n *= e;
  group.k = kernel.reduction[0];
  const uint64_t row = uint64_t{1} << row_axis;
  const uint64_t col = ((uint64_t{1} << rank) - 1) & ~((row << 1) - 1);
  auto float_node = [&](int e) { return ir::is_float(kernel.exprs[static_cast<size_t>(e)].dtype); };
  auto a_side = [&](int e) { return float_node(e) && !(vars[static_cast<size_t>(e)] & col); };
  auto b_side = [&](int e) { return float_node(e) && !(vars[static_cast<size_t>(e)] & row); };
  for (size_t i = 0; i < kernel.exprs.size(); ++i) {
    const kernel::KernelExpr& e = kernel.exprs[i];
    if (e.kind != kernel::KernelExpr::Kind::kReduce) continue;
    if (!e.contraction || e.op != ir::Op::ReduceSum || !ir::is_float(e.dtype)) return std::nullopt;
    const kernel::KernelExpr& product = kernel.exprs[static_cast<size_t>(e.operands[0])];
    if (product.kind != kernel::KernelExpr::Kind::kElementwise || product.op != ir::Op::Mul ||
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

}  // namespace

std::optional<ContractionGroup> match_contraction_group(const kernel::Kernel& kernel) {
  const size_t rank = kernel.space.size();
  if (rank < 2 || kernel.reduction.size() != 1 || kernel.num_vars() > 64) return std::nullopt;
  const std::vector<uint64_t> vars = node_vars(kernel);
  // One column axis (every matmul) before several (a convolution's positions).
  for (size_t column_axes = 1; column_axes + 1 <= rank && column_axes <= 3; ++column_axes)
    if (std::optional<ContractionGroup> group = match_with_columns(kernel, vars, column_axes)) return group;
  return std::nullopt;
}

namespace {

// Calls visit(node) once per node of the group's B-side subtrees; stops at the
// first visit that returns false and returns false then.
template <typename Visit>
bool every_b_side_node(const Kernel& kernel, const ContractionGroup& group, Visit visit) {
  std::vector<int> stack(group.b_sides.begin(), group.b_sides.end());
  std::vector<bool> seen(kernel.exprs.size(), false);
  while (!stack.empty()) {
    const int e = stack.back();
    stack.pop_back();
    if (seen[static_cast<size_t>(e)]) continue;
    seen[static_cast<size_t>(e)] = true;
    const KernelExpr& x = kernel.exprs[static_cast<size_t>(e)];
    if (!visit(x)) return false;
    for (int operand : x.operands) stack.push_back(operand);
  }
  return true;
}

// The variables of the group's column axes (the space's last ones), as bits.
uint64_t column_var_bits(const ContractionGroup& group) {
  const int first_column = static_cast<int>(group.batch.size()) + 1;
  uint64_t bits = 0;
  for (size_t a = 0; a < group.columns.size(); ++a) bits |= uint64_t{1} << (first_column + static_cast<int>(a));
  return bits;
}

}  // namespace

bool b_sides_are_constant(const KernelProgram& program, const Kernel& kernel, const ContractionGroup& group) {
  return every_b_side_node(kernel, group, [&](const KernelExpr& x) {
    if (x.kind == KernelExpr::Kind::kReduce) return false;
    return x.kind != KernelExpr::Kind::kLoad || program.buffers.at(static_cast<size_t>(x.buffer)).kind == BufferKind::kConstant;
  });
}

bool b_columns_are_flat(const KernelProgram& program, const Kernel& kernel, const ContractionGroup& group) {
  if (group.columns.size() < 2) return true;
  const int first_column = static_cast<int>(group.batch.size()) + 1;
  const int columns = static_cast<int>(group.columns.size());
  const uint64_t column_bits = column_var_bits(group);
  return every_b_side_node(kernel, group, [&](const KernelExpr& x) {
    if (x.kind == KernelExpr::Kind::kIndex) return (kernel.indices.vars_used(x.index.at(0)) & column_bits) == 0;
    if (x.kind != KernelExpr::Kind::kLoad) return true;
    uint64_t used = kernel.indices.vars_used(x.valid);
    for (IndexRef r : x.index) used |= kernel.indices.vars_used(r);
    if ((used & column_bits) == 0) return true;  // a value per k (a scale), not per column
    if (x.valid != kNoIndex) return false;       // a padded window
    const Shape& shape = program.buffers.at(static_cast<size_t>(x.buffer)).type.shape;
    if (shape.size() != x.index.size()) return false;
    int64_t want = 1;  // the column axis' stride in the flattened index n
    for (int a = columns - 1; a >= 0; --a) {
      if (load_offset_coefficient(kernel, x, shape, first_column + a) != std::optional<int64_t>(want)) return false;
      want *= group.columns[static_cast<size_t>(a)];
    }
    return true;
  });
}

bool b_windows_overlap(const Kernel& kernel, const ContractionGroup& group) {
  const uint64_t column_bits = column_var_bits(group);
  uint64_t reduction_bits = 0;
  for (size_t r = 0; r < kernel.reduction.size(); ++r) reduction_bits |= uint64_t{1} << (kernel.space.size() + r);
  return !every_b_side_node(kernel, group, [&](const KernelExpr& x) {
    if (x.kind != KernelExpr::Kind::kLoad) return true;
    if ((kernel.indices.vars_used(x.valid) & column_bits) != 0) return false;  // a padded window
    for (IndexRef r : x.index) {
      const uint64_t used = kernel.indices.vars_used(r);
      if ((used & column_bits) != 0 && (used & reduction_bits) != 0) return false;
    }
    return true;
  });
}

}  // namespace smelt::kernel
