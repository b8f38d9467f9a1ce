#pragma once
// What one case of a rule's encoding builds and shares between the term
// encoder (tensor_encoder.h) and the expression evaluator (expr_eval.h).
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <z3++.h>

#include "rules/rule_ast.h"
#include "verify/int_arith.h"
#include "verify/params.h"
#include "verify/value_domain.h"

namespace smelt::verify {

// A tensor as the prover sees it: symbolic extents, a dtype code (ir::DType),
// and its element at any index tuple (meaningful inside the shape).
struct SymTensor {
  using At = std::function<z3::expr(const std::vector<z3::expr>&)>;
  using FlatAt = std::function<z3::expr(const z3::expr&)>;
  SymTensor(std::vector<z3::expr> s, z3::expr d, At a, FlatAt f = {})
      : shape(std::move(s)), dtype(std::move(d)), at(std::move(a)), flat_at(std::move(f)) {}

  std::vector<z3::expr> shape;
  z3::expr dtype;
  At at;
  // The element at a row-major flat index, where it is known without
  // delinearizing (variables in flat mode, reshapes, elementwise ops of those):
  // chains of reshapes then compare syntactically instead of through div/mod.
  FlatAt flat_at;
};

enum class AttrKind : uint8_t { kInt, kFloat, kBool, kDType };

// An attribute or expression value: a scalar or a list of scalars of one kind.
struct AttrValue {
  AttrKind kind = AttrKind::kInt;
  bool is_list = false;
  std::vector<z3::expr> items;  // one for a scalar
  // A float computed as an element ((apply ?f ...)), not a double of the rule:
  // it is not mapped through ValueDomain::element again.
  bool element = false;
};

// An op variable, restricted to elementwise ops by a top-level condition; `op`
// when the rule fixes it with (is-op ?f NAME).
struct OpVarInfo {
  size_t arity = 0;
  std::optional<ir::Op> op;
  // The dtypes of its operands where the left side matched it: (apply ?f ...)
  // computes on values of these dtypes.
  std::vector<z3::expr> dtypes;
  bool constrained = false;  // "exactly one elementwise op" is assumed
};

enum class Side : uint8_t { kLhs, kRhs };

struct EncodingState {
  EncodingState(z3::context& c, Params& p, IntArith& a, ValueDomain& v, const rules::Rule& r,
                int rank_limit)
      : ctx(c), params(p), arith(a), values(v), rule(r), max_rank(rank_limit), assumptions(c) {}

  z3::context& ctx;
  Params& params;
  IntArith& arith;
  ValueDomain& values;
  const rules::Rule& rule;
  int max_rank;
  // Tensor variables are functions of the flat index (rules with a reshape).
  bool flat_vars = false;

  std::map<std::string, SymTensor> tensors;  // left-side tensor variables and lets
  std::map<std::string, AttrValue> attrs;    // attribute variables
  std::map<std::string, OpVarInfo> op_vars;
  std::set<std::string> const_tensors;       // tensor variables used in (const ?x)
  std::map<std::string, int> fixed_ranks;    // ranks a top-level condition fixes: no other rank is a case
  std::map<std::string, std::string> tied_ranks;  // ?x -> the variable whose rank is ?x's in every non-vacuous case
  z3::expr_vector assumptions;               // left side: typing, canonical attributes, conditions
  std::vector<std::pair<std::string, z3::expr>> obligations;  // right side: must follow
  int bound_vars = 0;                        // counter for names of summation variables
  // Left-side attributes given as expressions: each must equal its value, which
  // is evaluated once the whole left side (all its variables) is encoded.
  std::vector<std::pair<AttrValue, const rules::Expr*>> pending;

  // A typing fact: assumed on the left side (the e-graph holds only well-typed,
  // canonical terms), an obligation on the right side.
  void require(Side side, const z3::expr& fact, const std::string& what) {
    if (side == Side::kLhs) assumptions.push_back(fact);
    else obligations.emplace_back(what, fact);
  }
  // A typing fact that is already decided: when false, the case is vacuous on
  // the left side and the rule is wrong on the right side.
  void require_static(Side side, bool holds, const std::string& what) {
    if (holds) return;
    if (side == Side::kLhs) throw Vacuous{};
    throw StaticFailure{what};
  }
  z3::expr fresh_index() { return ctx.int_const(("k" + std::to_string(++bound_vars)).c_str()); }
};

std::string pos_text(const rules::SourcePos& p);

// "?f is NAME": which elementwise op an op variable is, where the rule leaves it open.
inline z3::expr op_var_is(z3::context& ctx, const std::string& op_var, ir::Op op) {
  return ctx.bool_const((op_var + " is " + std::string(ir::op_name(op))).c_str());
}

}  // namespace smelt::verify
