#pragma once
// The target-neutral half of lowering: what one kernel computes at one point
// of its iteration space, as LLVM IR. Private to lower/ (LLVM types appear
// here; only lower/*.cpp include it).
//
// The split between targets:
//  - this emitter (kernel_emitter.cpp) emits, at the builder's insertion point
//    and for given i64 values of the kernel's variables: index expressions
//    (IndexPool's floor-div / mod exactly), masked loads (no memory access
//    outside the mask), every elementwise op with the reference semantics of
//    ir/scalar.cpp, dtype conversions, reduce accumulation (long float sums
//    in blocks: sums_in_blocks), output stores.
//    A kReduce node that the caller has not given a value (NodeValues::set) is
//    emitted as a sequential loop over the reduction domain at that point — the
//    reference's inner-node split (kernel_interpreter.cpp) included; correct on
//    every target, fast on none but the host.
//  - the loop structure is the target's: host_kernel.cpp emits the host loop
//    nest (parallel units = rows, innermost loop over the contiguous last dim
//    so LLVM vectorizes it); the GPU files emit grid-stride loops / block
//    reductions around the same per-element emitter; host_contraction.cpp (and
//    host_matmul.cpp, tiled) emit contraction kernels, evaluating the A-side
//    and B-side subtrees of a contraction's operand with emit_node at chosen
//    variable values and the epilogue with the reduces' values preset.
//  - per-region branches (kernel/kernel_branches.h): each target emits its inner
//    loops once per version of the kernel (emit_versions, decided where the
//    versions' variables are known: per row on the host, per batch element in
//    its tiled contraction, per element / block / tile on GPUs); a point that
//    `assume`s its version folds the `where`s it decides and emits only their
//    taken side.
//  - math functions go through MathHooks: host = LLVM intrinsics / libm,
//    NVPTX = libdevice __nv_*, AMDGPU = ocml (the GPU files define theirs).
//
// Values in registers: every float dtype is an LLVM `float` (f16 / bf16 values
// are f32 values already rounded to the dtype: each op's result is rounded,
// as the reference rounds each op), i32 → i32, i64 → i64, bool → i1.
// In memory: f32 float, f16 `half` bits (i16), bf16 i16 (upper half of an f32),
// i32, i64, bool i8 (0/1).
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include "kernel/kernel.h"
#include "kernel/kernel_branches.h"

namespace smelt::lower {

llvm::Type* register_type(llvm::LLVMContext& context, ir::DType dtype);
llvm::Type* memory_type(llvm::LLVMContext& context, ir::DType dtype);

// Target math functions on f32 scalars (the emitter never passes vectors).
struct MathHooks {
  virtual ~MathHooks() = default;
  // op ∈ {Exp, Exp2, Log, Log2, Sin, Cos, Tanh, Sqrt, Erf}: f32 → f32.
  virtual llvm::Value* unary(llvm::IRBuilder<>& builder, ir::Op op, llvm::Value* x) const = 0;
  virtual llvm::Value* pow(llvm::IRBuilder<>& builder, llvm::Value* x, llvm::Value* y) const = 0;
  // Whether the target rounds f32 to bf16 in one instruction (LLVM's fptrunc to
  // bfloat: NVPTX cvt.rn.bf16.f32 on sm_80 and later) with the reference's
  // rounding (to nearest even; a NaN stays a NaN, its payload not kept).
  // Otherwise the emitter rounds on the bits: 8 integer instructions.
  virtual bool native_bf16_rounding() const { return false; }
};

// Host: exp, exp2, tanh and erf composed inline (composed_math.h); sin and cos
// through their vector variants (host_vector_math.h); llvm.log/log2/sqrt/pow
// intrinsics (log and pow vectorized through glibc's libmvec where present).
class HostMathHooks : public MathHooks {
 public:
  llvm::Value* unary(llvm::IRBuilder<>& builder, ir::Op op, llvm::Value* x) const override;
  llvm::Value* pow(llvm::IRBuilder<>& builder, llvm::Value* x, llvm::Value* y) const override;
};

// Which nodes run inside the reduction loop: kernel_interpreter.cpp's split
// (nodes using a reduction variable, and loop-invariant nodes used only inside
// reduce bodies). Throws LowerError when a reduce feeds another reduce's body.
std::vector<bool> inner_nodes(const kernel::Kernel& kernel);

// One evaluation point: i64 values of the kernel's variables (index = variable
// number: the space's, then the reduction's; null = not available here, e.g.
// the reduction variables outside a reduce loop or the row variable on a
// matmul's B side) and the node values emitted so far at this point.
// Values emitted for one NodeValues are reused by later emissions with it, so
// use one only at points its earlier emissions dominate.
class NodeValues {
 public:
  NodeValues(const kernel::Kernel& kernel, std::vector<llvm::Value*> vars);
  // Gives node `node` a value here, e.g. a reduce's result computed by the caller
  // (in the register type of the node's dtype, see KernelEmitter::reduce_finish).
  void set(int node, llvm::Value* value) { values_.at(static_cast<size_t>(node)) = value; }
  llvm::Value* get(int node) const { return values_.at(static_cast<size_t>(node)); }
  const std::vector<llvm::Value*>& vars() const { return vars_; }
  llvm::Value* var(int number) const { return vars_.at(static_cast<size_t>(number)); }
  // This point lies in `version`: its conditions are constants here, and a
  // `where` they decide emits only its taken side (kernel/kernel_branches.h).
  // `version` must outlive this.
  void assume(const kernel::BranchPlan::Leaf& version) { version_ = &version; }
  bool live(int node) const { return !version_ || version_->live[static_cast<size_t>(node)]; }
  // The outcome of `condition` when this point's version decides it.
  std::optional<bool> decided(kernel::IndexRef condition) const;

 private:
  friend class KernelEmitter;
  const kernel::BranchPlan::Leaf* version_ = nullptr;
  std::vector<llvm::Value*> vars_;
  std::vector<llvm::Value*> values_;
  mutable std::unordered_map<kernel::IndexRef, llvm::Value*> index_cache_;
};

class KernelEmitter {
 public:
  // `buffers`: one pointer per KernelProgram buffer (already loaded from the
  // ABI's buffer array; null for buffers the kernel does not touch).
  KernelEmitter(llvm::IRBuilder<>& builder, const kernel::KernelProgram& program, size_t kernel,
                const MathHooks& math, std::vector<llvm::Value*> buffers);

  const kernel::Kernel& kernel() const { return kernel_; }
  const kernel::KernelProgram& program() const { return program_; }
  const std::vector<bool>& inner() const { return inner_; }
  // The kernel's versions (kernel::plan_branches), the plan the cost model prices.
  const kernel::BranchPlan& versions() const { return versions_; }
  // Replaces the versions by a plan of the same kernel whose conditions the
  // target decides where it knows their variables (kernel::gpu_branch_plan).
  void set_versions(kernel::BranchPlan versions) { versions_ = std::move(versions); }
  // i1: whether every condition of the versions has one value at all `points`
  // (then a version chosen at one of them holds at each).
  llvm::Value* versions_agree(const std::vector<const NodeValues*>& points);

  // Emits `body(version)` once per version, behind branches on the versions'
  // conditions evaluated at `at` (it must hold the variables they use); one
  // version: `body` straight. Afterwards the builder is after them all.
  void emit_versions(const NodeValues& at, const std::function<void(const kernel::BranchPlan::Leaf&)>& body);
  // Node `node` at the point of variables `vars`, in whichever version the point
  // lies (one branch per version, merged after); for callers that need one value.
  llvm::Value* emit_node_versioned(int node, const std::vector<llvm::Value*>& vars);
  llvm::IRBuilder<>& builder() { return builder_; }

  // An index expression (i64) at `at`'s variables. Throws LowerError when it
  // uses a variable that is null there.
  llvm::Value* index(kernel::IndexRef ref, const NodeValues& at);
  // Node `node`'s value at `at`, emitting it and whatever operands `at` does not
  // hold yet (memoized in `at`). A kReduce without a value is emitted as a
  // sequential loop over the reduction domain (see the top of this file).
  llvm::Value* emit_node(int node, NodeValues& at);
  // Stores every kernel output at row-major element `linear` of the space (a
  // scatter output: at its position node, where that lies in the buffer).
  void store_outputs(NodeValues& at, llvm::Value* linear);
  // A scatter kernel (kernel::is_scatter_kernel) whole, on one thread of every
  // target: the copy of its initial buffer, then its elements in row-major
  // order, one after another (each may read what an earlier one wrote).
  void emit_scatter();

  // Reduce accumulation for node `reduce` (a kReduce): accumulators are f32 for
  // float dtypes, else the integer register type; sums wrap, max propagates NaN.
  llvm::Value* reduce_identity(int reduce);
  // The value reduce `reduce` takes in at `at` (every variable of its body
  // set, the reduction's included): its operand, in the accumulator's kind.
  llvm::Value* reduce_value(int reduce, NodeValues& at);
  llvm::Value* reduce_combine(int reduce, llvm::Value* accumulator, llvm::Value* value);
  llvm::Value* reduce_finish(int reduce, llvm::Value* accumulator);  // rounded to the dtype

  // Long float sums in blocks: an f32 accumulator stops growing once it is
  // 2^24 times its increments (2^30 ones summed to 2^30 whatever their count),
  // and its error grows with the count. A float sum that would add more than a
  // block of values into one accumulator instead sums blocks in f32
  // (reduce_combine: still vectorized) and adds each block's sum into an f64
  // total, so the error is one block's, whatever the length.
  // kSumBlock: the host's loops, whose vector lanes each take a share (4096
  // values, 32 lanes: 128 sequential adds each); softmax rows and layer norms
  // up to 4096 stay f32 throughout. kSerialSumBlock: one scalar chain (a GPU
  // thread); 256 sequential f32 adds err by at most 256 half-ulps (1.5e-5).
  static constexpr int64_t kSumBlock = 4096;
  static constexpr int64_t kSerialSumBlock = 256;
  // Whether reduce `reduce` sums in blocks of `block` values when one
  // accumulator would take `values` values.
  bool sums_in_blocks(int reduce, int64_t values, int64_t block) const;
  llvm::Value* block_total_identity();                                   // f64 0
  llvm::Value* block_total_add(llvm::Value* total, llvm::Value* block);  // f64 total + an f32 or f64 sum
  llvm::Value* block_total_finish(int reduce, llvm::Value* total);       // rounded to the dtype

  // Prefetches the row at `at` (its outer variables; the innermost one 0) of
  // every unmasked load that reads `row_length` consecutive elements along the
  // row but whose rows are not the kernel's own row order (a permuted or
  // broadcast view): the hardware prefetcher does not follow such rows, and a
  // row heavy in math then waits on memory at its first load (a permute feeding
  // gelu: 135 ms where the two kernels apart take 34).
  // Rows above kPrefetchRowBytes are skipped (the hardware prefetcher ramps
  // up within them), and so are buffers below kPrefetchMinBufferBytes (the
  // caches hold them) and loads of the kernel's own rows, shifted or not.
  static constexpr int64_t kPrefetchRowBytes = 4096;
  static constexpr int64_t kPrefetchMinBufferBytes = int64_t{4} << 20;
  // Masked loads of 4- and 8-byte elements as `if (mask) load` (a vectorized
  // loop makes it a masked load) instead of a load from a selected address (a
  // gather there). For the host's row loops; the default keeps straight-line code.
  void set_masked_loads_as_branches(bool on) { masked_loads_as_branches_ = on; }
  // Index comparisons known to hold wherever the code emitted next runs (a
  // segment the host tested: kernel::host_interior_conditions): they emit as
  // true. Null: none. `comparisons` must outlive its use.
  void assume_true(const std::vector<kernel::IndexRef>* comparisons) { assumed_true_ = comparisons; }
  bool masked_loads_as_branches() const { return masked_loads_as_branches_; }
  void prefetch_row(const NodeValues& at, int64_t row_length);

  // The address of load node `node`'s element at `at` (an unmasked load), for
  // callers that read consecutive elements from it themselves (the tiled
  // contraction reading its A side in place).
  llvm::Value* load_address(int node, const NodeValues& at);

  // Element access to buffer `buffer` at element offset `offset` (i64), in register types.
  llvm::Value* load_element(int buffer, llvm::Value* offset);
  void store_element(int buffer, llvm::Value* offset, llvm::Value* value);

  // A value converted between dtypes (cast semantics of ir/scalar.cpp) and a
  // float rounded to a float dtype (f16 / bf16; f32 unchanged).
  llvm::Value* convert(llvm::Value* value, ir::DType from, ir::DType to);
  llvm::Value* round_float(llvm::Value* f32_value, ir::DType dtype);

 private:
  llvm::Value* emit_index(kernel::IndexRef ref, const NodeValues& at);
  // Whether the index node is >= 0 at every point of the kernel's space: its
  // variables are (a loaded index may not be), and sums, products, quotients
  // and remainders by positive constants, minima, maxima and selects of such
  // nodes are. Memoized.
  bool non_negative(kernel::IndexRef ref);
  llvm::Value* emit_load(const kernel::KernelExpr& e, const NodeValues& at);
  // A load's element offset at `at`: a variable part (returned) plus `constant_offset`.
  llvm::Value* load_offset(const kernel::KernelExpr& e, const NodeValues& at, int64_t& constant_offset);
  // &buffer[offset + constant_offset] (the constant in a GEP of its own), and a load from it.
  llvm::Value* element_address(int buffer, llvm::Value* offset, int64_t constant_offset);
  llvm::Value* load_element_at(int buffer, llvm::Value* address);
  llvm::Value* emit_elementwise(const kernel::KernelExpr& e, NodeValues& at);
  // Emits the elementwise operands of `node` that `at` lacks, deepest first,
  // with an explicit stack: emit_node then recurses one level, never a
  // chain's length (100,000 ops would overflow the C++ stack).
  void emit_operands_first(int node, NodeValues& at);
  llvm::Value* emit_reduce_loop(int node, NodeValues& at);
  void annotate_access(llvm::Instruction* access, int buffer);

  llvm::IRBuilder<>& builder_;
  const kernel::KernelProgram& program_;
  const kernel::Kernel& kernel_;
  const MathHooks& math_;
  std::vector<llvm::Value*> buffers_;
  std::vector<bool> inner_;
  kernel::BranchPlan versions_;
  std::vector<llvm::MDNode*> alias_scope_;  // per buffer the kernel touches: its own scope / the others'
  std::vector<llvm::MDNode*> no_alias_;
  bool masked_loads_as_branches_ = false;
  const std::vector<kernel::IndexRef>* assumed_true_ = nullptr;
  std::unordered_map<kernel::IndexRef, bool> non_negative_;
};

// How emit_loop marks its loop for LLVM.
enum class LoopHint {
  kNone,
  // llvm.loop.unroll.disable: a path that must stay a loop, e.g. the
  // element-by-element edge of a run whose straight-line twin LLVM would
  // otherwise merge with it.
  kNoUnroll,
  // Vectorized with its remainder folded into one masked iteration
  // (llvm.loop.vectorize.predicate.enable): the column segments of a plain-loop
  // contraction (54 of a 56-wide row between a depthwise window's edges),
  // whose scalar remainder ran its reduction element by element (EfficientNet-
  // B0's depthwise 3x3 over 144 maps of 56x56: 333 us, 253 us masked).
  kMaskedTail,
  // A pass of a row-staged kernel (kernel::host_row_stages): kNoUnroll, and
  // vectorized four vectors an iteration (llvm.loop.interleave.count 4). With
  // unrolling off LLVM interleaved these loops once, so a chain of math calls
  // staged ran slower than the same calls as separate kernels (which LLVM
  // interleaves four times): exp(sigmoid(x))^2 over 16 x 1,024 floats 31.2 us
  // staged, 24.1 interleaved twice, 19.4 four times, 30.7 unfused; exp(exp(x))
  // over 8 K floats 12.2, 8.6 and 10.7 unfused (2026-11-30, AMD EPYC, one thread).
  kStagedPass,
};

// `for (i = begin; i < end; ++i) body(i)` with i64 bounds, at the builder's
// insertion point; afterwards the builder is positioned after the loop.
void emit_loop(llvm::IRBuilder<>& builder, llvm::Value* begin, llvm::Value* end,
               const std::function<void(llvm::Value*)>& body, const char* name = "i", LoopHint hint = LoopHint::kNone);

// The kernel ABI's buffer pointers for the KernelEmitter: at the builder's
// insertion point, loads from `buffer_array` (one pointer per KernelProgram
// buffer, of buffer_array's pointer type) those kernel `kernel` reads or writes;
// null for the others. `alignment` > 1: every pointer is known to be aligned to
// it (!align on the loads), so LLVM may merge consecutive accesses.
std::vector<llvm::Value*> load_kernel_buffers(llvm::IRBuilder<>& builder, const kernel::KernelProgram& program,
                                              size_t kernel, llvm::Value* buffer_array, uint64_t alignment = 1);

}  // namespace smelt::lower
