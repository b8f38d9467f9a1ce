#pragma once
// Graph + materialization → KernelProgram (DESIGN.md, "What a kernel is").
//
// Every materialized value is written by a kernel; every other value is
// inlined: recomputed inside each kernel that consumes it. A kernel is one
// materialized root (or several over the same iteration space: merged
// horizontally, or a root the next one reads at its own index, computed once
// and both stored) plus the inlined region behind it; its leaves are loads of
// inputs, materialized values and constant literals. Views compose into the
// loads' index maps (slice: start + i·step; permute; broadcast: 0 on size-1
// axes; reshape: linearize / delinearize per group of axes; pad and concat:
// valid masks). A pad or concat of a computed value becomes
// where(mask, value, pad) with the mask as a bool kIndex value, and every load
// under a mask carries that mask as its `valid`, so no load ever reads out of
// bounds. Full and scalar constants are immediates, iota an index value.
//
// Anchors: a reduction or matmul is inlined only where its consumer evaluates
// it at its own output index (the identity map, size-1 axes aside) and not
// inside another reduction's body, and a kernel holds one reduction domain
// (several reductions / matmuls over the same domain form one contraction
// group). Any other inlining of an anchor is illegal: such values are
// materialized in addition to the ones asked for, and the result says which
// materialization was used. Common subexpressions in a kernel are emitted once.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "ir/graph.h"
#include "kernel/kernel.h"

namespace smelt::fusion {

struct KernelizeOptions {
  // Merge kernels: independent kernels over the same iteration space and
  // reduction domain into one with several outputs (horizontally), and a
  // stored value into the one kernel over its space that reads it only at its
  // own index (that kernel computes and stores it: a graph output the next op
  // also uses costs a store, not a kernel boundary). Never slower under the
  // cost model (fewer launches, shared loads, no reload); off for the
  // one-kernel-per-op baseline.
  bool merge_kernels = true;
  // Where set, a producer is merged into its reader only if the merged kernel
  // prices no higher than the two apart (cost::predict, as extraction prices).
  std::function<double(const kernel::KernelProgram&, const kernel::Kernel&)> price;

  // One kernel per materialized value: the unfused baseline.
  static KernelizeOptions unmerged() {
    KernelizeOptions o;
    o.merge_kernels = false;
    return o;
  }
};

struct Kernelization {
  kernel::KernelProgram program;
  // By ValueId: the materialization used — the requested one, plus the graph's
  // outputs and every anchor whose inlining was illegal. Inputs are false
  // (they are input buffers, written by no kernel).
  std::vector<bool> materialized;
  // By ValueId: the buffer holding the value (inputs, materialized values,
  // constant literals), or -1 for values that only exist inside kernels.
  std::vector<int> buffer_of;
};

// `materialized` is indexed by ValueId (shorter vectors: missing entries are
// false). Throws std::invalid_argument for a graph without outputs.
Kernelization kernelize(const ir::Graph& g, const std::vector<bool>& materialized, const KernelizeOptions& options = {});
kernel::KernelProgram kernelize_program(const ir::Graph& g, const std::vector<bool>& materialized);

// Prices the programs kernelize makes of many similar graphs (one per
// candidate of an extraction search), re-emitting only the kernels whose
// region changed. A kernel is emitted from its root's region: the values it
// inlines, walked from the root through operands down to the buffers it loads.
// A region whose values have the same keys, in the same shape of DAG, with the
// same loads and the same number of stores as one seen before is the same
// kernel up to buffer numbering, and is not emitted or priced again.
//
// `keys[v]` is the caller's name for value v: equal keys, in any graph priced
// by one IncrementalKernelization, must mean the same op, attributes and type
// (extract/ uses the e-node a value was read from). `price(program, kernel)`
// may read only the kernel and the types and kinds of the buffers it touches
// (cost::predict); each distinct kernel is priced once. The result is exactly
// price(kernel) for each kernel of kernelize's program, in its order, and
// kernelize's legal materialization.
class IncrementalKernelization {
 public:
  using KernelPrice = std::function<double(const kernel::KernelProgram&, const kernel::Kernel&)>;
  struct Priced {
    std::vector<double> kernel_prices;  // by kernel of the program, in its order
    std::vector<bool> materialized;     // as Kernelization::materialized
    bool stopped = false;               // the deadline passed first: no price (the rest is empty)
  };

  // Producer merges are decided with `price`: kernelize agrees given
  // options.price = price.
  explicit IncrementalKernelization(KernelPrice price, KernelizeOptions options = {});
  ~IncrementalKernelization();
  IncrementalKernelization(const IncrementalKernelization&) = delete;
  IncrementalKernelization& operator=(const IncrementalKernelization&) = delete;

  // `materialized` as for kernelize; keys.size() == g.size(). Gives up
  // (Priced::stopped) once `deadline` has passed, checked between kernels: a
  // program whose every anchor is inlined at first restarts once per anchor.
  Priced price(const ir::Graph& g, std::span<const uint64_t> keys, const std::vector<bool>& materialized,
               std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

  size_t kernels_emitted() const;  // regions lowered (cache misses)
  size_t kernels_reused() const;   // regions found in the cache
  void clear();                    // forget every kernel seen

 private:
  struct Cache;
  std::unique_ptr<Cache> cache_;
};

// Every value that is not an input or a constant (weights are read where they
// are used; a graph output is stored): the unfused program, one kernel per op.
std::vector<bool> materialize_everything(const ir::Graph& g);
// Only the graph's outputs: maximal fusion (anchors are added as needed).
std::vector<bool> materialize_outputs(const ir::Graph& g);

}  // namespace smelt::fusion
