#pragma once
// The kernel IR (DESIGN.md, "What a kernel is"). A KernelProgram is a list of
// buffers and kernels run in order. A kernel computes one or more outputs over
// one iteration space; per output element it evaluates an expression DAG whose
// leaves load from buffers through index maps guarded by valid masks. At most
// one anchor: a reduction domain shared by every Reduce node of the kernel — a
// reduction, or a contraction group (several matmul-shaped sums over the same
// M×N×K space, e.g. the two gemms of a SwiGLU, combined in the epilogue).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernel/index_expr.h"
#include "ir/ops.h"

namespace smelt::kernel {

// The graph IR's vocabulary, which kernels speak too (ir/ops.h).
using ir::DType;
using ir::Op;
using ir::OpClass;
using ir::Shape;
using ir::TensorType;

// kConstant: a small literal baked into the program (`values`, row-major,
// rounded to the dtype when read); read-only like an input.
enum class BufferKind : uint8_t { kInput, kIntermediate, kOutput, kConstant };

struct Buffer {
  std::string name;
  TensorType type;
  BufferKind kind = BufferKind::kIntermediate;
  int io_index = -1;           // position among the graph's inputs or outputs
  ir::Literal values;          // kConstant only (shared with the graph's constant)
};

// One node of a kernel's per-element expression DAG. Nodes only refer to
// earlier nodes, so the vector is in evaluation order.
struct KernelExpr {
  enum class Kind : uint8_t {
    kLoad,         // buffer[index...] where `valid`, else pad_value
    kConstant,     // value
    kIndex,        // the integer index expression `index[0]` as a value (iota, masks)
    kElementwise,  // op(operands...), `to` for cast
    kReduce,       // reduce_op over the kernel's reduction domain of operands[0]
  };
  Kind kind = Kind::kConstant;
  DType dtype = DType::F32;  // result dtype of this node
  int buffer = -1;
  std::vector<IndexRef> index;  // kLoad: one per buffer axis; kIndex: one
  IndexRef valid = kNoIndex;    // kLoad: kNoIndex = always valid
  double value = 0;             // kConstant: the value; kLoad: the pad value
  Op op = Op::Add;              // kElementwise: the op; kReduce: ReduceSum or ReduceMax
  DType to = DType::F32;        // cast's target
  bool contraction = false;     // kReduce: a matmul (sum of a product over K)
  std::vector<int> operands;
};

// The nodes of each kind, built in one place for every producer of kernels.
KernelExpr make_load(int buffer, std::vector<IndexRef> index, DType dtype, IndexRef valid = kNoIndex,
                     double pad = 0);
KernelExpr make_constant(double value, DType dtype);
KernelExpr make_index_value(IndexRef index, DType dtype);
// Elementwise op; for cast, `dtype` is the target.
KernelExpr make_elementwise(Op op, std::vector<int> operands, DType dtype);
KernelExpr make_reduce(Op op, int operand, DType dtype, bool contraction);

// Indirect variables (gathers): index variable kIndirectVarBase + j stands for
// the value, at the current element, of the kernel's integer node indirect[j],
// so a load may read at a position loaded from another buffer (an embedding
// table read at a token id). A load (or an index value) lists as its operands
// the indirect nodes its expressions use (indirect_operands), so they are
// evaluated first and every walk over operands sees the dependence. Loop variables number below
// kIndirectVarBase, so a kernel has at most that many.
inline constexpr int kIndirectVarBase = 32;
inline bool is_indirect_var(int64_t number) { return number >= kIndirectVarBase; }

struct KernelOutput {
  int buffer = -1;  // written row-major over the iteration space
  int expr = -1;
  // A scatter (ir op scatter...): the buffer starts as a copy of buffer
  // `scatter_initial`; then the space's elements, in row-major order one after
  // another, write their value `expr` at the buffer's row-major element
  // `scatter_at` (an i64 node; negative: nothing written). A scatter that
  // combines reads the element there itself: `expr` loads this buffer at that
  // element (the value written so far) and adds, multiplies, ... its value in.
  // A kernel with a scatter output has only scatter outputs (the same value
  // stored twice), and runs in order.
  int scatter_at = -1;
  int scatter_initial = -1;
  bool is_scatter() const { return scatter_at >= 0; }
};

struct Kernel {
  std::string name;
  Shape space;      // iteration space; variables 0..space.size()-1
  Shape reduction;  // anchor's reduction domain; variables follow the space's
  IndexPool indices;
  std::vector<KernelExpr> exprs;
  std::vector<KernelOutput> outputs;
  std::vector<int> indirect = {};  // the node of indirect variable kIndirectVarBase + j

  int num_vars() const { return static_cast<int>(space.size() + reduction.size()); }
  // Slots a vector of variable values needs: the loop variables, and the
  // indirect ones where there are any (the numbers between are unused).
  int var_slots() const {
    return indirect.empty() ? num_vars() : kIndirectVarBase + static_cast<int>(indirect.size());
  }
};

// Whether an index expression reads a loaded value (an indirect variable).
inline bool uses_indirect_var(const IndexPool& pool, IndexRef r) {
  return (pool.vars_used(r) >> kIndirectVarBase) != 0;
}
// The indirect nodes (ascending) that a load's index and mask (or an index
// value's expression) use: its operands.
std::vector<int> indirect_operands(const Kernel& k, const std::vector<IndexRef>& index, IndexRef valid);
// Variable names for listings and proofs, by number (var_slots() of them): i0..
// for the space, r0.. for the reduction, g0.. for the indirect variables.
std::vector<std::string> kernel_var_names(const Kernel& k);

// Whether the kernel scatters (its outputs are scatters): it runs its
// elements in row-major order, on one thread.
inline bool is_scatter_kernel(const Kernel& k) { return !k.outputs.empty() && k.outputs.front().is_scatter(); }

// The buffers a kernel reads (ascending, each once): its loads', and a
// scatter's initial buffer.
std::vector<int> read_buffers(const Kernel& k);

struct KernelProgram {
  std::vector<Buffer> buffers;
  std::vector<Kernel> kernels;
};

// The loop iterations of a kernel (its space times its reduction domain), and
// of a program's kernels together, saturating at UINT64_MAX: the element
// visits of a run that the work limit bounds (error/memory_limit.h).
uint64_t kernel_iterations(const Kernel& k);
uint64_t program_iterations(const KernelProgram& program);

// Checks the structural rules (operands earlier, buffers exist, index arity,
// outputs cover their buffer or scatter into it alone, Reduce only where there is a reduction domain,
// no Reduce inside another); throws std::invalid_argument naming the problem.
void validate(const KernelProgram& program);

// True where an index expression uses a variable numbered `first` or above
// (for a kernel: its reduction variables when `first` = space.size()).
bool uses_var_at_least(const IndexPool& pool, IndexRef r, int first);

// The coefficient of variable `var` in a load's row-major element offset into
// a buffer of shape `buffer_shape` (how many elements it moves as `var` steps
// by one); nullopt where an index is not affine in it (a floor-div, mod, a
// product of two terms holding it, a gather).
std::optional<int64_t> load_offset_coefficient(const Kernel& kernel, const KernelExpr& load, const Shape& buffer_shape,
                                               int var);

// Which nodes run inside the anchor's reduction loop (the prologue): those that
// vary with a reduction variable, and loop-invariant nodes used only inside
// reduce bodies (hoisted, they would run and read even when the reduction
// domain is empty). The rest run once per element. Throws
// std::invalid_argument when a reduce feeds another reduce's body.
std::vector<bool> reduction_loop_nodes(const Kernel& k);

// A readable listing: one block per kernel with its loads, index maps, masks
// and body.
std::string print_program(const KernelProgram& program);

}  // namespace smelt::kernel
