#include "verify/row_major.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

namespace smelt::verify {
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

// Uniqueness of division with remainder, which Z3's non-linear arithmetic
// does not find by itself: where the digits d (over `shape`) and the index the
// flat index was linearized from (over from.shape) both lie in their shapes,
// and a suffix of one shape has the product of a suffix of the other (one
// stride W), both linearizations are q*W + r with 0 <= r < W, so the parts
// above W and the remainders below it agree. One fact per pair of split points;
// the checker asserts those whose strides it proves equal (case_check.cpp).
void relate_digits(IntArith& arith, const std::vector<z3::expr>& digits, const std::vector<z3::expr>& shape,
                   const IntArith::Linearization& from) {
  auto in_shape = [&](const std::vector<z3::expr>& idx, const std::vector<z3::expr>& sh) {
    z3::expr all = arith.ctx().bool_val(true);
    for (size_t k = 0; k < idx.size(); ++k) all = all && idx[k] >= 0 && idx[k] < sh[k];
    return all;
  };
  auto part = [](const std::vector<z3::expr>& v, size_t first, size_t last) {
    return std::vector<z3::expr>(v.begin() + static_cast<std::ptrdiff_t>(first),
                                 v.begin() + static_cast<std::ptrdiff_t>(last));
  };
  z3::expr premise = in_shape(digits, shape) && in_shape(from.index, from.shape) &&
                     linearize(arith, digits, shape) == from.flat;
  int id = arith.next_digits_id();
  size_t n = shape.size(), n2 = from.shape.size();
  for (size_t m = 1; m < n; ++m) {
    for (size_t m2 = 1; m2 < n2; ++m2) {
      z3::expr same = arith.product(part(shape, m, n)) == arith.product(part(from.shape, m2, n2));
      z3::expr high = linearize(arith, part(digits, 0, m), part(shape, 0, m)) ==
                      linearize(arith, part(from.index, 0, m2), part(from.shape, 0, m2));
      z3::expr low = linearize(arith, part(digits, m, n), part(shape, m, n)) ==
                     linearize(arith, part(from.index, m2, n2), part(from.shape, m2, n2));
      arith.stride_match({id, m, m2, same, z3::implies(premise && same, high && low)});
    }
  }
}

}  // namespace

z3::expr linearize(IntArith& arith, const std::vector<z3::expr>& index, const std::vector<z3::expr>& shape) {
  std::vector<z3::expr> st = strides(arith, shape);
  z3::expr flat = arith.ctx().int_val(0);
  for (size_t k = 0; k < index.size(); ++k) flat = flat + arith.mul(index[k], st[k]);
  if (arith.nonlinear()) arith.note_linearization(flat, index, shape);
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
    if (std::optional<IntArith::Linearization> from = arith.linearization_of(flat))
      relate_digits(arith, out, shape, *from);
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

}  // namespace smelt::verify
