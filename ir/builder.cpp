#include "ir/builder.h"

namespace smelt::ir {

Tensor apply(Op op, std::vector<Tensor> operands, Attrs attrs, std::string name) {
  if (operands.empty() || operands[0].graph == nullptr)
    throw ShapeError(std::string(op_name(op)) + ": operands must belong to a graph");
  Graph* g = operands[0].graph;
  std::vector<ValueId> ids;
  for (const Tensor& t : operands) {
    if (t.graph != g) throw ShapeError(std::string(op_name(op)) + ": operands come from different graphs");
    ids.push_back(t.id);
  }
  return {g, g->add(op, std::move(ids), std::move(attrs), std::move(name))};
}

namespace {
Tensor source(Graph& g, Op op, Attrs attrs, std::string name = {}) {
  return {&g, g.add(op, {}, std::move(attrs), std::move(name))};
}
}  // namespace

Tensor input(Graph& g, std::string name, DType dtype, Shape shape) {
  Attrs a;
  a.result = {dtype, std::move(shape)};
  return source(g, Op::Input, std::move(a), std::move(name));
}

Tensor constant(Graph& g, double value, DType dtype) { return constant(g, {value}, dtype, {}); }

Tensor constant(Graph& g, std::vector<double> values, DType dtype, Shape shape) {
  Attrs a;
  a.result = {dtype, std::move(shape)};
  a.values = std::move(values);
  return source(g, Op::Constant, std::move(a));
}

Tensor full(Graph& g, Shape shape, double value, DType dtype) {
  Attrs a;
  a.result = {dtype, std::move(shape)};
  a.values = {value};
  return source(g, Op::Full, std::move(a));
}

Tensor iota(Graph& g, Shape shape, int64_t axis, DType dtype) {
  Attrs a;
  a.result = {dtype, std::move(shape)};
  a.axis = axis;
  return source(g, Op::Iota, std::move(a));
}

Tensor neg(Tensor x) { return apply(Op::Neg, {x}); }
Tensor exp(Tensor x) { return apply(Op::Exp, {x}); }
Tensor exp2(Tensor x) { return apply(Op::Exp2, {x}); }
Tensor log(Tensor x) { return apply(Op::Log, {x}); }
Tensor log2(Tensor x) { return apply(Op::Log2, {x}); }
Tensor sin(Tensor x) { return apply(Op::Sin, {x}); }
Tensor cos(Tensor x) { return apply(Op::Cos, {x}); }
Tensor tanh(Tensor x) { return apply(Op::Tanh, {x}); }
Tensor sqrt(Tensor x) { return apply(Op::Sqrt, {x}); }
Tensor rsqrt(Tensor x) { return apply(Op::Rsqrt, {x}); }
Tensor recip(Tensor x) { return apply(Op::Recip, {x}); }
Tensor abs(Tensor x) { return apply(Op::Abs, {x}); }
Tensor relu(Tensor x) { return apply(Op::Relu, {x}); }
Tensor sigmoid(Tensor x) { return apply(Op::Sigmoid, {x}); }
Tensor gelu(Tensor x) { return apply(Op::Gelu, {x}); }
Tensor erf(Tensor x) { return apply(Op::Erf, {x}); }
Tensor cast(Tensor x, DType to) {
  Attrs a;
  a.to = to;
  return apply(Op::Cast, {x}, std::move(a));
}
Tensor add(Tensor a, Tensor b) { return apply(Op::Add, {a, b}); }
Tensor sub(Tensor a, Tensor b) { return apply(Op::Sub, {a, b}); }
Tensor mul(Tensor a, Tensor b) { return apply(Op::Mul, {a, b}); }
Tensor div(Tensor a, Tensor b) { return apply(Op::Div, {a, b}); }
Tensor max(Tensor a, Tensor b) { return apply(Op::Max, {a, b}); }
Tensor min(Tensor a, Tensor b) { return apply(Op::Min, {a, b}); }
Tensor pow(Tensor a, Tensor b) { return apply(Op::Pow, {a, b}); }
Tensor lt(Tensor a, Tensor b) { return apply(Op::Lt, {a, b}); }
Tensor le(Tensor a, Tensor b) { return apply(Op::Le, {a, b}); }
Tensor eq(Tensor a, Tensor b) { return apply(Op::Eq, {a, b}); }
Tensor where(Tensor cond, Tensor a, Tensor b) { return apply(Op::Where, {cond, a, b}); }

Tensor reshape(Tensor x, Shape shape) {
  Attrs a;
  a.shape = std::move(shape);
  return apply(Op::Reshape, {x}, std::move(a));
}

Tensor permute(Tensor x, std::vector<int64_t> perm) {
  Attrs a;
  a.perm = std::move(perm);
  return apply(Op::Permute, {x}, std::move(a));
}

Tensor slice_axis(Tensor x, int64_t axis, int64_t start, int64_t stop, int64_t step) {
  if (axis < 0 || axis >= x.rank())
    throw ShapeError("slice(" + type_str(x.type()) + "): axis " + std::to_string(axis) +
                     " out of range");
  std::vector<int64_t> starts(x.rank(), 0), stops = x.shape(), steps(x.rank(), 1);
  starts[axis] = start;
  stops[axis] = stop;
  steps[axis] = step;
  return slice(x, std::move(starts), std::move(stops), std::move(steps));
}

Tensor slice(Tensor x, std::vector<int64_t> start, std::vector<int64_t> stop,
             std::vector<int64_t> step) {
  Attrs a;
  a.start = std::move(start);
  a.stop = std::move(stop);
  a.step = std::move(step);
  return apply(Op::Slice, {x}, std::move(a));
}

Tensor pad(Tensor x, std::vector<int64_t> lo, std::vector<int64_t> hi, double value) {
  Attrs a;
  a.lo = std::move(lo);
  a.hi = std::move(hi);
  a.values = {value};
  return apply(Op::Pad, {x}, std::move(a));
}

Tensor broadcast(Tensor x, Shape shape) {
  Attrs a;
  a.shape = std::move(shape);
  return apply(Op::Broadcast, {x}, std::move(a));
}

Tensor concat(std::vector<Tensor> xs, int64_t axis) {
  Attrs a;
  a.axis = axis;
  return apply(Op::Concat, std::move(xs), std::move(a));
}

namespace {
Tensor reduce(Op op, Tensor x, std::vector<int64_t> axes, bool keepdims) {
  Attrs a;
  a.axes = std::move(axes);
  a.keepdims = keepdims;
  return apply(op, {x}, std::move(a));
}
}  // namespace

Tensor reduce_sum(Tensor x, std::vector<int64_t> axes, bool keepdims) {
  return reduce(Op::ReduceSum, x, std::move(axes), keepdims);
}
Tensor reduce_max(Tensor x, std::vector<int64_t> axes, bool keepdims) {
  return reduce(Op::ReduceMax, x, std::move(axes), keepdims);
}
Tensor matmul(Tensor a, Tensor b) { return apply(Op::Matmul, {a, b}); }

Tensor conv(Tensor x, Tensor w, ConvParams params) {
  const size_t spatial = x.rank() >= 2 ? static_cast<size_t>(x.rank() - 2) : 0;
  auto or_default = [&](std::vector<int64_t> v, int64_t fallback) {
    return v.empty() ? std::vector<int64_t>(spatial, fallback) : v;
  };
  Attrs a;
  a.strides = or_default(std::move(params.strides), 1);
  a.dilations = or_default(std::move(params.dilations), 1);
  a.lo = or_default(std::move(params.lo), 0);
  a.hi = or_default(std::move(params.hi), 0);
  a.groups = params.groups;
  return apply(Op::Conv, {x, w}, std::move(a));
}

Tensor gather(Tensor data, Tensor indices, int64_t axis) {
  Attrs a;
  a.axis = axis;
  return apply(Op::Gather, {data, indices}, std::move(a));
}

Tensor scatter(Tensor data, Tensor indices, Tensor updates, int64_t axis, Op op) {
  if (op_class(op) != OpClass::Scatter) throw ShapeError("scatter: " + std::string(op_name(op)) + " is not a scatter op");
  Attrs a;
  a.axis = axis;
  return apply(op, {data, indices, updates}, std::move(a));
}

}  // namespace smelt::ir
