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
#include <string_view>
#include <vector>

#include "rules/rule_ast.h"

namespace smelt::rules {

// The member variable name `?member` and the splice suffix `...`.
inline constexpr std::string_view kMemberIndexVar = "?member";
inline constexpr std::string_view kSpliceSuffix = "...";
// In a member lemma: how many members follow member k.
inline constexpr std::string_view kMembersAfterVar = "?members-after";

// The instance of `tmpl` (one :lhs and one :rhs term) for `n` members, named
// "NAME.n", with Rule::group set. std::logic_error for a template that cannot
// be expanded (a splice of a shared variable, a shared variable the left side
// does not bind, ?member bound by the left side); the caller adds the position.
Rule group_instance(const Rule& tmpl, const std::vector<std::string>& shared, int n,
                    const std::vector<std::string>& distinct = {});

// The member lemma of `tmpl` (`:members MIN *`, GroupInfo::generic), named
// "NAME.n": for member k (index ?member, variables ?w.k) of a group of any
// size, with member 0 beside it for the conditions that name it, its right
// term equals its left one, where each splice ?w... is ?w.before ?w.k ?w.after
// (blocks of ?member and ?members-after members, of ?w.k's extent along the
// concat's axis). Its roots are member 0 (right = left) and member k. Proved
// for symbolic ?member and ?members-after, it proves every instance: in
// instance n, member k's claim is the lemma with the blocks bound to the
// concats of the members before and after it — of the extents assumed, since
// the conditions give every member member 0's shape and dtype.
// std::logic_error where the template does not qualify (a per-member
// variable without (= (shape ?w) (shape ?w.0)) and (= (dtype ?w) (dtype
// ?w.0)) conditions, a splice outside a one-operand concat with a literal
// axis, a per-member :let reading ?member).
Rule group_member_lemma(const Rule& tmpl, const std::vector<std::string>& shared,
                        const std::vector<std::string>& distinct = {});

// The instance for n members of the template behind `lemma` (a member
// lemma's GroupInfo), as saturation applies it. std::logic_error below MIN.
Rule lemma_instance(const GroupInfo& lemma, int n);

// The pattern that finds one member of a group instance: its first left root
// (member 0), with the conditions that read only member 0 and shared variables.
// Its right side is the left side (it is only ever matched, never applied).
Rule group_member_rule(const Rule& instance);

}  // namespace smelt::rules
