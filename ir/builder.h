#pragma once
// A builder that reads like the math:
//   smelt::ir::Graph g("silu");
//   auto h = smelt::ir::input(g, "h", smelt::ir::DType::F32, {64, 256});
//   auto s = smelt::ir::slice_axis(h, 1, 0, 128);
//   g.add_output(mul(s, sigmoid(s)));
// Every call shape-checks immediately and throws smelt::ir::ShapeError on a mismatch.
#include <initializer_list>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace smelt::ir {

// A handle to one value of a graph.
struct Tensor {
  Graph* graph = nullptr;
  ValueId id = -1;

  const TensorType& type() const { return graph->type(id); }
  const Shape& shape() const { return type().shape; }
  DType dtype() const { return type().dtype; }
  int64_t rank() const { return static_cast<int64_t>(shape().size()); }
  operator ValueId() const { return id; }
};

// Adds `op` to the graph of the first operand.
Tensor apply(Op op, std::vector<Tensor> operands, Attrs attrs = {}, std::string name = {});

// sources
Tensor input(Graph& g, std::string name, DType dtype, Shape shape);
Tensor constant(Graph& g, double value, DType dtype = DType::F32);  // a scalar
Tensor constant(Graph& g, std::vector<double> values, DType dtype, Shape shape);
Tensor full(Graph& g, Shape shape, double value, DType dtype = DType::F32);
Tensor iota(Graph& g, Shape shape, int64_t axis, DType dtype = DType::I32);

// elementwise
Tensor neg(Tensor x);
Tensor exp(Tensor x);
Tensor exp2(Tensor x);
Tensor log(Tensor x);
Tensor log2(Tensor x);
Tensor sin(Tensor x);
Tensor cos(Tensor x);
Tensor tanh(Tensor x);
Tensor sqrt(Tensor x);
Tensor rsqrt(Tensor x);
Tensor recip(Tensor x);
Tensor abs(Tensor x);
Tensor relu(Tensor x);
Tensor sigmoid(Tensor x);
Tensor gelu(Tensor x);
Tensor erf(Tensor x);
Tensor cast(Tensor x, DType to);
Tensor add(Tensor a, Tensor b);
Tensor sub(Tensor a, Tensor b);
Tensor mul(Tensor a, Tensor b);
Tensor div(Tensor a, Tensor b);
Tensor max(Tensor a, Tensor b);
Tensor min(Tensor a, Tensor b);
Tensor pow(Tensor a, Tensor b);
Tensor lt(Tensor a, Tensor b);
Tensor le(Tensor a, Tensor b);
Tensor eq(Tensor a, Tensor b);
Tensor where(Tensor cond, Tensor a, Tensor b);
inline Tensor operator-(Tensor x) { return neg(x); }
inline Tensor operator+(Tensor a, Tensor b) { return add(a, b); }
inline Tensor operator-(Tensor a, Tensor b) { return sub(a, b); }
inline Tensor operator*(Tensor a, Tensor b) { return mul(a, b); }
inline Tensor operator/(Tensor a, Tensor b) { return div(a, b); }

// views
Tensor reshape(Tensor x, Shape shape);
Tensor permute(Tensor x, std::vector<int64_t> perm);
// Slices one axis [start, stop) by step; other axes are kept whole.
Tensor slice_axis(Tensor x, int64_t axis, int64_t start, int64_t stop, int64_t step = 1);
Tensor slice(Tensor x, std::vector<int64_t> start, std::vector<int64_t> stop,
             std::vector<int64_t> step);
Tensor pad(Tensor x, std::vector<int64_t> lo, std::vector<int64_t> hi, double value = 0);
Tensor broadcast(Tensor x, Shape shape);
Tensor concat(std::vector<Tensor> xs, int64_t axis);

// reductions and contraction
Tensor reduce_sum(Tensor x, std::vector<int64_t> axes, bool keepdims = false);
Tensor reduce_max(Tensor x, std::vector<int64_t> axes, bool keepdims = false);
Tensor matmul(Tensor a, Tensor b);
// Per spatial axis of x [N, C, spatial...]: stride, dilation, padding before
// (lo) and after (hi); w is [M, C / groups, kernel...].
struct ConvParams {
  std::vector<int64_t> strides, dilations, lo, hi;  // empty: 1, 1, 0, 0 on every axis
  int64_t groups = 1;
};
Tensor conv(Tensor x, Tensor w, ConvParams params = {});

// data-dependent addressing (docs/ops.md): out[p] = data[p with `axis`
// replaced by indices[p]]; a negative index counts from the end, one out of
// range reads 0.
Tensor gather(Tensor data, Tensor indices, int64_t axis);
// data with updates[p] written at p with `axis` replaced by indices[p], in
// row-major order of p; `op` (Scatter, ScatterAdd, ScatterMul, ScatterMax,
// ScatterMin) says whether it replaces the element there or is combined with
// it. A negative index counts from the end; one out of range writes nothing.
Tensor scatter(Tensor data, Tensor indices, Tensor updates, int64_t axis, Op op = Op::Scatter);

}  // namespace smelt::ir
