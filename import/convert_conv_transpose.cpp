// ConvTranspose, decomposed into smelt ops: a transposed convolution is a
// convolution with stride 1 of the input with stride - 1 zeros interleaved
// between neighbours on every spatial axis, padded by dilation·(k - 1) - pad on
// each side (a negative amount crops), with the weights transposed per group
// ([C, M/group, k...] → [M, C/group, k...]) and flipped on every spatial axis.
// The convolution itself is import/convolution.h's, the one Conv goes through.
#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>

#include "import/constant_views.h"
#include "import/context.h"
#include "import/convolution.h"
#include "import/dtype_checks.h"

namespace smelt::importer {
namespace {

using ir::Tensor;

// Attribute values and spatial extents are bounded so that the shape
// arithmetic below cannot overflow (a real model's are far smaller).
constexpr int64_t kMaxAttributeValue = int64_t{1} << 30;

// window_ints, each value within ±2^30.
std::vector<int64_t> bounded_window_ints(Context& ctx, const std::string& name, size_t n, int64_t fallback) {
  std::vector<int64_t> v = window_ints(ctx, name, n, fallback);
  for (int64_t x : v)
    if (x < -kMaxAttributeValue || x > kMaxAttributeValue) ctx.fail(name + " holds " + std::to_string(x) + ", beyond 2^30");
  return v;
}

// Per spatial axis: the pads the ONNX equations give, before and after.
struct TransposedGeometry {
  std::vector<int64_t> kernel, strides, dilations, output_padding;
  std::vector<int64_t> pad_lo, pad_hi;  // may be negative: the output extends past the computed one
  std::vector<int64_t> out;
};

TransposedGeometry geometry_of(Context& ctx, const ir::Shape& x_shape, const ir::Shape& w_shape, int64_t maps) {
  const size_t n = x_shape.size() - 2;
  TransposedGeometry g;
  g.kernel.assign(w_shape.begin() + 2, w_shape.end());
  if (std::optional<std::vector<int64_t>> given = ctx.attr_ints("kernel_shape"); given && *given != g.kernel)
    ctx.fail("kernel_shape " + ir::shape_str(*given) + " differs from W's spatial extents " + ir::shape_str(g.kernel));
  g.strides = bounded_window_ints(ctx, "strides", n, 1);
  g.dilations = bounded_window_ints(ctx, "dilations", n, 1);
  g.output_padding = bounded_window_ints(ctx, "output_padding", n, 0);
  const std::vector<int64_t> pads = bounded_window_ints(ctx, "pads", 2 * n, 0);
  const std::string auto_pad = ctx.attr_string("auto_pad", "NOTSET");
  std::optional<std::vector<int64_t>> output_shape = ctx.attr_ints("output_shape");
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID")
    ctx.fail("auto_pad '" + auto_pad + "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  for (size_t i = 0; i < n; ++i) {
    if (g.kernel[i] < 1) ctx.fail("W's kernel extents must be at least 1, W is " + ir::shape_str(w_shape));
    if (g.strides[i] < 1 || g.dilations[i] < 1) ctx.fail("strides and dilations must be at least 1");
    if (g.output_padding[i] < 0) ctx.fail("output_padding must not be negative");
    if (pads[i] < 0 || pads[i + n] < 0) ctx.fail("pads must not be negative");
    if (g.kernel[i] > kMaxAttributeValue || x_shape[i + 2] > kMaxAttributeValue)
      ctx.fail("spatial extents beyond 2^30");
  }
  if (output_shape) {
    // Either the spatial extents or, as some exporters write it, the whole output shape.
    if (output_shape->size() == n + 2) {
      if ((*output_shape)[0] != x_shape[0] || (*output_shape)[1] != maps)
        ctx.fail("output_shape " + ir::shape_str(*output_shape) + " disagrees with the batch and the " +
                 std::to_string(maps) + " output maps");
      output_shape->erase(output_shape->begin(), output_shape->begin() + 2);
    }
    if (output_shape->size() != n)
      ctx.fail("output_shape has " + std::to_string(output_shape->size()) + " values for " + std::to_string(n) +
               " spatial axes");
    for (int64_t e : *output_shape)
      if (e < 1 || e > kMaxAttributeValue) ctx.fail("output_shape extents must be in [1, 2^30]");
  }
  const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = x_shape[i + 2];
    // The output extent with no pads at all (every term below 2^60: no overflow).
    const int64_t natural = g.strides[i] * (in - 1) + g.output_padding[i] + g.dilations[i] * (g.kernel[i] - 1) + 1;
    if (output_shape || same) {
      // The pads come from the wanted extent (ONNX: "pads values are ignored").
      const int64_t wanted = output_shape ? (*output_shape)[i] : in * g.strides[i];
      const int64_t total = natural - wanted;
      if (total < 0) {
        // A larger output than the natural one extends it at the end, as
        // output_padding does (ONNX Runtime's and the reference's reading).
        g.pad_lo.push_back(0);
        g.pad_hi.push_back(total);
      } else {
        // SAME_UPPER puts the odd pad at the end; NOTSET and SAME_LOWER at the start.
        if (total % 2 != 0 && ctx.opset() < 11)
          ctx.unsupported("ConvTranspose before opset 11 splits an odd total padding the other way round "
                          "(smelt imports ConvTranspose-11's split); an odd total padding of " +
                          std::to_string(total) + " here");
        const int64_t half = total / 2;
        g.pad_lo.push_back(auto_pad == "SAME_UPPER" ? half : total - half);
        g.pad_hi.push_back(total - g.pad_lo.back());
      }
    } else if (auto_pad == "VALID") {
      g.pad_lo.push_back(0);
      g.pad_hi.push_back(0);
    } else {
      g.pad_lo.push_back(pads[i]);
      g.pad_hi.push_back(pads[i + n]);
    }
    const int64_t out = natural - g.pad_lo[i] - g.pad_hi[i];
    if (out < 1)
      ctx.fail("spatial axis " + std::to_string(i) + " would have output extent " + std::to_string(out) +
               " (input " + std::to_string(in) + ", pads " + std::to_string(g.pad_lo[i]) + " and " +
               std::to_string(g.pad_hi[i]) + ")");
    g.out.push_back(out);
  }
  return g;
}

// x with stride - 1 zeros after every element on each spatial axis, then padded
// by lo / hi elements (a negative amount crops) where hi counts from the last
// input element: [.., I, ..] → [.., (I - 1)·s + 1 + lo + hi, ..].
Tensor interleave_and_pad(Tensor x, const std::vector<int64_t>& strides, const std::vector<int64_t>& lo,
                          const std::vector<int64_t>& hi) {
  const size_t n = strides.size();
  const ir::Shape shape = x.shape();  // x is rebuilt below
  std::vector<int64_t> extent(shape.begin() + 2, shape.end());  // along each spatial axis as built so far
  std::vector<int64_t> after(hi);                               // still to add past the current extent
  if (std::any_of(strides.begin(), strides.end(), [](int64_t s) { return s > 1; })) {
    // [N, C, I1, 1, I2, 1, ...], each unit axis padded to s, flattened: [N, C, I1·s1, ...].
    ir::Shape split{shape[0], shape[1]}, merged{shape[0], shape[1]};
    std::vector<int64_t> gap_lo(2 + 2 * n, 0), gap_hi(2 + 2 * n, 0);
    for (size_t i = 0; i < n; ++i) {
      split.push_back(extent[i]);
      split.push_back(1);
      gap_hi[2 + 2 * i + 1] = strides[i] - 1;
      merged.push_back(extent[i] * strides[i]);
      // The trailing s - 1 zeros count towards the pad after the last element.
      after[i] -= strides[i] - 1;
      extent[i] *= strides[i];
    }
    x = ir::reshape(ir::pad(ir::reshape(x, split), gap_lo, gap_hi, 0), merged);
  }
  std::vector<int64_t> pad_lo(2, 0), pad_hi(2, 0), start(2, 0), stop{shape[0], shape[1]}, step(n + 2, 1);
  bool any_pad = false, any_crop = false;
  for (size_t i = 0; i < n; ++i) {
    pad_lo.push_back(std::max<int64_t>(lo[i], 0));
    pad_hi.push_back(std::max<int64_t>(after[i], 0));
    start.push_back(std::max<int64_t>(-lo[i], 0));
    stop.push_back(pad_lo.back() + extent[i] + pad_hi.back() - std::max<int64_t>(-after[i], 0));
    any_pad = any_pad || pad_lo.back() > 0 || pad_hi.back() > 0;
    any_crop = any_crop || lo[i] < 0 || after[i] < 0;
  }
  if (any_pad) x = ir::pad(x, pad_lo, pad_hi, 0);
  if (any_crop) x = ir::slice(x, start, stop, step);
  return x;
}

// W [C, M/group, k...] as the weights of the equivalent convolution:
// [M, C/group, k...], each kernel flipped on every spatial axis.
Tensor convolution_weights(Tensor w, int64_t group) {
  const ir::Shape s = w.shape();  // a copy: building ops may move the graph's storage
  const size_t n = s.size() - 2;
  const int64_t cg = s[0] / group, mg = s[1];
  ir::Shape grouped{group, cg, mg}, merged{group * mg, cg};
  grouped.insert(grouped.end(), s.begin() + 2, s.end());
  merged.insert(merged.end(), s.begin() + 2, s.end());
  std::vector<int64_t> perm{0, 2, 1};
  for (size_t i = 0; i < n; ++i) perm.push_back(static_cast<int64_t>(i) + 3);
  Tensor t = w;
  if (group == 1) {
    // W itself permuted, so that constant weights fold into a transposed constant.
    perm.erase(perm.begin());
    for (int64_t& a : perm) --a;
    t = permute_folding_constants(w, perm);
  } else {
    t = ir::reshape(ir::permute(ir::reshape(w, grouped), perm), merged);
  }
  std::vector<int64_t> start{0, 0}, stop{merged[0], merged[1]}, step{1, 1};
  bool flips = false;
  for (size_t i = 0; i < n; ++i) {
    const int64_t k = s[i + 2];
    // Backwards from the last element to "before index 0" (docs/ops.md).
    start.push_back(k - 1);
    stop.push_back(-1);
    step.push_back(-1);
    flips = flips || k > 1;
  }
  return flips ? ir::slice(t, start, stop, step) : t;
}

void convert_conv_transpose(Context& ctx) {
  ctx.require_inputs(2, 3);
  require_dtypes(ctx, 0, 2, DTypeClass::Float);
  Tensor x = ctx.input(0), w = ctx.input(1);
  if (x.rank() < 3 || x.rank() > 5)
    ctx.unsupported("inputs of rank " + std::to_string(x.rank()) + " (smelt takes 1 to 3 spatial axes)");
  if (w.rank() != x.rank()) ctx.fail("W must have the rank of X");
  const int64_t group = ctx.attr_int("group", 1);
  const int64_t channels = x.shape()[1];
  if (group < 1 || channels % group != 0 || w.shape()[0] != channels)
    ctx.fail("group " + std::to_string(group) + " does not divide X's " + std::to_string(channels) +
             " channels, or W " + ir::shape_str(w.shape()) + " does not have one row per input channel");
  const int64_t maps = w.shape()[1] * group;
  const TransposedGeometry g = geometry_of(ctx, x.shape(), w.shape(), maps);
  const size_t n = g.kernel.size();
  std::vector<int64_t> lo(n), hi(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t reach = g.dilations[i] * (g.kernel[i] - 1);
    lo[i] = reach - g.pad_lo[i];
    hi[i] = reach - g.pad_hi[i] + g.output_padding[i];
  }
  Tensor spread = interleave_and_pad(x, g.strides, lo, hi);
  const std::vector<int64_t> ones(n, 1), zeros(n, 0);
  Tensor y = convolution(ctx, spread, convolution_weights(w, group), ConvGeometry{ones, g.dilations, zeros, zeros, group});
  if (ctx.has_input(2)) {
    Tensor bias = ctx.input(2);
    if (bias.rank() != 1 || bias.shape()[0] != maps)
      ctx.fail("B must have one value per output map (" + std::to_string(maps) + "), is " + ir::shape_str(bias.shape()));
    ir::Shape bias_shape(y.shape().size(), 1);
    bias_shape[1] = maps;
    y = ir::add(y, ir::broadcast(ir::reshape(bias, bias_shape), y.shape()));
  }
  ctx.set_output(0, y);
}

}  // namespace

void add_conv_transpose_converters(ConverterTable& t) { t["ConvTranspose"] = convert_conv_transpose; }

}  // namespace smelt::importer
