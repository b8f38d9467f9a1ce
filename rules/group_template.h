#pragma once
// Group templates (docs/rules.md, "Group rules"): a rule with `:members MIN MAX`
// describes one member — one left root and the term replacing it — of a
// rewrite over n matches at once (n in MIN..MAX). Its instance for n is an
// ordinary n-root rule, which the prover proves and saturation applies:
//   - every left-side variable not listed in `:shared` is per member: ?w
//     becomes ?w.0 ... ?w.{n-1} (the template may name member 0 as ?w.0);
//   - a :let that uses a per-member variable is per member too;
//   - an operand `?v...` stands for the n operands ?v.0 ... ?v.{n-1};
//   - `?member` is the member's index k in its :rhs term and conditions;
//   - each condition holds for every member (one copy per member).
#include <string>
#include <vector>

#include "rules/rule_ast.h"

namespace rules {

// The member variable name `?member` and the splice suffix `...`.
inline constexpr std::string_view kMemberIndexVar = "?member";
inline constexpr std::string_view kSpliceSuffix = "...";

// The instance of `tmpl` (one :lhs and one :rhs term) for `n` members, named
// "NAME.n", with Rule::group set. std::logic_error for a template that cannot
// be expanded (a splice of a shared variable, a shared variable the left side
// does not bind, ?member bound by the left side); the caller adds the position.
Rule group_instance(const Rule& tmpl, const std::vector<std::string>& shared, int n,
                    const std::vector<std::string>& distinct = {});

// The pattern that finds one member of a group instance: its first left root
// (member 0), with the conditions that read only member 0 and shared variables.
// Its right side is the left side (it is only ever matched, never applied).
Rule group_member_rule(const Rule& instance);

}  // namespace rules
