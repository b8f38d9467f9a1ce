#include "tests/rules/rule_case.h"

#include <gtest/gtest.h>

#include "ir/text_format.h"
#include "rules/group_template.h"
#include "rules/rule_library.h"
#include "rules/saturate.h"
#include "rules/tensor_analysis.h"
#include "rules/term_choice.h"
#include "tests/rules/test_graphs.h"

namespace smelt::rules::testing {

using smelt::egraph::EGraph;
using smelt::egraph::Id;

namespace {

const std::vector<Rule>& shipped() {
  static const std::vector<Rule> rules = all_rules();
  return rules;
}

// "NAME.N" of a template with a member lemma ("NAME.n") and no shipped
// instance N is that instance, built as saturation builds it.
Rule find_rule(const std::string& name, std::span<const Rule> extra) {
  for (const Rule& r : extra)
    if (r.name == name) return r;
  for (const Rule& r : shipped())
    if (r.name == name) return r;
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos && dot + 1 < name.size() &&
      name.find_first_not_of("0123456789", dot + 1) == std::string::npos) {
    const int n = std::stoi(name.substr(dot + 1));
    for (const Rule& r : shipped())
      if (r.group && r.group->generic && r.name == name.substr(0, dot) + ".n") return lemma_instance(*r.group, n);
  }
  throw std::invalid_argument("no shipped rule named " + name);
}

}  // namespace

void check_rule_case(const RuleCase& c, std::span<const Rule> extra) {
  SCOPED_TRACE("rule " + c.rule + " on\n" + c.graph);
  const ir::Graph graph = ir::parse_graph(c.graph, c.rule + ".sg");
  std::vector<Rule> rules = {find_rule(c.rule, extra)};
  for (const std::string& h : c.helpers) rules.push_back(find_rule(h, extra));
  const bool exact = !rules[0].unsafe_fp;

  const std::vector<CompiledRule> compiled = compile_rules(rules);
  Saturation s{make_tensor_egraph(), {}, {}, {}};
  s.classes = add_graph(s.egraph, graph);
  s.egraph.rebuild();
  const size_t original_ids = s.egraph.num_ids();
  smelt::egraph::RunnerLimits limits;
  limits.iterations = static_cast<size_t>(c.iterations);
  smelt::egraph::SimpleScheduler scheduler;
  s.report = run_rules(s.egraph, compiled, limits, scheduler, &s.rule_stats);

  EXPECT_TRUE(s.egraph.invariant_violations().empty()) << s.egraph.invariant_violations().front();
  if (!c.fires) {
    EXPECT_EQ(s.rule_stats[0].unions, 0u) << "the rule fired where it must not";
    return;
  }
  // A rule that restates what the analysis already added (a folded full) matches without a new union.
  EXPECT_GT(s.rule_stats[0].matches, 0u) << "the rule did not match";
  if (c.expect.empty()) {
    EXPECT_GT(s.rule_stats[0].unions, 0u) << "the rule did not change the e-graph";
  }
  const Id root = s.egraph.find(s.classes.outputs.at(0));
  if (!c.expect.empty()) {
    const ir::Graph term = ir::parse_graph(c.expect, c.rule + ".expect.sg");
    const auto found = find_term(s.egraph, term);
    ASSERT_TRUE(found.has_value()) << "the expected form is not in the e-graph:\n" << c.expect;
    EXPECT_EQ(s.egraph.find(*found), root) << "the expected form is not in the root's class";
  }

  // New nodes cost 1, original ones 1000: the extraction takes every rewrite it can.
  std::vector<TermChoice> choices = {
      cheapest_terms(s.egraph, [&](Id node) { return node >= original_ids ? 1.0 : 1000.0; })};
  for (uint64_t seed = 1; seed <= 3; ++seed) choices.push_back(random_terms(s.egraph, seed));
  for (size_t k = 0; k < choices.size(); ++k) {
    const ir::Graph back = read_graph(s.egraph, s.classes.outputs, choices[k]);
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      const auto inputs = exact ? edge_inputs(graph, seed) : random_inputs(graph, seed);
      const std::string diff = compare_outputs(graph, back, inputs, exact ? 0.0 : 1e-4);
      EXPECT_EQ(diff, "") << "extraction " << k << ", inputs " << seed << ":\n" << ir::print_graph(back);
      if (!diff.empty()) return;
    }
  }
}

std::string case_name(const RuleCase& c, size_t k) {
  std::string name = c.rule + "_" + std::to_string(k);
  for (char& ch : name)
    if (ch == '-' || ch == '.') ch = '_';  // '.': a group rule's instance, "NAME.n"
  return name;
}

}  // namespace smelt::rules::testing
