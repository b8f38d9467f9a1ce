#pragma once
// Kernels that compute only from constants (a concat of weights that batches
// three projections into one gemm, a transposed or cast weight) give the same
// values on every run: they are evaluated once, at compile time, by the kernel
// interpreter, and their outputs become constant buffers. The cost model
// prices such a kernel at zero (smelt::cost::predict), so extraction sees the fold.
#include <cstdint>

#include "kernel/kernel.h"

namespace smelt::kernel {

// Elements a folded kernel may write (all its outputs together), which bounds
// the constants a fold adds (16 MiB of f32), and evaluations it may take
// (space × reduction: a product of two constant weights is a reduction per
// element), which bounds its time: the interpreter takes about 0.1 µs each.
inline constexpr int64_t kMaxFoldedElements = int64_t{1} << 22;
inline constexpr int64_t kMaxFoldedEvaluations = int64_t{1} << 24;
// Elements an expansion (a kernel without a reduction writing more elements
// than the constants it reads: a broadcast) may write and still fold.
inline constexpr int64_t kMaxFoldedExpansion = int64_t{1} << 14;

// `kernel` reads at least one constant buffer and nothing but constants,
// writes only intermediates, at most kMaxFoldedElements elements (an
// expansion at most kMaxFoldedExpansion or what it reads), and takes at most
// kMaxFoldedEvaluations evaluations.
bool folds_at_compile_time(const KernelProgram& program, const Kernel& kernel);

// Evaluates every kernel that folds_at_compile_time, in order (so a kernel
// that reads only folded outputs folds too), turns its outputs into constant
// buffers and removes it; then removes constant buffers no kernel reads any
// more. Other buffers keep their order.
KernelProgram fold_constant_kernels(KernelProgram program);

}  // namespace smelt::kernel
