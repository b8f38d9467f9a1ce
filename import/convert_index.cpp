// Ops over element positions, built from `iota` and comparisons: ArgMax, ArgMin,
// Hardmax, Trilu, EyeLike, and the value tests IsInf and Shrink. Ties and NaN
// follow numpy: the first (or last) position of the extreme value; a NaN counts
// as the extreme, as in numpy's argmax.
#include <cmath>
#include <limits>

#include "import/broadcast.h"
#include "import/context.h"
#include "import/dtype_checks.h"
#include "import/tensor_proto.h"

namespace smelt::importer {
namespace {

using ir::Tensor;


// An order-reversing bijection: -x for floats, ~x (= -x - 1, wrapping) for integers,
// so max(flip(x)) = flip(min(x)) holds for every value, the integer minimum included.
Tensor flip(Context& ctx, Tensor x) {
  return ir::is_float(x.dtype()) ? ir::neg(x) : ir::sub(ir::neg(x), ctx.scalar_like(1, x));
}

// True where x holds the maximum of its slice along `axis` (NaN, if the slice has one).
Tensor is_max_along(Context& ctx, Tensor x, int64_t axis) {
  Tensor m = ir::broadcast(ir::reduce_max(x, {axis}, true), x.shape());
  if (!ir::is_float(x.dtype())) return ir::eq(x, m);
  Tensor x_is_nan = ir::eq(ir::eq(x, x), ctx.scalar_like(0, ir::DType::Bool, x.shape()));
  return ir::where(ir::eq(m, m), ir::eq(x, m), x_is_nan);
}

// The first (or last) position along `axis` where `mask` holds, as i64, keepdims.
Tensor position_of(Context& ctx, Tensor mask, int64_t axis, bool last) {
  Tensor index = ir::iota(ctx.graph(), mask.shape(), axis, ir::DType::I64);
  if (last) return ir::reduce_max(ir::where(mask, index, ctx.scalar_like(-1, index)), {axis}, true);
  // min(index) = -max(-index); positions not taken count as -extent (never the max).
  const double outside = -static_cast<double>(mask.shape()[static_cast<size_t>(axis)]);
  return ir::neg(ir::reduce_max(ir::where(mask, ir::neg(index), ctx.scalar_like(outside, index)), {axis}, true));
}

void convert_arg_extreme(Context& ctx, bool is_min) {
  ctx.require_inputs(1, 1);
  require_dtype(ctx, 0, DTypeClass::Numeric);
  Tensor x = ctx.input(0);
  if (x.rank() == 0) ctx.fail("the input must have rank >= 1");
  const int64_t axis = ctx.normalize_axis(ctx.attr_int("axis", 0), x.rank(), "attribute 'axis'");
  const bool keepdims = ctx.attr_int("keepdims", 1) != 0;
  const bool last = ctx.attr_int("select_last_index", 0) != 0;
  if (x.shape()[static_cast<size_t>(axis)] == 0) ctx.fail("the reduced axis is empty");
  Tensor position = position_of(ctx, is_max_along(ctx, is_min ? flip(ctx, x) : x, axis), axis, last);
  if (!keepdims) {
    ir::Shape shape = position.shape();
    shape.erase(shape.begin() + axis);
    position = ir::reshape(position, shape);
  }
  ctx.set_output(0, position);
}

void convert_hardmax(Context& ctx) {
  ctx.require_inputs(1, 1);
  require_dtype(ctx, 0, DTypeClass::Float);
  Tensor x = ctx.input(0);
  const int64_t axis = ctx.normalize_axis(ctx.attr_int("axis", -1), x.rank(), "attribute 'axis'");
  Tensor first = ir::broadcast(position_of(ctx, is_max_along(ctx, x, axis), axis, false), x.shape());
  Tensor index = ir::iota(ctx.graph(), x.shape(), axis, ir::DType::I64);
  ctx.set_output(0, ir::cast(ir::eq(index, first), x.dtype()));
}

// column - row over the last two axes, as i64.
Tensor diagonal_offset(Context& ctx, ir::Shape shape) {  // a copy: adding nodes moves graph storage
  const int64_t rank = static_cast<int64_t>(shape.size());
  return ir::sub(ir::iota(ctx.graph(), shape, rank - 1, ir::DType::I64),
                 ir::iota(ctx.graph(), shape, rank - 2, ir::DType::I64));
}

void convert_trilu(Context& ctx) {
  ctx.require_inputs(1, 2);
  Tensor x = ctx.input(0);
  if (x.rank() < 2) ctx.fail("the input must have rank >= 2");
  const bool upper = ctx.attr_int("upper", 1) != 0;
  const double k = ctx.has_input(1) ? ctx.static_scalar(1, "k") : 0;
  Tensor offset = diagonal_offset(ctx, x.shape());
  Tensor kth = ctx.scalar_like(k, offset);
  Tensor keep = upper ? ir::le(kth, offset) : ir::le(offset, kth);
  ctx.set_output(0, ir::where(keep, x, ctx.scalar_like(0, x)));
}

void convert_eye_like(Context& ctx) {
  ctx.require_inputs(1, 1);
  const ir::TensorType& type = ctx.input_type(0);
  if (type.shape.size() != 2) ctx.fail("the input must be a matrix");
  ir::DType dtype = type.dtype;
  if (const onnx::AttributeProto* a = ctx.attribute("dtype")) {
    std::optional<ir::DType> d = dtype_from_onnx(static_cast<int>(a->i()));
    if (!d) ctx.unsupported("attribute 'dtype' = " + onnx_type_name(static_cast<int>(a->i())));
    dtype = *d;
  }
  const int64_t k = ctx.attr_int("k", 0);
  Tensor offset = diagonal_offset(ctx, type.shape);
  ctx.set_output(0, ir::cast(ir::eq(offset, ctx.scalar_like(static_cast<double>(k), offset)), dtype));
}

void convert_is_inf(Context& ctx) {
  ctx.require_inputs(1, 1);
  require_dtype(ctx, 0, DTypeClass::Float);
  Tensor x = ctx.input(0);
  const bool positive = ctx.attr_int("detect_positive", 1) != 0, negative = ctx.attr_int("detect_negative", 1) != 0;
  const double inf = std::numeric_limits<double>::infinity();
  Tensor found = ctx.scalar_like(0, ir::DType::Bool, x.shape());
  if (positive) found = ir::eq(x, ctx.scalar_like(inf, x));
  if (negative) found = ir::where(found, found, ir::eq(x, ctx.scalar_like(-inf, x)));
  ctx.set_output(0, found);
}

void convert_shrink(Context& ctx) {
  ctx.require_inputs(1, 1);
  require_dtype(ctx, 0, DTypeClass::Float);
  Tensor x = ctx.input(0);
  const double lambd = ctx.attr_float("lambd", 0.5f), bias = ctx.attr_float("bias", 0);
  Tensor shrunk_up = ir::add(x, ctx.scalar_like(bias, x)), shrunk_down = ir::sub(x, ctx.scalar_like(bias, x));
  ctx.set_output(0, ir::where(ir::lt(x, ctx.scalar_like(-lambd, x)), shrunk_up,
                              ir::where(ir::lt(ctx.scalar_like(lambd, x), x), shrunk_down, ctx.scalar_like(0, x))));
}

// The element of `data` ([..., D]) at position `index` ([..., D], equal along the
// last axis; negative counts from the end) of the last axis, selected with a
// one-hot mask; the last axis is reduced away.
Tensor pick_along_last(Context& ctx, Tensor data, Tensor index, int64_t extent) {
  const int64_t last = data.rank() - 1;
  if (index.dtype() != ir::DType::I64) index = ir::cast(index, ir::DType::I64);
  index = ir::where(ir::lt(index, ctx.scalar_like(0, index)), ir::add(index, ctx.scalar_like(static_cast<double>(extent), index)),
                    index);
  Tensor picks = ir::eq(ir::iota(ctx.graph(), data.shape(), last, ir::DType::I64), index);
  // Floats: max against -inf keeps the picked value exactly (-0 and NaN included);
  // integers: a sum with zeros is exact.
  if (ir::is_float(data.dtype())) {
    Tensor lowest = ctx.scalar_like(-std::numeric_limits<double>::infinity(), data);
    return ir::reduce_max(ir::where(picks, data, lowest), {last}, false);
  }
  return ir::reduce_sum(ir::where(picks, data, ctx.scalar_like(0, data)), {last}, false);
}

// GatherElements with indices that may be data: out[.., i, ..] = data[.., index[.., i, ..], ..]
// along `axis`, as a one-hot selection over a new last axis of the data's extent.
void convert_gather_elements(Context& ctx) {
  ctx.require_inputs(2, 2);
  require_dtype(ctx, 0, DTypeClass::Numeric);
  require_dtype(ctx, 1, DTypeClass::Numeric);
  if (ir::is_float(ctx.input_type(1).dtype)) ctx.fail("the indices must be integers");
  Tensor data = ctx.input(0), index = ctx.input(1);
  const int64_t rank = data.rank();
  if (index.rank() != rank) ctx.fail("data and indices must have the same rank");
  const int64_t axis = ctx.normalize_axis(ctx.attr_int("axis", 0), rank, "attribute 'axis'");
  const ir::Shape data_shape = data.shape(), index_shape = index.shape();
  const int64_t extent = data_shape[static_cast<size_t>(axis)];
  // The data over the index's extents on every other axis, the gathered axis moved last.
  std::vector<int64_t> start(static_cast<size_t>(rank), 0), stop(index_shape), step(static_cast<size_t>(rank), 1);
  stop[static_cast<size_t>(axis)] = extent;
  for (int64_t k = 0; k < rank; ++k)
    if (k != axis && index_shape[static_cast<size_t>(k)] > data_shape[static_cast<size_t>(k)])
      ctx.fail("the indices are larger than the data on axis " + std::to_string(k));
  if (stop != data_shape) data = ir::slice(data, start, stop, step);
  std::vector<int64_t> perm;
  for (int64_t k = 0; k < rank; ++k)
    if (k != axis) perm.push_back(k);
  perm.push_back(axis);
  data = ir::permute(data, perm);
  ir::Shape with_unit = index_shape;  // the index's shape, the gathered axis 1, plus [extent]
  with_unit[static_cast<size_t>(axis)] = 1;
  with_unit.push_back(extent);
  ir::Shape target = index_shape;
  target.push_back(extent);
  data = ir::broadcast(ir::reshape(data, with_unit), target);
  ir::Shape index_unit = index_shape;
  index_unit.push_back(1);
  ctx.set_output(0, pick_along_last(ctx, data, ir::broadcast(ir::reshape(index, index_unit), target), extent));
}

}  // namespace

// Gather with indices known only at run time (convert_shape.cpp gathers known
// indices with slices): the same one-hot selection over a last axis of extent D.
Tensor gather_by_data(Context& ctx, Tensor data, Tensor index, int64_t axis) {
  require_dtype(ctx, 0, DTypeClass::Numeric);
  const ir::Shape data_shape = data.shape(), index_shape = index.shape();
  const int64_t extent = data_shape[static_cast<size_t>(axis)];
  ir::Shape pre(data_shape.begin(), data_shape.begin() + axis), post(data_shape.begin() + axis + 1, data_shape.end());
  ir::Shape target = pre;
  target.insert(target.end(), index_shape.begin(), index_shape.end());
  target.insert(target.end(), post.begin(), post.end());
  target.push_back(extent);
  std::vector<int64_t> perm;
  for (int64_t k = 0; k < data.rank(); ++k)
    if (k != axis) perm.push_back(k);
  perm.push_back(axis);
  ir::Shape data_unit = pre;  // pre + [1] * rank(index) + post + [D]
  data_unit.insert(data_unit.end(), index_shape.size(), 1);
  data_unit.insert(data_unit.end(), post.begin(), post.end());
  data_unit.push_back(extent);
  Tensor data_b = ir::broadcast(ir::reshape(ir::permute(data, perm), data_unit), target);
  ir::Shape index_unit(pre.size(), 1);  // [1] * rank(pre) + index + [1] * rank(post) + [1]
  index_unit.insert(index_unit.end(), index_shape.begin(), index_shape.end());
  index_unit.insert(index_unit.end(), post.size() + 1, 1);
  Tensor index_b = ir::broadcast(ir::reshape(index, index_unit), target);
  return pick_along_last(ctx, data_b, index_b, extent);
}

void add_index_converters(ConverterTable& t) {
  t["GatherElements"] = convert_gather_elements;
  t["ArgMax"] = [](Context& ctx) { convert_arg_extreme(ctx, false); };
  t["ArgMin"] = [](Context& ctx) { convert_arg_extreme(ctx, true); };
  t["Hardmax"] = convert_hardmax;
  t["Trilu"] = convert_trilu;
  t["EyeLike"] = convert_eye_like;
  t["IsInf"] = convert_is_inf;
  t["Shrink"] = convert_shrink;
}

}  // namespace smelt::importer
