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

}  // namespace smelt::kernel
