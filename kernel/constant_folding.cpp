#include "kernel/constant_folding.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "kernel/kernel_interpreter.h"

namespace smelt::kernel {

using namespace ir;  // the graph IR's vocabulary: dtypes, shapes, ops, scalars, host tensors

namespace {

// Elements of the distinct buffers `kernel` loads from. Asked only of an
// expansion candidate: folds_at_compile_time is on the cost model's path for
// every kernel the extraction prices.
int64_t constant_elements_read(const KernelProgram& program, const Kernel& kernel) {
  std::vector<int> buffers;
  int64_t elements = 0;
  for (const KernelExpr& e : kernel.exprs) {
    if (e.kind != KernelExpr::Kind::kLoad || std::find(buffers.begin(), buffers.end(), e.buffer) != buffers.end()) continue;
    buffers.push_back(e.buffer);
    elements += numel(program.buffers.at(static_cast<size_t>(e.buffer)).type.shape);
  }
  return elements;
}

}  // namespace

bool folds_at_compile_time(const KernelProgram& program, const Kernel& kernel) {
  bool reads_constant = false;
  for (const KernelExpr& e : kernel.exprs) {
    if (e.kind != KernelExpr::Kind::kLoad) continue;
    if (program.buffers.at(static_cast<size_t>(e.buffer)).kind != BufferKind::kConstant) return false;
    reads_constant = true;
  }
  // A scatter starts from a buffer no load names: never folded (its data is
  // large where it pays to keep it out of the program).
  if (!reads_constant || kernel.outputs.empty() || is_scatter_kernel(kernel)) return false;
  int64_t elements = 0;
  for (const KernelOutput& out : kernel.outputs) {
    const Buffer& buffer = program.buffers.at(static_cast<size_t>(out.buffer));
    if (buffer.kind != BufferKind::kIntermediate) return false;
    elements += numel(buffer.type.shape);
  }
  if (elements > kMaxFoldedElements) return false;
  // An expansion (no reduction, more out than in: a bias broadcast over a
  // whole activation) folds only where small: folded, it is a constant as
  // large as the activation, which the interpreter writes at about 0.1 us an
  // element (ResNet-50 at batch 8: its unfused program's bias broadcasts, up
  // to 1.6M elements each, took 2.5 s of a 4 s compile) and the run then
  // reads from memory in place of 64 values.
  if (kernel.reduction.empty() && elements > kMaxFoldedExpansion && elements > constant_elements_read(program, kernel))
    return false;
  const int64_t space = numel(kernel.space), reduction = std::max<int64_t>(1, numel(kernel.reduction));
  return space <= kMaxFoldedEvaluations / reduction;
}

namespace {

// The one kernel alone over the buffers it touches (its constants as inputs
// of nothing, its outputs as the program's outputs).
std::vector<HostTensor> evaluate(const KernelProgram& program, const Kernel& kernel) {
  KernelProgram alone;
  alone.kernels.push_back(kernel);
  Kernel& k = alone.kernels.back();
  std::vector<int> renumber(program.buffers.size(), -1);
  auto take = [&](int b) {
    if (renumber.at(static_cast<size_t>(b)) < 0) {
      renumber[static_cast<size_t>(b)] = static_cast<int>(alone.buffers.size());
      alone.buffers.push_back(program.buffers[static_cast<size_t>(b)]);
    }
    return renumber[static_cast<size_t>(b)];
  };
  for (KernelExpr& e : k.exprs)
    if (e.kind == KernelExpr::Kind::kLoad) e.buffer = take(e.buffer);
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    k.outputs[o].buffer = take(k.outputs[o].buffer);
    Buffer& b = alone.buffers[static_cast<size_t>(k.outputs[o].buffer)];
    b.kind = BufferKind::kOutput;
    b.io_index = static_cast<int>(o);
  }
  return run_kernels(alone, {});
}

// The kernel copies a constant buffer of its output's dtype and shape
// unchanged (an identity view or cast in the unfused program: GPT-2's 48
// weights, 0.08 s each through the interpreter): its values, shared.
std::optional<Literal> unchanged_copy(const KernelProgram& program, const Kernel& kernel) {
  if (kernel.outputs.size() != 1 || !kernel.reduction.empty()) return std::nullopt;
  const KernelOutput& out = kernel.outputs[0];
  if (out.is_scatter() || out.expr < 0) return std::nullopt;
  const KernelExpr& e = kernel.exprs.at(static_cast<size_t>(out.expr));
  if (e.kind != KernelExpr::Kind::kLoad || e.valid != kNoIndex || !e.operands.empty()) return std::nullopt;
  const Buffer& from = program.buffers.at(static_cast<size_t>(e.buffer));
  const Buffer& to = program.buffers.at(static_cast<size_t>(out.buffer));
  if (from.kind != BufferKind::kConstant || !(from.type == to.type) || e.dtype != to.type.dtype ||
      from.type.shape != kernel.space || static_cast<int64_t>(from.values.size()) != numel(kernel.space))
    return std::nullopt;
  for (size_t a = 0; a < e.index.size(); ++a) {
    const IndexPool::Node& n = kernel.indices.node(e.index[a]);
    if (n.kind != IndexPool::Kind::kVar || n.value != static_cast<int64_t>(a)) return std::nullopt;
  }
  return from.values;
}

// Drops constant buffers no kernel reads and renumbers the rest in order.
void drop_unread_constants(KernelProgram& program) {
  std::vector<bool> read(program.buffers.size(), false);
  for (const Kernel& k : program.kernels)
    for (int b : read_buffers(k)) read.at(static_cast<size_t>(b)) = true;
  std::vector<int> renumber(program.buffers.size(), -1);
  std::vector<Buffer> kept;
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    if (program.buffers[b].kind == BufferKind::kConstant && !read[b]) continue;
    renumber[b] = static_cast<int>(kept.size());
    kept.push_back(std::move(program.buffers[b]));
  }
  program.buffers = std::move(kept);
  for (Kernel& k : program.kernels) {
    for (KernelExpr& e : k.exprs)
      if (e.kind == KernelExpr::Kind::kLoad) e.buffer = renumber.at(static_cast<size_t>(e.buffer));
    for (KernelOutput& out : k.outputs) {
      out.buffer = renumber.at(static_cast<size_t>(out.buffer));
      if (out.is_scatter()) out.scatter_initial = renumber.at(static_cast<size_t>(out.scatter_initial));
    }
  }
}

}  // namespace

KernelProgram fold_constant_kernels(KernelProgram program) {
  std::vector<Kernel> kept;
  bool folded = false;
  for (Kernel& kernel : program.kernels) {
    if (!folds_at_compile_time(program, kernel)) {
      kept.push_back(std::move(kernel));
      continue;
    }
    if (std::optional<Literal> same = unchanged_copy(program, kernel)) {
      Buffer& b = program.buffers.at(static_cast<size_t>(kernel.outputs[0].buffer));
      b.kind = BufferKind::kConstant;
      b.io_index = -1;
      b.values = std::move(*same);
      folded = true;
      continue;
    }
    const std::vector<HostTensor> values = evaluate(program, kernel);
    for (size_t o = 0; o < kernel.outputs.size(); ++o) {
      Buffer& b = program.buffers.at(static_cast<size_t>(kernel.outputs[o].buffer));
      b.kind = BufferKind::kConstant;
      b.io_index = -1;
      const HostTensor& t = values[o];
      std::vector<double> folded_values(static_cast<size_t>(t.numel()));
      for (int64_t i = 0; i < t.numel(); ++i) folded_values[static_cast<size_t>(i)] = t.get(i);
      b.values = std::move(folded_values);
    }
    folded = true;
  }
  program.kernels = std::move(kept);
  if (folded) drop_unread_constants(program);
  return program;
}

}  // namespace smelt::kernel
