#include "ir/interpreter.h"

#include "error/memory_limit.h"
#include "ir/scalar.h"

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
    default: break;
  }
  if (op_class(node.op) == OpClass::Elementwise) return eval_elementwise_node(node, args);
  throw InterpretError(std::string(op_name(node.op)) + ": the interpreter does not know this op");
}

// Evaluates every node in order. Unless `keep_all`, a value is released after
// its last use, so only live values occupy memory.
std::vector<HostTensor> evaluate(const Graph& g, const std::vector<HostTensor>& inputs,
                                 bool keep_all) {
  const std::vector<ValueId> input_ids = g.inputs();
  if (inputs.size() != input_ids.size())
    throw InterpretError("graph " + (g.name().empty() ? std::string("<unnamed>") : g.name()) +
                         " takes " + std::to_string(input_ids.size()) + " input(s), got " +
                         std::to_string(inputs.size()));

  const size_t count = g.size();
  std::vector<size_t> last_use(count, 0);
  std::vector<bool> is_output(count, false);
  for (size_t v = 0; v < count; ++v)
    for (ValueId operand : g.nodes()[v].operands) last_use[operand] = v;
  for (ValueId v : g.outputs()) is_output[v] = true;

  std::vector<HostTensor> values(count);
  size_t next_input = 0;
  std::vector<const HostTensor*> args;
  uint64_t live_bytes = 0;  // of `values`, checked against the memory limit before each node
  for (size_t v = 0; v < count; ++v) {
    const Node& node = g.nodes()[v];
    live_bytes = add_bytes(live_bytes, host_tensor_bytes(node.type));
    check_memory(live_bytes, "the reference interpreter, at node " + std::to_string(v) +
                                 (node.name.empty() ? "" : " '" + node.name + "'") + " (" +
                                 std::string(op_name(node.op)) + " " + type_str(node.type) +
                                 ", 8 bytes per element),");
    if (node.op == Op::Input) {
      values[v] = eval_input(node, next_input, inputs);
      ++next_input;
    } else {
      args.clear();
      for (ValueId operand : node.operands) args.push_back(&values[operand]);
      try {
        values[v] = eval_node(node, args);
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
          live_bytes -= host_tensor_bytes(values[operand].type);
          values[operand] = HostTensor{};
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

std::vector<HostTensor> interpret_all(const Graph& g, const std::vector<HostTensor>& inputs) {
  return evaluate(g, inputs, /*keep_all=*/true);
}

}  // namespace smelt::ir
