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

}  // namespace

void add_index_converters(ConverterTable& t) {
  t["ArgMax"] = [](Context& ctx) { convert_arg_extreme(ctx, false); };
  t["ArgMin"] = [](Context& ctx) { convert_arg_extreme(ctx, true); };
  t["Hardmax"] = convert_hardmax;
  t["Trilu"] = convert_trilu;
  t["EyeLike"] = convert_eye_like;
  t["IsInf"] = convert_is_inf;
  t["Shrink"] = convert_shrink;
}

}  // namespace smelt::importer
