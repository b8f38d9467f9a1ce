#pragma once
// How the host runs a kernel: its parallel range (rows of the iteration space,
// or blocks of a rank-1 space) cut into chunks that the thread pool hands to
// its threads. One definition for the code generator (lower/), the runtime
// (runtime/) and the cost model (cost/), which must agree on it.
#include <cstdint>
#include <optional>
#include <vector>

#include "kernel/contraction_group.h"
#include "kernel/kernel.h"
#include "kernel/kernel_branches.h"

namespace smelt::kernel {

// Columns of the host's tiled contraction's micro-kernel (lower/host_matmul.h;
// fewer, a multiple of 16, for narrower products): every tile is computed
// whole, so the cost model charges the padding.
inline constexpr int64_t kHostMicroTileColumns = 32;
// A rank-1 space is split into blocks of this many consecutive elements.
inline constexpr int64_t kHostRank1Chunk = 4096;
// A chunk should carry at least this many element evaluations (space × reduction)
// so it amortizes the hand-off to another thread.
inline constexpr int64_t kHostMinWorkPerChunk = 16 * 1024;

// A contraction of few rows and many columns (a small batch through a wide
// weight: M ≤ kHostFewRows, N ≥ 2 blocks, no batch axis above 1) is split by
// blocks of columns as well as by rows: split by rows alone, every thread
// would stream (and pack) all of B for its few rows. A block is
// kHostColumnBlock columns divided among the group's B sides (two products
// sharing A: 1024 columns each), a multiple of 32.
inline constexpr int64_t kHostFewRows = 256;
inline constexpr int64_t kHostColumnBlock = 2048;
// A contraction over several column axes (a convolution's output positions)
// with no batch axis above 1 is split into kHostPositionBlocks blocks of
// columns (a multiple of 32, at least kHostMinPositionBlock): its B side (the
// input's windows) is what costs, and split by rows every thread would pack
// all of it.
inline constexpr int64_t kHostPositionBlocks = 4;
inline constexpr int64_t kHostMinPositionBlock = 32;
// Columns per block: N / kHostPositionBlocks rounded up to 32 for several
// column axes, else kHostColumnBlock / B sides (a multiple of 32).
int64_t host_column_block(const Kernel& kernel);
// ceil(N / host_column_block) for such a kernel, else 1.
int64_t host_column_blocks(const Kernel& kernel);

// The parallel units of `kernel`: the rows of its space (all axes but the
// innermost, or but a contraction group's column axes) times its column blocks, column block major (unit u is row
// u mod rows of column block u div rows); ceil(n / kHostRank1Chunk) blocks
// for a rank-1 space, 1 for rank 0 and for a scatter (its elements in order).
int64_t host_parallel_units(const Kernel& kernel);

// Units one chunk takes at least: about kHostMinWorkPerChunk evaluations, and
// for a contraction one chunk per thread (each call packs its B panels).
int64_t host_min_units_per_chunk(const Kernel& kernel, int64_t units, unsigned threads);

// The chunks the thread pool makes of a kernel's units on `threads` threads.
struct HostSplit {
  int64_t units = 1, min_chunk = 1, chunks = 1;  // min_chunk: the chunk size the pool uses
  unsigned threads_used = 1;  // min(threads, chunks): 1 means the caller runs it inline
};
HostSplit host_split(const Kernel& kernel, unsigned threads);

// Whether the host runs a contraction kernel as its tiled contraction
// (lower/host_matmul.h) rather than the plain loop over each output's
// reduction: a contraction group of nonempty extents with more than one
// column. One column (a squeeze-excite's 1x1 convolution over [1, C, 1, 1]:
// 48 outputs of K = 1152) runs as the plain loop, its K loop the vector loop:
// the tiled form padded the column to 16 and measured 41.7 us against 2.75
// (2026-11-29, one thread). The code generator and the cost model read this.
bool host_tiled_contraction(const Kernel& kernel);
// The same, for `group` = match_contraction_group(kernel) already at hand.
bool host_tiled_contraction(const Kernel& kernel, const std::optional<ContractionGroup>& group);

// The host's tiled contraction packs B once, on the kernel's first call, not
// on every call: every B side reads only constants (b_sides_are_constant), one
// B serves every batch element, the kernel has one version (`versions`: its
// plan_branches), and B packed takes at most 1 GiB (`packed_b_floats`: the
// code generator's count, padded to its tiles; the cost model's, unpadded).
// lower/host_matmul.cpp packs so, and the cost model prices such a product at
// the profile's matmul_constant_b rates.
bool host_packs_b_once(const KernelProgram& program, const Kernel& kernel, const ContractionGroup& group,
                       const BranchPlan& versions, double packed_b_floats);

// Where the kernel's comparisons of the innermost variable with a constant
// (`j < 256`, `64 <= j`: a concat or pad along the row) change value: the
// column loop split there has every such comparison constant in each segment,
// which LLVM folds — its masked loads become plain ones, its `where`s one side.
// Empty for a rank-0 or rank-1 space, a kernel of column blocks, none, or more
// than kHostMaxColumnSegments segments.
inline constexpr size_t kHostMaxColumnSegments = 8;
std::vector<int64_t> host_column_cuts(const Kernel& kernel);

// The comparisons a looped contraction's masked loads AND together (a padded
// depthwise convolution's `1 <= 2·i2 + r1`, `2·i3 + r2 < 58`), each affine in
// the column variable and the reduction variables (any other variable is the
// row's, fixed in a row). Over a row's column segment and the reduction's
// range such a comparison holds everywhere when it holds at its worst corner
// (each variable at the end its slope pushes against): the host tests that
// per row and segment and runs the segment with the comparisons known true —
// plain loads in place of masked ones, or of gathers (lower/host_kernel.cpp).
struct InteriorCondition {
  IndexRef comparison;  // a kLt or kLe node: `a < b` or `a <= b`
  // The slope of a − b per variable number (0 where it does not occur); only
  // the column's and the reduction's entries are read.
  std::vector<int64_t> slope;
};
// Empty for a kernel that is not a contraction, has no masked load in its
// reduction loop, has a comparison in such a mask that is not affine in those
// variables, or reads a gathered (indirect) index there.
std::vector<InteriorCondition> host_interior_conditions(const Kernel& kernel);

// Whether the host code guards each masked load with a branch (LLVM's loop
// vectorizer makes a masked vector load of it) rather than a select of a load
// at a clamped address (a gather per element). The vectorizer gives up on a
// row loop with many predicated blocks (a 6-way concat along the row was not
// vectorized at all): branches for up to 4 masked loads, or where column cuts
// fold them. The code generator and the cost model read this one answer.
inline constexpr int kHostMaxBranchedMaskedLoads = 4;
bool host_masked_loads_as_branches(const Kernel& kernel);
// The same, for `cuts` = host_column_cuts(kernel) already at hand.
bool host_masked_loads_as_branches(const Kernel& kernel, const std::vector<int64_t>& cuts);

// A reduction of at most this many steps LLVM unrolls completely, and the
// space's innermost loop vectorizes as an elementwise loop does (the cost
// model prices it so). The host keeps a longer innermost reduction loop a
// loop (llvm.loop.unroll.disable), which its vectorizer then runs along the
// row: unrolled whole, a global average pool's 56 columns made the loop over
// its 56 rows the innermost, vectorized by gathers 56 floats apart.
inline constexpr int64_t kHostUnrolledReduction = 16;

// Whether the host computes a kernel's reduces down its columns: a kernel
// without contraction, of rank >= 2, whose reduce bodies read along the row
// (unit stride in the innermost space variable) and across rows in the
// innermost reduction variable (a sum over an outer axis, a permute fused
// into a sum). Each row then keeps one accumulator per column (a row buffer
// on the stack, lower/host_kernel.cpp) and walks the reduction outside the
// column loop, which vectorizes; the plain form reduces each column by
// itself, its loads gathers across rows: exp fused into a sum of [4,32,64]
// over its middle axis took 5.7 us so, where exp and a plain sum as two
// kernels took 4.0 (2026-11-29, one thread). Each accumulator is one
// sequential chain, so a float sum takes at most kHostColumnReduceMaxSteps
// values (the 256 sequential f32 adds the emitter allows a serial sum, with
// at most 256 half-ulps of error); a row at most kHostColumnReduceMaxColumns.
// The code generator and the cost model read this one answer.
inline constexpr int64_t kHostColumnReduceMaxSteps = 256;
inline constexpr int64_t kHostColumnReduceMaxColumns = 4096;
bool host_reduces_down_columns(const Kernel& kernel);

// Ops the host lowers to calls into its vector math library (directly or
// composed from exp): exp, log, sin, cos, tanh, erf, sigmoid, gelu, pow but
// where its exponent makes it arithmetic (x^1..x^4, 1/x, sqrt; 2^y is exp2).
bool host_math_call(const Kernel& kernel, const KernelExpr& e);

// Row stages: the host runs an elementwise kernel's row in passes, each
// computing some math calls along the whole row into row buffers on the stack
// (lower/host_kernel.cpp), the last pass the rest and the stores. A vector
// loop whose body is a chain of math calls runs at the chain's latency, not
// at its instructions' throughput: exp(sigmoid(x)) · itself over 16 K
// elements took 27-29 us in one loop; in two passes 18.0 in rows of 64 to
// 2048 (sigmoid alone 10.0, exp and the product alone 7.9), 22.6 in rows of
// 32 and 24.8 in rows of 16 (2026-11-29, one thread). So a math call that
// feeds another is computed in pass d - 1, d being the number of math calls
// on its longest path, itself included; each pass's nodes are listed in node
// order, every pass nonempty. None (empty) for a kernel with a reduce or a
// scatter, a rank-0 space, rows (a rank-1 space: its chunks) outside
// [kHostRowStageMinColumns, kHostRowStageMaxColumns], or a load that steps
// along the row other than by one element (`buffers`: the program's): after
// a transposing read (a gather per vector) the passes did not add up, tanh
// then exp took 80 us staged where the transpose took 14.3 and the staged
// chain on contiguous rows 42, and the read staged by itself was slower
// still. merge_contiguous_rows (kernel/kernel_reindex.h) lengthens the rows
// of a kernel that chains calls. The code generator and the cost model read
// this.
inline constexpr int64_t kHostRowStageMinColumns = 64;
inline constexpr int64_t kHostRowStageMaxColumns = 4096;
// Whether a math call feeds another in the kernel (no reduce, no scatter):
// host_row_stages' passes at any width.
bool host_chains_math_calls(const Kernel& kernel);
std::vector<std::vector<int>> host_row_stages(const Kernel& kernel, const std::vector<Buffer>& buffers);

}  // namespace smelt::kernel
