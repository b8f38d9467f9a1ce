#pragma once
// Changes of a kernel's variables: the same computation over another iteration
// space. A convolution is emitted over its own axes ([N, M, out...] × [C /
// groups, kernel...]); in contraction form it is a batch of matmuls ([N,
// groups, M / groups, out...] × [C / groups · kernel positions]: the output
// positions are the matmul's columns) that the tiled contraction lowerings
// (kernel/contraction_group.h) take.
#include <cstdint>
#include <functional>

#include "kernel/kernel.h"

namespace smelt::kernel {

// Rewrites every index expression of `kernel` over new variables: the space
// `space` (variables 0..) and the reduction domain `reduction` (after them).
// `old_var(pool, v)` builds old variable v as an expression of the new ones in
// `pool`. The change must be a bijection that keeps the space's row-major order
// (outputs are written row-major over the space).
void change_variables(Kernel& kernel, Shape space, Shape reduction,
                      const std::function<IndexRef(IndexPool&, int)>& old_var);

// The convolutions a kernel's anchors are: one groups count, one output shape.
struct ConvLayout {
  int64_t groups = 1;
  Shape out;  // [N, M, out...]
  bool operator==(const ConvLayout&) const = default;
};

// Puts a kernel whose anchors are convolutions of `layout` (its space their
// output, its reduction [C / groups, kernel...]) in contraction form, where a
// group has at least kMinContractionRows output maps (fewer, as depthwise:
// packing would cost more than the products; the plain loop is kept). The
// result's index maps are simplified (kernel/index_simplify.h): the group read
// from a map, (groups' · mg + mg') / mg, becomes the group variable.
inline constexpr int64_t kMinContractionRows = 4;
void to_contraction_form(Kernel& kernel, const ConvLayout& layout);

// Merges the innermost two axes of the space into one where every load reads
// them as one: a kernel over [1, C, 7, 7] whose loads take (i2, i3) as the
// last two axes of buffers whose last axis is 7 (or read neither) runs over
// [1, C, 49]. Each row of the space is a loop with its set-up and its vector
// remainder, and what depends only on the outer axes (a squeeze-excite's
// sigmoid of its channel's value) is computed once per row: over rows of 7,
// EfficientNet-B0's scale of 1152 maps by their sigmoids took 68 us where
// 56 K elements' reads and writes price 6 (2026-11-29, one thread); merged,
// 9.8 us. The merged loads read (x floordiv 7, x mod 7), which address element
// x (IndexPool::flattened_pair; LLVM folds the pair's address to x). Merges one pair, where the innermost extent is
// below kMergeRowsBelow and at least kMergeKeepRows rows remain (the threads
// split rows) or the kernel chains math calls (kernel::host_chains_math_calls:
// its rows run in row stages, at the sum of their passes only from 64 columns
// on); a second merge would need a run of three axes read as one. Never
// for a scatter, a gather (indirect variables), a contraction (its
// columns are planned: kernel/contraction_group.h), or where a mask or an index
// value reads the two axes.
inline constexpr int64_t kMergeRowsBelow = 64;
inline constexpr int64_t kMergeKeepRows = 64;
void merge_contiguous_rows(Kernel& kernel, const std::vector<Buffer>& buffers);

}  // namespace smelt::kernel
