#include "ir/kernel_builder.h"

namespace ir {

int KernelBuilder::append(KernelExpr e) {
  k_.exprs.push_back(std::move(e));
  return static_cast<int>(k_.exprs.size() - 1);
}

int KernelBuilder::load(int buffer, std::vector<IndexRef> index, DType dtype, IndexRef valid, double pad) {
  KernelExpr e;
  e.kind = KernelExpr::Kind::kLoad;
  e.buffer = buffer;
  e.index = std::move(index);
  e.dtype = dtype;
  e.valid = valid;
  e.value = pad;
  return append(std::move(e));
}

int KernelBuilder::constant(double value, DType dtype) {
  KernelExpr e;
  e.kind = KernelExpr::Kind::kConstant;
  e.value = value;
  e.dtype = dtype;
  return append(std::move(e));
}

int KernelBuilder::index_value(IndexRef index, DType dtype) {
  KernelExpr e;
  e.kind = KernelExpr::Kind::kIndex;
  e.index = {index};
  e.dtype = dtype;
  return append(std::move(e));
}

int KernelBuilder::op(Op o, std::vector<int> operands, DType dtype) {
  KernelExpr e;
  e.kind = KernelExpr::Kind::kElementwise;
  e.op = o;
  e.operands = std::move(operands);
  e.dtype = dtype;
  if (o == Op::Cast) e.to = dtype;
  return append(std::move(e));
}

int KernelBuilder::reduce(Op o, int operand, DType dtype, bool contraction) {
  KernelExpr e;
  e.kind = KernelExpr::Kind::kReduce;
  e.op = o;
  e.operands = {operand};
  e.dtype = dtype;
  e.contraction = contraction;
  return append(std::move(e));
}

int add_buffer(KernelProgram& program, std::string name, TensorType type, BufferKind kind, int io_index) {
  Buffer buffer;
  buffer.name = std::move(name);
  buffer.type = std::move(type);
  buffer.kind = kind;
  buffer.io_index = io_index;
  program.buffers.push_back(std::move(buffer));
  return static_cast<int>(program.buffers.size() - 1);
}

int add_constant_buffer(KernelProgram& program, std::string name, TensorType type, std::vector<double> values) {
  const int b = add_buffer(program, std::move(name), std::move(type), BufferKind::kConstant);
  program.buffers[b].values = std::move(values);
  return b;
}

}  // namespace ir
