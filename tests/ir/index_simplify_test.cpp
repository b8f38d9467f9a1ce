// The index simplifier: the simplifications it promises, printed exactly, and a
// brute-force check that it never changes a value (or a mask's truth) for any
// variable assignment in range.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernel/index_simplify.h"
#include "kernel/kernel_builder.h"

namespace smelt::ir {
using namespace kernel;
namespace {

// Variables i, j, k with the given extents; raw expressions in `raw`,
// simplified ones in `out`.
class IndexSimplify : public ::testing::Test {
 protected:
  void extents(std::vector<int64_t> e) {
    ranges.clear();
    for (int64_t n : e) ranges.push_back({0, n - 1});
  }
  std::string value(IndexRef r) {
    IndexSimplifier s(raw, out, ranges);
    return out.str(s.value(r), names);
  }
  std::string truth(IndexRef r) {
    IndexSimplifier s(raw, out, ranges);
    return out.str(s.truth(r), names);
  }
  IndexRef c(int64_t v) { return raw.constant(v); }

  IndexPool raw, out;
  std::vector<IndexRange> ranges;
  std::vector<std::string> names{"i", "j", "k"};
  IndexRef i = raw.var(0), j = raw.var(1), k = raw.var(2);
};

TEST_F(IndexSimplify, ReshapeRoundTripVanishes) {
  extents({24});
  EXPECT_EQ(value(raw.add(raw.mul(raw.floor_div(i, c(4)), c(4)), raw.mod(i, c(4)))), "i");
  // The same round trip with the terms in the other order and a scaled copy.
  EXPECT_EQ(value(raw.add(raw.mod(i, c(4)), raw.mul(c(4), raw.floor_div(i, c(4))))), "i");
  EXPECT_EQ(value(raw.mul(raw.add(raw.mul(raw.floor_div(i, c(4)), c(4)), raw.mod(i, c(4))), c(3))), "(i * 3)");
}

TEST_F(IndexSimplify, SplitThenMergeGivesBackTheCoordinates) {
  extents({6, 4});
  IndexRef flat = raw.add(raw.mul(i, c(4)), j);
  EXPECT_EQ(value(raw.floor_div(flat, c(4))), "i");
  EXPECT_EQ(value(raw.mod(flat, c(4))), "j");
}

// x[24] viewed as [2,3,4] and flattened again: three levels of div/mod.
TEST_F(IndexSimplify, ThreeLevelReshapeRoundTripVanishes) {
  extents({24});
  IndexRef a = raw.mod(raw.floor_div(i, c(12)), c(2));
  IndexRef b = raw.mod(raw.floor_div(i, c(4)), c(3));
  IndexRef d = raw.mod(i, c(4));
  IndexRef flat = raw.add(raw.add(raw.mul(a, c(12)), raw.mul(b, c(4))), d);
  EXPECT_EQ(value(flat), "i");
  EXPECT_EQ(value(raw.mod(flat, c(24))), "i");
  // Dropping the outer level leaves i % 12, found by contracting i − 12·(i/12).
  EXPECT_EQ(value(raw.add(raw.mul(b, c(4)), d)), "(i % 12)");
}

// [2,3,4] coordinates → flat offset → coordinates again.
TEST_F(IndexSimplify, MergeThenSplitGivesBackEachCoordinate) {
  extents({2, 3, 4});
  IndexRef flat = raw.add(raw.add(raw.mul(i, c(12)), raw.mul(j, c(4))), k);
  EXPECT_EQ(value(raw.floor_div(flat, c(12))), "i");
  EXPECT_EQ(value(raw.mod(raw.floor_div(flat, c(4)), c(3))), "j");
  EXPECT_EQ(value(raw.mod(flat, c(4))), "k");
}

TEST_F(IndexSimplify, DivAndModOfAKnownRange) {
  extents({8, 4});
  EXPECT_EQ(value(raw.floor_div(i, c(8))), "0");
  EXPECT_EQ(value(raw.mod(i, c(8))), "i");
  EXPECT_EQ(value(raw.floor_div(raw.add(i, c(8)), c(8))), "1");
  EXPECT_EQ(value(raw.mod(raw.add(i, c(8)), c(8))), "i");
  EXPECT_EQ(value(raw.floor_div(raw.sub(i, c(8)), c(8))), "-1");
  EXPECT_EQ(value(raw.mod(i, c(4))), "(i % 4)");  // i reaches 7: stays
  // Multiples of the divisor move out; the rest stays divided.
  EXPECT_EQ(value(raw.floor_div(raw.add(raw.mul(j, c(4)), i), c(4))), "(j + (i / 4))");
  EXPECT_EQ(value(raw.mod(raw.add(raw.mul(j, c(4)), i), c(4))), "(i % 4)");
}

TEST_F(IndexSimplify, CommonFactorsAndNestedDivisions) {
  extents({100});
  EXPECT_EQ(value(raw.floor_div(raw.mul(i, c(2)), c(4))), "(i / 2)");
  EXPECT_EQ(value(raw.mod(raw.mul(i, c(2)), c(4))), "((i % 2) * 2)");
  EXPECT_EQ(value(raw.floor_div(raw.floor_div(i, c(2)), c(3))), "(i / 6)");
  EXPECT_EQ(value(raw.mod(raw.mod(i, c(8)), c(4))), "(i % 4)");
}

// A transposed reshape: element (i, j) of a [6, 4] view is offset 4·i + j of
// a [2, 3, 4] one; dividing through the shared factor 4 drops j.
TEST_F(IndexSimplify, DivisionThroughAFactorSharedWithACoefficient) {
  extents({6, 4});
  IndexRef flat = raw.add(raw.mul(i, c(4)), j);
  EXPECT_EQ(value(raw.floor_div(flat, c(12))), "(i / 3)");
  // j + (i % 3)·4 is no smaller: the plain form stays, and still cancels.
  EXPECT_EQ(value(raw.mod(flat, c(12))), "(((i * 4) + j) % 12)");
  EXPECT_EQ(value(raw.add(raw.mul(raw.floor_div(flat, c(12)), c(12)), raw.mod(flat, c(12)))), "((i * 4) + j)");
  EXPECT_EQ(value(raw.mod(raw.floor_div(flat, c(4)), c(3))), "(i % 3)");
}

TEST_F(IndexSimplify, FoldsConstantsAndCollectsTerms) {
  extents({8, 8});
  EXPECT_EQ(value(raw.floor_div(raw.add(raw.mul(c(3), c(4)), c(2)), c(5))), "2");
  EXPECT_EQ(value(raw.mod(c(-7), c(3))), "2");
  EXPECT_EQ(value(raw.sub(raw.add(i, raw.add(j, c(2))), raw.add(i, c(1)))), "(j + 1)");
  EXPECT_EQ(value(raw.sub(c(3), i)), "(3 - i)");
  EXPECT_EQ(value(raw.add(raw.mul(j, c(2)), raw.mul(i, c(5)))), "((i * 5) + (j * 2))");
}

TEST_F(IndexSimplify, VariablesOfExtentOneAreZero) {
  extents({1, 5});
  EXPECT_EQ(value(raw.add(raw.mul(i, c(5)), j)), "j");
}

TEST_F(IndexSimplify, MasksThatAlwaysHoldVanishAndNeverHoldingOnesAreZero) {
  extents({8});
  EXPECT_EQ(truth(raw.logical_and(raw.le(c(0), i), raw.lt(i, c(8)))), "true");
  EXPECT_EQ(truth(raw.lt(i, c(0))), "0");
  EXPECT_EQ(truth(raw.logical_and(raw.le(c(1), i), raw.lt(i, c(8)))), "(1 <= i)");
  EXPECT_EQ(truth(raw.logical_or(raw.lt(i, c(3)), raw.lt(i, c(9)))), "true");
  EXPECT_EQ(truth(raw.logical_not(raw.lt(i, c(3)))), "(3 <= i)");
  // Bounds on one variable merge (nested pads and slices chain them).
  IndexRef chain = raw.logical_and(raw.logical_and(raw.le(c(1), i), raw.lt(i, c(7))),
                                   raw.logical_and(raw.le(c(2), raw.sub(i, c(1))), raw.lt(i, c(5))));
  EXPECT_EQ(truth(chain), "((3 <= i) && (i < 5))");
  EXPECT_EQ(truth(raw.logical_and(chain, raw.le(c(4), i))), "(i == 4)");
  EXPECT_EQ(truth(raw.logical_and(chain, raw.lt(c(5), i))), "0");
  // As a value (an iota of a comparison) the always-true mask is the number 1.
  EXPECT_EQ(value(raw.le(c(0), i)), "1");
}

TEST_F(IndexSimplify, ComparisonsAreCanonical) {
  extents({8, 8});
  EXPECT_EQ(value(raw.lt(raw.sub(i, c(1)), c(3))), "(i < 4)");
  EXPECT_EQ(value(raw.le(raw.mul(i, c(2)), c(5))), "(i <= 2)");
  EXPECT_EQ(value(raw.lt(raw.mul(i, c(2)), c(5))), "(i < 3)");
  EXPECT_EQ(value(raw.eq(raw.mul(i, c(2)), c(5))), "0");
  EXPECT_EQ(value(raw.lt(c(2), raw.add(i, j))), "(2 < (i + j))");
}

// && and || are 0 / 1 values: operands that simplify to the same node must
// not leave that node's value behind (i·2 && (j + i·2) with j = 0).
TEST_F(IndexSimplify, LogicOfEqualOperandsStaysBoolean) {
  extents({1, 4});
  IndexRef doubled = raw.mul(j, c(2));
  EXPECT_EQ(value(raw.logical_and(raw.add(i, doubled), doubled)), "!!(j * 2)");
  EXPECT_EQ(truth(raw.logical_and(raw.add(i, doubled), doubled)), "(j * 2)");
}

TEST_F(IndexSimplify, SelectMinAndMaxDecidedByRanges) {
  extents({8, 8});
  EXPECT_EQ(value(raw.select(raw.lt(i, c(8)), i, j)), "i");
  EXPECT_EQ(value(raw.select(raw.lt(i, c(0)), i, j)), "j");
  EXPECT_EQ(value(raw.select(raw.lt(i, c(4)), i, j)), "((i < 4) ? i : j)");
  EXPECT_EQ(value(raw.min(i, c(7))), "i");
  EXPECT_EQ(value(raw.max(i, raw.add(i, c(1)))), "(i + 1)");
  EXPECT_EQ(value(raw.min(i, j)), "min(i, j)");
}

Kernel one_load_kernel(Shape space, Shape buffer, const std::function<std::pair<IndexRef, std::vector<IndexRef>>(KernelBuilder&)>& index) {
  KernelProgram p;
  int in = add_buffer(p, "x", {DType::F32, buffer}, BufferKind::kInput, 0);
  int y = add_buffer(p, "y", {DType::F32, space}, BufferKind::kOutput, 0);
  p.kernels.push_back({"k", space, {}, {}, {}, {}});
  KernelBuilder kb(p.kernels.back());
  auto [mask, idx] = index(kb);
  kb.output(y, kb.load(in, idx, DType::F32, mask, 0));
  return p.kernels.back();
}

// An index only matters where its mask holds: under 2 ≤ i < 6 the pad's
// (i − 2) % 4 is just i − 2.
TEST(IndexSimplifyKernel, IndicesAreSimplifiedUnderTheirMask) {
  Kernel raw = one_load_kernel({8}, {4}, [](KernelBuilder& kb) {
    IndexPool& p = kb.indices();
    IndexRef i = kb.var(0);
    IndexRef mask = p.logical_and(p.le(p.constant(2), i), p.lt(i, p.constant(6)));
    return std::pair{mask, std::vector<IndexRef>{p.mod(p.sub(i, p.constant(2)), p.constant(4))}};
  });
  Kernel simplified = simplify_kernel(raw);
  const KernelExpr& load = simplified.exprs[0];
  std::vector<std::string> names{"i0"};
  EXPECT_EQ(simplified.indices.str(load.valid, names), "((2 <= i0) && (i0 < 6))");
  EXPECT_EQ(simplified.indices.str(load.index[0], names), "(i0 - 2)");
  // The raw kernel is untouched.
  EXPECT_EQ(raw.indices.str(raw.exprs[0].index[0], names), "((i0 - 2) % 4)");
}

TEST(IndexSimplifyKernel, AlwaysTrueMaskVanishesAndPoolIsCompact) {
  Kernel raw = one_load_kernel({2, 12}, {24}, [](KernelBuilder& kb) {
    IndexPool& p = kb.indices();
    IndexRef flat = p.add(p.mul(kb.var(0), p.constant(12)), kb.var(1));
    IndexRef mask = p.lt(flat, p.constant(24));
    IndexRef round_trip = p.add(p.mul(p.floor_div(flat, p.constant(4)), p.constant(4)), p.mod(flat, p.constant(4)));
    return std::pair{mask, std::vector<IndexRef>{round_trip}};
  });
  Kernel simplified = simplify_kernel(raw);
  EXPECT_EQ(simplified.exprs[0].valid, kNoIndex);
  EXPECT_EQ(simplified.indices.str(simplified.exprs[0].index[0], std::vector<std::string>{"i0", "i1"}), "((i0 * 12) + i1)");
  EXPECT_EQ(simplified.indices.size(), 5u);  // i0, 12, i0*12, i1, sum
}

TEST(IndexSimplifyKernel, EmptyIterationSpaceIsLeftAsIs) {
  Kernel raw = one_load_kernel({0}, {4}, [](KernelBuilder& kb) {
    return std::pair{kNoIndex, std::vector<IndexRef>{kb.indices().mod(kb.var(0), kb.constant_index(4))}};
  });
  Kernel simplified = simplify_kernel(raw);
  EXPECT_EQ(simplified.indices.str(simplified.exprs[0].index[0]), "(v0 % 4)");
}

// ---- brute force: random expressions, every assignment in range ----

class RandomIndex {
 public:
  RandomIndex(IndexPool& pool, std::mt19937_64& rng, int num_vars) : p_(pool), rng_(rng), num_vars_(num_vars) {}

  IndexRef expr(int depth) {
    if (depth == 0 || pick(5) == 0) return pick(3) == 0 ? p_.constant(pick(12) - 3) : p_.var(pick(num_vars_));
    IndexRef a = expr(depth - 1);
    switch (pick(17)) {
      case 0: return p_.add(a, expr(depth - 1));
      case 1: return p_.sub(a, expr(depth - 1));
      case 2: return p_.mul(a, p_.constant(pick(7) - 2));
      case 3: return p_.mul(a, expr(depth - 1));
      case 4: return p_.floor_div(a, divisor(depth));
      case 5: return p_.mod(a, divisor(depth));
      case 6: return p_.min(a, expr(depth - 1));
      case 7: return p_.max(a, expr(depth - 1));
      case 8: return p_.select(condition(depth), a, expr(depth - 1));
      case 9: return p_.lt(a, expr(depth - 1));
      case 10: return p_.le(a, expr(depth - 1));
      case 11: return p_.eq(a, expr(depth - 1));
      case 12: return p_.logical_and(pick(2) ? a : condition(depth), condition(depth));
      case 13: return p_.logical_or(condition(depth), pick(2) ? a : expr(depth - 1));
      case 14: return p_.logical_not(a);
      default: {  // a reshape-shaped piece: (a/c)*c + a%c, or a split of a·c + b
        IndexRef d = p_.constant(pick(5) + 2);
        if (pick(2)) return p_.add(p_.mul(p_.floor_div(a, d), d), p_.mod(a, d));
        IndexRef merged = p_.add(p_.mul(a, d), expr(depth - 1));
        return pick(2) ? p_.floor_div(merged, d) : p_.mod(merged, d);
      }
    }
  }

 private:
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  IndexRef condition(int depth) {
    IndexRef a = expr(depth - 1), b = expr(depth - 1);
    return pick(2) ? p_.lt(a, b) : p_.le(a, b);
  }
  // Never zero: positive and negative constants, and non-constant divisors
  // kept away from zero.
  IndexRef divisor(int depth) {
    switch (pick(4)) {
      case 0: return p_.constant(-(pick(3) + 1));
      case 1: return p_.max(expr(depth - 1), p_.constant(1));
      default: return p_.constant(pick(6) + 1);
    }
  }
  IndexPool& p_;
  std::mt19937_64& rng_;
  int num_vars_;
};

TEST(IndexSimplifyBruteForce, ValuesAndTruthsNeverChange) {
  std::mt19937_64 rng(20240611);
  int changed = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    IndexPool raw, out;
    RandomIndex gen(raw, rng, 3);
    IndexRef e = gen.expr(4);
    std::vector<IndexRange> ranges;
    for (int v = 0; v < 3; ++v) ranges.push_back({0, static_cast<int64_t>(rng() % 6)});
    IndexSimplifier s(raw, out, ranges);
    IndexRef value = s.value(e), truth = s.truth(e);
    if (out.str(value) != raw.str(e)) ++changed;
    for_each_assignment(ranges, [&](const std::vector<int64_t>& vars) {
      ASSERT_EQ(out.eval(value, vars), raw.eval(e, vars))
          << raw.str(e) << " became " << out.str(value) << " at " << vars[0] << "," << vars[1] << "," << vars[2];
      ASSERT_EQ(out.eval(truth, vars) != 0, raw.eval(e, vars) != 0) << raw.str(e) << " as a mask became " << out.str(truth);
      const IndexRange r = s.range(value);
      ASSERT_TRUE(r.contains(out.eval(value, vars))) << out.str(value) << " left its range";
    });
  }
  EXPECT_GT(changed, 1000);  // the property is not vacuous: most expressions do change
}

// Kernel level: masks keep their truth, and indices keep their value wherever
// the raw mask holds (they were simplified under the mask's bounds).
TEST(IndexSimplifyBruteForce, KernelLoadsKeepTheirMeaning) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 1000; ++trial) {
    Shape space{static_cast<int64_t>(rng() % 5 + 1), static_cast<int64_t>(rng() % 5 + 1)};
    Kernel raw = one_load_kernel(space, {1}, [&](KernelBuilder& kb) {
      IndexPool& p = kb.indices();
      RandomIndex gen(p, rng, 2);
      // Masks shaped like a pad's or a concat's: bounds on a variable, and a random part.
      IndexRef bound = p.logical_and(p.le(p.constant(static_cast<int64_t>(rng() % 3)), kb.var(0)),
                                     p.lt(kb.var(1), p.constant(static_cast<int64_t>(rng() % 6))));
      IndexRef mask = rng() % 2 ? bound : p.logical_and(bound, p.le(gen.expr(2), gen.expr(2)));
      return std::pair{mask, std::vector<IndexRef>{gen.expr(4)}};
    });
    Kernel simplified = simplify_kernel(raw);
    const KernelExpr &r = raw.exprs[0], &s = simplified.exprs[0];
    for_each_assignment(kernel_var_ranges(raw), [&](const std::vector<int64_t>& vars) {
      const bool holds = raw.indices.eval(r.valid, vars) != 0;
      ASSERT_EQ(simplified.indices.eval(s.valid, vars) != 0, holds) << raw.indices.str(r.valid);
      if (holds) {
        ASSERT_EQ(simplified.indices.eval(s.index[0], vars), raw.indices.eval(r.index[0], vars))
            << raw.indices.str(r.index[0]) << " under " << raw.indices.str(r.valid) << " became "
            << simplified.indices.str(s.index[0]);
      }
    });
  }
}

// Random reshape round trips of every factorization vanish exactly.
TEST(IndexSimplifyBruteForce, EveryReshapeRoundTripVanishes) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    Shape shape;
    for (size_t rank = rng() % 4 + 1; shape.size() < rank;) shape.push_back(static_cast<int64_t>(rng() % 5 + 1));
    const std::vector<int64_t> strides = row_major_strides(shape);
    const int64_t n = numel(shape);
    IndexPool raw, out;
    IndexRef flat_var = raw.var(0), sum = raw.constant(0);
    for (size_t axis = 0; axis < shape.size(); ++axis) {
      IndexRef coordinate = raw.mod(raw.floor_div(flat_var, raw.constant(strides[axis])), raw.constant(shape[axis]));
      sum = raw.add(sum, raw.mul(coordinate, raw.constant(strides[axis])));
    }
    IndexSimplifier flat(raw, out, {{0, n - 1}});
    EXPECT_EQ(out.str(flat.value(sum)), n == 1 ? "0" : "v0") << shape_str(shape) << ": " << raw.str(sum);

    IndexPool raw2, out2;
    std::vector<IndexRange> ranges;
    IndexRef offset = raw2.constant(0);
    for (size_t axis = 0; axis < shape.size(); ++axis) {
      ranges.push_back({0, shape[axis] - 1});
      offset = raw2.add(offset, raw2.mul(raw2.var(static_cast<int>(axis)), raw2.constant(strides[axis])));
    }
    IndexSimplifier split(raw2, out2, ranges);
    for (size_t axis = 0; axis < shape.size(); ++axis) {
      IndexRef coordinate = raw2.mod(raw2.floor_div(offset, raw2.constant(strides[axis])), raw2.constant(shape[axis]));
      EXPECT_EQ(out2.str(split.value(coordinate)), shape[axis] == 1 ? "0" : "v" + std::to_string(axis))
          << shape_str(shape) << " axis " << axis;
    }
  }
}

}  // namespace
}  // namespace smelt::ir
