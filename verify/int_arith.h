#pragma once
// Integer arithmetic on Z3 terms. A product or quotient with a numeral is
// built directly. Otherwise, in the default (linear) mode, one with a
// finite-range parameter (or an expression over such parameters) is expanded
// into an ite over the values it can take, and anything else throws
// NeedFinite so that the prover restricts the parameters involved to small
// ranges and encodes the case again. In nonlinear mode it is built as Z3's
// own product / floor quotient of symbolic terms (exact, but Z3 may give up).
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "verify/params.h"

namespace smelt::verify {

class IntArith {
 public:
  IntArith(z3::context& ctx, Params& params, bool nonlinear = false)
      : ctx_(ctx), params_(params), nonlinear_(nonlinear) {}
  z3::context& ctx() const { return ctx_; }
  bool nonlinear() const { return nonlinear_; }
  // Whether a non-linear term was built (nonlinear mode only).
  bool built_nonlinear() const { return built_nonlinear_; }
  // A fresh integer constant that `fact` (a definition, satisfiable for every
  // value of the other constants) pins down; the facts go to the solver.
  z3::expr witness(const char* what);
  void define(const z3::expr& fact) { facts_.push_back(fact); }
  const std::vector<z3::expr>& facts() const { return facts_; }
  // Division uniqueness for a delinearized flat index that was itself
  // linearized from an index over another shape (row_major.cpp): where the
  // suffix of the digits' shape from `split` on and that of the other shape
  // from `from_split` on have one product (`same_stride`), `fact` gives the
  // parts above and below that stride equal. `fact` is a theorem (valid for
  // every value) that only element queries need; Z3 proves `same_stride`
  // readily in a query of its own but does not think of it inside `fact`.
  struct StrideMatch {
    int digits;  // which delinearization
    size_t split, from_split;
    z3::expr same_stride, fact;
  };
  int next_digits_id() { return ++digit_sets_; }
  void stride_match(StrideMatch m) { stride_matches_.push_back(std::move(m)); }
  const std::vector<StrideMatch>& stride_matches() const { return stride_matches_; }

  // A flat index built by linearize, with the multi-index and shape it came
  // from: delinearizing it again can relate the digits to that index.
  struct Linearization {
    z3::expr flat;
    std::vector<z3::expr> index, shape;
  };
  void note_linearization(const z3::expr& flat, const std::vector<z3::expr>& index,
                          const std::vector<z3::expr>& shape) {
    linearizations_.push_back({flat, index, shape});
  }
  std::optional<Linearization> linearization_of(const z3::expr& flat) const {
    for (const Linearization& l : linearizations_)
      if (z3::eq(l.flat, flat)) return l;
    return std::nullopt;
  }

  z3::expr mul(const z3::expr& a, const z3::expr& b);
  z3::expr product(const std::vector<z3::expr>& factors);
  // Floor division and modulo (docs/rules.md). A divisor that may be 0 adds
  // "divisor != 0" to `defined`.
  z3::expr floordiv(const z3::expr& a, const z3::expr& b, z3::expr_vector& defined);
  z3::expr mod(const z3::expr& a, const z3::expr& b, z3::expr_vector& defined);

  // The numeral `e` simplifies to, if it does.
  static std::optional<int64_t> numeral(const z3::expr& e);
  // Every value `e` takes over the finite ranges of its parameters; nullopt if
  // it depends on anything else (a symbolic parameter, an index).
  std::optional<std::vector<int64_t>> values(const z3::expr& e);

 private:
  // ite(e == v1, f(v1), ite(e == v2, f(v2), ... f(vn))) over the values of e.
  template <typename F>
  z3::expr expand(const z3::expr& e, const std::vector<int64_t>& vals, F f);
  bool has_symbolic_step(const z3::expr& e) const;
  // floor(a / b) as a witness constant q with b*q <= a < b*q + |b| (b != 0):
  // polynomial facts instead of Z3's division by a non-numeral; shared by the
  // quotient and the remainder of the same a and b.
  z3::expr quotient_witness(const z3::expr& a, const z3::expr& b);
  [[noreturn]] void need_finite(const z3::expr& a, const z3::expr& b, const char* what);

  z3::context& ctx_;
  Params& params_;
  bool nonlinear_;
  bool built_nonlinear_ = false;
  std::vector<z3::expr> facts_;
  std::vector<StrideMatch> stride_matches_;
  int digit_sets_ = 0;
  std::vector<Linearization> linearizations_;
  int witnesses_ = 0;
  // By the ids of a and b: a, b (kept so that their ids are not reused) and q.
  std::map<std::pair<unsigned, unsigned>, std::vector<z3::expr>> quotients_;
  // By AST id; the expression is kept so that its id cannot be reused.
  std::unordered_map<unsigned, std::pair<z3::expr, std::optional<std::vector<int64_t>>>> cache_;
};

// The uninterpreted integer constants `e` depends on (parameters and indices).
std::vector<z3::expr> free_int_constants(const z3::expr& e);
// Whether `e` mentions a variable of a binder (a lambda's or quantifier's).
bool has_bound_variable(const z3::expr& e);

}  // namespace smelt::verify
