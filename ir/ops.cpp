#include "ir/ops.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace smelt::ir {
namespace {

using Operands = std::span<const TensorType>;

Inferred fail(std::string msg) { return {{}, std::move(msg)}; }
Inferred ok(DType dtype, Shape shape) { return {{dtype, std::move(shape)}, {}}; }

bool is_integral_value(double v) { return std::isfinite(v) && std::trunc(v) == v; }

std::string check_value_fits(double v, DType t) {
  if (t == DType::Bool && v != 0 && v != 1) return "a bool value must be 0 or 1 (true/false)";
  if (is_integer(t) && !is_integral_value(v))
    return "an integer value must be a finite whole number";
  if (t == DType::I32 && (v < INT32_MIN || v > INT32_MAX)) return "value out of i32 range";
  if (t == DType::I64 && std::fabs(v) > 9007199254740992.0)
    return "i64 literals are limited to |v| <= 2^53";
  return {};
}

// ---- sources ---------------------------------------------------------------

Inferred infer_input(Operands, Attrs& a) {
  if (auto e = shape_problem(a.result.shape); !e.empty()) return fail(e);
  return ok(a.result.dtype, a.result.shape);
}

Inferred infer_constant(Operands, Attrs& a) {
  if (auto e = shape_problem(a.result.shape); !e.empty()) return fail(e);
  int64_t n = numel(a.result.shape);
  if (static_cast<int64_t>(a.values.size()) != n)
    return fail("a literal of " + std::to_string(a.values.size()) + " values for shape " +
                shape_str(a.result.shape) + " (" + std::to_string(n) + " elements)");
  // Any double fits a floating-point dtype (check_value_fits): literals of
  // weights are not walked value by value.
  if (a.result.dtype == DType::Bool || is_integer(a.result.dtype))
    for (double v : a.values)
      if (auto e = check_value_fits(v, a.result.dtype); !e.empty()) return fail(e);
  return ok(a.result.dtype, a.result.shape);
}

Inferred infer_full(Operands, Attrs& a) {
  if (auto e = shape_problem(a.result.shape); !e.empty()) return fail(e);
  if (a.values.size() != 1) return fail("full takes exactly one value");
  if (auto e = check_value_fits(a.values[0], a.result.dtype); !e.empty()) return fail(e);
  return ok(a.result.dtype, a.result.shape);
}

Inferred infer_iota(Operands, Attrs& a) {
  if (auto e = shape_problem(a.result.shape); !e.empty()) return fail(e);
  int64_t rank = static_cast<int64_t>(a.result.shape.size());
  if (a.axis < 0 || a.axis >= rank)
    return fail("axis " + std::to_string(a.axis) + " out of range for rank " + std::to_string(rank));
  if (!is_numeric(a.result.dtype)) return fail("iota needs a numeric dtype");
  return ok(a.result.dtype, a.result.shape);
}

// ---- elementwise -----------------------------------------------------------

std::string check_same_shapes(Operands ops) {
  for (const auto& t : ops)
    if (t.shape != ops[0].shape)
      return "elementwise operands must have equal shapes (insert a broadcast)";
  return {};
}

Inferred infer_unary_float(Operands ops, Attrs&) {
  if (!is_float(ops[0].dtype)) return fail("expected a float operand (f32, f16, bf16)");
  return ok(ops[0].dtype, ops[0].shape);
}

Inferred infer_unary_numeric(Operands ops, Attrs&) {
  if (!is_numeric(ops[0].dtype)) return fail("expected a numeric operand, not bool");
  return ok(ops[0].dtype, ops[0].shape);
}

Inferred infer_cast(Operands ops, Attrs& a) { return ok(a.to, ops[0].shape); }

Inferred infer_binary(Operands ops, bool float_only, bool allow_bool, bool result_bool) {
  if (auto e = check_same_shapes(ops); !e.empty()) return fail(e);
  if (ops[0].dtype != ops[1].dtype) return fail("operands must have the same dtype (insert a cast)");
  if (float_only && !is_float(ops[0].dtype)) return fail("expected float operands");
  if (!allow_bool && ops[0].dtype == DType::Bool) return fail("expected numeric operands, not bool");
  return ok(result_bool ? DType::Bool : ops[0].dtype, ops[0].shape);
}
Inferred infer_arith(Operands ops, Attrs&) { return infer_binary(ops, false, false, false); }
Inferred infer_pow(Operands ops, Attrs&) { return infer_binary(ops, true, false, false); }
Inferred infer_order(Operands ops, Attrs&) { return infer_binary(ops, false, false, true); }
Inferred infer_eq(Operands ops, Attrs&) { return infer_binary(ops, false, true, true); }

Inferred infer_where(Operands ops, Attrs&) {
  if (auto e = check_same_shapes(ops); !e.empty()) return fail(e);
  if (ops[0].dtype != DType::Bool) return fail("the condition (first operand) must be bool");
  if (ops[1].dtype != ops[2].dtype) return fail("both branches must have the same dtype");
  return ok(ops[1].dtype, ops[1].shape);
}

// ---- views -----------------------------------------------------------------

Inferred infer_reshape(Operands ops, Attrs& a) {
  int64_t known = 1;
  int inferred_at = -1;
  for (size_t i = 0; i < a.shape.size(); ++i) {
    if (a.shape[i] == -1) {
      if (inferred_at >= 0) return fail("shape may contain at most one -1");
      inferred_at = static_cast<int>(i);
    } else if (a.shape[i] < 0) {
      return fail("shape " + shape_str(a.shape) + " has a negative extent");
    } else if (a.shape[i] > kMaxElements || __builtin_mul_overflow(known, a.shape[i], &known) ||
               known > kMaxElements) {
      return fail("shape " + shape_str(a.shape) + " has more than 2^53 elements");
    }
  }
  int64_t n = numel(ops[0].shape);
  if (inferred_at >= 0) {
    if (known == 0 || n % known != 0)
      return fail("cannot infer the -1 extent of " + shape_str(a.shape));
    a.shape[inferred_at] = n / known;
    known = n;
  }
  if (known != n)
    return fail("shape " + shape_str(a.shape) + " has " + std::to_string(known) +
                " elements, the operand " + std::to_string(n));
  return ok(ops[0].dtype, a.shape);
}

Inferred infer_permute(Operands ops, Attrs& a) {
  size_t rank = ops[0].shape.size();
  std::vector<bool> seen(rank, false);
  if (a.perm.size() != rank)
    return fail("perm " + ints_str(a.perm) + " must list every axis of a rank-" +
                std::to_string(rank) + " operand once");
  Shape out;
  for (int64_t p : a.perm) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p])
      return fail("perm " + ints_str(a.perm) + " is not a permutation of 0.." +
                  std::to_string(rank - 1));
    seen[p] = true;
    out.push_back(ops[0].shape[p]);
  }
  return ok(ops[0].dtype, out);
}

Inferred infer_slice(Operands ops, Attrs& a) {
  const Shape& in = ops[0].shape;
  size_t rank = in.size();
  if (a.start.size() != rank || a.stop.size() != rank || a.step.size() != rank)
    return fail("start, stop and step need one entry per axis (" + std::to_string(rank) + ")");
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t n = in[i], s = a.step[i];
    if (s == 0) return fail("step must not be 0 (axis " + std::to_string(i) + ")");
    // Out-of-range bounds are clamped; negative values are not counted from the end.
    int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? n : n - 1;
    int64_t start = std::clamp(a.start[i], lo, hi), stop = std::clamp(a.stop[i], lo, hi);
    // Unsigned magnitudes so that huge steps cannot overflow.
    int64_t span = s > 0 ? stop - start : start - stop;
    uint64_t magnitude = s > 0 ? static_cast<uint64_t>(s) : 0 - static_cast<uint64_t>(s);
    auto count = static_cast<int64_t>(span > 0 ? (static_cast<uint64_t>(span) - 1) / magnitude + 1 : 0);
    // Canonical bounds: stop lies just past the last element taken.
    if (count == 0) {
      a.start[i] = a.stop[i] = 0;
    } else {
      int64_t last = start + (count - 1) * s;
      a.start[i] = start;
      a.stop[i] = s > 0 ? last + 1 : last - 1;
    }
    out[i] = count;
  }
  return ok(ops[0].dtype, out);
}

Inferred infer_pad(Operands ops, Attrs& a) {
  const Shape& in = ops[0].shape;
  if (a.lo.size() != in.size() || a.hi.size() != in.size())
    return fail("lo and hi need one entry per axis (" + std::to_string(in.size()) + ")");
  if (a.values.size() != 1) return fail("pad takes exactly one value");
  if (auto e = check_value_fits(a.values[0], ops[0].dtype); !e.empty()) return fail(e);
  Shape out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (a.lo[i] < 0 || a.hi[i] < 0) return fail("pad amounts must be >= 0 (use slice to crop)");
    if (a.lo[i] > kMaxElements || a.hi[i] > kMaxElements) return fail("pad amounts must be <= 2^53");
    out[i] = a.lo[i] + in[i] + a.hi[i];
  }
  if (auto e = shape_problem(out); !e.empty()) return fail(e);
  return ok(ops[0].dtype, out);
}

Inferred infer_broadcast(Operands ops, Attrs& a) {
  const Shape& in = ops[0].shape;
  if (auto e = shape_problem(a.shape); !e.empty()) return fail(e);
  if (a.shape.size() < in.size())
    return fail("target shape " + shape_str(a.shape) + " has lower rank than the operand");
  size_t offset = a.shape.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i] != 1 && in[i] != a.shape[offset + i])
      return fail("cannot broadcast to " + shape_str(a.shape) + ": operand axis " +
                  std::to_string(i) + " has extent " + std::to_string(in[i]) +
                  " (must be 1 or " + std::to_string(a.shape[offset + i]) + ")");
  return ok(ops[0].dtype, a.shape);
}

Inferred infer_concat(Operands ops, Attrs& a) {
  const Shape& first = ops[0].shape;
  int64_t rank = static_cast<int64_t>(first.size());
  if (a.axis < 0 || a.axis >= rank)
    return fail("axis " + std::to_string(a.axis) + " out of range for rank " + std::to_string(rank));
  Shape out = first;
  for (size_t k = 1; k < ops.size(); ++k) {
    if (ops[k].dtype != ops[0].dtype) return fail("operands must have the same dtype");
    if (ops[k].shape.size() != first.size()) return fail("operands must have the same rank");
    for (int64_t i = 0; i < rank; ++i)
      if (i != a.axis && ops[k].shape[i] != first[i])
        return fail("operands must agree on every axis but " + std::to_string(a.axis));
    out[a.axis] += ops[k].shape[a.axis];
    if (auto e = shape_problem(out); !e.empty()) return fail(e);
  }
  return ok(ops[0].dtype, out);
}

// ---- reductions and contraction ------------------------------------------------

Inferred infer_reduce(Operands ops, Attrs& a) {
  const Shape& in = ops[0].shape;
  if (!is_numeric(ops[0].dtype)) return fail("expected a numeric operand, not bool");
  if (a.axes.empty()) return fail("axes must name at least one axis");
  std::vector<bool> reduced(in.size(), false);
  for (int64_t ax : a.axes) {
    if (ax < 0 || ax >= static_cast<int64_t>(in.size()) || reduced[ax])
      return fail("axes " + ints_str(a.axes) + " must be distinct axes of a rank-" +
                  std::to_string(in.size()) + " operand");
    reduced[ax] = true;
  }
  std::sort(a.axes.begin(), a.axes.end());
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!reduced[i]) out.push_back(in[i]);
    else if (a.keepdims) out.push_back(1);
  }
  return ok(ops[0].dtype, out);
}

Inferred infer_matmul(Operands ops, Attrs&) {
  const Shape &x = ops[0].shape, &y = ops[1].shape;
  if (x.size() < 2 || y.size() < 2) return fail("both operands need rank >= 2 ([..., M, K] x [..., K, N])");
  if (ops[0].dtype != ops[1].dtype) return fail("operands must have the same dtype");
  if (!is_numeric(ops[0].dtype)) return fail("expected numeric operands, not bool");
  int64_t k = x[x.size() - 1];
  if (y[y.size() - 2] != k)
    return fail("contracted extents differ: K=" + std::to_string(k) + " vs " +
                std::to_string(y[y.size() - 2]));
  // Batch dimensions broadcast numpy-style.
  size_t bx = x.size() - 2, by = y.size() - 2, rank = std::max(bx, by);
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t dx = i + bx >= rank ? x[i + bx - rank] : 1;
    int64_t dy = i + by >= rank ? y[i + by - rank] : 1;
    if (dx != dy && dx != 1 && dy != 1) return fail("batch dimensions do not broadcast");
    out[i] = dx == 1 ? dy : dx;
  }
  out.push_back(x[x.size() - 2]);
  out.push_back(y[y.size() - 1]);
  if (auto e = shape_problem(out); !e.empty()) return fail(e);
  return ok(ops[0].dtype, out);
}

// conv(x [N, C, in...], w [M, C / groups, k...]) → [N, M, out...]: 1 to 3
// spatial axes, one stride, dilation and pad pair per spatial axis.
Inferred infer_conv(Operands ops, Attrs& a) {
  const Shape &x = ops[0].shape, &w = ops[1].shape;
  if (x.size() < 3 || x.size() > 5) return fail("x must be [N, C, spatial...] with 1 to 3 spatial axes");
  if (w.size() != x.size()) return fail("w must be [M, C / groups, kernel...] of x's rank");
  if (ops[0].dtype != ops[1].dtype) return fail("operands must have the same dtype");
  if (!is_float(ops[0].dtype)) return fail("expected float operands");
  const size_t spatial = x.size() - 2;
  if (a.strides.size() != spatial || a.dilations.size() != spatial || a.lo.size() != spatial || a.hi.size() != spatial)
    return fail("strides, dilations, lo and hi need one value per spatial axis (" + std::to_string(spatial) + ")");
  if (a.groups < 1 || x[1] % a.groups != 0 || w[0] % a.groups != 0 || w[1] * a.groups != x[1])
    return fail("groups " + std::to_string(a.groups) + " must divide x's channels and w's maps, w's second extent being channels / groups");
  // Bounded so that window arithmetic stays far from overflow.
  constexpr int64_t kMaxWindowValue = int64_t{1} << 31;
  Shape out{x[0], w[0]};
  for (size_t i = 0; i < spatial; ++i) {
    if (a.strides[i] < 1 || a.dilations[i] < 1 || a.lo[i] < 0 || a.hi[i] < 0)
      return fail("strides and dilations must be >= 1, lo and hi >= 0");
    if (a.strides[i] > kMaxWindowValue || a.dilations[i] > kMaxWindowValue || a.lo[i] > kMaxWindowValue ||
        a.hi[i] > kMaxWindowValue || w[i + 2] > kMaxWindowValue)
      return fail("strides, dilations, pads and kernel extents must be at most 2^31");
    const int64_t padded = x[i + 2] + a.lo[i] + a.hi[i], span = a.dilations[i] * (w[i + 2] - 1) + 1;
    if (w[i + 2] < 1 || padded < span)
      return fail("the window (" + std::to_string(span) + ") is larger than the padded input (" +
                  std::to_string(padded) + ") on spatial axis " + std::to_string(i));
    out.push_back((padded - span) / a.strides[i] + 1);
  }
  if (auto e = shape_problem(out); !e.empty()) return fail(e);
  return ok(ops[0].dtype, out);
}

// gather(data, indices; axis) → indices' shape: out[p] = data[p with axis
// replaced by indices[p]] (ONNX GatherElements). Both have one rank and agree
// on every other axis (views broadcast a table to the indices' rows).
Inferred infer_gather(Operands ops, Attrs& a) {
  const Shape &data = ops[0].shape, &indices = ops[1].shape;
  const int64_t rank = static_cast<int64_t>(data.size());
  if (ops[1].dtype != DType::I32 && ops[1].dtype != DType::I64) return fail("the indices (second operand) must be i32 or i64");
  if (indices.size() != data.size()) return fail("data and indices must have the same rank");
  if (rank == 0) return fail("data must have rank >= 1");
  if (a.axis < 0 || a.axis >= rank)
    return fail("axis " + std::to_string(a.axis) + " out of range for rank " + std::to_string(rank));
  for (int64_t k = 0; k < rank; ++k)
    if (k != a.axis && data[k] != indices[k])
      return fail("data " + shape_str(data) + " and indices " + shape_str(indices) + " differ on axis " +
                  std::to_string(k) + " (only the gathered axis " + std::to_string(a.axis) + " may differ)");
  return ok(ops[0].dtype, indices);
}

// scatter(data, indices, updates; axis) → data's type: data, with each
// element p of updates written at p with axis replaced by indices[p], in
// row-major order of p (ONNX ScatterElements). indices and updates have one
// shape, of data's rank, no larger than data on the other axes.
Inferred infer_scatter(Operands ops, Attrs& a) {
  const Shape &data = ops[0].shape, &indices = ops[1].shape, &updates = ops[2].shape;
  const int64_t rank = static_cast<int64_t>(data.size());
  if (ops[1].dtype != DType::I32 && ops[1].dtype != DType::I64) return fail("the indices (second operand) must be i32 or i64");
  if (ops[2].dtype != ops[0].dtype)
    return fail("updates (" + std::string(dtype_name(ops[2].dtype)) + ") and data (" + std::string(dtype_name(ops[0].dtype)) +
                ") must have one dtype");
  if (indices != updates) return fail("indices " + shape_str(indices) + " and updates " + shape_str(updates) + " must have one shape");
  if (indices.size() != data.size()) return fail("data and indices must have the same rank");
  if (rank == 0) return fail("data must have rank >= 1");
  if (a.axis < 0 || a.axis >= rank)
    return fail("axis " + std::to_string(a.axis) + " out of range for rank " + std::to_string(rank));
  for (int64_t k = 0; k < rank; ++k)
    if (k != a.axis && indices[k] > data[k])
      return fail("indices " + shape_str(indices) + " are longer than data " + shape_str(data) + " on axis " +
                  std::to_string(k) + " (only the scattered axis " + std::to_string(a.axis) + " may be)");
  return ok(ops[0].dtype, data);
}

// scatter_add / _mul / _max / _min: as scatter, on numbers.
Inferred infer_scatter_combining(Operands ops, Attrs& a) {
  if (ops[0].dtype == DType::Bool) return fail("data must be a number type, not bool (scatter replaces bools)");
  return infer_scatter(ops, a);
}

// ---- scalar semantics --------------------------------------------------------

// Integer arithmetic wraps (two's complement), done in uint64 to avoid UB.
int64_t wrap_add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
int64_t wrap_sub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
int64_t wrap_mul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

double nan_max(double a, double b) { return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN() : std::max(a, b); }
double nan_min(double a, double b) { return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN() : std::min(a, b); }

#define REAL(expr) [](const double* x) -> double { return (expr); }
#define INT(expr) [](const int64_t* x) -> int64_t { return (expr); }

constexpr uint32_t kNone = 0;

const std::array<OpInfo, kNumOps> kTable = {{
  {Op::Input, "input", 0, OpClass::Source, kNone, infer_input, nullptr, nullptr},
  {Op::Constant, "constant", 0, OpClass::Factory, kAttrValue, infer_constant, nullptr, nullptr},
  {Op::Full, "full", 0, OpClass::Factory, kAttrValue, infer_full, nullptr, nullptr},
  {Op::Iota, "iota", 0, OpClass::Factory, kAttrAxis, infer_iota, nullptr, nullptr},
  {Op::Neg, "neg", 1, OpClass::Elementwise, kNone, infer_unary_numeric, REAL(-x[0]), INT(wrap_sub(0, x[0]))},
  {Op::Exp, "exp", 1, OpClass::Elementwise, kNone, infer_unary_float, REAL(std::exp(x[0])), nullptr},
  {Op::Exp2, "exp2", 1, OpClass::Elementwise, kNone, infer_unary_float, REAL(std::exp2(x[0])), nullptr},
  {Op::Log, "log", 1, OpClass::Elementwise, kNone, infer_unary_float, REAL(std::log(x[0])), nullptr},
  {Op::Log2, "log2", 1, OpClass::Elementwise, kNone, infer_unary_float, REAL(std::log2(x[0])), nullptr},
  {Op::Sin, "sin", 1, OpClass::Elementwise, kNone, infer_unary_float, REAL(std::sin(x[0])), nullptr},
  {Op::Cos, "cos", 1, OpClass::Elementwise, kNone, infer_unary_float, REAL(std::cos(x[0])), nullptr},
  {Op::Tanh, "tanh", 1, OpClass::Elementwise, kNone, infer_unary_float, REAL(std::tanh(x[0])), nullptr},
  {Op::Sqrt, "sqrt", 1, OpClass::Elementwise, kNone, infer_unary_float, REAL(std::sqrt(x[0])), nullptr},
  {Op::Rsqrt, "rsqrt", 1, OpClass::Elementwise, kNone, infer_unary_float, REAL(1.0 / std::sqrt(x[0])), nullptr},
  {Op::Recip, "recip", 1, OpClass::Elementwise, kNone, infer_unary_float, REAL(1.0 / x[0]), nullptr},
  {Op::Abs, "abs", 1, OpClass::Elementwise, kNone, infer_unary_numeric, REAL(std::fabs(x[0])), INT(x[0] < 0 ? wrap_sub(0, x[0]) : x[0])},
  {Op::Relu, "relu", 1, OpClass::Elementwise, kNone, infer_unary_numeric, REAL(x[0] > 0 || std::isnan(x[0]) ? x[0] : 0.0), INT(std::max<int64_t>(x[0], 0))},
  {Op::Sigmoid, "sigmoid", 1, OpClass::Elementwise, kNone, infer_unary_float, REAL(1.0 / (1.0 + std::exp(-x[0]))), nullptr},
  {Op::Gelu, "gelu", 1, OpClass::Elementwise, kNone, infer_unary_float, REAL(0.5 * x[0] * std::erfc(-x[0] * 0.70710678118654752440)), nullptr},
  {Op::Erf, "erf", 1, OpClass::Elementwise, kNone, infer_unary_float, REAL(std::erf(x[0])), nullptr},
  {Op::Cast, "cast", 1, OpClass::Elementwise, kAttrTo, infer_cast, REAL(x[0]), INT(x[0])},
  {Op::Add, "add", 2, OpClass::Elementwise, kNone, infer_arith, REAL(x[0] + x[1]), INT(wrap_add(x[0], x[1]))},
  {Op::Sub, "sub", 2, OpClass::Elementwise, kNone, infer_arith, REAL(x[0] - x[1]), INT(wrap_sub(x[0], x[1]))},
  {Op::Mul, "mul", 2, OpClass::Elementwise, kNone, infer_arith, REAL(x[0] * x[1]), INT(wrap_mul(x[0], x[1]))},
  // Integer division truncates toward zero; x/0 is 0; MIN/-1 wraps to MIN.
  {Op::Div, "div", 2, OpClass::Elementwise, kNone, infer_arith, REAL(x[0] / x[1]),
   INT(x[1] == 0 ? 0 : x[1] == -1 ? wrap_sub(0, x[0]) : x[0] / x[1])},
  {Op::Max, "max", 2, OpClass::Elementwise, kNone, infer_arith, REAL(nan_max(x[0], x[1])), INT(std::max(x[0], x[1]))},
  {Op::Min, "min", 2, OpClass::Elementwise, kNone, infer_arith, REAL(nan_min(x[0], x[1])), INT(std::min(x[0], x[1]))},
  {Op::Pow, "pow", 2, OpClass::Elementwise, kNone, infer_pow, REAL(std::pow(x[0], x[1])), nullptr},
  {Op::Lt, "lt", 2, OpClass::Elementwise, kNone, infer_order, REAL(x[0] < x[1] ? 1.0 : 0.0), INT(x[0] < x[1])},
  {Op::Le, "le", 2, OpClass::Elementwise, kNone, infer_order, REAL(x[0] <= x[1] ? 1.0 : 0.0), INT(x[0] <= x[1])},
  {Op::Eq, "eq", 2, OpClass::Elementwise, kNone, infer_eq, REAL(x[0] == x[1] ? 1.0 : 0.0), INT(x[0] == x[1])},
  {Op::Where, "where", 3, OpClass::Elementwise, kNone, infer_where, REAL(x[0] != 0 ? x[1] : x[2]), INT(x[0] != 0 ? x[1] : x[2])},
  {Op::Reshape, "reshape", 1, OpClass::View, kAttrShape, infer_reshape, nullptr, nullptr},
  {Op::Permute, "permute", 1, OpClass::View, kAttrPerm, infer_permute, nullptr, nullptr},
  {Op::Slice, "slice", 1, OpClass::View, kAttrStart | kAttrStop | kAttrStep, infer_slice, nullptr, nullptr},
  {Op::Pad, "pad", 1, OpClass::View, kAttrLo | kAttrHi | kAttrValue, infer_pad, nullptr, nullptr},
  {Op::Broadcast, "broadcast", 1, OpClass::View, kAttrShape, infer_broadcast, nullptr, nullptr},
  {Op::Concat, "concat", -1, OpClass::View, kAttrAxis, infer_concat, nullptr, nullptr},
  {Op::ReduceSum, "reduce_sum", 1, OpClass::Reduction, kAttrAxes | kAttrKeepdims, infer_reduce, nullptr, nullptr},
  {Op::ReduceMax, "reduce_max", 1, OpClass::Reduction, kAttrAxes | kAttrKeepdims, infer_reduce, nullptr, nullptr},
  {Op::Matmul, "matmul", 2, OpClass::Contraction, kNone, infer_matmul, nullptr, nullptr},
  {Op::Conv, "conv", 2, OpClass::Contraction, kAttrStrides | kAttrDilations | kAttrLo | kAttrHi | kAttrGroups,
   infer_conv, nullptr, nullptr},
  {Op::Gather, "gather", 2, OpClass::Indexed, kAttrAxis, infer_gather, nullptr, nullptr},
  {Op::Scatter, "scatter", 3, OpClass::Scatter, kAttrAxis, infer_scatter, nullptr, nullptr},
  {Op::ScatterAdd, "scatter_add", 3, OpClass::Scatter, kAttrAxis, infer_scatter_combining, nullptr, nullptr},
  {Op::ScatterMul, "scatter_mul", 3, OpClass::Scatter, kAttrAxis, infer_scatter_combining, nullptr, nullptr},
  {Op::ScatterMax, "scatter_max", 3, OpClass::Scatter, kAttrAxis, infer_scatter_combining, nullptr, nullptr},
  {Op::ScatterMin, "scatter_min", 3, OpClass::Scatter, kAttrAxis, infer_scatter_combining, nullptr, nullptr},
}};

#undef REAL
#undef INT

}  // namespace

const OpInfo& op_info(Op op) { return kTable[static_cast<size_t>(op)]; }

std::optional<Op> parse_op(std::string_view name) {
  for (const OpInfo& info : kTable)
    if (info.name == name) return info.op;
  return std::nullopt;
}

std::string_view op_class_name(OpClass c) {
  switch (c) {
    case OpClass::Source: return "source";
    case OpClass::Factory: return "factory";
    case OpClass::Elementwise: return "elementwise";
    case OpClass::View: return "view";
    case OpClass::Reduction: return "reduction";
    case OpClass::Contraction: return "contraction";
    case OpClass::Indexed: return "indexed";
    case OpClass::Scatter: return "scatter";
  }
  return "?";
}

std::optional<Op> scatter_combine(Op scatter) {
  switch (scatter) {
    case Op::ScatterAdd: return Op::Add;
    case Op::ScatterMul: return Op::Mul;
    case Op::ScatterMax: return Op::Max;
    case Op::ScatterMin: return Op::Min;
    default: return std::nullopt;
  }
}

std::string_view attr_key_name(AttrKey k) {
  switch (k) {
    case kAttrShape: return "shape";
    case kAttrTo: return "to";
    case kAttrValue: return "value";
    case kAttrAxis: return "axis";
    case kAttrPerm: return "perm";
    case kAttrAxes: return "axes";
    case kAttrKeepdims: return "keepdims";
    case kAttrStart: return "start";
    case kAttrStop: return "stop";
    case kAttrStep: return "step";
    case kAttrLo: return "lo";
    case kAttrHi: return "hi";
    case kAttrStrides: return "strides";
    case kAttrDilations: return "dilations";
    case kAttrGroups: return "groups";
  }
  return "?";
}

std::optional<AttrKey> parse_attr_key(std::string_view name) {
  for (AttrKey k : kAllAttrKeys)
    if (attr_key_name(k) == name) return k;
  return std::nullopt;
}

std::string type_str(const TensorType& t) {
  return std::string(dtype_name(t.dtype)) + shape_str(t.shape);
}

}  // namespace smelt::ir
