// Constants, shape queries and view ops: Constant, ConstantOfShape, Shape, Size,
// Range, Identity, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Expand, Slice,
// Pad, Concat, Split, Tile, Dropout (inference). Where ONNX counts
// negative indices from the end or clamps differently, the bounds are resolved here,
// so smelt's slice (which never counts from the end) sees plain bounds.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "import/broadcast.h"
#include "import/constant_views.h"
#include "import/context.h"
#include "import/dtype_checks.h"
#include "import/tensor_proto.h"

namespace smelt::importer {
namespace {

using ir::Tensor;

ir::HostTensor int64_tensor(const std::vector<int64_t>& values) {
  ir::HostTensor t = ir::HostTensor::zeros({ir::DType::I64, {static_cast<int64_t>(values.size())}});
  t.ints = values;
  return t;
}

void convert_identity(Context& ctx) {
  ctx.require_inputs(1, 1);
  OnnxValue& v = ctx.value(ctx.node().input(0));
  if (v.constant && v.id < 0) return ctx.set_output_constant(0, *v.constant);
  ctx.set_output(0, ctx.input(0));
}

void convert_constant(Context& ctx) {
  ctx.require_inputs(0, 0);
  if (const onnx::AttributeProto* a = ctx.attribute("value")) {
    if (a->type() != onnx::AttributeProto::TENSOR) ctx.fail("attribute 'value' must be a tensor");
    return ctx.set_output_constant(0, tensor_from_proto(a->t(), ctx.where() + " attribute 'value'"));
  }
  if (const onnx::AttributeProto* a = ctx.attribute("value_float")) {
    ir::HostTensor t = ir::HostTensor::zeros({ir::DType::F32, {}});
    t.set(0, a->f());
    return ctx.set_output_constant(0, t);
  }
  if (const onnx::AttributeProto* a = ctx.attribute("value_floats")) {
    ir::HostTensor t = ir::HostTensor::zeros({ir::DType::F32, {a->floats_size()}});
    for (int i = 0; i < a->floats_size(); ++i) t.set(i, a->floats(i));
    return ctx.set_output_constant(0, t);
  }
  if (const onnx::AttributeProto* a = ctx.attribute("value_int")) {
    ir::HostTensor t = ir::HostTensor::zeros({ir::DType::I64, {}});
    t.set_int(0, a->i());
    return ctx.set_output_constant(0, t);
  }
  if (const onnx::AttributeProto* a = ctx.attribute("value_ints"))
    return ctx.set_output_constant(0, int64_tensor({a->ints().begin(), a->ints().end()}));
  ctx.check_attributes_understood();  // names a string or sparse value
  ctx.fail("has no value attribute");
}

ir::Shape static_shape(Context& ctx, int i, const std::string& what) {
  ir::Shape shape = ctx.static_ints(i, what);
  if (std::string problem = ir::shape_problem(shape); !problem.empty()) ctx.fail(problem);
  return shape;
}

void convert_constant_of_shape(Context& ctx) {
  ctx.require_inputs(1, 1);
  ir::Shape shape = static_shape(ctx, 0, "shape");
  ir::HostTensor fill = ir::HostTensor::zeros({ir::DType::F32, {}});
  if (const onnx::AttributeProto* a = ctx.attribute("value")) {
    fill = tensor_from_proto(a->t(), ctx.where() + " attribute 'value'");
    if (fill.numel() != 1) ctx.fail("attribute 'value' must hold one element");
  }
  ir::HostTensor t = ir::HostTensor::zeros({fill.type.dtype, shape});
  for (int64_t i = 0; i < t.numel(); ++i) fill.is_real() ? t.set(i, fill.reals[0]) : t.set_int(i, fill.ints[0]);
  ctx.set_output_constant(0, t);
}

void convert_shape(Context& ctx) {
  ctx.require_inputs(1, 1);
  const ir::Shape& shape = ctx.input_type(0).shape;
  const int64_t rank = static_cast<int64_t>(shape.size());
  auto clamp_bound = [rank](int64_t b) { return std::clamp(b < 0 ? b + rank : b, int64_t{0}, rank); };
  const int64_t start = clamp_bound(ctx.attr_int("start", 0));
  const int64_t end = clamp_bound(ctx.attr_int("end", rank));
  std::vector<int64_t> dims;
  for (int64_t k = start; k < end; ++k) dims.push_back(shape[static_cast<size_t>(k)]);
  ctx.set_output_constant(0, int64_tensor(dims));
}

void convert_size(Context& ctx) {
  ctx.require_inputs(1, 1);
  ir::HostTensor t = ir::HostTensor::zeros({ir::DType::I64, {}});
  t.set_int(0, ir::numel(ctx.input_type(0).shape));
  ctx.set_output_constant(0, t);
}

void convert_range(Context& ctx) {
  ctx.require_inputs(3, 3);
  require_dtypes(ctx, 0, 2, DTypeClass::Numeric);
  const ir::DType dtype = ctx.input_type(0).dtype;
  const double start = ctx.static_scalar(0, "start"), limit = ctx.static_scalar(1, "limit"),
               delta = ctx.static_scalar(2, "delta");
  if (delta == 0) ctx.fail("delta is 0");
  const double count = std::max(std::ceil((limit - start) / delta), 0.0);
  if (!(count <= double(int64_t{1} << 31))) ctx.unsupported("a range of " + std::to_string(count) + " elements");
  ir::HostTensor t = ir::HostTensor::zeros({dtype, {static_cast<int64_t>(count)}});
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (t.is_real())
      t.set(i, start + static_cast<double>(i) * delta);
    else
      t.set_int(i, static_cast<int64_t>(start) + i * static_cast<int64_t>(delta));
  }
  ctx.set_output_constant(0, t);
}

void convert_reshape(Context& ctx) {
  ctx.require_inputs(2, 2);
  Tensor x = ctx.input(0);
  std::vector<int64_t> requested = ctx.static_ints(1, "shape");
  const bool allow_zero = ctx.attr_int("allowzero", 0) != 0;
  ir::Shape shape(requested.size());
  int inferred = -1;
  int64_t known = 1;
  for (size_t k = 0; k < requested.size(); ++k) {
    int64_t d = requested[k];
    if (d == 0 && !allow_zero) {
      if (k >= x.shape().size())
        ctx.fail("shape entry 0 at axis " + std::to_string(k) + " has no input extent to copy");
      d = x.shape()[k];
    }
    if (d == -1) {
      if (inferred >= 0) ctx.fail("shape has more than one -1");
      inferred = static_cast<int>(k);
      continue;
    }
    if (d < 0) ctx.fail("shape entry " + std::to_string(d) + " is negative");
    shape[k] = d;
    known *= d;
  }
  if (inferred >= 0) {
    const int64_t total = ir::numel(x.shape());
    if (known == 0 || total % known != 0)
      ctx.fail("cannot infer the -1 of shape " + ir::ints_str(requested) + " for " + ir::shape_str(x.shape()));
    shape[static_cast<size_t>(inferred)] = total / known;
  }
  ctx.set_output(0, ir::reshape(x, shape));
}

void convert_flatten(Context& ctx) {
  ctx.require_inputs(1, 1);
  Tensor x = ctx.input(0);
  const int64_t rank = x.rank();
  int64_t axis = ctx.attr_int("axis", 1);
  if (axis < -rank || axis > rank) ctx.fail("attribute 'axis' " + std::to_string(axis) + " is out of range");
  if (axis < 0) axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < rank; ++k) (k < axis ? outer : inner) *= x.shape()[static_cast<size_t>(k)];
  ctx.set_output(0, ir::reshape(x, {outer, inner}));
}

// Axes from input `i` (opset 13) or the attribute "axes" (earlier opsets).
std::optional<std::vector<int64_t>> axes_argument(Context& ctx, int i) {
  std::optional<std::vector<int64_t>> from_attr = ctx.attr_ints("axes");
  if (ctx.has_input(i)) return ctx.static_ints(i, "axes");
  return from_attr;
}

void convert_squeeze(Context& ctx) {
  ctx.require_inputs(1, 2);
  Tensor x = ctx.input(0);
  std::optional<std::vector<int64_t>> axes = axes_argument(ctx, 1);
  std::vector<bool> drop(x.shape().size(), false);
  if (axes) {
    for (int64_t a : *axes) {
      const int64_t k = ctx.normalize_axis(a, x.rank(), "axis");
      if (x.shape()[static_cast<size_t>(k)] != 1)
        ctx.fail("cannot squeeze axis " + std::to_string(a) + " of " + ir::shape_str(x.shape()));
      drop[static_cast<size_t>(k)] = true;
    }
  } else {
    for (size_t k = 0; k < drop.size(); ++k) drop[k] = x.shape()[k] == 1;
  }
  ir::Shape shape;
  for (size_t k = 0; k < drop.size(); ++k)
    if (!drop[k]) shape.push_back(x.shape()[k]);
  ctx.set_output(0, ir::reshape(x, shape));
}

void convert_unsqueeze(Context& ctx) {
  ctx.require_inputs(1, 2);
  Tensor x = ctx.input(0);
  std::optional<std::vector<int64_t>> axes = axes_argument(ctx, 1);
  if (!axes) ctx.fail("axes are required");
  const int64_t out_rank = x.rank() + static_cast<int64_t>(axes->size());
  std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
  for (int64_t a : *axes) {
    const int64_t k = ctx.normalize_axis(a, out_rank, "axis");
    if (inserted[static_cast<size_t>(k)]) ctx.fail("axis " + std::to_string(a) + " is given twice");
    inserted[static_cast<size_t>(k)] = true;
  }
  ir::Shape shape;
  size_t next = 0;
  for (int64_t k = 0; k < out_rank; ++k) shape.push_back(inserted[static_cast<size_t>(k)] ? 1 : x.shape()[next++]);
  ctx.set_output(0, ir::reshape(x, shape));
}

void convert_transpose(Context& ctx) {
  ctx.require_inputs(1, 1);
  Tensor x = ctx.input(0);
  std::vector<int64_t> perm(static_cast<size_t>(x.rank()));
  std::iota(perm.rbegin(), perm.rend(), 0);  // default: reverse the axes
  if (std::optional<std::vector<int64_t>> given = ctx.attr_ints("perm")) perm = *given;
  ctx.set_output(0, permute_folding_constants(x, perm));
}

void convert_expand(Context& ctx) {
  ctx.require_inputs(2, 2);
  Tensor x = ctx.input(0);
  ir::Shape shape = broadcast_shapes(ctx, x.shape(), static_shape(ctx, 1, "shape"));
  ctx.set_output(0, broadcast_to(x, shape));
}

// ONNX Slice bounds -> smelt's: negative indices count from the end, then clamp
// to [0, d] (positive step) or [-1, d-1] (negative step).
int64_t resolve_bound(int64_t v, int64_t d, int64_t step) {
  const int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? d : d - 1;
  if (v < 0) v = v < -d ? lo : v + d;
  return std::clamp(v, lo, hi);
}

void convert_slice(Context& ctx) {
  ctx.require_inputs(3, 5);
  Tensor x = ctx.input(0);
  std::vector<int64_t> starts = ctx.static_ints(1, "starts"), ends = ctx.static_ints(2, "ends");
  if (starts.size() != ends.size()) ctx.fail("starts and ends differ in length");
  std::vector<int64_t> axes(starts.size()), steps(starts.size(), 1);
  std::iota(axes.begin(), axes.end(), 0);
  if (ctx.has_input(3)) axes = ctx.static_ints(3, "axes");
  if (ctx.has_input(4)) steps = ctx.static_ints(4, "steps");
  if (axes.size() != starts.size() || steps.size() != starts.size())
    ctx.fail("starts, ends, axes and steps differ in length");
  const size_t rank = x.shape().size();
  std::vector<int64_t> start(rank, 0), stop(x.shape()), step(rank, 1);
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t k = static_cast<size_t>(ctx.normalize_axis(axes[i], static_cast<int64_t>(rank), "axis"));
    if (seen[k]) ctx.fail("axis " + std::to_string(axes[i]) + " is sliced twice");
    seen[k] = true;
    if (steps[i] == 0) ctx.fail("a step is 0");
    const int64_t d = x.shape()[k];
    // A step of d or more takes one element, as d does: exporters write
    // INT64_MAX / INT64_MIN, which a .sg file cannot hold (|v| <= 2^53).
    step[k] = std::clamp(steps[i], -std::max<int64_t>(d, 1), std::max<int64_t>(d, 1));
    start[k] = resolve_bound(starts[i], d, steps[i]);
    stop[k] = resolve_bound(ends[i], d, steps[i]);
  }
  ctx.set_output(0, ir::slice(x, start, stop, step));
}

void convert_pad(Context& ctx) {
  ctx.require_inputs(2, 4);
  const std::string mode = ctx.attr_string("mode", "constant");
  if (mode != "constant") ctx.unsupported("attribute 'mode' = '" + mode + "' (smelt pads with a constant only)");
  Tensor x = ctx.input(0);
  const int64_t rank = x.rank();
  std::vector<int64_t> pads = ctx.static_ints(1, "pads");
  std::vector<int64_t> axes(static_cast<size_t>(rank));
  std::iota(axes.begin(), axes.end(), 0);
  if (ctx.has_input(3)) axes = ctx.static_ints(3, "axes");
  if (pads.size() != 2 * axes.size()) ctx.fail("pads must hold two entries per padded axis");
  double value = 0;
  if (ctx.has_input(2)) value = ctx.static_scalar(2, "constant_value");
  std::vector<int64_t> lo(static_cast<size_t>(rank), 0), hi(static_cast<size_t>(rank), 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t k = static_cast<size_t>(ctx.normalize_axis(axes[i], rank, "axis"));
    lo[k] = pads[i];
    hi[k] = pads[i + axes.size()];
  }
  // Negative pads crop: a slice first, then the pad of the positive amounts.
  std::vector<int64_t> start(static_cast<size_t>(rank), 0), stop(x.shape()), step(static_cast<size_t>(rank), 1);
  bool crops = false;
  for (size_t k = 0; k < static_cast<size_t>(rank); ++k) {
    if (lo[k] < 0) start[k] = std::min(-lo[k], x.shape()[k]), lo[k] = 0, crops = true;
    if (hi[k] < 0) stop[k] = std::max(x.shape()[k] + hi[k], start[k]), hi[k] = 0, crops = true;
  }
  if (crops) x = ir::slice(x, start, stop, step);
  ctx.set_output(0, ir::pad(x, lo, hi, value));
}

void convert_concat(Context& ctx) {
  if (ctx.num_inputs() < 1) ctx.fail("needs at least one input");
  std::vector<Tensor> xs;
  for (int i = 0; i < ctx.num_inputs(); ++i) xs.push_back(ctx.input(i));
  const int64_t axis = ctx.normalize_axis(ctx.attr_int("axis", 0), xs[0].rank(), "attribute 'axis'");
  ctx.set_output(0, ir::concat(xs, axis));
}

void convert_split(Context& ctx) {
  ctx.require_inputs(1, 2);
  Tensor x = ctx.input(0);
  const int64_t axis = ctx.normalize_axis(ctx.attr_int("axis", 0), x.rank(), "attribute 'axis'");
  const int64_t d = x.shape()[static_cast<size_t>(axis)];
  const int64_t parts = ctx.num_outputs();
  std::vector<int64_t> sizes;
  std::optional<std::vector<int64_t>> split_attr = ctx.attr_ints("split");
  const int64_t num_outputs = ctx.attr_int("num_outputs", 0);
  if (ctx.has_input(1))
    sizes = ctx.static_ints(1, "split");
  else if (split_attr)
    sizes = *split_attr;
  else if (num_outputs > 0) {  // opset 18: equal chunks, the last one smaller
    const int64_t chunk = (d + num_outputs - 1) / num_outputs;
    for (int64_t begin = 0; begin < d; begin += chunk) sizes.push_back(std::min(chunk, d - begin));
  } else {
    if (parts == 0 || d % parts != 0)
      ctx.fail("extent " + std::to_string(d) + " does not split into " + std::to_string(parts) + " equal parts");
    sizes.assign(static_cast<size_t>(parts), d / parts);
  }
  if (static_cast<int64_t>(sizes.size()) != parts) ctx.fail("split sizes and outputs differ in number");
  int64_t begin = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0) ctx.fail("a split size is negative");
    ctx.set_output(static_cast<int>(i), ir::slice_axis(x, axis, begin, begin + sizes[i]));
    begin += sizes[i];
  }
  if (begin != d) ctx.fail("split sizes add up to " + std::to_string(begin) + ", the extent is " + std::to_string(d));
}

void convert_tile(Context& ctx) {
  ctx.require_inputs(2, 2);
  Tensor x = ctx.input(0);
  std::vector<int64_t> repeats = ctx.static_ints(1, "repeats");
  if (static_cast<int64_t>(repeats.size()) != x.rank()) ctx.fail("repeats must have one entry per axis");
  for (size_t k = 0; k < repeats.size(); ++k) {
    if (repeats[k] < 0) ctx.fail("a repeat count is negative");
    if (repeats[k] == 1) continue;
    if (repeats[k] > 1024) ctx.unsupported("a repeat count above 1024");
    // [.., d, ..] -> [.., 1, d, ..] broadcast to [.., r, d, ..] -> [.., r*d, ..]
    ir::Shape expanded(x.shape());
    expanded.insert(expanded.begin() + static_cast<int64_t>(k), 1);
    Tensor y = ir::reshape(x, expanded);
    expanded[k] = repeats[k];
    y = ir::broadcast(y, expanded);
    ir::Shape merged(x.shape());
    merged[k] *= repeats[k];
    x = ir::reshape(y, merged);
  }
  ctx.set_output(0, x);
}

void convert_dropout(Context& ctx) {
  ctx.require_inputs(1, 3);
  ctx.attr_int("seed", 0);  // irrelevant at inference
  bool training = false;
  if (ctx.has_input(2)) training = ctx.static_scalar(2, "training_mode") != 0;
  double ratio = 0.5;
  if (ctx.has_input(1)) ratio = ctx.static_scalar(1, "ratio");
  if (training && ratio != 0) ctx.unsupported("training mode (random dropout)");
  Tensor x = ctx.input(0);
  ctx.set_output(0, x);
  if (ctx.wants_output(1)) ctx.set_output(1, ir::full(ctx.graph(), x.shape(), 1, ir::DType::Bool));
}

}  // namespace

void add_shape_converters(ConverterTable& t) {
  t["Identity"] = convert_identity;
  t["Constant"] = convert_constant;
  t["ConstantOfShape"] = convert_constant_of_shape;
  t["Shape"] = convert_shape;
  t["Size"] = convert_size;
  t["Range"] = convert_range;
  t["Reshape"] = convert_reshape;
  t["Flatten"] = convert_flatten;
  t["Squeeze"] = convert_squeeze;
  t["Unsqueeze"] = convert_unsqueeze;
  t["Transpose"] = convert_transpose;
  t["Expand"] = convert_expand;
  t["Slice"] = convert_slice;
  t["Pad"] = convert_pad;
  t["Concat"] = convert_concat;
  t["Split"] = convert_split;
  t["Tile"] = convert_tile;
  t["Dropout"] = convert_dropout;
}

}  // namespace smelt::importer
