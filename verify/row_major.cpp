#include "verify/row_major.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

namespace verify {
namespace {

// Products of the later extents.
std::vector<z3::expr> strides(IntArith& arith, const std::vector<z3::expr>& shape) {
  std::vector<z3::expr> out;
  z3::expr acc = arith.product({});
  for (size_t k = shape.size(); k-- > 0;) {
    out.push_back(acc);
    acc = arith.mul(acc, shape[k]);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

// Whether `e` mentions a variable of a binder (a lambda's or quantifier's).
bool has_bound_variable(const z3::expr& e) {
  std::unordered_set<unsigned> seen;
  std::function<bool(const z3::expr&)> walk = [&](const z3::expr& x) {
    if (!seen.insert(x.id()).second) return false;
    if (x.is_var() || x.is_quantifier() || x.is_lambda()) return true;
    if (!x.is_app()) return false;
    for (unsigned i = 0; i < x.num_args(); ++i)
      if (walk(x.arg(i))) return true;
    return false;
  };
  return walk(e);
}

}  // namespace

z3::expr linearize(IntArith& arith, const std::vector<z3::expr>& index, const std::vector<z3::expr>& shape) {
  std::vector<z3::expr> st = strides(arith, shape);
  z3::expr flat = arith.ctx().int_val(0);
  for (size_t k = 0; k < index.size(); ++k) flat = flat + arith.mul(index[k], st[k]);
  return flat;
}

std::vector<z3::expr> delinearize(IntArith& arith, const z3::expr& flat, const std::vector<z3::expr>& shape) {
  std::vector<z3::expr> st = strides(arith, shape), out;
  bool symbolic_strides = std::any_of(st.begin(), st.end(), [](const z3::expr& s) { return !IntArith::numeral(s); });
  if (arith.nonlinear() && symbolic_strides && !has_bound_variable(flat)) {
    // Division by a symbolic stride is what Z3 decides worst: the index is
    // instead the digits d with lin(d) = flat and each below its extent, which
    // exist (and are unique) exactly when flat is inside the shape. Outside,
    // they are left free, so the definition never excludes a case.
    z3::expr digits_match = arith.ctx().bool_val(true);
    for (size_t m = 0; m < shape.size(); ++m) {
      out.push_back(arith.witness("digit"));
      digits_match = digits_match && out.back() >= 0 && out.back() < shape[m];
    }
    digits_match = digits_match && linearize(arith, out, shape) == flat;
    arith.define(z3::implies(flat >= 0 && flat < arith.product(shape), digits_match));
    return out;
  }
  // A zero extent leaves no valid index, so a division by zero never matters.
  z3::expr_vector ignored(flat.ctx());
  for (size_t m = 0; m < shape.size(); ++m) {
    z3::expr q = arith.floordiv(flat, st[m], ignored);
    out.push_back(m == 0 ? q : arith.mod(q, shape[m], ignored));
  }
  return out;
}

z3::expr element_at_flat(IntArith& arith, const SymTensor& t, const z3::expr& flat) {
  if (t.flat_at) return t.flat_at(flat);
  return t.at(delinearize(arith, flat, t.shape));
}

}  // namespace verify
