// Reductions: ReduceSum, ReduceMax, ReduceMin, ReduceMean, ReduceSumSquare,
// ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp. smelt has sum and max; the
// rest are compositions with elementwise ops.
#include <algorithm>
#include <numeric>

#include "import/context.h"
#include "import/dtype_checks.h"

namespace smelt::importer {
namespace {

using ir::Tensor;

struct OnnxReduction {
  std::vector<int64_t> axes;  // normalized, sorted; empty: nothing to reduce
  bool keepdims = true;
};

// Axes come from input 1 (ReduceSum from opset 13, all reductions from opset 18)
// or the attribute "axes"; none given means all axes, unless noop_with_empty_axes.
OnnxReduction reduction_of(Context& ctx, int64_t rank) {
  ctx.require_inputs(1, 2);
  OnnxReduction r;
  r.keepdims = ctx.attr_int("keepdims", 1) != 0;
  const bool noop_with_empty_axes = ctx.attr_int("noop_with_empty_axes", 0) != 0;
  std::optional<std::vector<int64_t>> axes = ctx.attr_ints("axes");
  if (ctx.has_input(1)) axes = ctx.static_ints(1, "axes");
  if (!axes || axes->empty()) {
    if (noop_with_empty_axes) return r;
    axes.emplace(static_cast<size_t>(rank));
    std::iota(axes->begin(), axes->end(), 0);
  }
  for (int64_t a : *axes) r.axes.push_back(ctx.normalize_axis(a, rank, "axis"));
  std::sort(r.axes.begin(), r.axes.end());
  if (std::adjacent_find(r.axes.begin(), r.axes.end()) != r.axes.end()) ctx.fail("an axis is reduced twice");
  return r;
}

Tensor sum(Tensor x, const OnnxReduction& r) { return r.axes.empty() ? x : ir::reduce_sum(x, r.axes, r.keepdims); }
Tensor max(Tensor x, const OnnxReduction& r) { return r.axes.empty() ? x : ir::reduce_max(x, r.axes, r.keepdims); }

int64_t reduced_count(Tensor x, const OnnxReduction& r) {
  int64_t n = 1;
  for (int64_t a : r.axes) n *= x.shape()[static_cast<size_t>(a)];
  return n;
}

void reduction(ConverterTable& t, const std::string& op, DTypeClass cls,
               Tensor (*fn)(Context&, Tensor, const OnnxReduction&)) {
  t[op] = [cls, fn](Context& ctx) {
    require_dtype(ctx, 0, cls);
    Tensor x = ctx.input(0);
    OnnxReduction r = reduction_of(ctx, x.rank());
    ctx.set_output(0, fn(ctx, x, r));
  };
}

}  // namespace

void add_reduction_converters(ConverterTable& t) {
  using C = Context;
  using R = OnnxReduction;
  reduction(t, "ReduceSum", DTypeClass::Numeric, [](C&, Tensor x, const R& r) { return sum(x, r); });
  reduction(t, "ReduceMax", DTypeClass::Numeric, [](C&, Tensor x, const R& r) { return max(x, r); });
  // min = flip(max(flip(x))) with an order-reversing bijection: -x for floats, and
  // ~x = -x - 1 for integers (wrapping, so the integer minimum is no exception).
  reduction(t, "ReduceMin", DTypeClass::Numeric, [](C& c, Tensor x, const R& r) {
    if (ir::is_float(x.dtype())) return ir::neg(max(ir::neg(x), r));
    auto flip = [&c](Tensor v) { return ir::sub(ir::neg(v), c.scalar_like(1, v.dtype(), v.shape())); };
    return flip(max(flip(x), r));
  });
  reduction(t, "ReduceMean", DTypeClass::Float, [](C& c, Tensor x, const R& r) {
    Tensor s = sum(x, r);
    return ir::div(s, c.scalar_like(static_cast<double>(reduced_count(x, r)), s.dtype(), s.shape()));
  });
  reduction(t, "ReduceSumSquare", DTypeClass::Numeric, [](C&, Tensor x, const R& r) { return sum(ir::mul(x, x), r); });
  reduction(t, "ReduceL1", DTypeClass::Numeric, [](C&, Tensor x, const R& r) { return sum(ir::abs(x), r); });
  reduction(t, "ReduceL2", DTypeClass::Float, [](C&, Tensor x, const R& r) { return ir::sqrt(sum(ir::mul(x, x), r)); });
  reduction(t, "ReduceLogSum", DTypeClass::Float, [](C&, Tensor x, const R& r) { return ir::log(sum(x, r)); });
  reduction(t, "ReduceLogSumExp", DTypeClass::Float,
            [](C&, Tensor x, const R& r) { return ir::log(sum(ir::exp(x), r)); });
}

}  // namespace smelt::importer
