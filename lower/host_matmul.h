#pragma once
// lower-private (LLVM types; only lower/*.cpp include it): the host's tiled
// contraction kernel.
//
// A contraction kernel (kernel/kernel.h) has a space [batch..., M, N], one
// reduction axis K and one or more Reduce nodes with contraction=true whose
// operand is Mul(A-side, B-side): the A-side subtree depends on the batch
// vars, the row var m and k (not on the column var n), the B-side on the batch
// vars, k and n (not on m). Several Reduce nodes are a contraction group; they
// may share A-side or B-side subtrees, which are packed once. Everything
// outside the reduce bodies is the epilogue, evaluated once per output element.
//
// The code is Goto/BLIS-shaped: per NC block of columns and KC block of K,
// pack a KC×NC block of every distinct B-side subtree (its prologue applied
// while packing, zeros past N); per MC block of rows, pack an MC×KC block of
// every distinct A-side subtree; then an MR×NR register-blocked micro-kernel of
// <16 x float> llvm.fma per term of the group, accumulating in f32 (MR×NR fit
// to the target's vector registers; a group's terms one pass each where all
// at once would fit worse, each pass leaving its sums in the epilogue tile). With
// K > KC, partial sums wait in a per-call f32 scratch; at the last K block the
// accumulators go through the epilogue (KernelEmitter: the reduce values
// preset, every output stored).
//
// Parallel units are smelt::lower::parallel_units' rows (batch × M), or for a kernel
// of few rows (smelt::kernel::host_column_blocks) rows of column blocks; a call
// f(buffers, begin, end) merges its consecutive rows into ranges — one per
// batch element, or one across batch elements when no B side reads a batch
// variable (x[b, s, d] @ w[d, f]) — and packs B once per range and chunk of
// rows_per_chunk rows: callers should hand each thread one contiguous range of
// rows, not single rows. Packing buffers are aligned_alloc'ed per call.
//
// The hook (lower/host_contraction.cpp, emit_host_contraction):
//   if (auto plan = plan_host_contraction(emitter.program(), emitter.kernel())) {
//     emit_tiled_contraction(emitter, *plan, host.begin, host.end);
//     builder.CreateRetVoid();
//     return;
//   }
// with host_matmul.cpp among smelt_lower's sources.
#include <cstdint>
#include <optional>
#include <vector>

#include "kernel/kernel.h"
#include "kernel/contraction_group.h"
#include "kernel/host_plan.h"
#include "lower/host_kernel.h"
#include "lower/kernel_emitter.h"

namespace smelt::lower {

struct ContractionTiles {
  int mr = 12;    // rows of the micro-kernel (capped by the register budget)
  int nr = static_cast<int>(kernel::kHostMicroTileColumns);  // columns of the micro-kernel, a multiple of 16
  int kc = 512;   // K block: a kc×nr B panel (64 KiB, in L2; 1–3 % faster than 256 on Zen 5 for K ≥ 512)
  int mc = 192;   // rows per packed A block
  int nc = 2048;  // columns per packed B block
  int unroll = 4;  // micro-kernel K-loop unroll
  int rows_per_chunk = 768;  // rows per pass over B (bounds the K-block scratch), a multiple of mc
  // The target's vector registers (host_vector_registers): what mr and nr
  // are clamped to (AVX-512: 32 of 16 lanes, AVX2: 16 of 8).
  VectorRegisters registers;
  // Terms of a contraction group the micro-kernel computes at once (0: all);
  // clamp_tiles chooses 1 where all at once fit the registers worse.
  int terms_per_pass = 0;
};

// A contraction group (kernel/contraction_group.h) and its tiles.
struct ContractionPlan : kernel::ContractionGroup {
  // b_sides_read_batch false: rows of all batch elements share one packed B.
  ContractionTiles tiles;  // clamped to the kernel and the register budget
  // B reads its column axes as one flattened index (kernel::b_columns_are_flat:
  // one axis, or a 1x1 convolution's [h, w] at stride 1): B is packed as a
  // matmul's, sixteen columns at a time, not line by line.
  bool flat_columns = false;
  // A block's micro-tiles run row tile by row tile (contraction_rows_outer).
  bool rows_outer = false;
};

// A plan when match_contraction_group accepts the kernel (the shape described
// above) and M, N, K and the batch are non-empty; nullopt otherwise (the
// caller emits its straightforward loop).
// Rows up to kGroupFewRows with several B sides packed per call take K blocks
// of kGroupFewRowsKc (host_matmul.cpp says why).
inline constexpr int64_t kGroupFewRows = 32;
inline constexpr int kGroupFewRowsKc = 128;
std::optional<ContractionPlan> plan_host_contraction(const kernel::KernelProgram& program, const kernel::Kernel& kernel,
                                                    const ContractionTiles& tiles = {});

// Whether a block's micro-tiles run row tile by row tile, each across every
// column panel (else column panel by column panel, each down every row tile,
// BLIS's order: a panel of B stays in L1 while the rows pass): where the
// epilogue reads a buffer at every output element (a residual) and the packed
// B block is at most kRowsOuterMaxBBlockBytes. Down the column panels the
// epilogue read 64 bytes of the residual from each of up to mc channel planes
// in turn, too many streams to prefetch once the residual has left the cache;
// row by row each row's is one run. ResNet-50's 1x1 convolutions with bias,
// residual and ReLU at two threads, in the model: 64 -> 256 at 56x56
// 1,628-1,684 us -> 1,151-1,305 (B block 64 x 2,048 floats, 512 KiB), 128 ->
// 512 at 28x28 1,034-1,049 -> 728-842, 256 -> 1024 at 14x14 1,088-1,111 ->
// 860-984 (two rounds each, 2026-11-30, AMD EPYC). A larger block keeps the
// column panel outside: each row tile would read all of it again.
// plan_host_contraction sets ContractionPlan::rows_outer from it.
inline constexpr int64_t kRowsOuterMaxBBlockBytes = int64_t{512} << 10;
bool contraction_rows_outer(const kernel::Kernel& kernel, const ContractionPlan& plan);

// Emits, at the emitter's builder position inside the kernel's host function,
// the tiled contraction over the parallel units (rows) [begin, end) (i64
// values); the builder is left after it (the caller emits the return). Marks
// the function to use 512-bit vector registers where the CPU has them.
void emit_tiled_contraction(KernelEmitter& emitter, const ContractionPlan& plan, llvm::Value* begin,
                           llvm::Value* end);

}  // namespace smelt::lower
