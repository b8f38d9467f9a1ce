#pragma once
// Applies one match of a compiled rule: evaluates the :let and :rhs terms
// (attribute expressions, op table inference with canonical attributes), adds
// them and unites each with the class its left root matched.
#include <cstddef>
#include <stdexcept>

#include "egraph/egraph.h"
#include "error/error.h"
#include "rules/compiled_rule.h"
#include "rules/rule_query.h"

namespace smelt::rules {

// A rule whose right side does not type-check, or would unite tensors of
// different types: a bug in the rule. what() names the rule and its position.
class RuleApplicationError : public Error {
 public:
  explicit RuleApplicationError(const std::string& message) : Error(ErrorKind::kRuleApplication, message) {}
};

// Returns how many unions changed the e-graph (0 when an expression of the
// right side is undefined on this match: the rule does not fire). Throws
// RuleApplicationError for a right side that fails inference or has another
// type than the matched class.
size_t apply_match(smelt::egraph::EGraph& graph, const CompiledRule& rule, const RuleMatch& match,
                   smelt::egraph::Justification why);

}  // namespace smelt::rules
