#pragma once
// Integer arithmetic on Z3 terms. A product or quotient with a numeral is
// built directly. Otherwise, in the default (linear) mode, one with a
// finite-range parameter (or an expression over such parameters) is expanded
// into an ite over the values it can take, and anything else throws
// NeedFinite so that the prover restricts the parameters involved to small
// ranges and encodes the case again. In nonlinear mode it is built as Z3's
// own product / floor quotient of symbolic terms (exact, but Z3 may give up).
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "verify/params.h"

namespace verify {

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
  [[noreturn]] void need_finite(const z3::expr& a, const z3::expr& b, const char* what);

  z3::context& ctx_;
  Params& params_;
  bool nonlinear_;
  bool built_nonlinear_ = false;
  std::vector<z3::expr> facts_;
  int witnesses_ = 0;
  // By AST id; the expression is kept so that its id cannot be reused.
  std::unordered_map<unsigned, std::pair<z3::expr, std::optional<std::vector<int64_t>>>> cache_;
};

// The uninterpreted integer constants `e` depends on (parameters and indices).
std::vector<z3::expr> free_int_constants(const z3::expr& e);

}  // namespace verify
