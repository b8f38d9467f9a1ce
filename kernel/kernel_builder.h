#pragma once
// Appends nodes to a Kernel's expression DAG; returns each node's number.
#include <string>
#include <utility>
#include <vector>

#include "kernel/kernel.h"

namespace smelt::kernel {

class KernelBuilder {
 public:
  explicit KernelBuilder(Kernel& kernel) : k_(kernel) {}

  int load(int buffer, std::vector<IndexRef> index, DType dtype, IndexRef valid = kNoIndex, double pad = 0);
  int constant(double value, DType dtype);
  int index_value(IndexRef index, DType dtype);
  // Elementwise op; for cast, `dtype` is the target.
  int op(Op op, std::vector<int> operands, DType dtype);
  int reduce(Op op, int operand, DType dtype, bool contraction = false);
  void output(int buffer, int expr) { k_.outputs.push_back({buffer, expr}); }

  IndexPool& indices() { return k_.indices; }
  IndexRef var(int number) { return k_.indices.var(number); }
  IndexRef constant_index(int64_t v) { return k_.indices.constant(v); }

 private:
  int append(KernelExpr e);
  Kernel& k_;
};

// Adds a buffer to the program and returns its number.
int add_buffer(KernelProgram& program, std::string name, TensorType type, BufferKind kind, int io_index = -1);
// Adds a kConstant buffer holding `values` (row-major, one per element).
int add_constant_buffer(KernelProgram& program, std::string name, TensorType type, ir::Literal values);

}  // namespace smelt::kernel
