#pragma once
// import-private: one convolution builder for every converter that needs one
// (Conv, ConvTranspose as a convolution of the zero-interleaved input).
#include <cstdint>
#include <vector>

#include "import/context.h"

namespace smelt::importer {

// Per spatial axis (x's axes 2..rank-1), resolved: no auto_pad here.
struct ConvGeometry {
  std::vector<int64_t> strides, dilations, pad_lo, pad_hi;
  int64_t group = 1;
};

// conv(x, w) without bias: x [N, C, in...], w [M, C / group, k...] →
// [N, M, out...], out = (in + lo + hi - dilation·(k - 1) - 1) / stride + 1.
// The caller has checked dtypes, ranks and that `group` divides C and M;
// an input smaller than the window is ctx.fail.
ir::Tensor convolution(Context& ctx, ir::Tensor x, ir::Tensor w, const ConvGeometry& geometry);

// A window attribute (strides, dilations, pads...): `n` integers, or `fallback`
// on every entry when absent; another count is ctx.fail.
std::vector<int64_t> window_ints(Context& ctx, const std::string& name, size_t n, int64_t fallback);

}  // namespace smelt::importer
