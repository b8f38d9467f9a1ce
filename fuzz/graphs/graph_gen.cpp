#include "fuzz/graphs/graph_gen.h"

#include <algorithm>
#include <optional>
#include <string>

#include "ir/builder.h"
#include "ir/text_format.h"

namespace smelt::fuzz {
namespace {

using ir::DType;
using ir::Op;
using ir::Shape;
using ir::Tensor;
using ir::TensorType;

constexpr int kChoicesPerStep = 16;

// A step's choices, read in order; past the end every choice is 0 (the first
// option), which is also where shrinking drives them.
class Choices {
 public:
  explicit Choices(const std::vector<int>& choices) : choices_(choices) {}
  int pick(int options) {
    if (options <= 1) return 0;
    const int raw = next_ < choices_.size() ? choices_[next_] : 0;
    ++next_;
    return raw % options;
  }
  bool coin() { return pick(2) == 1; }
  template <typename T, size_t N>
  T among(const T (&options)[N]) {
    return options[pick(static_cast<int>(N))];
  }

 private:
  const std::vector<int>& choices_;
  size_t next_ = 0;
};

bool broadcastable(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  const size_t offset = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[offset + i]) return false;
  return true;
}

std::vector<int64_t> prime_factors(int64_t n) {
  std::vector<int64_t> factors;
  for (int64_t p = 2; p * p <= n; ++p)
    for (; n % p == 0; n /= p) factors.push_back(p);
  if (n > 1) factors.push_back(n);
  return factors;
}

class GraphBuilder {
 public:
  explicit GraphBuilder(const GraphGenOptions& options) : options_(options) {}

  ir::Graph build(const GraphRecipe& recipe) {
    for (const GraphStep& step : recipe) apply(step);
    finish();
    return std::move(g_);
  }

 private:
  // ---- small random pieces ----
  DType random_dtype(Choices& c) {
    static constexpr DType kTypes[] = {DType::F32, DType::F32, DType::F32, DType::I32, DType::Bool,
                                       DType::I64, DType::F16, DType::BF16, DType::F32, DType::I32};
    return c.among(kTypes);
  }
  // 1..5 mostly, 0 now and then (empty tensors).
  int64_t random_extent(Choices& c) {
    const int i = c.pick(16);
    return i == 15 ? 0 : 1 + i % 5;
  }
  Shape random_shape(Choices& c, int min_rank = 0) {
    Shape shape(static_cast<size_t>(min_rank + c.pick(5 - min_rank)));
    for (int64_t& extent : shape) extent = random_extent(c);
    while (ir::numel(shape) > options_.max_numel) --*std::max_element(shape.begin(), shape.end());
    return shape;
  }
  double random_value(DType dtype, Choices& c) {
    static constexpr double kReals[] = {0, 1, -1.5, 2.25, 0.5, -3};
    static constexpr double kInts[] = {0, 1, -3, 7, 2};
    if (dtype == DType::Bool) return c.pick(2);
    return ir::is_float(dtype) ? c.among(kReals) : c.among(kInts);
  }
  bool fits(const Shape& shape) const { return ir::numel(shape) <= options_.max_numel; }

  // ---- operands ----
  Tensor remember(Tensor t) {
    values_.push_back(t);
    return t;
  }
  // Types are taken by value: a reference into the graph (x.type()) would
  // dangle as soon as a node is added.
  Tensor new_input(TensorType type) {
    return remember(ir::input(g_, "x" + std::to_string(num_inputs_++), type.dtype, type.shape));
  }
  Tensor scalar_constant(DType dtype, Choices& c) { return remember(ir::constant(g_, random_value(dtype, c), dtype)); }
  // A new value of `type` that depends on nothing earlier.
  Tensor fresh(TensorType type, Choices& c) {
    switch (c.pick(3)) {
      case 0: return new_input(type);
      case 1: return remember(ir::full(g_, type.shape, random_value(type.dtype, c), type.dtype));
      default: {
        Tensor scalar = scalar_constant(type.dtype, c);
        return remember(ir::broadcast(scalar, type.shape));
      }
    }
  }
  Tensor operand(int pick) {
    const int n = static_cast<int>(values_.size());
    return values_[n - 1 - pick % n];
  }
  Tensor with_dtype(Tensor x, DType dtype) { return x.dtype() == dtype ? x : remember(ir::cast(x, dtype)); }
  Tensor as_float(Tensor x, Choices& c) {
    static constexpr DType kFloats[] = {DType::F32, DType::F16, DType::BF16};
    return ir::is_float(x.dtype()) ? x : with_dtype(x, c.among(kFloats));
  }
  Tensor as_numeric(Tensor x, Choices& c) {
    static constexpr DType kNumeric[] = {DType::F32, DType::I32, DType::I64};
    return ir::is_numeric(x.dtype()) ? x : with_dtype(x, c.among(kNumeric));
  }
  // Leading axes of extent 1 up to rank `rank`.
  Tensor at_least_rank(Tensor x, size_t rank) {
    if (x.shape().size() >= rank) return x;
    Shape shape(rank - x.shape().size(), 1);
    shape.insert(shape.end(), x.shape().begin(), x.shape().end());
    return remember(ir::reshape(x, shape));
  }
  // `y` made to have `type`: broadcast and cast where it can, else a fresh value.
  Tensor fit(Tensor y, TensorType type, Choices& c) {
    if (y.shape() == type.shape) return with_dtype(y, type.dtype);
    if (broadcastable(y.shape(), type.shape)) return with_dtype(remember(ir::broadcast(y, type.shape)), type.dtype);
    return fresh(type, c);
  }
  // The second operand of a binary op on x: x itself (a value with two uses),
  // another earlier value, a broadcast scalar or a fresh value.
  Tensor partner(Tensor x, Choices& c) {
    switch (c.pick(4)) {
      case 0: return x;
      case 1: return fit(operand(c.pick(1 << 10)), x.type(), c);
      case 2: {
        Tensor scalar = scalar_constant(x.dtype(), c);
        return remember(ir::broadcast(scalar, x.shape()));
      }
      default: return fresh(x.type(), c);
    }
  }

  // ---- views; nullopt where the result would be too large ----
  std::optional<Tensor> reshape_of(Tensor x, Choices& c) {
    const int64_t n = ir::numel(x.shape());
    Shape shape;
    if (n == 0) {
      shape.resize(static_cast<size_t>(1 + c.pick(4)));
      for (int64_t& extent : shape) extent = 1 + c.pick(5);
      shape[c.pick(static_cast<int>(shape.size()))] = 0;
    } else {
      shape.assign(static_cast<size_t>(n == 1 ? c.pick(5) : 1 + c.pick(4)), 1);
      if (!shape.empty())
        for (int64_t factor : prime_factors(n)) shape[c.pick(static_cast<int>(shape.size()))] *= factor;
      if (!shape.empty() && c.pick(4) == 1) shape[c.pick(static_cast<int>(shape.size()))] = -1;  // inferred
    }
    return remember(ir::reshape(x, shape));
  }
  std::optional<Tensor> permute_of(Tensor x, Choices& c) {
    std::vector<int64_t> axes(x.shape().size()), perm;
    for (size_t i = 0; i < axes.size(); ++i) axes[i] = static_cast<int64_t>(i);
    while (!axes.empty()) {  // a Lehmer code: all-zero choices give the identity
      const auto at = axes.begin() + c.pick(static_cast<int>(axes.size()));
      perm.push_back(*at);
      axes.erase(at);
    }
    return remember(ir::permute(x, perm));
  }
  std::optional<Tensor> slice_of(Tensor x, Choices& c) {
    static constexpr int64_t kSteps[] = {1, 2, -1, 3, -2};
    std::vector<int64_t> start, stop, step;
    for (int64_t n : x.shape()) {
      const int64_t s = c.among(kSteps);
      const int span = static_cast<int>(n) + 3;
      step.push_back(s);
      // Bounds run one past either end (clamped by the op); choice 0 takes everything.
      if (s > 0) {
        start.push_back(c.pick(span) - 1);
        stop.push_back(n + 1 - c.pick(span));
      } else {
        start.push_back(n - c.pick(span));
        stop.push_back(c.pick(span) - 2);
      }
    }
    return remember(ir::slice(x, start, stop, step));
  }
  // x viewed as [.., parts, n / parts, ..] on one axis, one part taken and the
  // parts axis dropped: how exporters write chunk / split of a fused product.
  std::optional<Tensor> chunk_of(Tensor x, Choices& c) {
    const Shape shape = x.shape();  // a copy: remember() grows the graph
    if (shape.empty()) return std::nullopt;
    const size_t axis = static_cast<size_t>(c.pick(static_cast<int>(shape.size())));
    const int64_t parts = 2 + c.pick(2), n = shape[axis];
    if (n == 0 || n % parts != 0) return std::nullopt;
    Shape split(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(axis));
    split.push_back(parts);
    split.push_back(n / parts);
    split.insert(split.end(), shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, shape.end());
    const Tensor viewed = remember(ir::reshape(x, split));
    const int64_t part = c.pick(static_cast<int>(parts));
    std::vector<int64_t> start(split.size(), 0), stop(split.begin(), split.end()), step(split.size(), 1);
    start[axis] = part;
    stop[axis] = part + 1;
    Shape result = shape;
    result[axis] = n / parts;
    return remember(ir::reshape(remember(ir::slice(viewed, start, stop, step)), result));
  }
  std::optional<Tensor> pad_of(Tensor x, Choices& c) {
    std::vector<int64_t> lo, hi;
    Shape shape;
    for (int64_t n : x.shape()) {
      lo.push_back(c.pick(3));
      hi.push_back(c.pick(3));
      shape.push_back(lo.back() + n + hi.back());
    }
    if (!fits(shape)) return std::nullopt;
    return remember(ir::pad(x, lo, hi, random_value(x.dtype(), c)));
  }
  std::optional<Tensor> broadcast_of(Tensor x, Choices& c) {
    static constexpr int64_t kFromOne[] = {1, 2, 3, 0};
    Shape shape(static_cast<size_t>(c.pick(3)));
    for (int64_t& extent : shape) extent = 1 + c.pick(3);
    for (int64_t n : x.shape()) shape.push_back(n == 1 ? c.among(kFromOne) : n);
    if (!fits(shape)) return std::nullopt;
    return remember(ir::broadcast(x, shape));
  }
  std::optional<Tensor> view_of(Tensor x, int kind, Choices& c) {
    switch (kind) {
      case 0: return reshape_of(x, c);
      case 1: return permute_of(x, c);
      case 2: return slice_of(x, c);
      case 3: return pad_of(x, c);
      default: return broadcast_of(x, c);
    }
  }

  std::optional<Tensor> concat_of(Tensor x, Choices& c) {
    x = at_least_rank(x, 1);
    const size_t rank = x.shape().size();
    const auto axis = static_cast<size_t>(c.pick(static_cast<int>(rank)));
    std::vector<Tensor> parts{x};
    Shape shape = x.shape();
    for (int extra = c.pick(3); extra > 0; --extra) {
      Tensor part = x;
      switch (c.pick(4)) {
        case 0: break;  // x twice
        case 1: {
          const int64_t n = x.shape()[axis];
          part = remember(ir::slice_axis(x, static_cast<int64_t>(axis), c.pick(static_cast<int>(n) + 1), n));
          break;
        }
        case 2: {  // an earlier value of a compatible type, if there is one
          const auto compatible = [&](const Tensor& t) {
            if (t.dtype() != x.dtype() || t.shape().size() != rank) return false;
            for (size_t i = 0; i < rank; ++i)
              if (i != axis && t.shape()[i] != x.shape()[i]) return false;
            return true;
          };
          std::vector<Tensor> candidates;
          std::copy_if(values_.begin(), values_.end(), std::back_inserter(candidates), compatible);
          part = candidates[c.pick(static_cast<int>(candidates.size()))];  // x itself is always one
          break;
        }
        default: {
          Shape other = x.shape();
          other[axis] = c.pick(4);
          part = fresh({x.dtype(), other}, c);
          break;
        }
      }
      shape[axis] += part.shape()[axis];
      parts.push_back(part);
    }
    if (!fits(shape)) return std::nullopt;
    return remember(ir::concat(parts, static_cast<int64_t>(axis)));
  }

  Tensor reduce_of(Tensor x, Choices& c) {
    x = as_numeric(at_least_rank(x, 1), c);
    const int rank = static_cast<int>(x.shape().size());
    const int subset = 1 + c.pick((1 << rank) - 1);  // non-empty
    std::vector<int64_t> axes;
    for (int axis = 0; axis < rank; ++axis)
      if (subset & (1 << axis)) axes.push_back(axis);
    if (c.coin()) std::reverse(axes.begin(), axes.end());  // any order is allowed
    const bool keepdims = c.coin();
    return remember(c.coin() ? ir::reduce_max(x, axes, keepdims) : ir::reduce_sum(x, axes, keepdims));
  }

  std::optional<Tensor> matmul_of(Tensor x, Choices& c) {
    Tensor a = as_numeric(at_least_rank(x, 2), c);
    const Shape as = a.shape();
    const size_t rank = as.size();
    const int64_t m = as[rank - 2], k = as[rank - 1];
    Tensor b = a;
    switch (c.pick(3)) {
      case 0: b = fresh({a.dtype(), {k, 1 + c.pick(4)}}, c); break;
      case 1: {  // a · aᵀ: one value, two uses
        std::vector<int64_t> perm(rank);
        for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<int64_t>(i);
        std::swap(perm[rank - 1], perm[rank - 2]);
        b = remember(ir::permute(a, perm));
        break;
      }
      default: {  // batch axes that broadcast against a's
        Shape bs;
        if (c.coin()) bs.push_back(2);
        for (size_t i = 0; i + 2 < rank; ++i) {
          static constexpr int kKeep = 0, kOne = 1;
          const int how = c.pick(3);
          bs.push_back(how == kKeep ? as[i] : how == kOne ? 1 : (as[i] == 1 ? 2 : as[i]));
        }
        bs.push_back(k);
        bs.push_back(1 + c.pick(4));
        b = fresh({a.dtype(), bs}, c);
        break;
      }
    }
    const Shape bs = b.shape();
    const size_t batch = std::max(rank, bs.size()) - 2;
    Shape result;
    for (size_t i = 0; i < batch; ++i) {
      const int64_t da = i + rank - 2 >= batch ? as[i + rank - 2 - batch] : 1;
      const int64_t db = i + bs.size() - 2 >= batch ? bs[i + bs.size() - 2 - batch] : 1;
      result.push_back(da == 1 ? db : da);
    }
    result.push_back(m);
    result.push_back(bs.back());
    if (!fits(result)) return std::nullopt;
    return remember(ir::matmul(a, b));
  }

  // conv over x as [N, C, spatial...] (rank 3..5, float): groups 1, C or a
  // divisor, kernels up to 3 that fit the padded input, strides and
  // dilations 1..2, pads 0..1 on either side.
  std::optional<Tensor> conv_of(Tensor x, Choices& c) {
    if (x.shape().size() > 5) return std::nullopt;
    x = at_least_rank(as_float(x, c), 3);
    const Shape xs = x.shape();
    const size_t spatial = xs.size() - 2;
    const int64_t channels = xs[1];
    if (channels == 0) return std::nullopt;
    int64_t groups = 1;
    switch (c.pick(3)) {
      case 0: groups = channels; break;  // depthwise when the maps match
      case 1: groups = channels % 2 == 0 ? 2 : 1; break;
      default: break;
    }
    const int64_t maps = groups * (1 + c.pick(3));
    ir::ConvParams p;
    p.groups = groups;
    Shape ws{maps, channels / groups};
    for (size_t i = 0; i < spatial; ++i) {
      const int64_t lo = c.pick(2), hi = c.pick(2), padded = xs[i + 2] + lo + hi;
      int64_t k = 1 + c.pick(3), d = 1 + c.pick(2);
      if (d * (k - 1) + 1 > padded) k = 1, d = 1;
      if (padded < 1) return std::nullopt;
      p.strides.push_back(1 + c.pick(2));
      p.dilations.push_back(d);
      p.lo.push_back(lo);
      p.hi.push_back(hi);
      ws.push_back(k);
    }
    Tensor w = fresh({x.dtype(), ws}, c);
    Shape out{xs[0], maps};
    for (size_t i = 0; i < spatial; ++i)
      out.push_back((xs[i + 2] + p.lo[i] + p.hi[i] - p.dilations[i] * (ws[i + 2] - 1) - 1) / p.strides[i] + 1);
    if (!fits(out)) return std::nullopt;
    return remember(ir::conv(x, w, p));
  }

  // gather(x, indices, axis): indices of x's shape but 0 to 4 along the axis,
  // i32 or i64, a fresh input (values -8..8: negative ones count from the end,
  // some fall outside), an earlier value fitted to them, or an embedding-style
  // lookup: one index per row broadcast along the other axes.
  std::optional<Tensor> gather_of(Tensor x, Choices& c) {
    x = at_least_rank(x, 1);
    const Shape xs = x.shape();
    const auto axis = static_cast<size_t>(c.pick(static_cast<int>(xs.size())));
    Shape shape = xs;
    shape[axis] = c.pick(5);
    if (!fits(shape)) return std::nullopt;
    const DType index_type = c.coin() ? DType::I64 : DType::I32;
    Tensor indices = x;
    switch (c.pick(3)) {
      case 0: indices = new_input({index_type, shape}); break;
      case 1: indices = fit(operand(c.pick(1 << 10)), {index_type, shape}, c); break;
      default: {
        Shape rows(shape.size(), 1);
        rows[axis] = shape[axis];
        indices = remember(ir::broadcast(new_input({index_type, rows}), shape));
        break;
      }
    }
    return remember(ir::gather(x, indices, static_cast<int64_t>(axis)));
  }

  // updates written into x along one axis: as many as 0-4 along it, no more
  // than x on the others; the indices as a gather's; replaced or combined.
  std::optional<Tensor> scatter_of(Tensor x, Choices& c) {
    x = at_least_rank(x, 1);
    const Shape xs = x.shape();
    const auto axis = static_cast<size_t>(c.pick(static_cast<int>(xs.size())));
    Shape shape = xs;
    for (size_t k = 0; k < shape.size(); ++k)
      if (k != axis && c.coin()) shape[k] = c.pick(static_cast<int>(std::min<int64_t>(xs[k], 1 << 10)) + 1);
    shape[axis] = c.pick(5);
    if (!fits(shape)) return std::nullopt;
    const DType index_type = c.coin() ? DType::I64 : DType::I32;
    Tensor indices = x;
    if (c.coin()) {
      indices = new_input({index_type, shape});
    } else {
      Shape rows(shape.size(), 1);
      rows[axis] = shape[axis];
      indices = remember(ir::broadcast(new_input({index_type, rows}), shape));
    }
    Tensor updates = c.coin() ? new_input({x.dtype(), shape}) : fit(operand(c.pick(1 << 10)), {x.dtype(), shape}, c);
    static constexpr Op kScatters[] = {Op::Scatter, Op::ScatterAdd, Op::ScatterMul, Op::ScatterMax, Op::ScatterMin};
    const Op op = x.dtype() == DType::Bool ? Op::Scatter : c.among(kScatters);
    return remember(ir::scatter(x, indices, updates, static_cast<int64_t>(axis), op));
  }

  Tensor factory(Choices& c) {
    switch (c.pick(4)) {
      case 0: {
        const DType dtype = random_dtype(c);
        return remember(ir::full(g_, random_shape(c), random_value(dtype, c), dtype));
      }
      case 1: {
        static constexpr DType kNumeric[] = {DType::I32, DType::F32, DType::I64, DType::F16};
        const Shape shape = random_shape(c, 1);
        const DType dtype = c.among(kNumeric);
        return remember(ir::iota(g_, shape, c.pick(static_cast<int>(shape.size())), dtype));
      }
      case 2: return scalar_constant(random_dtype(c), c);
      default: {  // a small literal
        const DType dtype = random_dtype(c);
        Shape shape{1 + c.pick(4)};
        if (c.coin()) shape.push_back(2);
        std::vector<double> literal;
        for (int64_t i = 0; i < ir::numel(shape); ++i) literal.push_back(random_value(dtype, c));
        return remember(ir::constant(g_, literal, dtype, shape));
      }
    }
  }

  void apply(const GraphStep& step) {
    Choices c(step.choices);
    if (step.kind == StepKind::kInput) {
      const DType dtype = random_dtype(c);
      new_input({dtype, random_shape(c)});
      return;
    }
    if (step.kind == StepKind::kFactory) {
      factory(c);
      return;
    }
    if (values_.empty()) {  // the first operand: an input of a random type
      const DType dtype = random_dtype(c);
      new_input({dtype, random_shape(c)});
    }
    Tensor x = operand(step.operand);
    switch (step.kind) {
      case StepKind::kUnary: {
        static constexpr Op kOps[] = {Op::Neg, Op::Abs, Op::Relu, Op::Exp, Op::Exp2, Op::Log, Op::Log2, Op::Sin,
                                      Op::Cos, Op::Tanh, Op::Sqrt, Op::Rsqrt, Op::Recip, Op::Sigmoid, Op::Gelu, Op::Erf};
        const Op op = c.among(kOps);
        x = op == Op::Neg || op == Op::Abs || op == Op::Relu ? as_numeric(x, c) : as_float(x, c);
        remember(ir::apply(op, {x}));
        return;
      }
      case StepKind::kBinary: {
        static constexpr Op kOps[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Max, Op::Min, Op::Pow};
        const Op op = c.among(kOps);
        x = op == Op::Pow ? as_float(x, c) : as_numeric(x, c);
        remember(ir::apply(op, {x, partner(x, c)}));
        return;
      }
      case StepKind::kCompare: {
        static constexpr Op kOps[] = {Op::Lt, Op::Le, Op::Eq};
        const Op op = c.among(kOps);
        if (op != Op::Eq) x = as_numeric(x, c);
        remember(ir::apply(op, {x, partner(x, c)}));
        return;
      }
      case StepKind::kWhere: {
        Tensor condition = x;
        if (x.dtype() != DType::Bool) {
          if (c.coin()) {
            condition = remember(ir::cast(x, DType::Bool));
          } else {
            Tensor n = as_numeric(x, c);
            condition = remember(ir::lt(n, partner(n, c)));
          }
        }
        Tensor a = fit(operand(c.pick(1 << 10)), {random_dtype(c), x.shape()}, c);
        remember(ir::where(condition, a, partner(a, c)));
        return;
      }
      case StepKind::kCast: remember(ir::cast(x, random_dtype(c))); return;
      case StepKind::kReshape: reshape_of(x, c); return;
      case StepKind::kPermute: permute_of(x, c); return;
      case StepKind::kSlice: slice_of(x, c); return;
      case StepKind::kPad: pad_of(x, c); return;
      case StepKind::kBroadcast: broadcast_of(x, c); return;
      case StepKind::kConcat: concat_of(x, c); return;
      case StepKind::kReduce: reduce_of(x, c); return;
      case StepKind::kMatmul: matmul_of(x, c); return;
      case StepKind::kViewChain: {
        for (int views = 2 + c.pick(3); views > 0; --views)
          if (std::optional<Tensor> v = view_of(x, c.pick(5), c)) x = *v;
        return;
      }
      case StepKind::kChunk: chunk_of(x, c); return;
      case StepKind::kConv: conv_of(x, c); return;
      case StepKind::kGather: gather_of(x, c); return;
      case StepKind::kScatter: scatter_of(x, c); return;
      case StepKind::kOutput:
        if (g_.node(x.id).op != Op::Input) marked_outputs_.push_back(x.id);
        return;
      case StepKind::kFactory:
      case StepKind::kInput: return;
    }
  }

  // Every value that nothing consumes is an output; a graph of inputs only
  // gets one op so that it computes something.
  void finish() {
    if (values_.empty()) new_input({DType::F32, {2, 3}});
    const auto is_input = [&](ir::ValueId v) { return g_.node(v).op == Op::Input; };
    if (std::all_of(values_.begin(), values_.end(), [&](const Tensor& t) { return is_input(t.id); })) {
      Tensor x = values_.back();
      remember(x.dtype() == DType::Bool ? ir::cast(x, DType::I32) : ir::neg(x));
    }
    std::vector<bool> consumed(g_.size(), false);
    for (const ir::Node& node : g_.nodes())
      for (ir::ValueId operand_id : node.operands) consumed[operand_id] = true;
    std::vector<bool> output(g_.size(), false);
    for (size_t v = 0; v < g_.size(); ++v)
      if (!consumed[v] && !is_input(static_cast<ir::ValueId>(v))) output[v] = true;
    // Values both read by another op and stored: multi-output kernels.
    for (ir::ValueId v : marked_outputs_) output[static_cast<size_t>(v)] = true;
    for (size_t v = 0; v < g_.size(); ++v)
      if (output[v]) g_.add_output(static_cast<ir::ValueId>(v));
  }

  const GraphGenOptions& options_;
  ir::Graph g_{"random"};
  std::vector<Tensor> values_;
  std::vector<ir::ValueId> marked_outputs_;
  int num_inputs_ = 0;
};

}  // namespace

ir::Graph build_graph(const GraphRecipe& recipe, const GraphGenOptions& options) {
  return GraphBuilder(options).build(recipe);
}

rc::Gen<GraphRecipe> gen_recipe(const GraphGenOptions& options) {
  // Steps use their full ranges at any size (inRange scales with the size);
  // only the number of steps grows with it.
  const rc::Gen<GraphStep> step = rc::gen::resize(100, rc::gen::apply(
      [](int kind, int operand, std::vector<int> choices) {
        return GraphStep{static_cast<StepKind>(kind), operand, std::move(choices)};
      },
      rc::gen::inRange(0, kNumStepKinds), rc::gen::inRange(0, 8),
      rc::gen::container<std::vector<int>>(kChoicesPerStep, rc::gen::inRange(0, 1 << 12))));
  // rapidcheck's size grows from 0 to 100 over a run: short recipes first, at
  // most max_steps; shrinking drops steps.
  return rc::gen::scale(options.max_steps / 100.0, rc::gen::container<GraphRecipe>(step));
}

rc::Gen<ir::Graph> gen_graph(const GraphGenOptions& options) {
  return rc::gen::map(gen_recipe(options), [options](const GraphRecipe& recipe) { return build_graph(recipe, options); });
}

std::vector<ir::HostTensor> random_inputs(const ir::Graph& g, std::mt19937_64& rng) {
  std::vector<ir::HostTensor> inputs;
  for (ir::ValueId v : g.inputs()) inputs.push_back(ir::random_tensor(g.type(v), rng));
  return inputs;
}

void showValue(const GraphStep& step, std::ostream& os) {
  os << "{kind " << static_cast<int>(step.kind) << ", operand " << step.operand << ", choices";
  for (int choice : step.choices) os << ' ' << choice;
  os << '}';
}

}  // namespace smelt::fuzz

namespace smelt::ir {
void showValue(const Graph& g, std::ostream& os) { os << "\n" << print_graph(g); }
}  // namespace smelt::ir
