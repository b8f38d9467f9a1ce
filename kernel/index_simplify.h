#pragma once
// Simplifies the index maps and valid masks of kernels, knowing that every
// variable v ranges over [0, extent_v). Two tools: interval (range) analysis of
// every node, and affine normalization — sums are collected into linear forms
// (constant + Σ coefficient·atom) whose atoms are variables and the non-linear
// nodes (floor-div, mod, min, max, select, products, comparisons).
//
// What it knows (docs/kernels.md): constant folding; x/n → 0 and x%n → x when
// 0 ≤ x < n (and any x/n, x%n whose range fixes the quotient); (n·q + r)/n →
// q + r/n and (n·q + r)%n → r%n; common factors of numerator and divisor;
// (q + y/a)/c → (a·q + y)/(a·c); (x%a)%b → x%b when b divides a; reshape
// round trips (n·(x/n) + x%n → x, through any number of levels); comparisons,
// min, max and select decided by ranges; masks always true vanish (kNoIndex),
// always false become constant 0, bounds on one variable merge; a load's
// indices are simplified under the variable bounds its mask implies (an index
// only matters where its mask holds).
//
// The results are claims: verify/index_validation.h proves each one with Z3 and
// falls back to the raw expression where it cannot.
#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "kernel/index_expr.h"
#include "kernel/kernel.h"

namespace smelt::kernel {

// A closed range of integers; the int64 extremes stand for −∞ and +∞.
struct IndexRange {
  static constexpr int64_t kNegInf = INT64_MIN, kPosInf = INT64_MAX;
  int64_t lo = kNegInf, hi = kPosInf;

  bool empty() const { return lo > hi; }
  bool is_single() const { return lo == hi && lo != kNegInf && lo != kPosInf; }
  bool contains(int64_t v) const { return lo <= v && v <= hi; }
  auto operator<=>(const IndexRange&) const = default;
};

// Simplifies expressions of a `source` pool into a `target` pool (which may be
// another pool or the same one: pools only grow, so source nodes stay valid).
class IndexSimplifier {
 public:
  IndexSimplifier(const IndexPool& source, IndexPool& target, std::vector<IndexRange> var_ranges);
  ~IndexSimplifier();
  IndexSimplifier(const IndexSimplifier&) = delete;
  IndexSimplifier& operator=(const IndexSimplifier&) = delete;

  // An expression with the same value as `source_node` for every variable
  // value in range (a node of the target pool; never kNoIndex).
  IndexRef value(IndexRef source_node);
  // A mask with the same truth (≠ 0) as `source_mask`: kNoIndex where it always
  // holds, constant 0 where it never does. kNoIndex in, kNoIndex out.
  IndexRef truth(IndexRef source_mask);
  // The range of a target-pool node over the variable ranges.
  IndexRange range(IndexRef target_node);
  // The variable ranges tightened by the conjuncts of a target-pool mask that
  // bound one variable by a constant (v < c, c ≤ v, v == c, ...); nullopt when
  // the mask can never hold within them.
  std::optional<std::vector<IndexRange>> narrowed_ranges(IndexRef target_mask);
  const std::vector<IndexRange>& var_ranges() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The ranges of a kernel's variables, by number: [0, extent − 1] for the
// iteration space and then the reduction domain; an indirect variable ranges
// over its node's dtype (i64: unbounded), the unused numbers before them [0, 0].
std::vector<IndexRange> kernel_var_ranges(const Kernel& k);

// One index expression of a kernel: a load's index on `axis`, a load's valid
// mask (axis kMaskSlot), or the value of a kIndex node (axis 0).
struct IndexSlot {
  static constexpr int kMaskSlot = -1;
  int expr = 0;
  int axis = 0;
  bool is_mask() const { return axis == kMaskSlot; }
};
std::vector<IndexSlot> index_slots(const Kernel& k);
IndexRef slot_ref(const Kernel& k, IndexSlot slot);
IndexRef& slot_ref(Kernel& k, IndexSlot slot);

// Copies the expression `r` of `from` into `to` (kNoIndex stays kNoIndex).
IndexRef copy_index(const IndexPool& from, IndexRef r, IndexPool& to);
// Replaces the kernel's pool with a fresh one holding only the nodes its
// loads, masks and index values use.
void compact_indices(Kernel& k);

// A copy of `raw` whose index expressions are simplified, in a fresh pool; the
// raw kernel is left as it was, for validation. A kernel whose iteration space
// or reduction domain is empty is copied unsimplified (no range to reason in).
Kernel simplify_kernel(const Kernel& raw);
KernelProgram simplify_program(const KernelProgram& raw);

// Calls f(vars) for every assignment of finite `ranges` (brute-force checks of
// index expressions over small variable ranges).
template <typename F>
void for_each_assignment(const std::vector<IndexRange>& ranges, F f) {
  std::vector<int64_t> vars(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) vars[i] = ranges[i].lo;
  while (true) {
    f(vars);
    size_t axis = 0;
    for (; axis < vars.size() && ++vars[axis] > ranges[axis].hi; ++axis) vars[axis] = ranges[axis].lo;
    if (axis == vars.size()) return;
  }
}

}  // namespace smelt::kernel
