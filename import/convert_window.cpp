// Windowed ops: Conv (smelt's conv op), MaxPool, AveragePool,
// GlobalAveragePool, GlobalMaxPool. A pooling window position is a strided
// slice of the padded input (one per kernel offset, shape [N, C, out...]);
// pooling combines the slices elementwise, so it fuses with what precedes and
// follows it.
#include <cmath>
#include <limits>
#include <numeric>

#include "import/context.h"
#include "import/convolution.h"
#include "import/dtype_checks.h"

namespace smelt::importer {
namespace {

using ir::Tensor;

// The geometry of a window over the spatial axes (2..rank-1) of an input.
struct Window {
  std::vector<int64_t> kernel, strides, dilations;
  std::vector<int64_t> pad_lo, pad_hi;  // declared pads (auto_pad resolved)
  std::vector<int64_t> extra_hi;        // ceil_mode: windows reaching past the padded input
  std::vector<int64_t> out;             // output extents
};


Window window_of(Context& ctx, const ir::Shape& input, std::vector<int64_t> kernel, bool ceil_mode) {
  const size_t n = input.size() - 2;
  Window w;
  w.kernel = std::move(kernel);
  w.strides = window_ints(ctx, "strides", n, 1);
  w.dilations = window_ints(ctx, "dilations", n, 1);
  std::vector<int64_t> pads = window_ints(ctx, "pads", 2 * n, 0);
  const std::string auto_pad = ctx.attr_string("auto_pad", "NOTSET");
  // Bounded so that window arithmetic cannot overflow (a real window is far smaller).
  constexpr int64_t kMaxExtent = int64_t{1} << 31;
  for (size_t i = 0; i < n; ++i) {
    if (w.kernel[i] < 1 || w.strides[i] < 1 || w.dilations[i] < 1)
      ctx.fail("kernel extents, strides and dilations must be at least 1");
    if (pads[i] < 0 || pads[i + n] < 0) ctx.fail("pads must not be negative");
    if (w.kernel[i] > kMaxExtent || w.strides[i] > kMaxExtent || w.dilations[i] > kMaxExtent ||
        pads[i] > kMaxExtent || pads[i + n] > kMaxExtent)
      ctx.fail("kernel extents, strides, dilations and pads must be at most 2^31");
  }
  w.pad_lo.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(n));
  w.pad_hi.assign(pads.begin() + static_cast<std::ptrdiff_t>(n), pads.end());
  w.extra_hi.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = input[i + 2], span = w.dilations[i] * (w.kernel[i] - 1) + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      w.out.push_back((in + w.strides[i] - 1) / w.strides[i]);
      const int64_t total = std::max<int64_t>(0, (w.out[i] - 1) * w.strides[i] + span - in);
      w.pad_lo[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pad_hi[i] = total - w.pad_lo[i];
      continue;
    }
    if (auto_pad == "VALID") {
      w.pad_lo[i] = w.pad_hi[i] = 0;
    } else if (auto_pad != "NOTSET") {
      ctx.fail("auto_pad '" + auto_pad + "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
    }
    const int64_t padded = in + w.pad_lo[i] + w.pad_hi[i];
    if (padded < span) ctx.fail("the window is larger than the padded input");
    const int64_t steps = padded - span;
    int64_t out = (ceil_mode ? (steps + w.strides[i] - 1) / w.strides[i] : steps / w.strides[i]) + 1;
    // A last window must start inside the input or its leading pad.
    if (ceil_mode && (out - 1) * w.strides[i] >= in + w.pad_lo[i]) --out;
    w.out.push_back(out);
    w.extra_hi[i] = std::max<int64_t>(0, (out - 1) * w.strides[i] + span - padded);
  }
  return w;
}

// The input padded with `value` on the declared pads and `extra` past them.
Tensor padded(Tensor x, const Window& w, double value, double extra) {
  const size_t n = w.kernel.size();
  std::vector<int64_t> lo(2, 0), hi(2, 0);
  lo.insert(lo.end(), w.pad_lo.begin(), w.pad_lo.end());
  hi.insert(hi.end(), w.pad_hi.begin(), w.pad_hi.end());
  bool any = false;
  for (size_t i = 0; i < n; ++i) any = any || w.pad_lo[i] || w.pad_hi[i];
  if (any) x = ir::pad(x, lo, hi, value);
  bool any_extra = false;
  std::vector<int64_t> zero(n + 2, 0), extra_hi(2, 0);
  extra_hi.insert(extra_hi.end(), w.extra_hi.begin(), w.extra_hi.end());
  for (int64_t e : w.extra_hi) any_extra = any_extra || e;
  if (any_extra) x = ir::pad(x, zero, extra_hi, extra);
  return x;
}

// Each kernel offset is a slice of the graph: beyond these along one axis
// (pooled() combines larger windows axis by axis), a model would build a graph
// too large to optimize (a refusal, not a hang).
constexpr int64_t kMaxKernelOffsets = 8192;

// Kernel offsets, each a vector over the spatial axes, in row-major order.
std::vector<std::vector<int64_t>> offsets(Context& ctx, const std::vector<int64_t>& kernel) {
  int64_t count = 1;
  for (int64_t k : kernel) count = std::min<int64_t>(count * k, kMaxKernelOffsets + 1);
  if (count > kMaxKernelOffsets)
    ctx.unsupported("a window of more than " + std::to_string(kMaxKernelOffsets) +
                    " positions along one axis (smelt pools one slice per position)");
  std::vector<std::vector<int64_t>> all{{}};
  for (int64_t k : kernel) {
    std::vector<std::vector<int64_t>> next;
    for (const auto& prefix : all)
      for (int64_t o = 0; o < k; ++o) {
        next.push_back(prefix);
        next.back().push_back(o);
      }
    all = std::move(next);
  }
  return all;
}

// The input elements under kernel offset `o` at every output position: [N, C, out...].
Tensor window_slice(Tensor padded_x, const Window& w, const std::vector<int64_t>& o) {
  const ir::Shape& s = padded_x.shape();
  std::vector<int64_t> start{0, 0}, stop{s[0], s[1]}, step{1, 1};
  for (size_t i = 0; i < o.size(); ++i) {
    start.push_back(o[i] * w.dilations[i]);
    stop.push_back(start.back() + (w.out[i] - 1) * w.strides[i] + 1);
    step.push_back(w.strides[i]);
  }
  return ir::slice(padded_x, start, stop, step);
}

// A window of at most this many positions is combined in one stage, one slice
// per position, so a pooling stays one elementwise kernel (ResNet's 3x3 max
// pool: 9 slices). A larger one is combined axis by axis: a max or sum over a
// box is the max or sum over each of its axes in turn, so an 80x60 window is
// 80 + 60 slices in two stages, not 4,800 (ONNX's MaxPool2d_stride_padding_dilation
// test: 9,600 ops took 150 s of the conformance run, 2.4 s axis by axis).
constexpr int64_t kMaxOneStagePositions = 64;

// Each window position's slice of the padded input `p`, combined by `combine`
// (max, add): [N, C, out...].
Tensor pooled(Context& ctx, Tensor p, const Window& w, Tensor (*combine)(Tensor, Tensor)) {
  const auto combined = [&](const Tensor& from, const Window& window) {
    std::optional<Tensor> y;
    for (const auto& o : offsets(ctx, window.kernel)) {
      Tensor v = window_slice(from, window, o);
      y = y ? combine(*y, v) : v;
    }
    return *y;
  };
  int64_t positions = 1;
  for (int64_t k : w.kernel) positions = std::min(positions * k, kMaxOneStagePositions + 1);
  if (positions <= kMaxOneStagePositions) return combined(p, w);
  const size_t n = w.kernel.size();
  for (size_t i = 0; i < n; ++i) {
    // The window along axis i alone; the axes before it are already pooled.
    Window along{std::vector<int64_t>(n, 1), std::vector<int64_t>(n, 1), std::vector<int64_t>(n, 1), {}, {}, {}, {}};
    along.kernel[i] = w.kernel[i];
    along.strides[i] = w.strides[i];
    along.dilations[i] = w.dilations[i];
    along.out.assign(p.shape().begin() + 2, p.shape().end());
    along.out[i] = w.out[i];
    p = combined(p, along);
  }
  return p;
}

Tensor spatial_input(Context& ctx) {
  Tensor x = ctx.input(0);
  if (x.rank() < 3 || x.rank() > 5) ctx.unsupported("inputs of rank " + std::to_string(x.rank()) +
                                                    " (smelt takes 1 to 3 spatial axes)");
  return x;
}

void convert_global_pool(Context& ctx, bool max) {
  ctx.require_inputs(1, 1);
  require_dtype(ctx, 0, DTypeClass::Float);
  Tensor x = spatial_input(ctx);
  std::vector<int64_t> axes(static_cast<size_t>(x.rank() - 2));
  std::iota(axes.begin(), axes.end(), 2);
  if (max) {
    ctx.set_output(0, ir::reduce_max(x, axes, true));
    return;
  }
  int64_t count = 1;
  for (int64_t a : axes) count *= x.shape()[static_cast<size_t>(a)];
  Tensor s = ir::reduce_sum(x, axes, true);
  ctx.set_output(0, ir::div(s, ctx.scalar_like(static_cast<double>(count), s.dtype(), s.shape())));
}

std::vector<int64_t> kernel_shape(Context& ctx, size_t spatial) {
  std::optional<std::vector<int64_t>> k = ctx.attr_ints("kernel_shape");
  if (!k) ctx.fail("kernel_shape is required");
  if (k->size() != spatial) ctx.fail("kernel_shape has " + std::to_string(k->size()) + " values for " +
                                     std::to_string(spatial) + " spatial axes");
  return *k;
}

void convert_max_pool(Context& ctx) {
  ctx.require_inputs(1, 1);
  require_dtype(ctx, 0, DTypeClass::Float);
  if (ctx.wants_output(1)) ctx.unsupported("the Indices output of MaxPool");
  if (ctx.attr_int("storage_order", 0) != 0) ctx.unsupported("storage_order 1 (column-major indices)");
  Tensor x = spatial_input(ctx);
  const Window w = window_of(ctx, x.shape(), kernel_shape(ctx, static_cast<size_t>(x.rank() - 2)),
                             ctx.attr_int("ceil_mode", 0) != 0);
  const double lowest = -std::numeric_limits<double>::infinity();
  ctx.set_output(0, pooled(ctx, padded(x, w, lowest, lowest), w, ir::max));
}

void convert_average_pool(Context& ctx) {
  ctx.require_inputs(1, 1);
  require_dtype(ctx, 0, DTypeClass::Float);
  Tensor x = spatial_input(ctx);
  const bool include_pad = ctx.attr_int("count_include_pad", 0) != 0;
  const Window w = window_of(ctx, x.shape(), kernel_shape(ctx, static_cast<size_t>(x.rank() - 2)),
                             ctx.attr_int("ceil_mode", 0) != 0);
  Tensor p = padded(x, w, 0, 0);
  // How many elements each window averages: the input's, the declared pads'
  // too with count_include_pad, never those past the padded input (ceil_mode).
  ir::Shape ones_shape{1, 1};
  ones_shape.insert(ones_shape.end(), x.shape().begin() + 2, x.shape().end());
  Tensor counted = padded(ctx.scalar_like(1, x.dtype(), ones_shape), w, include_pad ? 1 : 0, 0);
  Tensor sum = pooled(ctx, p, w, ir::add), count = pooled(ctx, counted, w, ir::add);
  ctx.set_output(0, ir::div(sum, ir::broadcast(count, sum.shape())));
}

void convert_conv(Context& ctx) {
  ctx.require_inputs(2, 3);
  require_dtypes(ctx, 0, 2, DTypeClass::Float);
  Tensor x = spatial_input(ctx), weights = ctx.input(1);
  if (weights.rank() != x.rank()) ctx.fail("W must have the rank of X");
  const int64_t group = ctx.attr_int("group", 1);
  const int64_t channels = x.shape()[1], maps = weights.shape()[0];
  if (group < 1 || channels % group != 0 || maps % group != 0 || weights.shape()[1] * group != channels)
    ctx.fail("group " + std::to_string(group) + " does not divide X's " + std::to_string(channels) +
             " channels and W's " + std::to_string(maps) + " maps, W's shape " + ir::shape_str(weights.shape()));
  std::vector<int64_t> kernel(weights.shape().begin() + 2, weights.shape().end());
  if (std::optional<std::vector<int64_t>> given = ctx.attr_ints("kernel_shape"); given && *given != kernel)
    ctx.fail("kernel_shape differs from W's spatial extents");
  const Window w = window_of(ctx, x.shape(), kernel, false);
  Tensor y = convolution(ctx, x, weights, ConvGeometry{w.strides, w.dilations, w.pad_lo, w.pad_hi, group});
  if (ctx.has_input(2)) {
    Tensor bias = ctx.input(2);
    if (bias.rank() != 1 || bias.shape()[0] != maps) ctx.fail("B must have one value per output map");
    ir::Shape bias_shape(y.shape().size(), 1);
    bias_shape[1] = maps;
    y = ir::add(y, ir::broadcast(ir::reshape(bias, bias_shape), y.shape()));
  }
  ctx.set_output(0, y);
}

}  // namespace

std::vector<int64_t> window_ints(Context& ctx, const std::string& name, size_t n, int64_t fallback) {
  std::optional<std::vector<int64_t>> v = ctx.attr_ints(name);
  if (!v) return std::vector<int64_t>(n, fallback);
  if (v->size() != n) ctx.fail(name + " has " + std::to_string(v->size()) + " values for " + std::to_string(n) +
                               " spatial axes");
  return *v;
}

Tensor convolution(Context& ctx, Tensor x, Tensor w, const ConvGeometry& geometry) {
  for (size_t i = 0; i + 2 < x.shape().size(); ++i) {
    const int64_t padded_extent = x.shape()[i + 2] + geometry.pad_lo[i] + geometry.pad_hi[i];
    if (padded_extent < geometry.dilations[i] * (w.shape()[i + 2] - 1) + 1)
      ctx.fail("the window is larger than the padded input");
  }
  return ir::conv(x, w, ir::ConvParams{geometry.strides, geometry.dilations, geometry.pad_lo, geometry.pad_hi,
                                       geometry.group});
}

void add_window_converters(ConverterTable& t) {
  t["Conv"] = convert_conv;
  t["MaxPool"] = convert_max_pool;
  t["AveragePool"] = convert_average_pool;
  t["GlobalAveragePool"] = [](Context& ctx) { convert_global_pool(ctx, false); };
  t["GlobalMaxPool"] = [](Context& ctx) { convert_global_pool(ctx, true); };
}

}  // namespace smelt::importer
