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

}  // namespace smelt::verify
