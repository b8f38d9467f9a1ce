#pragma once
// Which kernels are contraction groups in matmul form — the one acceptance rule
// that the host's tiled contraction (lower/host_matmul.h), the GPU's tiled
// matmul (lower/gpu_kernel.h, kTiledMatmul) and the host's split into parallel
// rows (kernel/host_plan.h) share.
//
// The kernel's space is [batch..., M, N...] and its reduction [K]: N is one
// axis (a matmul) or several (a convolution's output positions, contraction
// form of kernel/kernel_reindex.h), the fewest that make the sides below fit. Every Reduce
// node is a float contraction sum of an f32 Mul(A-side, B-side), the A side
// free of the column variable n, the B side free of the row variable m (a
// product rounded to f16 / bf16 before the sum is not what an f32 FMA
// computes). Several Reduce nodes are a contraction group; sides they share are
// listed once.
#include <cstdint>
#include <optional>
#include <vector>

#include "kernel/kernel.h"

namespace smelt::kernel {

// One Reduce node of the group and its two factor subtrees.
struct ContractionTerm {
  int reduce = -1;  // expr index of the Reduce node
  int a_side = -1;  // index into ContractionGroup::a_sides
  int b_side = -1;  // index into ContractionGroup::b_sides
};

struct ContractionGroup {
  std::vector<int64_t> batch;  // extents of the batch axes (the space but the last two)
  int64_t m = 0, n = 0, k = 0;  // n: the product of `columns`
  std::vector<int64_t> columns;  // extents of the column axes (the space's last ones), row-major
  std::vector<int> a_sides;  // expr indices of the distinct A-side subtrees
  std::vector<int> b_sides;  // expr indices of the distinct B-side subtrees
  std::vector<ContractionTerm> terms;
  bool b_sides_read_batch = false;  // some B side reads a batch variable

  // The rows one packed B serves: M, or batch × M when no B side reads a batch
  // variable (x[s, 1, d] @ w[d, f] is 197 rows of one product, not 197
  // products of one row; tiles clamped to M = 1 ran it at 15 GFLOP/s).
  int64_t rows_per_b() const {
    int64_t rows = m;
    if (!b_sides_read_batch)
      for (int64_t e : batch) rows *= e;
    return rows;
  }
};

// The group when `kernel` has the form above (and at most 64 variables);
// nullopt otherwise. Extents are not checked (they may be zero).
std::optional<ContractionGroup> match_contraction_group(const Kernel& kernel);

// Every B side of `group` is computed from constant buffers (weights) alone,
// with no reduction inside: B is the same on every call, so the host's tiled
// contraction packs it once (lower/host_matmul.cpp) and the cost model prices
// the product at the rates measured with B packed once (a 128 x 512 x 32000
// product: 31 ms measured, 61 ms priced at packed-per-call rates).
bool b_sides_are_constant(const KernelProgram& program, const Kernel& kernel, const ContractionGroup& group);

// Every load of the group's B sides that reads a column variable reads the
// columns as one flattened index: unmasked, its row-major offset in its buffer
// affine in the column variables, with coefficient 1 for the last and the
// product of the later column extents for each earlier one (a 1x1 convolution
// at stride 1 without padding: x[c, i2, i3] of a [C, 56, 56] map is
// x[c·3136 + n]). Its B is then a plain matrix, not windows: packing it costs
// what a matmul's B costs (cost/predict.cpp charges windows only otherwise).
// True for a group of one column axis.
bool b_columns_are_flat(const KernelProgram& program, const Kernel& kernel, const ContractionGroup& group);

// Some B side reads overlapping windows: a load whose index mixes a column
// variable with a reduction variable (x[c, i2 + kh - 1, i3 + kw - 1] of a
// 3x3 convolution), or masks columns (padding). False for a strided 1x1
// convolution, whose windows are single elements: its B is a strided matrix,
// packed as a matmul's B is. cost/predict.cpp prices overlapping windows at the
// profile's convolution rates, measured on 3x3 convolutions; they priced a 1x1
// convolution at stride 2 (256 -> 512 maps, 56x56 -> 28x28) at 1.33-1.55x its
// time, matmul rates within 3 % (Intel Xeon, 2026-12-02).
bool b_windows_overlap(const Kernel& kernel, const ContractionGroup& group);

}  // namespace smelt::kernel
