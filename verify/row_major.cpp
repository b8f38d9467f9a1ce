#include "verify/row_major.h"

#include <algorithm>

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

}  // namespace

z3::expr linearize(IntArith& arith, const std::vector<z3::expr>& index, const std::vector<z3::expr>& shape) {
  std::vector<z3::expr> st = strides(arith, shape);
  z3::expr flat = arith.ctx().int_val(0);
  for (size_t k = 0; k < index.size(); ++k) flat = flat + arith.mul(index[k], st[k]);
  return flat;
}

std::vector<z3::expr> delinearize(IntArith& arith, const z3::expr& flat, const std::vector<z3::expr>& shape) {
  std::vector<z3::expr> st = strides(arith, shape), out;
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
