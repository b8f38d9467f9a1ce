// Views as index maps (with valid masks for pad), following ir/ops.cpp.
#include <algorithm>

#include "verify/op_encoders.h"
#include "verify/row_major.h"
#include "verify/term_attrs.h"

namespace smelt::verify {
namespace {

z3::expr clamp(const z3::expr& v, const z3::expr& lo, const z3::expr& hi) {
  return z3::ite(v < lo, lo, z3::ite(v > hi, hi, v));
}

z3::expr sign(z3::context& ctx, const z3::expr& k) {
  return z3::ite(k > 0, ctx.int_val(1), ctx.int_val(-1));
}

bool same_exprs(const std::vector<z3::expr>& a, const std::vector<z3::expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!z3::eq(a[i], b[i])) return false;
  return true;
}

}  // namespace

SymTensor encode_slice(EncodingState& s, const rules::Term& t, Side side, const SymTensor& x) {
  TermAttrs attrs(s, t, side);
  size_t rank = x.shape.size();
  AttrValue start = attrs.list("start", ParamKind::kInt, rank);
  AttrValue stop = attrs.list("stop", ParamKind::kInt, rank);
  AttrValue step = attrs.list("step", ParamKind::kStep, rank);
  std::vector<z3::expr> first, count, steps;
  z3::expr_vector defined(s.ctx);
  for (size_t a = 0; a < rank; ++a) {
    const z3::expr &n = x.shape[a], &k = step.items[a];
    s.require(side, k != 0, attrs.where() + ": step != 0");
    // infer_slice: clamp to [0, n] (positive step) or [-1, n-1] (negative), then count.
    z3::expr lo = z3::ite(k > 0, s.ctx.int_val(0), s.ctx.int_val(-1));
    z3::expr hi = z3::ite(k > 0, n, n - 1);
    z3::expr b = clamp(start.items[a], lo, hi), e = clamp(stop.items[a], lo, hi);
    z3::expr span = z3::ite(k > 0, e - b, b - e);
    z3::expr magnitude = z3::ite(k > 0, k, -k);
    z3::expr c = z3::ite(span > 0, s.arith.floordiv(span - 1, magnitude, defined) + 1, s.ctx.int_val(0));
    if (side == Side::kLhs) {
      // The e-graph holds canonical bounds only: stop just past the last element, empty as 0:0.
      z3::expr last = b + s.arith.mul(c - 1, k);
      s.require(side,
                (c == 0 && start.items[a] == 0 && stop.items[a] == 0) ||
                    (c > 0 && start.items[a] == b && stop.items[a] == last + sign(s.ctx, k)),
                attrs.where() + ": canonical bounds");
    }
    first.push_back(b);
    count.push_back(c);
    steps.push_back(k);
  }
  IntArith& arith = s.arith;
  return {count, x.dtype, [&arith, x, first, steps](const std::vector<z3::expr>& idx) {
            std::vector<z3::expr> j;
            for (size_t a = 0; a < idx.size(); ++a) j.push_back(first[a] + arith.mul(idx[a], steps[a]));
            return x.at(j);
          }};
}

SymTensor encode_pad(EncodingState& s, const rules::Term& t, Side side, const SymTensor& x) {
  TermAttrs attrs(s, t, side);
  size_t rank = x.shape.size();
  AttrValue lo = attrs.list("lo", ParamKind::kInt, rank);
  AttrValue hi = attrs.list("hi", ParamKind::kInt, rank);
  z3::expr value = attrs.element("value", x.dtype);
  std::vector<z3::expr> shape;
  for (size_t a = 0; a < rank; ++a) {
    s.require(side, lo.items[a] >= 0 && hi.items[a] >= 0, attrs.where() + ": pad amounts >= 0");
    shape.push_back(lo.items[a] + x.shape[a] + hi.items[a]);
  }
  std::vector<z3::expr> l = lo.items;
  return {shape, x.dtype, [x, l, value](const std::vector<z3::expr>& idx) {
            // Outside the operand's box the element is the pad value, never a computed one.
            z3::expr valid = value.ctx().bool_val(true);
            std::vector<z3::expr> j;
            for (size_t a = 0; a < idx.size(); ++a) {
              valid = valid && idx[a] >= l[a] && idx[a] < l[a] + x.shape[a];
              j.push_back(idx[a] - l[a]);
            }
            return z3::ite(valid, x.at(j), value);
          }};
}

SymTensor encode_broadcast(EncodingState& s, const rules::Term& t, Side side, const SymTensor& x) {
  TermAttrs attrs(s, t, side);
  size_t rank = x.shape.size();
  AttrValue target = attrs.free_list("shape", ParamKind::kExtent, static_cast<int>(rank),
                                     std::max(static_cast<int>(rank), s.max_rank));
  size_t out_rank = target.items.size();
  s.require_static(side, out_rank >= rank, attrs.where() + ": target rank >= operand rank");
  size_t offset = out_rank - rank;
  for (const z3::expr& n : target.items) s.require(side, n >= 0, attrs.where() + ": extents >= 0");
  for (size_t a = 0; a < rank; ++a)
    s.require(side, x.shape[a] == 1 || x.shape[a] == target.items[offset + a],
              attrs.where() + ": operand extents are 1 or the target's");
  IntArith& arith = s.arith;
  std::vector<z3::expr> shape = target.items;
  SymTensor::At at = [x, offset](const std::vector<z3::expr>& idx) {
    std::vector<z3::expr> j;
    for (size_t a = 0; a < x.shape.size(); ++a)
      j.push_back(z3::ite(x.shape[a] == 1, x.dtype.ctx().int_val(0), idx[offset + a]));
    return x.at(j);
  };
  // A broadcast that repeats nothing (same element count) only inserts unit
  // axes: the flat order is the operand's.
  return {shape, x.dtype, at, [&arith, x, shape, at](const z3::expr& flat) {
            z3::expr repeats_nothing = arith.product(x.shape) == arith.product(shape);
            return z3::ite(repeats_nothing, element_at_flat(arith, x, flat), at(delinearize(arith, flat, shape)));
          }};
}

SymTensor encode_reshape(EncodingState& s, const rules::Term& t, Side side, const SymTensor& x) {
  TermAttrs attrs(s, t, side);
  AttrValue target = attrs.free_list("shape", ParamKind::kExtent, 1, s.max_rank);
  for (const z3::expr& n : target.items)
    s.require(side, n >= 0, attrs.where() + ": extents >= 0 (no -1 on a right side)");
  if (same_exprs(target.items, x.shape)) return x;
  s.require(side, s.arith.product(target.items) == s.arith.product(x.shape),
            attrs.where() + ": same element count");
  // Row-major order is kept: element i is the operand's element at flat index lin(i).
  IntArith& arith = s.arith;
  std::vector<z3::expr> shape = target.items;
  return {shape, x.dtype,
          [&arith, x, shape](const std::vector<z3::expr>& idx) {
            return element_at_flat(arith, x, linearize(arith, idx, shape));
          },
          [&arith, x](const z3::expr& flat) { return element_at_flat(arith, x, flat); }};
}

SymTensor encode_permute(EncodingState& s, const rules::Term& t, Side side, const SymTensor& x) {
  TermAttrs attrs(s, t, side);
  size_t rank = x.shape.size();
  std::vector<int64_t> identity(rank);
  for (size_t i = 0; i < rank; ++i) identity[i] = static_cast<int64_t>(i);
  std::vector<std::vector<int64_t>> all;
  std::vector<int64_t> p = identity;
  do all.push_back(p);
  while (std::next_permutation(p.begin(), p.end()));
  std::vector<int64_t> perm = attrs.structural_list("perm", all);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  s.require_static(side, sorted == identity, attrs.where() + ": perm is a permutation of the axes");
  std::vector<z3::expr> shape;
  for (int64_t a : perm) shape.push_back(x.shape[static_cast<size_t>(a)]);
  return {shape, x.dtype, [x, perm](const std::vector<z3::expr>& idx) {
            // Output axis k is input axis perm[k].
            std::vector<z3::expr> j = idx;
            for (size_t k = 0; k < perm.size(); ++k) j[static_cast<size_t>(perm[k])] = idx[k];
            return x.at(j);
          }};
}

SymTensor encode_concat(EncodingState& s, const rules::Term& t, Side side, const Operands& x) {
  TermAttrs attrs(s, t, side);
  size_t rank = x[0].shape.size();
  for (const SymTensor& o : x)
    s.require_static(side, o.shape.size() == rank, attrs.where() + ": operands have one rank");
  s.require_static(side, rank > 0, attrs.where() + ": rank >= 1");
  auto axis = static_cast<size_t>(attrs.structural_int("axis", 0, static_cast<int64_t>(rank) - 1));
  std::vector<z3::expr> shape = x[0].shape;
  for (size_t q = 1; q < x.size(); ++q) {
    s.require(side, x[q].dtype == x[0].dtype, attrs.where() + ": operands have one dtype");
    for (size_t a = 0; a < rank; ++a)
      if (a != axis) s.require(side, x[q].shape[a] == x[0].shape[a], attrs.where() + ": operands agree off the axis");
    shape[axis] = shape[axis] + x[q].shape[axis];
  }
  return {shape, x[0].dtype, [x, axis](const std::vector<z3::expr>& idx) {
            // Walk back from the last operand: each takes the indices from its offset on.
            std::vector<z3::expr> offsets;
            z3::expr off = idx[0].ctx().int_val(0);
            for (const SymTensor& o : x) {
              offsets.push_back(off);
              off = off + o.shape[axis];
            }
            auto shifted = [&](size_t q) {
              std::vector<z3::expr> j = idx;
              j[axis] = idx[axis] - offsets[q];
              return x[q].at(j);
            };
            z3::expr out = shifted(x.size() - 1);
            for (size_t q = x.size() - 1; q-- > 0;) out = z3::ite(idx[axis] < offsets[q + 1], shifted(q), out);
            return out;
          }};
}

}  // namespace smelt::verify

namespace smelt::verify {

// gather (docs/ops.md): the data read along `axis` at the index element there
// (negative from the end), 0 where that is outside the axis.
SymTensor encode_gather(EncodingState& s, const rules::Term& t, Side side, const SymTensor& data,
                        const SymTensor& indices) {
  TermAttrs attrs(s, t, side);
  const size_t rank = data.shape.size();
  s.require_static(side, rank >= 1 && indices.shape.size() == rank, attrs.where() + ": data and indices of one rank >= 1");
  const auto axis = static_cast<size_t>(attrs.structural_int("axis", 0, static_cast<int64_t>(rank) - 1));
  s.require(side,
            indices.dtype == static_cast<int>(ir::DType::I32) || indices.dtype == static_cast<int>(ir::DType::I64),
            attrs.where() + ": i32 or i64 indices");
  for (size_t a = 0; a < rank; ++a)
    if (a != axis) s.require(side, data.shape[a] == indices.shape[a], attrs.where() + ": data and indices agree off the axis");
  ValueDomain& values = s.values;
  const z3::expr zero = values.element(data.dtype, values.literal(0.0));
  return {indices.shape, data.dtype, [data, indices, axis, zero, &values](const std::vector<z3::expr>& idx) {
            const z3::expr loaded = values.to_int(indices.at(idx)), n = data.shape[axis];
            const z3::expr at = z3::ite(loaded < 0, loaded + n, loaded);
            std::vector<z3::expr> j = idx;
            j[axis] = at;
            return z3::ite(at >= 0 && at < n, data.at(j), zero);
          }};
}

}  // namespace smelt::verify
