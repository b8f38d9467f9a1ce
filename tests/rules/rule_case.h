#pragma once
// A per-rule test: a small graph on which one rule must fire (or must not),
// the form the rewrite must put into the root's class, and a semantic check:
// terms extracted from the e-graph — preferring the nodes the rule added, and
// at random — compute bit-identical values on inputs full of edge values (±0,
// ±inf, NaN, ...) for exact rules, values within a tolerance for :unsafe-fp ones.
#include <span>
#include <string>
#include <vector>

#include "rules/rule_ast.h"

namespace smelt::rules::testing {

struct RuleCase {
  std::string rule;                       // the rule under test
  std::string graph;                      // .sg text; its first output is the root
  std::string expect;                     // .sg text of a term that must end up in the root's class ("" for none)
  bool fires = true;                      // false: the rule must not change the e-graph
  int iterations = 1;                     // saturation iterations, with the rule and `helpers`
  std::vector<std::string> helpers = {};  // other rules that run along
};

// Rules are looked up by name in `extra` first, then among the shipped rules.
void check_rule_case(const RuleCase& c, std::span<const Rule> extra = {});
// A test name for case k of a table: the rule's name with '_' for '-' and '.', then k.
std::string case_name(const RuleCase& c, size_t k);

// The case tables of the rule families (one per test file).
std::span<const RuleCase> elementwise_cases();
std::span<const RuleCase> factory_cases();
std::span<const RuleCase> reduction_cases();
std::span<const RuleCase> view_cases();
std::span<const RuleCase> view_elementwise_cases();
std::span<const RuleCase> gemm_split_cases();
std::span<const RuleCase> batching_cases();
std::span<const RuleCase> conv_cases();
std::span<const RuleCase> gather_cases();

}  // namespace smelt::rules::testing
