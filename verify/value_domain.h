#pragma once
// What a tensor element is to the prover, in one of two modes.
//  - IEEE (rules without :unsafe-fp): values of an uninterpreted sort; every
//    elementwise op is an uninterpreted function of the operands' dtype and
//    values, constrained only by facts that hold for IEEE floats (round to
//    nearest) and wrapping integers alike — commutativity of add/mul/eq,
//    x*1 = x, x/1 = x, x-(+0) = x, x+(-0) = x, neg(neg x) = x, a-b = a+(-b),
//    (-a)*b = -(a*b), x*-1 = x/-1 = -x, max(x,x) = x, ... (axioms()) — plus a
//    few that hold for integer dtypes only (x+0 = x, x*0 = 0, x-x = 0). Never
//    x+0 = x for floats (it fails for -0.0), never associativity or
//    distributivity, never max/min commutativity (the sign of zero). Literals
//    are constants per double (-0.0 and +0.0 differ); `=` on attribute values
//    is identity, as in the rule engine; `<` and `<=` are IEEE comparisons,
//    decided on literals.
//  - real (:unsafe-fp rules): values are reals; add sub mul div neg recip max
//    min abs relu lt le eq where are interpreted; the other ops stay
//    uninterpreted.
// A value attribute (full's or pad's) is identified with the element it makes
// (element()): rounding to the dtype is idempotent and (apply ?f ...) computes
// on elements; only the zeros of integer dtypes are told apart.
// Reductions and matmul are uninterpreted sums over a lambda body and the
// extents, so equal bodies (array extensionality) give equal sums.
#include <map>
#include <string>
#include <vector>

#include <z3++.h>

#include "ir/ops.h"
#include "verify/axioms.h"

namespace smelt::verify {

class ValueDomain {
 public:
  ValueDomain(z3::context& ctx, bool real);

  bool real() const { return real_; }
  const z3::sort& sort() const { return sort_; }

  // A double as an attribute value (identity: -0.0 and 0.0 differ).
  z3::expr literal(double v);
  // The element a value attribute makes in a tensor of `dtype`: the value
  // itself, except that in integer and bool dtypes both zeros are the integer
  // zero (int_zero()).
  z3::expr element(const z3::expr& dtype, const z3::expr& v);
  z3::expr int_zero();
  static z3::expr int_like(const z3::expr& dtype);
  // An integer (an iota index, an integer attribute) as an element value.
  z3::expr from_int(const z3::expr& i);
  // An integer element (a gather's index) as an integer: an uninterpreted
  // function of the value that inverts from_int (the reals: to_int).
  z3::expr to_int(const z3::expr& v);

  // An elementwise op of the table (not cast) on element values of dtype
  // `dtype` (a code; the operands' dtype, the branches' one for where).
  z3::expr apply(ir::Op op, const z3::expr& dtype, const std::vector<z3::expr>& args);
  // cast(v) from dtype `from` to dtype `to` (codes): the identity when equal.
  z3::expr cast(const z3::expr& from, const z3::expr& to, const z3::expr& v);
  // An op variable: one uninterpreted function per name of the operands'
  // dtypes and values.
  z3::expr apply_var(const std::string& name, const std::vector<z3::expr>& dtypes,
                     const std::vector<z3::expr>& args);
  // Whether an op variable accepts operands of these dtypes.
  z3::expr var_accepts(const std::string& name, const std::vector<z3::expr>& dtypes);

  // Attribute-level arithmetic and comparisons on float values ("+", "-", "*",
  // "min", "max"; "=", "<", "<=").
  z3::expr arith(const std::string& fn, const z3::expr& a, const z3::expr& b);
  z3::expr negate(const z3::expr& a);
  z3::expr compare(const std::string& fn, const z3::expr& a, const z3::expr& b);

  // sum / max over `vars` (each ranging over 0..extent-1) of `body`, which must
  // already be masked to the range. kind: "reduce_sum", "reduce_max", "matmul"
  // (a dot sum: matmul's and conv's).
  z3::expr reduce(const std::string& kind, const std::vector<z3::expr>& vars,
                  const std::vector<z3::expr>& extents, const z3::expr& body);
  // The sum of n copies of the value v, as reduce_sum computes it: a law
  // (laws()) says what a sum over a box whose terms are all one value is.
  z3::expr copies(const z3::expr& v, const z3::expr& n);
  // The term summed by matmul: a product computed exactly (in double).
  z3::expr dot(const z3::expr& a, const z3::expr& b);

  // The laws of the mode for the functions used so far (none in the reals),
  // and the ground facts about the literals used so far.
  std::vector<Axiom> laws();
  z3::expr_vector literal_facts();
  // IEEE mode: the literal constants registered so far, with their doubles.
  const std::vector<std::pair<double, z3::expr>>& literals() const { return literals_; }

 private:
  // name(dtype, value...) -> value
  z3::func_decl op_function(const std::string& name, size_t arity);
  // name(dtype..., value...) -> value
  z3::func_decl var_function(const std::string& name, size_t arity);
  z3::func_decl value_function(const std::string& name, size_t arity);
  z3::func_decl function(const std::string& name, const z3::sort_vector& domain, const z3::sort& range);
  // Real mode: a * b, with a factor of a sum moved into its body.
  z3::expr scale_sum(const z3::expr& a, const z3::expr& b);
  // kind<n>(body array over n indices, n extents) -> value
  z3::func_decl reduce_function(const std::string& kind, size_t n);

  z3::context& ctx_;
  bool real_;
  z3::sort sort_;
  std::map<std::string, z3::func_decl> functions_;
  std::vector<std::pair<double, z3::expr>> literals_;  // IEEE mode: one constant per double
  int scaled_ = 0;                                      // bound variables made by scale_sum
};

}  // namespace smelt::verify
