#include "kernel/kernel.h"

#include "error/memory_limit.h"

#include <algorithm>
#include <stdexcept>

namespace smelt::kernel {

using namespace ir;  // the graph IR's vocabulary: dtypes, shapes, ops, scalars, host tensors
namespace {

[[noreturn]] void invalid(const Kernel& k, const std::string& message) {
  throw std::invalid_argument("kernel " + k.name + ": " + message);
}

// Whether every variable of `r` is a loop variable of the kernel or one of its
// indirect variables.
bool known_vars(const Kernel& k, IndexRef r) {
  if (r == kNoIndex) return true;
  const uint64_t used = k.indices.vars_used(r);
  if (!uses_indirect_var(k.indices, r)) return k.num_vars() >= 63 || used < (uint64_t{1} << k.num_vars());
  const IndexPool::Node& n = k.indices.node(r);
  if (n.kind == IndexPool::Kind::kVar)
    return (n.value >= 0 && n.value < k.num_vars()) ||
           (is_indirect_var(n.value) && n.value - kIndirectVarBase < static_cast<int64_t>(k.indirect.size()));
  return known_vars(k, n.a) && known_vars(k, n.b) && known_vars(k, n.c);
}

void validate_kernel(const KernelProgram& program, const Kernel& k) {
  const int num_buffers = static_cast<int>(program.buffers.size());
  if (k.num_vars() > kIndirectVarBase)
    invalid(k, "more than " + std::to_string(kIndirectVarBase) + " loop variables");
  for (size_t j = 0; j < k.indirect.size(); ++j) {
    const int node = k.indirect[j];
    if (node < 0 || node >= static_cast<int>(k.exprs.size()) || !is_integer(k.exprs[node].dtype))
      invalid(k, "indirect variable g" + std::to_string(j) + " is not an integer node");
  }
  for (size_t i = 0; i < k.exprs.size(); ++i) {
    const KernelExpr& e = k.exprs[i];
    std::string where = "expr " + std::to_string(i) + ": ";
    for (int operand : e.operands)
      if (operand < 0 || operand >= static_cast<int>(i)) invalid(k, where + "operand is not an earlier expr");
    for (IndexRef r : e.index)
      if (r < 0 || static_cast<size_t>(r) >= k.indices.size()) invalid(k, where + "bad index expression");
    for (IndexRef r : e.index)
      if (!known_vars(k, r)) invalid(k, where + "index uses an unknown variable");
    if (!known_vars(k, e.valid)) invalid(k, where + "mask uses an unknown variable");
    if ((e.kind == KernelExpr::Kind::kLoad || e.kind == KernelExpr::Kind::kIndex) &&
        e.operands != indirect_operands(k, e.index, e.valid))
      invalid(k, where + "a load's or index value's operands must be the indirect nodes its expressions use");
    switch (e.kind) {
      case KernelExpr::Kind::kLoad:
        if (e.buffer < 0 || e.buffer >= num_buffers) invalid(k, where + "load of an unknown buffer");
        if (e.index.size() != program.buffers[e.buffer].type.shape.size())
          invalid(k, where + "load needs one index per buffer axis");
        break;
      case KernelExpr::Kind::kIndex:
        if (e.index.size() != 1) invalid(k, where + "an index value has one index expression");
        break;
      case KernelExpr::Kind::kElementwise:
        if (op_class(e.op) != OpClass::Elementwise) invalid(k, where + "not an elementwise op");
        if (e.operands.size() != static_cast<size_t>(op_info(e.op).arity))
          invalid(k, where + "wrong operand count");
        break;
      case KernelExpr::Kind::kReduce:
        if (k.reduction.empty()) invalid(k, where + "a reduce needs the kernel's reduction domain");
        if (e.op != Op::ReduceSum && e.op != Op::ReduceMax) invalid(k, where + "reduce op must be reduce_sum or reduce_max");
        if (e.operands.size() != 1) invalid(k, where + "a reduce has one operand");
        break;
      case KernelExpr::Kind::kConstant:
        break;
    }
  }
  if (k.outputs.empty()) invalid(k, "no outputs");
  for (const KernelOutput& out : k.outputs) {
    if (out.buffer < 0 || out.buffer >= num_buffers) invalid(k, "output to an unknown buffer");
    if (out.expr < 0 || out.expr >= static_cast<int>(k.exprs.size())) invalid(k, "output of an unknown expr");
    if (out.is_scatter()) {
      if (!is_scatter_kernel(k)) invalid(k, "a kernel's outputs all scatter or none does");
      if (!k.reduction.empty()) invalid(k, "a scatter kernel has no reduction domain");
      if (out.scatter_at >= static_cast<int>(k.exprs.size()) || k.exprs[out.scatter_at].dtype != DType::I64)
        invalid(k, "a scatter's position is not an i64 node");
      if (out.scatter_initial < 0 || out.scatter_initial >= num_buffers || out.scatter_initial == out.buffer ||
          program.buffers[out.scatter_initial].type != program.buffers[out.buffer].type)
        invalid(k, "a scatter starts from another buffer of its output's type");
    } else if (is_scatter_kernel(k)) {
      invalid(k, "a kernel's outputs all scatter or none does");
    } else if (numel(program.buffers[out.buffer].type.shape) != numel(k.space)) {
      invalid(k, "output buffer " + program.buffers[out.buffer].name + " does not match the iteration space");
    }
    if (program.buffers[out.buffer].kind == BufferKind::kInput) invalid(k, "writes an input buffer");
    if (program.buffers[out.buffer].kind == BufferKind::kConstant) invalid(k, "writes a constant buffer");
    for (const KernelExpr& e : k.exprs)
      if (e.kind == KernelExpr::Kind::kLoad && e.buffer == out.buffer && !out.is_scatter())
        invalid(k, "loads its own output " + program.buffers[out.buffer].name + " (only a scatter reads what it wrote)");
  }
}

void collect_indirect(const IndexPool& pool, IndexRef r, std::vector<int64_t>& numbers) {
  if (r == kNoIndex || !uses_indirect_var(pool, r)) return;
  const IndexPool::Node& n = pool.node(r);
  if (n.kind == IndexPool::Kind::kVar) numbers.push_back(n.value - kIndirectVarBase);
  collect_indirect(pool, n.a, numbers);
  collect_indirect(pool, n.b, numbers);
  collect_indirect(pool, n.c, numbers);
}

}  // namespace

std::vector<int> indirect_operands(const Kernel& k, const std::vector<IndexRef>& index, IndexRef valid) {
  std::vector<int64_t> numbers;
  for (IndexRef r : index) collect_indirect(k.indices, r, numbers);
  collect_indirect(k.indices, valid, numbers);
  std::vector<int> nodes;
  for (int64_t j : numbers)
    if (j >= 0 && j < static_cast<int64_t>(k.indirect.size())) nodes.push_back(k.indirect[static_cast<size_t>(j)]);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

uint64_t kernel_iterations(const Kernel& k) {
  uint64_t n = 1;
  for (const Shape* domain : {&k.space, &k.reduction})
    for (int64_t extent : *domain) n = mul_counts(n, static_cast<uint64_t>(std::max<int64_t>(extent, 0)));
  return n;
}

uint64_t program_iterations(const KernelProgram& program) {
  uint64_t n = 0;
  for (const Kernel& k : program.kernels) n = add_counts(n, kernel_iterations(k));
  return n;
}

std::vector<int> read_buffers(const Kernel& k) {
  std::vector<int> buffers;
  for (const KernelExpr& e : k.exprs)
    if (e.kind == KernelExpr::Kind::kLoad) buffers.push_back(e.buffer);
  for (const KernelOutput& out : k.outputs)
    if (out.is_scatter()) buffers.push_back(out.scatter_initial);
  std::sort(buffers.begin(), buffers.end());
  buffers.erase(std::unique(buffers.begin(), buffers.end()), buffers.end());
  return buffers;
}

std::vector<std::string> kernel_var_names(const Kernel& k) {
  std::vector<std::string> names;
  for (size_t i = 0; i < k.space.size(); ++i) names.push_back("i" + std::to_string(i));
  for (size_t i = 0; i < k.reduction.size(); ++i) names.push_back("r" + std::to_string(i));
  if (k.indirect.empty()) return names;
  while (names.size() < static_cast<size_t>(kIndirectVarBase)) names.push_back("unused" + std::to_string(names.size()));
  for (size_t j = 0; j < k.indirect.size(); ++j) names.push_back("g" + std::to_string(j));
  return names;
}

KernelExpr make_load(int buffer, std::vector<IndexRef> index, DType dtype, IndexRef valid, double pad) {
  KernelExpr e;
  e.kind = KernelExpr::Kind::kLoad;
  e.buffer = buffer;
  e.index = std::move(index);
  e.dtype = dtype;
  e.valid = valid;
  e.value = valid == kNoIndex ? 0 : pad;  // the pad value only matters under a mask
  return e;
}

KernelExpr make_constant(double value, DType dtype) {
  KernelExpr e;
  e.kind = KernelExpr::Kind::kConstant;
  e.value = value;
  e.dtype = dtype;
  return e;
}

KernelExpr make_index_value(IndexRef index, DType dtype) {
  KernelExpr e;
  e.kind = KernelExpr::Kind::kIndex;
  e.index = {index};
  e.dtype = dtype;
  return e;
}

KernelExpr make_elementwise(Op op, std::vector<int> operands, DType dtype) {
  KernelExpr e;
  e.kind = KernelExpr::Kind::kElementwise;
  e.op = op;
  e.operands = std::move(operands);
  e.dtype = dtype;
  if (op == Op::Cast) e.to = dtype;
  return e;
}

KernelExpr make_reduce(Op op, int operand, DType dtype, bool contraction) {
  KernelExpr e;
  e.kind = KernelExpr::Kind::kReduce;
  e.op = op;
  e.operands = {operand};
  e.dtype = dtype;
  e.contraction = contraction;
  return e;
}

void validate(const KernelProgram& program) {
  for (const Buffer& b : program.buffers)
    if (b.kind == BufferKind::kConstant && static_cast<int64_t>(b.values.size()) != numel(b.type.shape))
      throw std::invalid_argument("constant buffer " + b.name + ": " + std::to_string(b.values.size()) +
                                  " values for " + type_str(b.type));
  for (const Kernel& k : program.kernels) validate_kernel(program, k);
}

std::string print_program(const KernelProgram& program) {
  std::string out;
  for (const Buffer& b : program.buffers) {
    const char* kind = b.kind == BufferKind::kInput      ? "input"
                       : b.kind == BufferKind::kOutput   ? "output"
                       : b.kind == BufferKind::kConstant ? "constant"
                                                         : "temp";
    out += "buffer " + b.name + " : " + type_str(b.type) + " (" + kind + ")";
    if (b.kind == BufferKind::kConstant) {  // the first values of the literal
      out += " =";
      for (size_t i = 0; i < b.values.size() && i < 8; ++i) out += " " + std::to_string(b.values[i]);
      if (b.values.size() > 8) out += " ... (" + std::to_string(b.values.size()) + " values)";
    }
    out += "\n";
  }
  for (const Kernel& k : program.kernels) {
    std::vector<std::string> names = kernel_var_names(k);
    out += "\nkernel " + k.name + " over " + shape_str(k.space);
    if (!k.reduction.empty()) out += " reducing " + shape_str(k.reduction);
    out += "\n";
    for (size_t i = 0; i < k.exprs.size(); ++i) {
      const KernelExpr& e = k.exprs[i];
      out += "  %" + std::to_string(i) + " : " + std::string(dtype_name(e.dtype)) + " = ";
      auto operands = [&] {
        std::string s;
        for (size_t j = 0; j < e.operands.size(); ++j) s += (j ? ", %" : "%") + std::to_string(e.operands[j]);
        return s;
      };
      switch (e.kind) {
        case KernelExpr::Kind::kLoad: {
          out += "load " + program.buffers[e.buffer].name + "[";
          for (size_t j = 0; j < e.index.size(); ++j) out += (j ? ", " : "") + k.indices.str(e.index[j], names);
          out += "]";
          if (e.valid != kNoIndex) out += " if " + k.indices.str(e.valid, names) + " else " + std::to_string(e.value);
          break;
        }
        case KernelExpr::Kind::kConstant: out += "const " + std::to_string(e.value); break;
        case KernelExpr::Kind::kIndex: out += "index " + k.indices.str(e.index[0], names); break;
        case KernelExpr::Kind::kElementwise:
          out += std::string(op_name(e.op)) + "(" + operands() + ")";
          if (e.op == Op::Cast) out += " to " + std::string(dtype_name(e.to));
          break;
        case KernelExpr::Kind::kReduce:
          out += std::string(op_name(e.op)) + (e.contraction ? "[contraction]" : "") + " over r: " + operands();
          break;
      }
      out += "\n";
    }
    for (const KernelOutput& o : k.outputs)
      out += "  store " + program.buffers[o.buffer].name +
             (o.is_scatter() ? "[at %" + std::to_string(o.scatter_at) + ", in order; first a copy of " +
                                   program.buffers[o.scatter_initial].name + "]"
                             : "") +
             " = %" + std::to_string(o.expr) + "\n";
  }
  return out;
}

bool uses_var_at_least(const IndexPool& pool, IndexRef r, int first) {
  if (r == kNoIndex) return false;
  const IndexPool::Node& n = pool.node(r);
  if (n.kind == IndexPool::Kind::kVar) return n.value >= first;
  return uses_var_at_least(pool, n.a, first) || uses_var_at_least(pool, n.b, first) ||
         uses_var_at_least(pool, n.c, first);
}

std::optional<int64_t> load_offset_coefficient(const Kernel& kernel, const KernelExpr& load, const Shape& buffer_shape,
                                               int var) {
  int64_t coefficient = 0, axis_stride = 1;
  for (size_t a = load.index.size(); a-- > 0;) {
    const std::optional<int64_t> c = kernel.indices.coefficient(load.index[a], var);
    if (!c) return std::nullopt;
    coefficient += *c * axis_stride;
    axis_stride *= a < buffer_shape.size() ? buffer_shape[a] : 1;
  }
  return coefficient;
}

std::vector<bool> reduction_loop_nodes(const Kernel& k) {
  // Bits of the reduction variables (at most kIndirectVarBase loop variables).
  const int loop_vars = std::min(k.num_vars(), kIndirectVarBase);
  const uint64_t reduction_vars = ((uint64_t{1} << loop_vars) - 1) & ~((uint64_t{1} << std::min<size_t>(k.space.size(), kIndirectVarBase)) - 1);
  std::vector<bool> inner(k.exprs.size(), false);
  for (size_t i = 0; i < k.exprs.size(); ++i) {
    const KernelExpr& e = k.exprs[i];
    switch (e.kind) {
      case KernelExpr::Kind::kLoad:
      case KernelExpr::Kind::kIndex:
        for (int operand : e.operands) inner[i] = inner[i] || inner[operand];  // indirect nodes
        for (IndexRef r : e.index) inner[i] = inner[i] || (k.indices.vars_used(r) & reduction_vars) != 0;
        inner[i] = inner[i] || (k.indices.vars_used(e.valid) & reduction_vars) != 0;
        break;
      case KernelExpr::Kind::kElementwise:
        for (int operand : e.operands) inner[i] = inner[i] || inner[operand];
        for (int operand : e.operands)
          if (inner[i] && k.exprs[operand].kind == KernelExpr::Kind::kReduce)
            throw std::invalid_argument("kernel " + k.name + ": a reduce feeds another reduce's body");
        break;
      case KernelExpr::Kind::kReduce:
      case KernelExpr::Kind::kConstant:
        break;
    }
  }
  // Loop-invariant nodes used only inside reduce bodies also run inside the
  // loop: hoisted out, they would run even when the reduction domain is empty
  // (and read an empty buffer). Walk back from the outputs without entering
  // reduce bodies; whatever is not reached runs inside.
  std::vector<bool> needed_outside(k.exprs.size(), false);
  for (const KernelOutput& out : k.outputs) {
    needed_outside[out.expr] = true;
    if (out.is_scatter()) needed_outside[out.scatter_at] = true;
  }
  for (size_t i = k.exprs.size(); i-- > 0;) {
    if (!needed_outside[i] || k.exprs[i].kind == KernelExpr::Kind::kReduce) continue;
    for (int operand : k.exprs[i].operands) needed_outside[operand] = true;
  }
  for (size_t i = 0; i < k.exprs.size(); ++i)
    if (k.exprs[i].kind != KernelExpr::Kind::kReduce && !needed_outside[i]) inner[i] = true;
  return inner;
}

}  // namespace smelt::kernel
