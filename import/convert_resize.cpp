// Resize (opsets 11, 13, 18, 19), decomposed into smelt ops. Interpolation is
// separable, so the axes are resized one after another. With scales or sizes
// known at import time, the input positions an output position reads along an
// axis, and their weights, are constants: computed here in double exactly as
// the ONNX reference (onnx/reference/ops/op_resize.py) does. Each tap (nearest:
// one, linear: two, cubic: four, antialiased: more) is a gather with constant
// indices, built from strided slices and broadcasts; the taps are summed with
// constant weight vectors broadcast along the axis.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "import/context.h"
#include "import/dtype_checks.h"

namespace smelt::importer {
namespace {

using ir::Tensor;

// Beyond these a model would build a graph (or an import-time table) too large:
// refused as unsupported, never a hang.
constexpr int64_t kMaxResizedExtent = int64_t{1} << 22;  // positions planned per resized axis
constexpr int64_t kMaxTaps = 16;                         // input positions read per output position
constexpr int64_t kMaxGatherSlices = 1024;               // slices per resized axis, all taps together
constexpr int64_t kMaxPeriod = 32;                       // longest repeating index pattern looked for

enum class Mode { Nearest, Linear, Cubic };

struct ResizeAttributes {
  Mode mode = Mode::Nearest;
  std::string coordinate_mode, nearest_mode;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation_value = 0;
  bool antialias = false;
};

// How the output positions along one axis read the input: each tap gives every
// output position an input index (within the axis) and a weight.
struct AxisResampling {
  int64_t axis = 0;
  std::vector<std::vector<int64_t>> index;  // [tap][output position]
  std::vector<std::vector<double>> weight;  // [tap][output position]
  std::vector<bool> extrapolated;           // tf_crop_and_resize: the position is extrapolation_value
};

// --- the reference's coefficients, for a position `ratio` in (0, 1] past the left neighbour

std::vector<double> nearest_coefficients(double ratio, const std::string& nearest_mode) {
  if (ratio == 1) return {0, 1};
  if (nearest_mode == "round_prefer_floor") return {ratio <= 0.5 ? 1.0 : 0.0, ratio > 0.5 ? 1.0 : 0.0};
  if (nearest_mode == "round_prefer_ceil") return {ratio < 0.5 ? 1.0 : 0.0, ratio >= 0.5 ? 1.0 : 0.0};
  if (nearest_mode == "floor") return {1, 0};
  return {0, 1};  // ceil
}

std::vector<double> linear_coefficients(double ratio, double scale, bool antialias) {
  if (!antialias) return {1 - ratio, ratio};
  // A triangle filter stretched by 1/scale when downsampling, normalized.
  scale = std::min(scale, 1.0);
  const int64_t start = static_cast<int64_t>(std::floor(-1 / scale)) + 1;
  const int64_t footprint = 2 - 2 * start;
  std::vector<double> c;
  double sum = 0;
  for (int64_t i = start; i < start + footprint; ++i) {
    c.push_back(std::clamp(1 - std::abs((static_cast<double>(i) - ratio) * scale), 0.0, 1.0));
    sum += c.back();
  }
  for (double& v : c) v /= sum;
  return c;
}

std::vector<double> cubic_coefficients(double ratio, double scale, double a, bool antialias) {
  if (!antialias) {
    const double r = ratio, s = 1 - ratio;
    return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a, ((a + 2) * r - (a + 3)) * r * r + 1,
            ((a + 2) * s - (a + 3)) * s * s + 1, ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
  }
  scale = std::min(scale, 1.0);
  auto kernel = [a](double x) {
    x = std::abs(x);
    const double x2 = x * x, x3 = x * x2;
    if (x <= 1) return (a + 2) * x3 - (a + 3) * x2 + 1;
    if (x < 2) return a * x3 - 5 * a * x2 + 8 * a * x - 4 * a;
    return 0.0;
  };
  const int64_t start = static_cast<int64_t>(std::floor(-2 / scale)) + 1, end = 2 - start;
  std::vector<double> c;
  double sum = 0;
  for (int64_t i = start; i < end; ++i) {
    c.push_back(kernel(scale * (static_cast<double>(i) - ratio)));
    sum += c.back();
  }
  for (double& v : c) v /= sum;
  return c;
}

std::vector<double> coefficients(const ResizeAttributes& a, double ratio, double scale) {
  switch (a.mode) {
    case Mode::Nearest:
      return nearest_coefficients(ratio, a.nearest_mode);
    case Mode::Linear:
      return linear_coefficients(ratio, scale, a.antialias);
    case Mode::Cubic:
      return cubic_coefficients(ratio, scale, a.cubic_a, a.antialias);
  }
  return {};
}

// How many taps the mode reads, known before any table is built (an
// antialiased downscale by a large factor reads many).
double tap_count(const ResizeAttributes& a, double scale) {
  if (a.mode == Mode::Nearest) return 2;
  if (!a.antialias || scale >= 1) return a.mode == Mode::Linear ? 2 : 4;
  const double reach = a.mode == Mode::Linear ? 1 : 2;
  return 2 - 2 * (std::floor(-reach / scale) + 1);
}

// The input coordinate of output position y (coordinate_transformation_mode).
double source_coordinate(const std::string& mode, double y, double scale, int64_t in, int64_t out,
                         const std::optional<std::pair<float, float>>& roi) {
  const double in_d = static_cast<double>(in);
  const double out_width = scale * in_d;  // not `out`: the reference uses the unrounded extent
  if (mode == "align_corners") return out_width == 1 ? 0.0 : y * (in_d - 1) / (out_width - 1);
  if (mode == "asymmetric") return y / scale;
  if (mode == "tf_crop_and_resize") {
    // roi is float32 in the reference too: its difference and start are taken in float.
    const double span = static_cast<float>(roi->second - roi->first);
    const double start = static_cast<float>(roi->first * static_cast<float>(in - 1));
    const double x = out_width == 1 ? static_cast<float>(static_cast<float>(span * (in_d - 1)) / 2.0f)
                                    : y * span * (in_d - 1) / (out_width - 1);
    return x + start;
  }
  if (mode == "pytorch_half_pixel") return out_width == 1 ? -0.5 : (y + 0.5) / scale - 0.5;
  if (mode == "half_pixel") return (y + 0.5) / scale - 0.5;
  if (mode == "half_pixel_symmetric") {
    const double adjustment = static_cast<double>(out) / out_width;
    const double offset = in_d / 2 * (1 - adjustment);
    return offset + (y + 0.5) / scale - 0.5;
  }
  return (y + 0.5) / scale;  // tf_half_pixel_for_nn (opsets 11 and 12)
}

// The taps of one axis, as the reference's _interpolate_1d_along_axis computes them.
AxisResampling resampling_of(const ResizeAttributes& a, int64_t axis, int64_t in, int64_t out, double scale,
                             const std::optional<std::pair<float, float>>& roi) {
  AxisResampling r;
  r.axis = axis;
  const bool crop = a.coordinate_mode == "tf_crop_and_resize";
  for (int64_t y = 0; y < out; ++y) {
    double x = source_coordinate(a.coordinate_mode, static_cast<double>(y), scale, in, out, roi);
    const bool extrapolated = crop && (x < 0 || x > static_cast<double>(in - 1));
    // Only an extrapolated position (its value is fixed) can lie this far out;
    // bounded so that the index arithmetic stays exact.
    x = std::clamp(x, -1e15, 1e15);
    const double x_floor = std::floor(x);
    const double ratio = x == x_floor ? 1.0 : x - x_floor;
    std::vector<double> c = coefficients(a, ratio, scale);
    const int64_t n = static_cast<int64_t>(c.size());
    // The n input positions nearest x, ties to the smaller (_get_neighbor_idxes).
    const int64_t pad_width = (n + 1) / 2;
    const double x_padded = x + static_cast<double>(pad_width);
    const double p = std::floor(x_padded), frac = x_padded - p;
    const int64_t offset = n % 2 == 0 ? (frac == 0 ? -(n / 2) : -(n / 2) + 1)
                                      : (frac <= 0.5 ? -((n - 1) / 2) : -((n - 1) / 2) + 1);
    const int64_t first = static_cast<int64_t>(p) + offset - pad_width;
    if (a.exclude_outside) {
      double sum = 0;
      for (int64_t t = 0; t < n; ++t) {
        if (first + t < 0 || first + t >= in) c[static_cast<size_t>(t)] = 0;
        sum += c[static_cast<size_t>(t)];
      }
      for (double& v : c) v /= sum == 0 ? 1 : sum;
    }
    if (r.index.empty()) {
      r.index.assign(static_cast<size_t>(n), {});
      r.weight.assign(static_cast<size_t>(n), {});
    }
    for (int64_t t = 0; t < n; ++t) {
      // Out-of-range neighbours read the edge (the reference pads in "edge" mode).
      r.index[static_cast<size_t>(t)].push_back(std::clamp<int64_t>(first + t, 0, in - 1));
      r.weight[static_cast<size_t>(t)].push_back(c[static_cast<size_t>(t)]);
    }
    r.extrapolated.push_back(extrapolated);
  }
  // One tap of weight 1 per position (nearest, or linear at whole coordinates):
  // a single gather.
  bool selects = !r.index.empty();
  std::vector<int64_t> chosen;
  for (int64_t y = 0; selects && y < out; ++y) {
    int64_t nonzero = 0, which = 0;
    for (size_t t = 0; t < r.weight.size(); ++t)
      if (r.weight[t][static_cast<size_t>(y)] != 0) ++nonzero, which = static_cast<int64_t>(t);
    selects = nonzero == 1 && r.weight[static_cast<size_t>(which)][static_cast<size_t>(y)] == 1;
    chosen.push_back(r.index[static_cast<size_t>(which)][static_cast<size_t>(y)]);
  }
  if (selects) {
    r.index = {chosen};
    r.weight = {std::vector<double>(static_cast<size_t>(out), 1.0)};
    return r;
  }
  // Taps that never contribute are dropped.
  for (size_t t = r.weight.size(); t-- > 0;)
    if (std::all_of(r.weight[t].begin(), r.weight[t].end(), [](double w) { return w == 0; })) {
      r.index.erase(r.index.begin() + static_cast<std::ptrdiff_t>(t));
      r.weight.erase(r.weight.begin() + static_cast<std::ptrdiff_t>(t));
    }
  return r;
}

// --- gathers with constant indices

// `shape` with extent `extent` at `axis`.
ir::Shape with_extent(ir::Shape shape, int64_t axis, int64_t extent) {
  shape[static_cast<size_t>(axis)] = extent;
  return shape;
}

// x's elements start, start + step, ... (count of them) along `axis`; step 0 repeats one.
Tensor strided(Tensor x, int64_t axis, int64_t start, int64_t step, int64_t count) {
  if (start == 0 && step == 1 && count == x.shape()[static_cast<size_t>(axis)]) return x;
  if (count == 1 || step == 0) {
    Tensor one = ir::slice_axis(x, axis, start, start + 1);
    return count == 1 ? one : ir::broadcast(one, with_extent(one.shape(), axis, count));
  }
  const int64_t last = start + (count - 1) * step;
  // Just past the last element; for a negative step, -1 means "before index 0" (docs/ops.md).
  return ir::slice_axis(x, axis, start, step > 0 ? last + 1 : last - 1, step);
}

// A run of output positions [first, first + periods·phases) whose indices repeat a
// pattern of `phases` positions, advancing by `advance` each repetition:
// index[first + t·phases + p] = index[first + p] + t·advance.
struct Run {
  int64_t first = 0, phases = 1, periods = 1, advance = 0;
  int64_t slices = 1;  // distinct consecutive phase starts: one slice each
};

Run longest_run(const std::vector<int64_t>& index, int64_t first) {
  const int64_t n = static_cast<int64_t>(index.size());
  auto at = [&](int64_t i) { return index[static_cast<size_t>(i)]; };
  Run best;
  best.first = first;
  // Periods up to kMaxPeriod, and the lengths of the runs of equal indices at
  // `first` and after it: an integer upscale by any factor is then one
  // broadcast slice (two where the first run is cut short at the edge).
  auto equal_run = [&](int64_t from) {
    int64_t length = 1;
    while (from + length < n && at(from + length) == at(from)) ++length;
    return length;
  };
  std::vector<int64_t> candidates;
  for (int64_t phases = 1; phases <= kMaxPeriod && first + phases <= n; ++phases) candidates.push_back(phases);
  const int64_t equal = equal_run(first);
  if (equal > kMaxPeriod) candidates.push_back(equal);
  if (first + equal < n && equal_run(first + equal) > kMaxPeriod && first + equal_run(first + equal) <= n)
    candidates.push_back(equal_run(first + equal));
  for (int64_t phases : candidates) {
    Run run;
    run.first = first;
    run.phases = phases;
    run.advance = first + phases < n ? at(first + phases) - at(first) : 0;
    for (bool repeats = true; repeats && first + (run.periods + 1) * phases <= n;) {
      const int64_t base = first + run.periods * phases;
      for (int64_t p = 0; repeats && p < phases; ++p) repeats = at(base + p) == at(first + p) + run.periods * run.advance;
      if (repeats) ++run.periods;
    }
    for (int64_t p = 1; p < phases; ++p) run.slices += at(first + p) != at(first + p - 1);
    // The most output positions per slice; among equals, the longest run.
    const int64_t covered = run.periods * run.phases, best_covered = best.periods * best.phases;
    const int64_t gain = covered * best.slices, best_gain = best_covered * run.slices;
    if (gain > best_gain || (gain == best_gain && covered > best_covered)) best = run;
  }
  return best;
}

// The run's output positions: each group of equal consecutive phase starts is one
// strided slice [.., periods, ..], widened to the group's phases; the groups side
// by side make [.., periods, phases, ..], flattened into the axis.
Tensor build_run(Tensor x, int64_t axis, const std::vector<int64_t>& index, const Run& run) {
  auto at = [&](int64_t i) { return index[static_cast<size_t>(i)]; };
  if (run.phases == 1) return strided(x, axis, at(run.first), run.advance, run.periods);
  ir::Shape split = with_extent(x.shape(), axis, run.periods);
  split.insert(split.begin() + axis + 1, 1);
  std::vector<Tensor> groups;
  for (int64_t p = 0; p < run.phases;) {
    int64_t width = 1;
    while (p + width < run.phases && at(run.first + p + width) == at(run.first + p)) ++width;
    Tensor slab = ir::reshape(strided(x, axis, at(run.first + p), run.advance, run.periods), split);
    groups.push_back(width == 1 ? slab : ir::broadcast(slab, with_extent(split, axis + 1, width)));
    p += width;
  }
  Tensor side_by_side = groups.size() == 1 ? groups[0] : ir::concat(groups, axis + 1);
  return ir::reshape(side_by_side, with_extent(x.shape(), axis, run.periods * run.phases));
}

// x gathered along `axis` at constant indices (all within the axis).
// `slices_left` bounds the slices all gathers of one axis may build.
Tensor gather_constant(Context& ctx, Tensor x, int64_t axis, const std::vector<int64_t>& index, int64_t& slices_left) {
  const int64_t n = static_cast<int64_t>(index.size());
  if (n == 0) return ir::slice_axis(x, axis, 0, 0);
  bool identity = n == x.shape()[static_cast<size_t>(axis)];
  for (int64_t i = 0; identity && i < n; ++i) identity = index[static_cast<size_t>(i)] == i;
  if (identity) return x;
  std::vector<Tensor> pieces;
  for (int64_t first = 0; first < n;) {
    const Run run = longest_run(index, first);
    slices_left -= run.slices;
    if (slices_left < 0)
      ctx.unsupported("resizing axis " + std::to_string(axis) + " to " + std::to_string(n) +
                      " positions needs more than " + std::to_string(kMaxGatherSlices) +
                      " slices (smelt gathers the input positions with strided slices; "
                      "their pattern does not repeat with a short enough period)");
    pieces.push_back(build_run(x, axis, index, run));
    first += run.periods * run.phases;
  }
  return pieces.size() == 1 ? pieces[0] : ir::concat(pieces, axis);
}

// A constant vector along `axis`, broadcast to `shape`.
Tensor along_axis(Context& ctx, const std::vector<double>& values, ir::DType dtype, int64_t axis, const ir::Shape& shape) {
  ir::Shape column(shape.size(), 1);
  column[static_cast<size_t>(axis)] = static_cast<int64_t>(values.size());
  const bool uniform = std::all_of(values.begin(), values.end(), [&](double v) { return v == values[0]; });
  Tensor c = uniform ? ir::full(ctx.graph(), column, values[0], dtype) : ir::constant(ctx.graph(), values, dtype, column);
  return ir::broadcast(c, shape);
}

Tensor resample(Context& ctx, Tensor x, const AxisResampling& r, int64_t out, double extrapolation_value) {
  const ir::Shape out_shape = with_extent(x.shape(), r.axis, out);
  int64_t slices_left = kMaxGatherSlices;
  std::optional<Tensor> sum;
  for (size_t t = 0; t < r.index.size(); ++t) {
    Tensor tap = gather_constant(ctx, x, r.axis, r.index[t], slices_left);
    if (std::any_of(r.weight[t].begin(), r.weight[t].end(), [](double w) { return w != 1; }))
      tap = ir::mul(tap, along_axis(ctx, r.weight[t], x.dtype(), r.axis, out_shape));
    sum = sum ? ir::add(*sum, tap) : tap;
  }
  Tensor y = sum ? *sum : ctx.scalar_like(0, x.dtype(), out_shape);  // every weight zero
  if (std::any_of(r.extrapolated.begin(), r.extrapolated.end(), [](bool e) { return e; })) {
    const std::vector<double> mask(r.extrapolated.begin(), r.extrapolated.end());
    y = ir::where(along_axis(ctx, mask, ir::DType::Bool, r.axis, out_shape),
                  ctx.scalar_like(extrapolation_value, x.dtype(), out_shape), y);
  }
  return y;
}

// --- the converter

ResizeAttributes attributes_of(Context& ctx) {
  ResizeAttributes a;
  const std::string mode = ctx.attr_string("mode", "nearest");
  if (mode == "nearest") {
    a.mode = Mode::Nearest;
  } else if (mode == "linear") {
    a.mode = Mode::Linear;
  } else if (mode == "cubic") {
    a.mode = Mode::Cubic;
  } else {
    ctx.fail("mode '" + mode + "' is not nearest, linear or cubic");
  }
  a.coordinate_mode = ctx.attr_string("coordinate_transformation_mode", "half_pixel");
  static const std::vector<std::string> coordinate_modes = {
      "half_pixel",    "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
      "asymmetric",    "tf_crop_and_resize",   "tf_half_pixel_for_nn"};
  if (std::find(coordinate_modes.begin(), coordinate_modes.end(), a.coordinate_mode) == coordinate_modes.end())
    ctx.fail("coordinate_transformation_mode '" + a.coordinate_mode + "' is not one of ONNX's");
  if (a.coordinate_mode == "tf_half_pixel_for_nn" && ctx.opset() >= 13)
    ctx.fail("coordinate_transformation_mode tf_half_pixel_for_nn was removed in opset 13");
  if (a.coordinate_mode == "half_pixel_symmetric" && ctx.opset() < 19)
    ctx.fail("coordinate_transformation_mode half_pixel_symmetric exists from opset 19 on");
  a.nearest_mode = ctx.attr_string("nearest_mode", "round_prefer_floor");
  if (a.nearest_mode != "round_prefer_floor" && a.nearest_mode != "round_prefer_ceil" && a.nearest_mode != "floor" &&
      a.nearest_mode != "ceil")
    ctx.fail("nearest_mode '" + a.nearest_mode + "' is not round_prefer_floor, round_prefer_ceil, floor or ceil");
  a.cubic_a = ctx.attr_float("cubic_coeff_a", -0.75f);
  a.exclude_outside = ctx.attr_int("exclude_outside", 0) != 0;
  a.extrapolation_value = ctx.attr_float("extrapolation_value", 0.0f);
  a.antialias = ctx.attr_int("antialias", 0) != 0;
  if (a.antialias && a.mode == Mode::Nearest) ctx.fail("antialias applies to linear and cubic modes, not nearest");
  return a;
}

// An optional input that is absent, or present and empty (opset 11 passes an
// empty scales when it gives sizes).
bool given(Context& ctx, int i) { return ctx.has_input(i) && ir::numel(ctx.input_type(i).shape) > 0; }

void convert_resize(Context& ctx) {
  ctx.require_inputs(1, 4);
  const ResizeAttributes a = attributes_of(ctx);
  const std::string policy = ctx.attr_string("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    ctx.fail("keep_aspect_ratio_policy '" + policy + "' is not stretch, not_larger or not_smaller");
  if (a.mode != Mode::Nearest) require_dtype(ctx, 0, DTypeClass::Float);  // weights would round integers
  Tensor x = ctx.input(0);
  const ir::Shape in_shape = x.shape();  // x is reassigned axis by axis
  const int64_t rank = x.rank();

  // The resized axes, in the order scales / sizes / roi list them.
  std::vector<int64_t> axes;
  if (std::optional<std::vector<int64_t>> listed = ctx.attr_ints("axes")) {
    for (int64_t axis : *listed) {
      axes.push_back(ctx.normalize_axis(axis, rank, "axes entry"));
      if (std::count(axes.begin(), axes.end(), axes.back()) > 1) ctx.fail("axes lists an axis twice");
    }
  } else {
    for (int64_t axis = 0; axis < rank; ++axis) axes.push_back(axis);
  }
  const size_t count = axes.size();

  const bool has_scales = given(ctx, 2), has_sizes = given(ctx, 3);
  if (has_scales == has_sizes) ctx.fail("exactly one of scales and sizes must be given (non-empty)");
  std::vector<double> scale(static_cast<size_t>(rank), 1.0);
  ir::Shape out_shape = in_shape;
  // Output extents are computed in double and bounded before any cast to an integer.
  auto extent_of = [&](double value, int64_t axis) {
    if (!(value < static_cast<double>(kMaxResizedExtent) + 1))
      ctx.unsupported("an output extent of " + std::to_string(value) + " on axis " + std::to_string(axis) +
                      " (smelt resizes to at most " + std::to_string(kMaxResizedExtent) + " positions per axis)");
    return static_cast<int64_t>(value);
  };
  if (has_scales) {
    ir::HostTensor s = ctx.static_input(2, "scales");
    if (!ir::is_float(s.type.dtype)) ctx.fail("scales must be a float tensor");
    if (static_cast<size_t>(s.numel()) != count)
      ctx.fail("scales has " + std::to_string(s.numel()) + " values for " + std::to_string(count) + " resized axes");
    for (size_t i = 0; i < count; ++i) {
      const double v = s.get(static_cast<int64_t>(i));
      if (!(v > 0) || !std::isfinite(v)) ctx.fail("scales must be positive and finite, holds " + std::to_string(v));
      const size_t axis = static_cast<size_t>(axes[i]);
      scale[axis] = v;
      out_shape[axis] = extent_of(v * static_cast<double>(in_shape[axis]), axes[i]);
    }
  } else {
    const std::vector<int64_t> sizes = ctx.static_ints(3, "sizes");
    if (sizes.size() != count)
      ctx.fail("sizes has " + std::to_string(sizes.size()) + " values for " + std::to_string(count) + " resized axes");
    for (size_t i = 0; i < count; ++i) {
      const size_t axis = static_cast<size_t>(axes[i]);
      if (sizes[i] < 0) ctx.fail("sizes must not be negative, holds " + std::to_string(sizes[i]));
      if (in_shape[axis] == 0 && sizes[i] != 0)
        ctx.fail("axis " + std::to_string(axes[i]) + " is empty: nothing to resize to " + std::to_string(sizes[i]));
      extent_of(static_cast<double>(sizes[i]), axes[i]);
      scale[axis] = in_shape[axis] == 0 ? 1.0 : static_cast<double>(sizes[i]) / static_cast<double>(in_shape[axis]);
      out_shape[axis] = sizes[i];
    }
    if (policy != "stretch") {
      // One scale for every resized axis: the smallest (not_larger) or largest (not_smaller).
      double common = policy == "not_larger" ? std::numeric_limits<double>::infinity() : 0.0;
      for (int64_t axis : axes)
        common = policy == "not_larger" ? std::min(common, scale[static_cast<size_t>(axis)])
                                        : std::max(common, scale[static_cast<size_t>(axis)]);
      for (int64_t axis : axes) {
        scale[static_cast<size_t>(axis)] = common;
        out_shape[static_cast<size_t>(axis)] =
            extent_of(common * static_cast<double>(in_shape[static_cast<size_t>(axis)]) + 0.5, axis);
      }
    }
  }
  if (std::string problem = ir::shape_problem(out_shape); !problem.empty())
    ctx.unsupported("an output of shape " + ir::shape_str(out_shape) + ": " + problem);

  std::vector<std::optional<std::pair<float, float>>> roi(static_cast<size_t>(rank));
  if (a.coordinate_mode == "tf_crop_and_resize") {
    if (!given(ctx, 1)) ctx.fail("coordinate_transformation_mode tf_crop_and_resize needs roi");
    ir::HostTensor r = ctx.static_input(1, "roi");
    if (!ir::is_float(r.type.dtype)) ctx.fail("roi must be a float tensor");
    if (static_cast<size_t>(r.numel()) != 2 * count)
      ctx.fail("roi has " + std::to_string(r.numel()) + " values for " + std::to_string(count) + " resized axes");
    for (size_t i = 0; i < count; ++i) {
      const double lo = r.get(static_cast<int64_t>(i)), hi = r.get(static_cast<int64_t>(i + count));
      if (!std::isfinite(lo) || !std::isfinite(hi)) ctx.fail("roi must be finite");
      roi[static_cast<size_t>(axes[i])] = std::make_pair(static_cast<float>(lo), static_cast<float>(hi));
    }
  }

  for (int64_t axis : axes) {
    const size_t k = static_cast<size_t>(axis);
    const int64_t in = in_shape[k], out = out_shape[k];
    // An axis the reference leaves alone: same extent, scale 1 (math.isclose), whole roi.
    const bool whole_roi = !roi[k] || (roi[k]->first == 0 && std::abs(roi[k]->second - 1.0) <= 1e-9);
    if (std::abs(scale[k] - 1) <= 1e-9 * std::max(1.0, scale[k]) && out == in && whole_roi) continue;
    if (out > 0 && in == 0) ctx.fail("axis " + std::to_string(axis) + " is empty: nothing to resize");
    if (tap_count(a, scale[k]) > kMaxTaps)
      ctx.unsupported("an antialiased downscale by " + std::to_string(scale[k]) + " on axis " + std::to_string(axis) +
                      " reads more than " + std::to_string(kMaxTaps) + " input positions per output position");
    x = resample(ctx, x, resampling_of(a, axis, in, out, scale[k], roi[k]), out, a.extrapolation_value);
  }
  ctx.set_output(0, x);
}

}  // namespace

void add_resize_converters(ConverterTable& t) { t["Resize"] = convert_resize; }

}  // namespace smelt::importer
