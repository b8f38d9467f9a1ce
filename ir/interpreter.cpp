#include "ir/interpreter.h"

#include "error/memory_limit.h"
#include "ir/scalar.h"
#include "ir/tensor_compare.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace smelt::ir {
namespace {

// ---- strided iteration -------------------------------------------------------

// Calls body(a_offset, b_offset) for every index of `extents` in row-major order,
// where each offset is base + Σ index[k] * strides[k]. The innermost axis is a
// plain loop so the common cases stay cheap; no allocation besides the counter.
template <class Body>
void for_each_strided(const Shape& extents, int64_t a_base, const std::vector<int64_t>& a_strides,
                      int64_t b_base, const std::vector<int64_t>& b_strides, Body&& body) {
  if (numel(extents) == 0) return;
  const size_t rank = extents.size();
  if (rank == 0) {
    body(a_base, b_base);
    return;
  }
  const size_t inner = rank - 1;
  const int64_t inner_extent = extents[inner];
  const int64_t a_step = a_strides[inner], b_step = b_strides[inner];
  std::vector<int64_t> index(rank, 0);
  int64_t a_offset = a_base, b_offset = b_base;
  while (true) {
    for (int64_t i = 0; i < inner_extent; ++i) body(a_offset + i * a_step, b_offset + i * b_step);
    // Advance the odometer over the outer axes.
    size_t axis = inner;
    while (true) {
      if (axis == 0) return;
      --axis;
      ++index[axis];
      a_offset += a_strides[axis];
      b_offset += b_strides[axis];
      if (index[axis] < extents[axis]) break;
      a_offset -= index[axis] * a_strides[axis];
      b_offset -= index[axis] * b_strides[axis];
      index[axis] = 0;
    }
  }
}

// dst[dst_offset] = src[src_offset] over the index space of `extents`, on the
// widened storage that matches the dtype (both tensors share it).
void copy_strided(const HostTensor& src, int64_t src_base, const std::vector<int64_t>& src_strides,
                  HostTensor& dst, int64_t dst_base, const std::vector<int64_t>& dst_strides,
                  const Shape& extents) {
  if (src.is_real()) {
    const double* from = src.reals.data();
    double* to = dst.reals.data();
    for_each_strided(extents, src_base, src_strides, dst_base, dst_strides,
                     [&](int64_t s, int64_t d) { to[d] = from[s]; });
  } else {
    const int64_t* from = src.ints.data();
    int64_t* to = dst.ints.data();
    for_each_strided(extents, src_base, src_strides, dst_base, dst_strides,
                     [&](int64_t s, int64_t d) { to[d] = from[s]; });
  }
}

// Strides of `shape` viewed with `rank` axes right-aligned; the missing leading
// axes and the axes of extent 1 get stride 0, so they broadcast.
std::vector<int64_t> broadcast_strides(const Shape& shape, size_t rank) {
  std::vector<int64_t> own = row_major_strides(shape);
  std::vector<int64_t> result(rank, 0);
  size_t offset = rank - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) result[offset + i] = shape[i] == 1 ? 0 : own[i];
  return result;
}

// ---- sources -----------------------------------------------------------------

HostTensor eval_input(const Node& node, size_t position, const std::vector<HostTensor>& inputs) {
  const HostTensor& given = inputs[position];
  std::string which = "input '" + node.name + "' (#" + std::to_string(position) + ")";
  if (given.type != node.type)
    throw InterpretError(which + ": expected " + type_str(node.type) + ", got " +
                         type_str(given.type));
  size_t expected = static_cast<size_t>(numel(node.type.shape));
  size_t held = given.is_real() ? given.reals.size() : given.ints.size();
  if (held != expected)
    throw InterpretError(which + ": a " + type_str(given.type) + " tensor holds " +
                         std::to_string(held) + " elements, expected " + std::to_string(expected));
  return given;
}

HostTensor eval_iota(const Node& node) {
  HostTensor out = HostTensor::zeros(node.type);
  const Shape& shape = node.type.shape;
  int64_t stride = row_major_strides(shape)[node.attrs.axis];
  int64_t extent = shape[node.attrs.axis];
  for (int64_t i = 0; i < out.numel(); ++i) out.set_int(i, (i / stride) % extent);
  return out;
}

// ---- elementwise -------------------------------------------------------------

// Evaluates through the shared scalar semantics (ir/scalar.h), which pick the
// domain from the operand dtypes and convert to the result dtype.
HostTensor eval_elementwise_node(const Node& node, const std::vector<const HostTensor*>& args) {
  HostTensor out = HostTensor::zeros(node.type);
  const size_t arity = args.size();
  constexpr size_t kMaxArity = 3;
  if (arity == 0 || arity > kMaxArity)
    throw InterpretError(std::string(op_name(node.op)) + ": unexpected arity " + std::to_string(arity));
  std::array<DType, kMaxArity> types{};
  for (size_t k = 0; k < arity; ++k) types[k] = args[k]->type.dtype;
  std::array<Scalar, kMaxArity> x{};
  try {
    for (int64_t i = 0; i < out.numel(); ++i) {
      for (size_t k = 0; k < arity; ++k)
        x[k] = args[k]->is_real() ? Scalar{args[k]->reals[i], 0} : Scalar{0, args[k]->ints[i]};
      Scalar y = eval_elementwise(node.op, node.type.dtype, std::span(types.data(), arity),
                                  std::span(x.data(), arity));
      if (out.is_real()) out.reals[i] = y.real;
      else out.ints[i] = y.integer;
    }
  } catch (const std::invalid_argument& e) {
    throw InterpretError(e.what());
  }
  return out;
}

// ---- views -------------------------------------------------------------------

HostTensor eval_reshape(const Node& node, const HostTensor& x) {
  HostTensor out = x;  // row-major data is unchanged
  out.type = node.type;
  return out;
}

HostTensor eval_permute(const Node& node, const HostTensor& x) {
  // Output axis k walks input axis perm[k].
  std::vector<int64_t> in_strides = row_major_strides(x.type.shape);
  std::vector<int64_t> src_strides;
  for (int64_t p : node.attrs.perm) src_strides.push_back(in_strides[p]);
  HostTensor out = HostTensor::zeros(node.type);
  copy_strided(x, 0, src_strides, out, 0, row_major_strides(node.type.shape), node.type.shape);
  return out;
}

HostTensor eval_slice(const Node& node, const HostTensor& x) {
  // Attributes are canonical after inference: start is in range whenever the
  // output extent is non-zero, and step may be negative.
  const Attrs& a = node.attrs;
  std::vector<int64_t> in_strides = row_major_strides(x.type.shape);
  HostTensor out = HostTensor::zeros(node.type);
  if (out.numel() == 0) return out;
  int64_t base = 0;
  std::vector<int64_t> src_strides(in_strides.size());
  for (size_t k = 0; k < in_strides.size(); ++k) {
    base += a.start[k] * in_strides[k];
    src_strides[k] = a.step[k] * in_strides[k];
  }
  copy_strided(x, base, src_strides, out, 0, row_major_strides(node.type.shape), node.type.shape);
  return out;
}

HostTensor eval_pad(const Node& node, const HostTensor& x) {
  HostTensor out = HostTensor::zeros(node.type);
  const double value = node.attrs.values.at(0);
  for (int64_t i = 0; i < out.numel(); ++i) out.set(i, value);
  // Scatter the operand into the interior of the output.
  std::vector<int64_t> out_strides = row_major_strides(node.type.shape);
  int64_t base = 0;
  for (size_t k = 0; k < out_strides.size(); ++k) base += node.attrs.lo[k] * out_strides[k];
  copy_strided(x, 0, row_major_strides(x.type.shape), out, base, out_strides, x.type.shape);
  return out;
}

HostTensor eval_broadcast(const Node& node, const HostTensor& x) {
  const Shape& shape = node.type.shape;
  HostTensor out = HostTensor::zeros(node.type);
  copy_strided(x, 0, broadcast_strides(x.type.shape, shape.size()), out, 0,
               row_major_strides(shape), shape);
  return out;
}

// For each row-major element i of `indices`' shape, p its position: calls
// visit(i, offset) with the offset in a tensor of shape `target` of p with
// `axis` replaced by indices[i] (a negative index counting from the end), for
// the elements whose index lies in range (gather and scatter, docs/ops.md).
template <class Visit>
void for_each_indexed(const HostTensor& indices, const Shape& target, size_t axis, Visit visit) {
  const Shape& shape = indices.type.shape;
  const int64_t extent = target[axis];
  const std::vector<int64_t> strides = row_major_strides(target);
  std::vector<int64_t> position(shape.size(), 0);
  for (int64_t i = 0; i < indices.numel(); ++i) {
    int64_t at = indices.ints[static_cast<size_t>(i)];
    if (at < 0) at += extent;
    if (at >= 0 && at < extent) {
      int64_t offset = at * strides[axis];
      for (size_t k = 0; k < shape.size(); ++k)
        if (k != axis) offset += position[k] * strides[k];
      visit(i, offset);
    }
    for (size_t k = shape.size(); k-- > 0;) {  // the next row-major position
      if (++position[k] < shape[k]) break;
      position[k] = 0;
    }
  }
}

// gather: out[p] = x[p with axis replaced by indices[p]]; one out of range reads 0.
HostTensor eval_gather(const Node& node, const HostTensor& x, const HostTensor& indices) {
  HostTensor out = HostTensor::zeros(node.type);
  for_each_indexed(indices, x.type.shape, static_cast<size_t>(node.attrs.axis), [&](int64_t i, int64_t offset) {
    if (x.is_real()) out.reals[static_cast<size_t>(i)] = x.reals[static_cast<size_t>(offset)];
    else out.ints[static_cast<size_t>(i)] = x.ints[static_cast<size_t>(offset)];
  });
  return out;
}

// scatter ops: data, with updates[p] written at p with axis replaced by
// indices[p], in row-major order of p, replacing the element there or combined
// with it (ir::scatter_combine), each result rounded to the dtype; one out of
// range writes nothing.
HostTensor eval_scatter(const Node& node, const HostTensor& x, const HostTensor& indices, const HostTensor& updates) {
  HostTensor out = x;
  const std::optional<Op> combine = scatter_combine(node.op);
  const OpInfo* how = combine ? &op_info(*combine) : nullptr;
  for_each_indexed(indices, x.type.shape, static_cast<size_t>(node.attrs.axis), [&](int64_t i, int64_t offset) {
    const auto o = static_cast<size_t>(offset), u = static_cast<size_t>(i);
    if (out.is_real()) {
      const double args[2] = {out.reals[o], updates.reals[u]};
      out.set(offset, how ? how->eval_real(args) : args[1]);
    } else {
      const int64_t args[2] = {out.ints[o], updates.ints[u]};
      out.set_int(offset, how ? how->eval_int(args) : args[1]);
    }
  });
  return out;
}

HostTensor eval_concat(const Node& node, const std::vector<const HostTensor*>& args) {
  HostTensor out = HostTensor::zeros(node.type);
  std::vector<int64_t> out_strides = row_major_strides(node.type.shape);
  const auto axis = static_cast<size_t>(node.attrs.axis);
  int64_t position = 0;  // where along `axis` the next operand starts
  for (const HostTensor* x : args) {
    copy_strided(*x, 0, row_major_strides(x->type.shape), out, position * out_strides[axis],
                 out_strides, x->type.shape);
    position += x->type.shape[axis];
  }
  return out;
}

// ---- reductions --------------------------------------------------------------

// Folds the reduced axes with the scalar semantics of `combine` (add for sum,
// max for max), starting from `identity`. Floats accumulate in double and are
// rounded once at the end; integers wrap (add wraps in int64, which agrees with
// wrapping to i32 at the end).
HostTensor eval_reduce(const Node& node, const HostTensor& x, Op combine) {
  const OpInfo& combiner = op_info(combine);
  const Shape& in_shape = x.type.shape;
  // Input axis k moves the output offset by the stride of the output axis it
  // maps to, or not at all when it is reduced (keepdims only inserts extents of 1).
  std::vector<bool> reduced(in_shape.size(), false);
  for (int64_t axis : node.attrs.axes) reduced[axis] = true;
  Shape kept_shape;
  for (size_t k = 0; k < in_shape.size(); ++k)
    if (!reduced[k]) kept_shape.push_back(in_shape[k]);
  std::vector<int64_t> kept_strides = row_major_strides(kept_shape);
  std::vector<int64_t> out_strides(in_shape.size(), 0);
  for (size_t k = 0, kept = 0; k < in_shape.size(); ++k)
    if (!reduced[k]) out_strides[k] = kept_strides[kept++];

  HostTensor out = HostTensor::zeros(node.type);
  const int64_t n_out = out.numel();
  const std::vector<int64_t> in_strides = row_major_strides(in_shape);
  if (x.is_real()) {
    const double identity = combine == Op::Max ? -std::numeric_limits<double>::infinity() : 0.0;
    std::vector<double> acc(static_cast<size_t>(n_out), identity);
    const double* from = x.reals.data();
    for_each_strided(in_shape, 0, in_strides, 0, out_strides, [&](int64_t s, int64_t d) {
      const double args[2] = {acc[d], from[s]};
      acc[d] = combiner.eval_real(args);
    });
    for (int64_t i = 0; i < n_out; ++i) out.set(i, acc[i]);
  } else {
    // The smallest value of the dtype is the identity of max.
    int64_t identity = 0;
    if (combine == Op::Max)
      identity = x.type.dtype == DType::I32 ? std::numeric_limits<int32_t>::min()
                                            : std::numeric_limits<int64_t>::min();
    std::vector<int64_t> acc(static_cast<size_t>(n_out), identity);
    const int64_t* from = x.ints.data();
    for_each_strided(in_shape, 0, in_strides, 0, out_strides, [&](int64_t s, int64_t d) {
      const int64_t args[2] = {acc[d], from[s]};
      acc[d] = combiner.eval_int(args);
    });
    for (int64_t i = 0; i < n_out; ++i) out.set_int(i, acc[i]);
  }
  return out;
}

// ---- matmul ------------------------------------------------------------------

// [..., M, K] x [..., K, N] with numpy batch broadcasting. Each output row is
// accumulated in an i-k-j loop over contiguous rows of B: floats in double (one
// rounding to the dtype at the end), integers in uint64 so they wrap.
// Direct convolution, summed in double in (channel, kernel position) order and
// rounded once. Spatial axes are taken as three, missing ones of extent 1.
HostTensor eval_conv(const Node& node, const HostTensor& x, const HostTensor& w) {
  const Shape &xs = x.type.shape, &ws = w.type.shape, &os = node.type.shape;
  const Attrs& a = node.attrs;
  const size_t spatial = xs.size() - 2;
  std::array<int64_t, 3> in{1, 1, 1}, k{1, 1, 1}, out{1, 1, 1}, stride{1, 1, 1}, dilation{1, 1, 1}, lo{0, 0, 0};
  for (size_t i = 0; i < spatial; ++i) {
    const size_t j = 3 - spatial + i;
    in[j] = xs[i + 2], k[j] = ws[i + 2], out[j] = os[i + 2];
    stride[j] = a.strides[i], dilation[j] = a.dilations[i], lo[j] = a.lo[i];
  }
  const int64_t batch = xs[0], channels = xs[1], maps = ws[0], cg = channels / a.groups, mg = maps / a.groups;
  HostTensor result = HostTensor::zeros(node.type);
  int64_t at = 0;
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t m = 0; m < maps; ++m) {
      const int64_t first_channel = m / mg * cg;
      for (int64_t o0 = 0; o0 < out[0]; ++o0)
        for (int64_t o1 = 0; o1 < out[1]; ++o1)
          for (int64_t o2 = 0; o2 < out[2]; ++o2) {
            double sum = 0;
            // Padding reads 0 and is multiplied like any element (0·inf is NaN,
            // as compiled code and im2col-based peers compute it).
            for (int64_t c = 0; c < cg; ++c)
              for (int64_t k0 = 0; k0 < k[0]; ++k0) {
                const int64_t i0 = o0 * stride[0] + k0 * dilation[0] - lo[0];
                for (int64_t k1 = 0; k1 < k[1]; ++k1) {
                  const int64_t i1 = o1 * stride[1] + k1 * dilation[1] - lo[1];
                  for (int64_t k2 = 0; k2 < k[2]; ++k2) {
                    const int64_t i2 = o2 * stride[2] + k2 * dilation[2] - lo[2];
                    const bool inside = i0 >= 0 && i0 < in[0] && i1 >= 0 && i1 < in[1] && i2 >= 0 && i2 < in[2];
                    const int64_t xi = (((n * channels + first_channel + c) * in[0] + i0) * in[1] + i1) * in[2] + i2;
                    const int64_t wi = (((m * cg + c) * k[0] + k0) * k[1] + k1) * k[2] + k2;
                    sum += (inside ? x.reals[static_cast<size_t>(xi)] : 0.0) * w.reals[static_cast<size_t>(wi)];
                  }
                }
              }
            result.set(at++, sum);
          }
    }
  return result;
}

HostTensor eval_matmul(const Node& node, const HostTensor& a, const HostTensor& b) {
  const Shape& a_shape = a.type.shape;
  const Shape& b_shape = b.type.shape;
  const Shape& out_shape = node.type.shape;
  const int64_t m = a_shape[a_shape.size() - 2], k_extent = a_shape.back(), n = b_shape.back();
  const Shape batch_shape(out_shape.begin(), out_shape.end() - 2);
  const size_t batch_rank = batch_shape.size();

  // Element strides of each operand's batch axes, 0 where it broadcasts.
  auto batch_strides = [&](const Shape& shape) {
    Shape batch(shape.begin(), shape.end() - 2);
    std::vector<int64_t> strides = broadcast_strides(batch, batch_rank);
    for (int64_t& s : strides) s *= shape[shape.size() - 2] * shape.back();
    return strides;
  };
  const std::vector<int64_t> a_batch = batch_strides(a_shape), b_batch = batch_strides(b_shape);

  HostTensor out = HostTensor::zeros(node.type);
  const int64_t matrix = m * n;
  int64_t out_base = 0;
  if (a.is_real()) {
    std::vector<double> row(static_cast<size_t>(n));
    for_each_strided(batch_shape, 0, a_batch, 0, b_batch, [&](int64_t a_base, int64_t b_base) {
      for (int64_t i = 0; i < m; ++i) {
        std::fill(row.begin(), row.end(), 0.0);
        const double* a_row = a.reals.data() + a_base + i * k_extent;
        for (int64_t kk = 0; kk < k_extent; ++kk) {
          const double scale = a_row[kk];
          const double* b_row = b.reals.data() + b_base + kk * n;
          for (int64_t j = 0; j < n; ++j) row[j] += scale * b_row[j];
        }
        for (int64_t j = 0; j < n; ++j) out.set(out_base + i * n + j, row[j]);
      }
      out_base += matrix;
    });
  } else {
    std::vector<uint64_t> row(static_cast<size_t>(n));
    for_each_strided(batch_shape, 0, a_batch, 0, b_batch, [&](int64_t a_base, int64_t b_base) {
      for (int64_t i = 0; i < m; ++i) {
        std::fill(row.begin(), row.end(), uint64_t{0});
        const int64_t* a_row = a.ints.data() + a_base + i * k_extent;
        for (int64_t kk = 0; kk < k_extent; ++kk) {
          const auto scale = static_cast<uint64_t>(a_row[kk]);
          const int64_t* b_row = b.ints.data() + b_base + kk * n;
          for (int64_t j = 0; j < n; ++j) row[j] += scale * static_cast<uint64_t>(b_row[j]);
        }
        for (int64_t j = 0; j < n; ++j)
          out.set_int(out_base + i * n + j, static_cast<int64_t>(row[j]));
      }
      out_base += matrix;
    });
  }
  return out;
}

// ---- driver ------------------------------------------------------------------

HostTensor eval_node(const Node& node, const std::vector<const HostTensor*>& args) {
  const Attrs& a = node.attrs;
  switch (node.op) {
    case Op::Input:
      throw InterpretError("input nodes are bound by the caller");  // handled in evaluate()
    case Op::Constant: {
      HostTensor out = HostTensor::zeros(node.type);
      for (int64_t i = 0; i < out.numel(); ++i) out.set(i, a.values.at(i));
      return out;
    }
    case Op::Full: {
      HostTensor out = HostTensor::zeros(node.type);
      for (int64_t i = 0; i < out.numel(); ++i) out.set(i, a.values.at(0));
      return out;
    }
    case Op::Iota: return eval_iota(node);
    case Op::Reshape: return eval_reshape(node, *args[0]);
    case Op::Permute: return eval_permute(node, *args[0]);
    case Op::Slice: return eval_slice(node, *args[0]);
    case Op::Pad: return eval_pad(node, *args[0]);
    case Op::Broadcast: return eval_broadcast(node, *args[0]);
    case Op::Concat: return eval_concat(node, args);
    case Op::ReduceSum: return eval_reduce(node, *args[0], Op::Add);
    case Op::ReduceMax: return eval_reduce(node, *args[0], Op::Max);
    case Op::Matmul: return eval_matmul(node, *args[0], *args[1]);
    case Op::Conv: return eval_conv(node, *args[0], *args[1]);
    case Op::Gather: return eval_gather(node, *args[0], *args[1]);
    case Op::Scatter:
    case Op::ScatterAdd:
    case Op::ScatterMul:
    case Op::ScatterMax:
    case Op::ScatterMin: return eval_scatter(node, *args[0], *args[1], *args[2]);
    default: break;
  }
  if (op_class(node.op) == OpClass::Elementwise) return eval_elementwise_node(node, args);
  throw InterpretError(std::string(op_name(node.op)) + ": the interpreter does not know this op");
}

// ---- error scales ------------------------------------------------------------
//
// An element's error scale s bounds how far an honest compiled program may be
// from the reference there, in units of the dtype's relative tolerance: an
// element passes when |want - got| <= rtol * s (ir/tensor_compare.h). Inputs
// and constants are exact (s = 0); every float op adds its own error,
// own_error(dtype) x |value| (at least the dtype's smallest normal number /
// rtol: a result that small may be flushed to zero), and carries its operands'
// scales through its slope; a sum or a contraction carries its operands' errors and a
// share of the sum of the absolute values of its terms (sum_error_scale: the
// most an f32 sum in any order can lose), so an element where a long sum
// cancels is judged by the size of its terms, not by its own.
// An element whose value can jump under rounding — a comparison of two nearly
// equal values, a cast to an integer next to a step — gets s = +inf: any value
// is honest there, and the comparison counts it as unchecked.

// The smallest normal number of a float dtype (bf16 has f32's exponent range).
double smallest_normal(DType t) {
  return t == DType::F16 ? 6.103515625e-05 : static_cast<double>(std::numeric_limits<float>::min());
}

// Ops that compiled code computes by an approximation (lower/host_vector_math,
// lower/gpu_math.h: good to a few units of f32's last place, the hip
// fallback's tanh to 33) rather than one correctly rounded instruction.
bool approximated(Op op) {
  switch (op) {
    case Op::Exp: case Op::Exp2: case Op::Log: case Op::Log2: case Op::Sin: case Op::Cos: case Op::Tanh:
    case Op::Rsqrt: case Op::Sigmoid: case Op::Gelu: case Op::Erf: case Op::Pow:
      return true;
    default:
      return false;
  }
}

// An op's own error, relative to its value, in units of its dtype's rtol:
// 2 units of f32's last place (the reference rounds once, a fused kernel may
// round once more or contract into an FMA), 64 for an approximated op, or two
// of its own dtype's (the reference rounds every op to f16 / bf16, a fused
// kernel only its stores). The comparison adds rtol x |value| once, at the output.
double own_error(Op op, DType t) {
  constexpr double kF32Ulp = 5.9604644775390625e-08;  // 2^-24
  const double dtype_ulp = t == DType::F16 ? std::ldexp(1.0, -11) : t == DType::BF16 ? std::ldexp(1.0, -8) : kF32Ulp;
  return std::max((approximated(op) ? 64 : 2) * kF32Ulp, 2 * dtype_ulp) / default_tolerance(t);
}

// Scales are held as f32 tensors whatever the node's dtype (an f16 node's
// scale may pass f16's range without the value doing so).
Node scale_node(const Node& node) {
  Node copy = node;
  copy.type.dtype = DType::F32;
  if (node.op == Op::Pad) copy.attrs.values = {0.0};  // the padding value is exact
  return copy;
}

HostTensor zero_scale(const Node& node) { return HostTensor::zeros({DType::F32, node.type.shape}); }

HostTensor magnitude(const HostTensor& x) {
  HostTensor out = HostTensor::zeros({DType::F32, x.type.shape});
  for (int64_t i = 0; i < out.numel(); ++i) out.set(i, std::fabs(x.get(i)));
  return out;
}

HostTensor squared(const HostTensor& x) {
  HostTensor out = HostTensor::zeros({DType::F32, x.type.shape});
  for (int64_t i = 0; i < out.numel(); ++i) {
    const double v = x.get(i);
    out.reals[i] = v * v;  // held in double: an f32 square of a large scale overflows
  }
  return out;
}

// A sum of `count` terms of total size `terms` (Σ|term|) whose operands carry
// errors of squared size `carried_squares` (Σ of each term's error², in rtol
// units): its own error (own_error x |value|), the operands' errors added as
// independent ones (root of the sum of squares: added linearly, a 4-layer
// MLP's bound grows to a thousand times its outputs), and what summing in f32
// in another order than the reference's double sum loses. Each addition
// rounds its partial sum by up to u = 2^-24 of itself; as independent errors
// that totals about u·Σ|term| when the terms' signs vary (partial sums stay
// small) and u·sqrt(count)·|value| when they agree (partial sums grow to the
// value): four times the larger, for margin, in rtol units, never more than Σ|term|.
// (A 512-term f32 gemm element is judged by 0.24 % of its terms' size, so a
// 1 % error in an element a hundred times smaller than its terms fails.)
HostTensor sum_error_scale(const Node& node, const HostTensor& value, const HostTensor& terms,
                           const HostTensor& carried_squares, int64_t count) {
  constexpr double kUnitRoundoff = 5.9604644775390625e-08;  // 2^-24
  const double rtol = default_tolerance(node.type.dtype);
  const double of_terms = std::min(1.0, 4.0 * kUnitRoundoff / rtol);
  const double of_value = 4.0 * std::sqrt(static_cast<double>(count)) * kUnitRoundoff / rtol;
  HostTensor out = zero_scale(node);
  for (int64_t i = 0; i < out.numel(); ++i) {
    const double v = std::fabs(value.get(i));
    const double s = own_error(node.op, node.type.dtype) * v +
                     std::min(terms.reals[i], std::max(of_terms * terms.reals[i], of_value * v)) +
                     std::sqrt(std::max(0.0, carried_squares.reals[i]));
    out.reals[i] = std::isnan(s) ? std::numeric_limits<double>::infinity() : static_cast<double>(static_cast<float>(s));
  }
  return out;
}

// The error scale of an elementwise node: its slope in each real operand,
// measured on the unrounded real-domain semantics by a difference over the
// operand's own tolerance (rtol * s both ways: a secant, never smaller than the
// slope where the function bends), times that operand's scale; plus |value|.
HostTensor elementwise_error_scale(const Node& node, const std::vector<const HostTensor*>& args,
                                   const std::vector<const HostTensor*>& scales, const HostTensor& value) {
  HostTensor out = zero_scale(node);
  const OpInfo& info = op_info(node.op);
  const size_t arity = args.size();
  const size_t value_operand = node.op == Op::Where ? 1 : 0;
  const bool real_domain = args[value_operand]->is_real();
  const bool real_result = is_float(node.type.dtype);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::array<double, 3> x{}, moved{};
  // An operand that repeats an earlier one (eq(x, x): IsNaN) moves with it.
  std::array<bool, 3> repeats{};
  for (size_t k = 1; k < arity; ++k)
    for (size_t j = 0; j < k; ++j) repeats[k] = repeats[k] || node.operands[j] == node.operands[k];
  // Below the smallest normal number a result may be flushed to zero (FTZ on a
  // GPU, a clamped exp's tail): an op's own error is at least that, absolutely.
  const double own_floor = real_result ? smallest_normal(node.type.dtype) / default_tolerance(node.type.dtype) : 0.0;
  const double own = real_result ? own_error(node.op, node.type.dtype) : 0.0;
  for (int64_t i = 0; i < out.numel(); ++i) {
    // An infinite value is exact (inf is inf): no rounding of its own.
    const double v = value.get(i);
    double s = real_result && std::isfinite(v) ? std::max(own * std::fabs(v), own_floor) : 0.0;
    bool jumps = false;  // an integer or bool operand that may differ, or a result that may step
    for (size_t k = 0; k < arity; ++k) x[k] = args[k]->get(i);
    // The unrounded result the operands' moves are measured from (real domain only).
    const double at = real_domain ? info.eval_real(x.data()) : 0.0;
    if (std::isnan(at)) {  // a NaN must be matched exactly: no scale makes it pass
      out.reals[i] = 0;
      continue;
    }
    for (size_t k = 0; k < arity && !jumps; ++k) {
      const double sk = scales[k]->reals[i];
      if (sk == 0 || repeats[k]) continue;
      if (!args[k]->is_real() || !real_domain) {  // a bool or integer that may be flipped
        jumps = !(node.op == Op::Where && k == 0 && x[1] == x[2]);
        continue;
      }
      const double delta = default_tolerance(args[k]->type.dtype) * sk;
      if (!std::isfinite(delta)) {
        jumps = true;
        continue;
      }
      double slope = 0;
      for (double step : {delta, -delta}) {
        moved = x;
        for (size_t j = k; j < arity; ++j)  // one value in several operands moves as one (x == x)
          if (node.operands[j] == node.operands[k]) moved[j] += step;
        const double there = info.eval_real(moved.data());
        if (there == at) continue;  // also an infinity that stays (-inf - max: masked attention)
        if (!std::isfinite(there) || !std::isfinite(at)) {
          jumps = true;  // to or from an infinity or NaN
        } else if (!real_result) {
          // A comparison or a cast to an integer or bool: does the result step?
          if (scalar_from_real(there, node.type.dtype).integer != scalar_from_real(at, node.type.dtype).integer)
            jumps = true;
        } else {
          slope = std::max(slope, std::fabs(there - at) / delta);
        }
      }
      if (std::isnan(slope)) jumps = true;
      s += slope * sk;
    }
    out.reals[i] = jumps || std::isnan(s) ? kInf : static_cast<double>(static_cast<float>(s));
  }
  return out;
}

// A sum of `count` products a·b (a matmul, a convolution: `eval` on the
// scaled node): its terms' size Σ|a||b| and the operands' errors carried as
// Σ (s_a |b|)² + (|a| s_b)², to first order.
HostTensor product_sum_error_scale(const Node& node, const Node& scaled, const HostTensor& value,
                                   const std::vector<const HostTensor*>& args,
                                   const std::vector<const HostTensor*>& scales,
                                   HostTensor (*eval)(const Node&, const HostTensor&, const HostTensor&), int64_t count) {
  const HostTensor terms = eval(scaled, magnitude(*args[0]), magnitude(*args[1]));
  HostTensor carried = eval(scaled, squared(*scales[0]), squared(*args[1]));
  const HostTensor other = eval(scaled, squared(*args[0]), squared(*scales[1]));
  for (int64_t i = 0; i < carried.numel(); ++i) carried.reals[i] += other.reals[i];
  return sum_error_scale(node, value, terms, carried, count);
}

HostTensor eval_error_scale(const Node& node, const std::vector<const HostTensor*>& args,
                            const std::vector<const HostTensor*>& scales, const HostTensor& value) {
  const Node scaled = scale_node(node);
  const bool real = is_float(node.type.dtype);
  switch (node.op) {
    case Op::Input: case Op::Constant: case Op::Full: case Op::Iota: return zero_scale(node);
    case Op::Reshape: return eval_reshape(scaled, *scales[0]);
    case Op::Permute: return eval_permute(scaled, *scales[0]);
    case Op::Slice: return eval_slice(scaled, *scales[0]);
    case Op::Pad: return eval_pad(scaled, *scales[0]);
    case Op::Broadcast: return eval_broadcast(scaled, *scales[0]);
    case Op::Concat: return eval_concat(scaled, scales);
    // A sum: the sum of |term| + its scale; a max: the largest scale among the
    // candidates (the maximum itself is exact).
    case Op::ReduceSum: {
      if (!real) return zero_scale(node);
      const HostTensor terms = eval_reduce(scaled, magnitude(*args[0]), Op::Add);
      const HostTensor carried = eval_reduce(scaled, squared(*scales[0]), Op::Add);
      return sum_error_scale(node, value, terms, carried, numel(args[0]->type.shape) / std::max<int64_t>(1, value.numel()));
    }
    // A max: an honest maximum lies between the largest lower end and the
    // largest upper end of its candidates' bands v ± rtol·s, so only the
    // candidates near the maximum count (a causal mask's -3.4e38, whose band
    // is 1e31 wide, never reaches it).
    case Op::ReduceMax: {
      if (!real) return zero_scale(node);
      const double rtol = default_tolerance(args[0]->type.dtype);
      HostTensor upper = HostTensor::zeros(scales[0]->type), lower = HostTensor::zeros(scales[0]->type);
      for (int64_t i = 0; i < upper.numel(); ++i) {
        const double v = args[0]->get(i), e = rtol * scales[0]->reals[static_cast<size_t>(i)];
        upper.reals[static_cast<size_t>(i)] = v + e;
        lower.reals[static_cast<size_t>(i)] = v - e;
      }
      const HostTensor hi = eval_reduce(scaled, upper, Op::Max), lo = eval_reduce(scaled, lower, Op::Max);
      HostTensor out = zero_scale(node);
      for (int64_t i = 0; i < out.numel(); ++i) {
        const auto k = static_cast<size_t>(i);
        const double m = value.get(i);
        const double above = hi.reals[k] > m ? hi.reals[k] - m : 0.0, below = m > lo.reals[k] ? m - lo.reals[k] : 0.0;
        out.reals[k] = std::isnan(m) ? 0.0 : std::max(above, below) / rtol;
      }
      return out;
    }
    case Op::Matmul:
      return real ? product_sum_error_scale(node, scaled, value, args, scales, eval_matmul, args[0]->type.shape.back())
                  : zero_scale(node);
    case Op::Conv: {
      const Shape& w = args[1]->type.shape;  // [C_out, C_in / groups, kernel...]
      return real ? product_sum_error_scale(node, scaled, value, args, scales, eval_conv, numel(Shape(w.begin() + 1, w.end())))
                  : zero_scale(node);
    }
    // The element gathered carries its scale; indices are exact (a scale on
    // them means an index that may differ: any value is honest there).
    case Op::Gather: {
      HostTensor out = eval_gather(scaled, *scales[0], *args[1]);
      for (int64_t i = 0; i < out.numel(); ++i)
        if (scales[1]->reals[static_cast<size_t>(i)] != 0) out.reals[static_cast<size_t>(i)] = std::numeric_limits<double>::infinity();
      return out;
    }
    // A scatter's element: the last value written carries its scale; a sum or
    // product of the values that met there is judged by their magnitudes with
    // their scales (Σ |x| + s, Π |x| + s); a max or min by the largest scale
    // among them. Indices with a scale may put any value anywhere: unchecked.
    case Op::Scatter:
    case Op::ScatterAdd:
    case Op::ScatterMul:
    case Op::ScatterMax:
    case Op::ScatterMin: {
      for (double s : scales[1]->reals)
        if (s != 0) {
          HostTensor out = zero_scale(node);
          for (double& v : out.reals) v = std::numeric_limits<double>::infinity();
          return out;
        }
      if (!real) return zero_scale(node);
      Node how = scaled;
      HostTensor data = *scales[0], updates = *scales[2];
      if (node.op == Op::ScatterAdd || node.op == Op::ScatterMul) {
        for (int64_t i = 0; i < data.numel(); ++i) data.reals[static_cast<size_t>(i)] += std::fabs(args[0]->get(i));
        for (int64_t i = 0; i < updates.numel(); ++i) updates.reals[static_cast<size_t>(i)] += std::fabs(args[2]->get(i));
      } else if (node.op == Op::ScatterMin) {
        how.op = Op::ScatterMax;
      }
      return eval_scatter(how, data, *args[1], updates);
    }
    default: break;
  }
  if (op_class(node.op) == OpClass::Elementwise) return elementwise_error_scale(node, args, scales, value);
  throw InterpretError(std::string(op_name(node.op)) + ": no error scale for this op");
}

// Evaluates every node in order. Unless `keep_all`, a value is released after
// its last use, so only live values occupy memory.
// With `scales`, also the error scale of every value (released with it).
std::vector<HostTensor> evaluate(const Graph& g, const std::vector<HostTensor>& inputs,
                                 bool keep_all, std::vector<HostTensor>* scales = nullptr) {
  const std::vector<ValueId> input_ids = g.inputs();
  if (inputs.size() != input_ids.size())
    throw InterpretError("graph " + (g.name().empty() ? std::string("<unnamed>") : g.name()) +
                         " takes " + std::to_string(input_ids.size()) + " input(s), got " +
                         std::to_string(inputs.size()));

  check_interpreter_work(g, scales != nullptr);
  const size_t count = g.size();
  std::vector<size_t> last_use(count, 0);
  std::vector<bool> is_output(count, false);
  for (size_t v = 0; v < count; ++v)
    for (ValueId operand : g.nodes()[v].operands) last_use[operand] = v;
  for (ValueId v : g.outputs()) is_output[v] = true;

  std::vector<HostTensor> values(count);
  if (scales) scales->assign(count, HostTensor{});
  size_t next_input = 0;
  std::vector<const HostTensor*> args, arg_scales;
  uint64_t live_bytes = 0;  // of `values`, checked against the memory limit before each node
  for (size_t v = 0; v < count; ++v) {
    const Node& node = g.nodes()[v];
    live_bytes = add_bytes(live_bytes, host_tensor_bytes(node.type));
    if (scales) live_bytes = add_bytes(live_bytes, host_tensor_bytes(node.type));
    check_memory(live_bytes, "the reference interpreter, at node " + std::to_string(v) +
                                 (node.name.empty() ? "" : " '" + node.name + "'") + " (" +
                                 std::string(op_name(node.op)) + " " + type_str(node.type) +
                                 ", 8 bytes per element),");
    if (node.op == Op::Input) {
      values[v] = eval_input(node, next_input, inputs);
      if (scales) (*scales)[v] = zero_scale(node);
      ++next_input;
    } else {
      args.clear();
      for (ValueId operand : node.operands) args.push_back(&values[operand]);
      try {
        values[v] = eval_node(node, args);
        if (scales) {
          arg_scales.clear();
          for (ValueId operand : node.operands) arg_scales.push_back(&(*scales)[operand]);
          (*scales)[v] = eval_error_scale(node, args, arg_scales, values[v]);
        }
      } catch (const InterpretError& e) {
        throw InterpretError("node " + std::to_string(v) +
                             (node.name.empty() ? "" : " '" + node.name + "'") + ": " + e.what());
      }
    }
    if (!keep_all)
      for (ValueId operand : node.operands)
        // (an operand used twice is released once: then it holds no elements)
        if (last_use[operand] == v && !is_output[operand] &&
            !(values[operand].reals.empty() && values[operand].ints.empty())) {
          const uint64_t bytes = host_tensor_bytes(values[operand].type);
          live_bytes -= scales ? 2 * bytes : bytes;
          values[operand] = HostTensor{};
          if (scales) (*scales)[operand] = HostTensor{};
        }
  }
  return values;
}

}  // namespace

std::vector<HostTensor> interpret(const Graph& g, const std::vector<HostTensor>& inputs) {
  std::vector<HostTensor> values = evaluate(g, inputs, /*keep_all=*/false);
  const std::vector<ValueId>& ids = g.outputs();
  std::vector<HostTensor> outputs;
  outputs.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    // The last mention of a value may take it; earlier ones (the same output listed twice) copy.
    auto rest = ids.begin() + static_cast<std::ptrdiff_t>(i) + 1;
    if (std::find(rest, ids.end(), ids[i]) != ids.end())
      outputs.push_back(values[ids[i]]);
    else
      outputs.push_back(std::move(values[ids[i]]));
  }
  return outputs;
}

Reference interpret_with_error_scales(const Graph& g, const std::vector<HostTensor>& inputs) {
  std::vector<HostTensor> scales;
  std::vector<HostTensor> values = evaluate(g, inputs, /*keep_all=*/false, &scales);
  Reference out;
  for (ValueId id : g.outputs()) {
    out.values.push_back(values[id]);
    out.error_scales.push_back(scales[id]);
  }
  return out;
}

std::vector<HostTensor> interpret_all(const Graph& g, const std::vector<HostTensor>& inputs) {
  return evaluate(g, inputs, /*keep_all=*/true);
}

uint64_t interpreter_work(const Graph& g, bool error_scales) {
  auto count = [](const Shape& shape) {
    uint64_t n = 1;
    for (int64_t extent : shape) n = mul_counts(n, static_cast<uint64_t>(std::max<int64_t>(extent, 0)));
    return n;
  };
  uint64_t work = 0;
  for (const Node& node : g.nodes()) {
    const uint64_t out = count(node.type.shape);
    uint64_t visits = out;
    for (ValueId operand : node.operands) visits = add_counts(visits, count(g.type(operand).shape));
    if (node.op == Op::Matmul) {
      // Each output element sums K products.
      const Shape& a = g.type(node.operands[0]).shape;
      visits = add_counts(visits, mul_counts(out, count({a.back()})));
    } else if (node.op == Op::Conv) {
      // Each output element sums C_in / groups x kernel products: a weight map's elements.
      const Shape& w = g.type(node.operands[1]).shape;
      visits = add_counts(visits, mul_counts(out, count(Shape(w.begin() + 1, w.end()))));
    }
    work = add_counts(work, visits);
  }
  return error_scales ? mul_counts(work, 2) : work;
}

void check_interpreter_work(const Graph& g, bool error_scales) {
  check_work(interpreter_work(g, error_scales),
             "the reference interpreter, on graph " + (g.name().empty() ? std::string("<unnamed>") : g.name()) + " (" +
                 std::to_string(g.size()) + " ops" + (error_scales ? ", with error scales" : "") + "),");
}

}  // namespace smelt::ir
