#include "kernel/kernel_builder.h"

namespace smelt::kernel {

using namespace ir;  // the graph IR's vocabulary: dtypes, shapes, ops, scalars, host tensors

int KernelBuilder::append(KernelExpr e) {
  k_.exprs.push_back(std::move(e));
  return static_cast<int>(k_.exprs.size() - 1);
}

int KernelBuilder::load(int buffer, std::vector<IndexRef> index, DType dtype, IndexRef valid, double pad) {
  return append(make_load(buffer, std::move(index), dtype, valid, pad));
}

int KernelBuilder::constant(double value, DType dtype) { return append(make_constant(value, dtype)); }

int KernelBuilder::index_value(IndexRef index, DType dtype) { return append(make_index_value(index, dtype)); }

int KernelBuilder::op(Op o, std::vector<int> operands, DType dtype) {
  return append(make_elementwise(o, std::move(operands), dtype));
}

int KernelBuilder::reduce(Op o, int operand, DType dtype, bool contraction) {
  return append(make_reduce(o, operand, dtype, contraction));
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

int add_constant_buffer(KernelProgram& program, std::string name, TensorType type, ir::Literal values) {
  const int b = add_buffer(program, std::move(name), std::move(type), BufferKind::kConstant);
  program.buffers[b].values = std::move(values);
  return b;
}

}  // namespace smelt::kernel
