#include "kernel/kernel_interpreter.h"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <string>

#include "ir/scalar.h"

namespace smelt::kernel {

using namespace ir;  // the graph IR's vocabulary: dtypes, shapes, ops, scalars, host tensors
namespace {

Scalar load(const Kernel& k, const KernelExpr& e, const HostTensor& buffer, std::span<const int64_t> vars) {
  if (e.valid != kNoIndex && !k.indices.eval(e.valid, vars)) return scalar_from_real(e.value, e.dtype);
  const Shape& shape = buffer.type.shape;
  int64_t offset = 0;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    int64_t i = k.indices.eval(e.index[axis], vars);
    if (i < 0 || i >= shape[axis])
      throw std::out_of_range("kernel " + k.name + ": load index " + std::to_string(i) +
                              " outside axis " + std::to_string(axis) + " of extent " + std::to_string(shape[axis]));
    offset = offset * shape[axis] + i;
  }
  return buffer.is_real() ? Scalar{buffer.reals[offset], 0} : Scalar{0, buffer.ints[offset]};
}

class KernelRunner {
 public:
  KernelRunner(const Kernel& k, std::vector<HostTensor>& buffers)
      : k_(k), buffers_(buffers), inner_(reduction_loop_nodes(k)), values_(k.exprs.size()),
        vars_(static_cast<size_t>(k.var_slots()), 0), indirect_var_(k.exprs.size(), -1) {
    for (size_t j = 0; j < k.indirect.size(); ++j)
      indirect_var_[static_cast<size_t>(k.indirect[j])] = kIndirectVarBase + static_cast<int>(j);
  }

  void run() {
    for (const KernelOutput& out : k_.outputs)
      if (out.is_scatter()) buffers_[out.buffer] = buffers_[out.scatter_initial];
    const int64_t elements = numel(k_.space);
    for (int64_t linear = 0; linear < elements; ++linear) {
      set_vars(k_.space, linear, 0);
      for (size_t i = 0; i < k_.exprs.size(); ++i)
        if (!inner_[i]) evaluate(i);
      for (const KernelOutput& out : k_.outputs) {
        HostTensor& target = buffers_[out.buffer];
        int64_t at = linear;
        if (out.is_scatter()) {
          at = values_[out.scatter_at].integer;
          if (at < 0) continue;  // out of range: nothing written
          if (at >= target.numel())
            throw std::out_of_range("kernel " + k_.name + ": scatter position " + std::to_string(at) + " outside " +
                                    std::to_string(target.numel()) + " elements");
        }
        const Scalar& v = values_[out.expr];
        if (is_float(k_.exprs[out.expr].dtype)) target.set(at, v.real);
        else target.set_int(at, v.integer);
      }
    }
  }

 private:
  // Row-major delinearization of `linear` into the variables from `first` on.
  void set_vars(const Shape& shape, int64_t linear, size_t first) {
    for (size_t axis = shape.size(); axis-- > 0;) {
      vars_[first + axis] = linear % shape[axis];
      linear /= shape[axis];
    }
  }

  void evaluate(size_t i) {
    const KernelExpr& e = k_.exprs[i];
    switch (e.kind) {
      case KernelExpr::Kind::kLoad: values_[i] = load(k_, e, buffers_[e.buffer], vars_); break;
      case KernelExpr::Kind::kConstant: values_[i] = scalar_from_real(e.value, e.dtype); break;
      case KernelExpr::Kind::kIndex: values_[i] = scalar_from_int(k_.indices.eval(e.index[0], vars_), e.dtype); break;
      case KernelExpr::Kind::kElementwise: {
        std::array<DType, 3> types{};
        std::array<Scalar, 3> args{};
        for (size_t j = 0; j < e.operands.size(); ++j) {
          types[j] = k_.exprs[e.operands[j]].dtype;
          args[j] = values_[e.operands[j]];
        }
        values_[i] = eval_elementwise(e.op, e.dtype, std::span(types.data(), e.operands.size()),
                                      std::span(args.data(), e.operands.size()));
        break;
      }
      case KernelExpr::Kind::kReduce: values_[i] = reduce(i); break;
    }
    // An indirect node: later loads read at its value.
    if (indirect_var_[i] >= 0) vars_[static_cast<size_t>(indirect_var_[i])] = values_[i].integer;
  }

  // Loops over the reduction domain, evaluating the inner nodes before `i`.
  // Sums accumulate in double (or wrapping int64) and round once at the end.
  Scalar reduce(size_t i) {
    const KernelExpr& e = k_.exprs[i];
    const bool real = is_float(e.dtype);
    const bool is_sum = e.op == Op::ReduceSum;
    const OpInfo& combine = op_info(is_sum ? Op::Add : Op::Max);
    double real_acc = is_sum ? 0.0 : -std::numeric_limits<double>::infinity();
    int64_t int_acc = is_sum ? 0 : (e.dtype == DType::I32 ? INT32_MIN : INT64_MIN);
    const int64_t steps = numel(k_.reduction);
    for (int64_t step = 0; step < steps; ++step) {
      set_vars(k_.reduction, step, k_.space.size());
      for (size_t j = 0; j < i; ++j)
        if (inner_[j]) evaluate(j);
      const Scalar& v = values_[e.operands[0]];
      if (real) {
        double args[2] = {real_acc, v.real};
        real_acc = combine.eval_real(args);
      } else {
        int64_t args[2] = {int_acc, v.integer};
        int_acc = combine.eval_int(args);
      }
    }
    return real ? scalar_from_real(real_acc, e.dtype) : scalar_from_int(int_acc, e.dtype);
  }

  const Kernel& k_;
  std::vector<HostTensor>& buffers_;
  std::vector<bool> inner_;
  std::vector<Scalar> values_;
  std::vector<int64_t> vars_;
  std::vector<int> indirect_var_;  // by node: the indirect variable it sets, or -1
};

}  // namespace

std::vector<HostTensor> run_kernels(const KernelProgram& program, const std::vector<HostTensor>& inputs) {
  validate(program);
  std::vector<HostTensor> buffers;
  std::vector<std::pair<int, int>> outputs;  // (io_index, buffer)
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const Buffer& buffer = program.buffers[b];
    if (buffer.kind == BufferKind::kInput) {
      if (buffer.io_index < 0 || static_cast<size_t>(buffer.io_index) >= inputs.size())
        throw std::invalid_argument("input buffer " + buffer.name + " has no input");
      const HostTensor& given = inputs[buffer.io_index];
      if (!(given.type == buffer.type))
        throw std::invalid_argument("input buffer " + buffer.name + ": expected " + type_str(buffer.type) +
                                    ", got " + type_str(given.type));
      buffers.push_back(given);
    } else if (buffer.kind == BufferKind::kConstant) {
      buffers.push_back(HostTensor::from_values(buffer.type, buffer.values));
    } else {
      buffers.push_back(HostTensor::zeros(buffer.type));
      if (buffer.kind == BufferKind::kOutput) outputs.emplace_back(buffer.io_index, static_cast<int>(b));
    }
  }
  for (const Kernel& k : program.kernels) KernelRunner(k, buffers).run();
  std::sort(outputs.begin(), outputs.end());
  std::vector<HostTensor> result;
  for (auto [io_index, b] : outputs) result.push_back(buffers[b]);
  return result;
}

}  // namespace smelt::kernel
