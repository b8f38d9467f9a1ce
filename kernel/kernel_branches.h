#pragma once
// Branches taken per region, not per element. A `where` whose condition is an
// index predicate of a kernel's uniform variables — constant along the
// innermost run of its loops — picks one side for a whole row (or a whole
// batch element of a contraction): a concat along an outer axis, a pad of a
// computed value along an outer axis. Kernelization emits one version of the inner
// loops per outcome (lower/, "versions"), each computing only its taken side;
// the cost model charges each node by the share of the space whose version
// evaluates it (cost/predict.cpp). One plan serves both, so the price is what
// the code does.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "kernel/kernel.h"

namespace smelt::kernel {

// Bit v: kernel variable v. Uniform variables: a contraction kernel's batch
// axes (the space but its last two); any other kernel's space but the
// innermost axis. A rank-0 or rank-1 kernel has none.
uint64_t uniform_vars(const Kernel& kernel);

struct BranchPlan {
  // A binary decision tree over conditions; nodes[0] is the root.
  struct Decision {
    IndexRef condition = kNoIndex;  // kNoIndex: a leaf
    int if_true = -1, if_false = -1;
    int leaf = -1;  // a leaf: its index in `leaves`
  };
  struct Leaf {
    std::vector<std::pair<IndexRef, bool>> assumed;  // the conditions decided on the way
    std::vector<bool> live;  // per expr node: evaluated in this version
    double fraction = 1;     // share of the iteration space this version runs on

    // Whether this version decides `condition`, and how.
    std::optional<bool> decides(IndexRef condition) const;
    // Node `node` is a `where` this version decides: it costs nothing here.
    bool folds(const Kernel& kernel, int node) const;
  };
  std::vector<Decision> nodes;
  std::vector<Leaf> leaves;

  bool versioned() const { return leaves.size() > 1; }
};

// At most this many versions of a kernel: a concat of 10 pieces along a batch
// axis (towers_10x2's ten layer-2 products as one batched product) is 10; with
// 8, its A and B packs selected among all ten pieces per element: 52 us against
// 31 us versioned, one thread, 2026-11-29.
inline constexpr size_t kMaxKernelVersions = 16;

// The kernel's versions: a tree of at most `max_leaves` leaves (beyond that, or
// when the conditions' variables span more than 2^20 points, one leaf: every
// branch computed per element with a select). Always at least one leaf.
BranchPlan plan_branches(const Kernel& kernel, size_t max_leaves = kMaxKernelVersions);
// The same with the variables the conditions may use given (bit v: variable v)
// instead of uniform_vars(kernel): for code that decides them per run of
// innermost elements (kernel/gpu_plan.h) rather than per row.
BranchPlan plan_branches_over(const Kernel& kernel, uint64_t uniform, size_t max_leaves = kMaxKernelVersions);

// Expr nodes evaluated when the conditions in `assumed` hold as given: from the
// outputs, through only the taken side of each `where` decided by them.
std::vector<bool> live_nodes(const Kernel& kernel, const std::vector<std::pair<IndexRef, bool>>& assumed);

// The condition's index when node `node` is a `where` on an index predicate
// (its condition operand a kIndex node); kNoIndex otherwise.
IndexRef where_index_condition(const Kernel& kernel, int node);

}  // namespace smelt::kernel
