#pragma once
// One case of a rule (all structural choices fixed): encodes both sides and
// asks Z3, in order, whether the left side can match at all, whether the right
// side type-checks, whether the shapes and dtypes agree and whether the
// elements agree at every index. Encoding may throw NeedChoice, NeedFinite,
// Vacuous or Unsupported (params.h) for the prover to handle.
#include <map>
#include <set>
#include <string>

#include "rules/rule_ast.h"
#include "verify/encoding_state.h"

namespace smelt::verify {

struct CaseOutcome {
  enum class Kind { kProved, kVacuous, kFailed, kUnknown } kind = Kind::kProved;
  std::string message;
  std::string counterexample;
  bool nonlinear = false;  // the encoding multiplied or divided symbolic integers (nonlinear mode)
};

struct CaseSetup {
  const rules::Rule& rule;
  const std::map<std::string, OpVarInfo>& op_vars;
  const std::set<std::string>& const_tensors;
  unsigned timeout_ms;
  int max_rank;
  bool flat_vars;  // the rule has a reshape: tensor variables are functions of the flat index
  std::map<std::string, int> fixed_ranks = {};  // (= (rank ?x) R) among the top-level conditions
  std::map<std::string, std::string> tied_ranks = {};  // ?x -> the variable whose rank ?x's equals
  // Products and quotients of symbolic integers go to Z3 as they are (IntArith's
  // nonlinear mode) instead of throwing NeedFinite.
  bool nonlinear = false;
  unsigned nonlinear_timeout_ms = 0;  // the queries of a case that built such terms
  unsigned stride_match_timeout_ms = 0;  // its element queries given stride matches
};

CaseOutcome check_case(z3::context& ctx, const CaseSetup& setup, const Case& c,
                       const std::set<std::string>& finite);

}  // namespace smelt::verify
