// Reductions and matmul: sums (or maxima) over a lambda body masked to the
// reduced extents, so that two sums are equal when their bodies are.
#include <algorithm>

#include "verify/op_encoders.h"
#include "verify/term_attrs.h"

namespace smelt::verify {
namespace {

// Every nonempty, increasing list of axes of a rank (the canonical form of `axes`).
std::vector<std::vector<int64_t>> axis_subsets(size_t rank) {
  std::vector<std::vector<int64_t>> out;
  for (uint32_t mask = 1; mask < (1u << rank); ++mask) {
    std::vector<int64_t> axes;
    for (size_t a = 0; a < rank; ++a)
      if (mask & (1u << a)) axes.push_back(static_cast<int64_t>(a));
    out.push_back(axes);
  }
  return out;
}

z3::expr in_range(const z3::expr& k, const z3::expr& n) { return k >= 0 && k < n; }

}  // namespace

SymTensor encode_reduce(EncodingState& s, const rules::Term& t, Side side, const SymTensor& x) {
  TermAttrs attrs(s, t, side);
  size_t rank = x.shape.size();
  s.require_static(side, rank > 0, attrs.where() + ": rank >= 1");
  std::vector<int64_t> axes = attrs.structural_list("axes", axis_subsets(rank));
  bool keepdims = attrs.structural_bool("keepdims", false);
  std::vector<int64_t> sorted = axes;
  std::sort(sorted.begin(), sorted.end());  // infer_reduce canonicalizes the order
  bool valid = !sorted.empty() && std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end() &&
               sorted.front() >= 0 && sorted.back() < static_cast<int64_t>(rank);
  s.require_static(side, valid, attrs.where() + ": axes are distinct axes of the operand");
  s.require(side, is_numeric_dtype(x.dtype), attrs.where() + ": numeric dtype");
  std::vector<bool> reduced(rank, false);
  for (int64_t a : sorted) reduced[static_cast<size_t>(a)] = true;
  std::vector<z3::expr> shape;
  for (size_t a = 0; a < rank; ++a) {
    if (!reduced[a]) shape.push_back(x.shape[a]);
    else if (keepdims) shape.push_back(s.ctx.int_val(1));
  }
  std::string kind(ir::op_name(t.op));
  EncodingState* state = &s;
  return {shape, x.dtype, [state, x, reduced, keepdims, kind](const std::vector<z3::expr>& idx) {
            std::vector<z3::expr> j, vars, extents;
            z3::expr mask = state->ctx.bool_val(true);
            size_t out = 0;
            for (size_t a = 0; a < reduced.size(); ++a) {
              if (!reduced[a]) {
                j.push_back(idx[out++]);
                continue;
              }
              if (keepdims) ++out;
              z3::expr k = state->fresh_index();
              vars.push_back(k);
              extents.push_back(x.shape[a]);
              mask = mask && in_range(k, x.shape[a]);
              j.push_back(k);
            }
            z3::expr body = z3::ite(mask, x.at(j), state->values.literal(0.0));
            return state->values.reduce(kind, vars, extents, body);
          }};
}

SymTensor encode_matmul(EncodingState& s, const rules::Term& t, Side side, const SymTensor& a,
                        const SymTensor& b) {
  TermAttrs attrs(s, t, side);
  size_t ra = a.shape.size(), rb = b.shape.size();
  s.require_static(side, ra >= 2 && rb >= 2, attrs.where() + ": both operands have rank >= 2");
  s.require(side, a.dtype == b.dtype, attrs.where() + ": operands have one dtype");
  s.require(side, is_numeric_dtype(a.dtype), attrs.where() + ": numeric dtype");
  z3::expr k_extent = a.shape[ra - 1];
  s.require(side, b.shape[rb - 2] == k_extent, attrs.where() + ": contracted extents agree");
  // Batch axes broadcast numpy-style, right-aligned.
  size_t ba = ra - 2, bb = rb - 2, batch = std::max(ba, bb);
  std::vector<z3::expr> shape;
  for (size_t i = 0; i < batch; ++i) {
    z3::expr one = s.ctx.int_val(1);
    z3::expr da = i + ba >= batch ? a.shape[i + ba - batch] : one;
    z3::expr db = i + bb >= batch ? b.shape[i + bb - batch] : one;
    s.require(side, da == db || da == 1 || db == 1, attrs.where() + ": batch extents broadcast");
    shape.push_back(z3::ite(da == 1, db, da));
  }
  shape.push_back(a.shape[ra - 2]);
  shape.push_back(b.shape[rb - 1]);
  EncodingState* state = &s;
  return {shape, a.dtype, [state, a, b, batch, k_extent](const std::vector<z3::expr>& idx) {
            z3::context& ctx = state->ctx;
            auto batch_index = [&](const SymTensor& x) {
              std::vector<z3::expr> j;
              size_t bx = x.shape.size() - 2;
              for (size_t i = 0; i < bx; ++i)
                j.push_back(z3::ite(x.shape[i] == 1, ctx.int_val(0), idx[i + batch - bx]));
              return j;
            };
            z3::expr k = state->fresh_index();
            std::vector<z3::expr> ja = batch_index(a), jb = batch_index(b);
            ja.push_back(idx[batch]);
            ja.push_back(k);
            jb.push_back(k);
            jb.push_back(idx[batch + 1]);
            z3::expr body = z3::ite(in_range(k, k_extent), state->values.dot(a.at(ja), b.at(jb)),
                                    state->values.literal(0.0));
            return state->values.reduce("matmul", {k}, {k_extent}, body);
          }};
}

// conv (docs/ops.md): y[n, m, o...] = Σ_{c, r...} w[m, c, r...] · x[n, group(m)·cg + c,
// o·stride + r·dilation - lo...], x read as 0 outside its extents; one dot sum
// over (c, r...) per output element, matmul's kind of sum: equal to another
// when their bodies are, and to a matmul's over c when every r has extent 1.
SymTensor encode_conv(EncodingState& s, const rules::Term& t, Side side, const SymTensor& x, const SymTensor& w) {
  TermAttrs attrs(s, t, side);
  const size_t rank = x.shape.size();
  s.require_static(side, rank >= 3 && w.shape.size() == rank, attrs.where() + ": x and w of one rank >= 3");
  const size_t spatial = rank - 2;
  AttrValue strides = attrs.list("strides", ParamKind::kInt, spatial);
  AttrValue dilations = attrs.list("dilations", ParamKind::kInt, spatial);
  AttrValue lo = attrs.list("lo", ParamKind::kInt, spatial);
  AttrValue hi = attrs.list("hi", ParamKind::kInt, spatial);
  z3::expr groups = attrs.scalar("groups", AttrKind::kInt);
  s.require(side, x.dtype == w.dtype, attrs.where() + ": operands have one dtype");
  s.require(side, is_float_dtype(x.dtype), attrs.where() + ": float dtype");
  IntArith& arith = s.arith;
  z3::expr_vector defined(s.ctx);
  const z3::expr cg = w.shape[1];
  s.require(side, groups >= 1 && x.shape[1] == arith.mul(cg, groups), attrs.where() + ": C = groups · (C / groups)");
  const z3::expr mg = arith.floordiv(w.shape[0], groups, defined);
  s.require(side, arith.mul(mg, groups) == w.shape[0], attrs.where() + ": groups divide M");
  std::vector<z3::expr> shape{x.shape[0], w.shape[0]};
  for (size_t i = 0; i < spatial; ++i) {
    const z3::expr &st = strides.items[i], &d = dilations.items[i];
    s.require(side, st >= 1 && d >= 1 && lo.items[i] >= 0 && hi.items[i] >= 0 && w.shape[i + 2] >= 1,
              attrs.where() + ": strides, dilations >= 1, pads >= 0, kernel extents >= 1");
    const z3::expr padded = x.shape[i + 2] + lo.items[i] + hi.items[i];
    const z3::expr span = arith.mul(d, w.shape[i + 2] - 1) + 1;
    s.require(side, padded >= span, attrs.where() + ": a window fits the padded input");
    shape.push_back(arith.floordiv(padded - span, st, defined) + 1);
  }
  for (const z3::expr& fact : defined) s.require(side, fact, attrs.where() + ": divisions defined");
  EncodingState* state = &s;
  std::vector<z3::expr> st = strides.items, dl = dilations.items, l = lo.items;
  return {shape, x.dtype, [state, &arith, x, w, st, dl, l, cg, mg, spatial](const std::vector<z3::expr>& idx) {
            z3::context& ctx = state->ctx;
            z3::expr_vector unused(ctx);
            std::vector<z3::expr> vars{state->fresh_index()}, extents{cg};
            z3::expr in_box = vars[0] >= 0 && vars[0] < cg;
            std::vector<z3::expr> wi{idx[1], vars[0]};
            std::vector<z3::expr> xi{idx[0], arith.mul(arith.floordiv(idx[1], mg, unused), cg) + vars[0]};
            z3::expr inside = ctx.bool_val(true);
            for (size_t i = 0; i < spatial; ++i) {
              z3::expr r = state->fresh_index();
              vars.push_back(r);
              extents.push_back(w.shape[i + 2]);
              in_box = in_box && r >= 0 && r < w.shape[i + 2];
              wi.push_back(r);
              z3::expr at = arith.mul(idx[i + 2], st[i]) + arith.mul(r, dl[i]) - l[i];
              inside = inside && at >= 0 && at < x.shape[i + 2];
              xi.push_back(at);
            }
            z3::expr zero = state->values.literal(0.0);
            z3::expr body = z3::ite(in_box, state->values.dot(w.at(wi), z3::ite(inside, x.at(xi), zero)), zero);
            return state->values.reduce("matmul", vars, extents, body);
          }};
}

}  // namespace smelt::verify
