// rapidcheck properties of the index simplifier (kernel/index_simplify.h), checked
// by brute force over every variable assignment in range — independent of any
// lowering: random index expressions keep their value and their truth; a
// random masked load keeps its mask's truth and, where the mask holds, its
// index; reshape round trips of random shapes vanish exactly.
// Run by ctest with a fixed seed (RC_PARAMS in CMakeLists.txt).
#include <rapidcheck.h>

#include <string>
#include <tuple>
#include <vector>

#include "kernel/index_simplify.h"
#include "kernel/kernel_builder.h"

namespace {

using smelt::kernel::IndexPool;
using smelt::kernel::IndexRange;
using smelt::kernel::IndexRef;

// One node of a random index DAG: an op and picks of earlier nodes / constants.
using IndexStep = std::tuple<int, int, int, int>;

rc::Gen<std::vector<IndexStep>> index_steps() {
  // Full-range steps at any size (inRange scales with it); only their number grows.
  const rc::Gen<IndexStep> step = rc::gen::resize(
      100, rc::gen::tuple(rc::gen::inRange(0, 17), rc::gen::inRange(0, 64), rc::gen::inRange(0, 64), rc::gen::inRange(0, 64)));
  return rc::gen::scale(0.2, rc::gen::container<std::vector<IndexStep>>(step));
}

rc::Gen<std::vector<IndexRange>> var_ranges(int count) {
  return rc::gen::map(rc::gen::container<std::vector<int>>(static_cast<size_t>(count), rc::gen::inRange(1, 7)),
                      [](const std::vector<int>& extents) {
                        std::vector<IndexRange> ranges;
                        for (int e : extents) ranges.push_back({0, e - 1});
                        return ranges;
                      });
}

// Builds the DAG over variables 0..num_vars-1; returns every node built.
std::vector<IndexRef> build_index_dag(IndexPool& p, const std::vector<IndexStep>& steps, int num_vars) {
  std::vector<IndexRef> nodes;
  for (int v = 0; v < num_vars; ++v) nodes.push_back(p.var(v));
  nodes.push_back(p.constant(3));
  for (const auto& [op, x, y, z] : steps) {
    const int n = static_cast<int>(nodes.size());
    const IndexRef a = nodes[n - 1 - x % n], b = nodes[n - 1 - y % n], c = nodes[n - 1 - z % n];
    const IndexRef small = p.constant(z % 9 - 2);
    // Divisors are never 0: positive and negative constants, or max(b, 1).
    const IndexRef divisor = z % 4 == 0 ? p.constant(-(z % 3) - 1) : z % 4 == 1 ? p.max(b, p.constant(1)) : p.constant(z % 6 + 1);
    IndexRef node = a;
    switch (op) {
      case 0: node = p.add(a, b); break;
      case 1: node = p.sub(a, b); break;
      case 2: node = p.mul(a, small); break;
      case 3: node = p.mul(a, b); break;
      case 4: node = p.floor_div(a, divisor); break;
      case 5: node = p.mod(a, divisor); break;
      case 6: node = p.min(a, b); break;
      case 7: node = p.max(a, b); break;
      case 8: node = p.select(p.lt(b, c), a, b); break;
      case 9: node = p.lt(a, b); break;
      case 10: node = p.le(a, small); break;
      case 11: node = p.eq(a, b); break;
      case 12: node = p.logical_and(a, b); break;
      case 13: node = p.logical_or(p.lt(a, small), b); break;
      case 14: node = p.logical_not(a); break;
      case 15: {  // reshape-shaped: (a / d)·d + a % d
        const IndexRef d = p.constant(z % 5 + 2);
        node = p.add(p.mul(p.floor_div(a, d), d), p.mod(a, d));
        break;
      }
      default: {  // merge then split: (a·d + b) / d or % d
        const IndexRef d = p.constant(z % 5 + 2), merged = p.add(p.mul(a, d), b);
        node = y % 2 ? p.floor_div(merged, d) : p.mod(merged, d);
        break;
      }
    }
    nodes.push_back(node);
  }
  return nodes;
}

std::string assignment_str(const std::vector<int64_t>& vars) {
  std::string s;
  for (size_t v = 0; v < vars.size(); ++v) s += " v" + std::to_string(v) + "=" + std::to_string(vars[v]);
  return s;
}

}  // namespace

int main() {
  bool ok = true;

  ok &= rc::check("simplified index expressions keep their value and truth everywhere in range", [] {
    const std::vector<IndexStep> steps = *index_steps();
    const std::vector<IndexRange> ranges = *var_ranges(3);
    IndexPool raw, out;
    const std::vector<IndexRef> nodes = build_index_dag(raw, steps, 3);
    smelt::kernel::IndexSimplifier simplifier(raw, out, ranges);
    for (IndexRef node : nodes) {
      const IndexRef value = simplifier.value(node), truth = simplifier.truth(node);
      const IndexRange range = simplifier.range(value);
      for_each_assignment(ranges, [&](const std::vector<int64_t>& vars) {
        const int64_t expected = raw.eval(node, vars), got = out.eval(value, vars);
        if (got != expected) RC_FAIL(raw.str(node) + " became " + out.str(value) + " at" + assignment_str(vars));
        if ((out.eval(truth, vars) != 0) != (expected != 0))
          RC_FAIL(raw.str(node) + " as a mask became " + out.str(truth) + " at" + assignment_str(vars));
        RC_ASSERT(range.contains(got));
      });
    }
  });

  ok &= rc::check("a masked load keeps its mask's truth, and its index where the mask holds", [] {
    const std::vector<IndexStep> steps = *index_steps();
    const std::vector<IndexRange> ranges = *var_ranges(2);
    const auto [mask_pick, index_pick, bound] = *rc::gen::tuple(rc::gen::inRange(0, 64), rc::gen::inRange(0, 64), rc::gen::inRange(0, 4));
    smelt::kernel::KernelProgram p;
    const int x = smelt::kernel::add_buffer(p, "x", {smelt::ir::DType::F32, {1}}, smelt::kernel::BufferKind::kInput, 0);
    const int y = smelt::kernel::add_buffer(p, "y", {smelt::ir::DType::F32, {ranges[0].hi + 1, ranges[1].hi + 1}}, smelt::kernel::BufferKind::kOutput, 0);
    p.kernels.push_back({"k", {ranges[0].hi + 1, ranges[1].hi + 1}, {}, {}, {}, {}});
    smelt::kernel::KernelBuilder kb(p.kernels.back());
    IndexPool& pool = kb.indices();
    const std::vector<IndexRef> nodes = build_index_dag(pool, steps, 2);
    const int n = static_cast<int>(nodes.size());
    // A pad-like bound on v0 and a random condition.
    const IndexRef mask = pool.logical_and(pool.le(pool.constant(bound), pool.var(0)), nodes[n - 1 - mask_pick % n]);
    const IndexRef index = nodes[n - 1 - index_pick % n];
    kb.output(y, kb.load(x, {index}, smelt::ir::DType::F32, mask, 0));
    const smelt::kernel::Kernel& raw = p.kernels[0];
    const smelt::kernel::Kernel simplified = smelt::kernel::simplify_kernel(raw);
    const smelt::kernel::KernelExpr &before = raw.exprs[0], &after = simplified.exprs[0];
    for_each_assignment(ranges, [&](const std::vector<int64_t>& vars) {
      const bool holds = raw.indices.eval(before.valid, vars) != 0;
      if ((simplified.indices.eval(after.valid, vars) != 0) != holds)
        RC_FAIL(raw.indices.str(before.valid) + " became " + simplified.indices.str(after.valid) + " at" + assignment_str(vars));
      if (holds && simplified.indices.eval(after.index[0], vars) != raw.indices.eval(before.index[0], vars))
        RC_FAIL(raw.indices.str(before.index[0]) + " under " + raw.indices.str(before.valid) + " became " +
                simplified.indices.str(after.index[0]) + " at" + assignment_str(vars));
    });
  });

  ok &= rc::check("reshape round trips of every shape vanish", [] {
    const smelt::ir::Shape shape = *rc::gen::container<smelt::ir::Shape>(*rc::gen::inRange<size_t>(1, 5), rc::gen::inRange<int64_t>(1, 6));
    const std::vector<int64_t> strides = smelt::ir::row_major_strides(shape);
    const int64_t n = smelt::ir::numel(shape);
    // flat → coordinates → flat
    IndexPool raw, out;
    IndexRef offset = raw.constant(0);
    for (size_t axis = 0; axis < shape.size(); ++axis) {
      const IndexRef coordinate = raw.mod(raw.floor_div(raw.var(0), raw.constant(strides[axis])), raw.constant(shape[axis]));
      offset = raw.add(offset, raw.mul(coordinate, raw.constant(strides[axis])));
    }
    smelt::kernel::IndexSimplifier flat(raw, out, {{0, n - 1}});
    RC_ASSERT(out.str(flat.value(offset)) == (n == 1 ? "0" : "v0"));
    // coordinates → flat → coordinates
    IndexPool raw2, out2;
    std::vector<IndexRange> ranges;
    IndexRef linear = raw2.constant(0);
    for (size_t axis = 0; axis < shape.size(); ++axis) {
      ranges.push_back({0, shape[axis] - 1});
      linear = raw2.add(linear, raw2.mul(raw2.var(static_cast<int>(axis)), raw2.constant(strides[axis])));
    }
    smelt::kernel::IndexSimplifier split(raw2, out2, ranges);
    for (size_t axis = 0; axis < shape.size(); ++axis) {
      const IndexRef coordinate = raw2.mod(raw2.floor_div(linear, raw2.constant(strides[axis])), raw2.constant(shape[axis]));
      RC_ASSERT(out2.str(split.value(coordinate)) == (shape[axis] == 1 ? "0" : "v" + std::to_string(axis)));
    }
  });

  return ok ? 0 : 1;
}
