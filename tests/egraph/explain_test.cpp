#include <gtest/gtest.h>

#include "egraph/explanation.h"
#include "egraph/runner.h"
#include "tests/egraph/test_util.h"

namespace smelt::egraph {
namespace {

using testing::add_term;
using testing::expect_sound;

EGraphOptions with_explanations() {
  EGraphOptions options;
  options.explanations = true;
  return options;
}

Explanation explain(EGraph& graph, const std::string& a, const std::string& b) {
  return graph.explain_equivalence(parse_term(a, graph.symbols()), parse_term(b, graph.symbols()));
}

TEST(Explain, ChainOfRuleApplications) {
  EGraph graph(with_explanations());
  add_term(graph, "(* 1 (+ 0 x))");
  std::vector<PatternRewrite> rules;
  rules.push_back(PatternRewrite::parse("comm-add", "(+ ?a ?b)", "(+ ?b ?a)", graph.symbols()));
  rules.push_back(PatternRewrite::parse("comm-mul", "(* ?a ?b)", "(* ?b ?a)", graph.symbols()));
  rules.push_back(PatternRewrite::parse("zero-add", "(+ ?a 0)", "?a", graph.symbols()));
  rules.push_back(PatternRewrite::parse("one-mul", "(* ?a 1)", "?a", graph.symbols()));
  Runner(graph).run(rules);
  expect_sound(graph);

  const Explanation proof = explain(graph, "(* 1 (+ 0 x))", "x");
  ASSERT_GE(proof.num_rewrites(), 4u);
  EXPECT_EQ(proof.steps.front().term, "(* 1 (+ 0 x))");
  EXPECT_EQ(proof.steps.back().term, "x");
  std::set<std::string> rules_used;
  for (std::size_t i = 1; i < proof.steps.size(); ++i) rules_used.insert(proof.steps[i].rule);
  EXPECT_EQ(rules_used, (std::set<std::string>{"comm-add", "comm-mul", "zero-add", "one-mul"}));
  EXPECT_NE(proof.to_string().find("=> zero-add"), std::string::npos);
}

// Without whole terms (large shared graphs spelled as trees cost memory per
// step) a step still names its rule and the subterm it produced, shortened.
TEST(Explain, StepsWithoutWholeTermsKeepTheirRulesAndRewrittenSubterms) {
  EGraph graph(with_explanations());
  add_term(graph, "(f (g (+ a b)))");
  add_term(graph, "(f (g (+ b a)))");
  const PatternRewrite comm = PatternRewrite::parse("comm-add", "(+ ?a ?b)", "(+ ?b ?a)", graph.symbols());
  Runner(graph).run(std::span<const PatternRewrite>(&comm, 1));
  const Explanation proof =
      graph.explain_equivalence(parse_term("(f (g (+ a b)))", graph.symbols()),
                                parse_term("(f (g (+ b a)))", graph.symbols()), {.whole_terms = false});
  ASSERT_EQ(proof.num_rewrites(), 1u);
  EXPECT_EQ(proof.steps.back().rule, "comm-add");
  EXPECT_EQ(proof.steps.back().rewritten, "(+ b a)");
  EXPECT_TRUE(proof.steps.back().term.empty());
  const Explanation short_terms =
      graph.explain_equivalence(parse_term("(f (g (+ a b)))", graph.symbols()),
                                parse_term("(f (g (+ b a)))", graph.symbols()), {.max_term_chars = 4});
  EXPECT_EQ(short_terms.steps.back().rewritten, "(+ b...");
}

TEST(Explain, CongruencePlacesRewritesInsideTerms) {
  EGraph graph(with_explanations());
  add_term(graph, "(f (+ a b))");
  add_term(graph, "(f (+ b a))");
  const PatternRewrite comm = PatternRewrite::parse("comm-add", "(+ ?a ?b)", "(+ ?b ?a)", graph.symbols());
  Runner(graph).run(std::span<const PatternRewrite>(&comm, 1));
  const Explanation proof = explain(graph, "(f (+ a b))", "(f (+ b a))");
  ASSERT_EQ(proof.num_rewrites(), 1u);
  EXPECT_EQ(proof.steps[1].term, "(f (+ b a))");
  EXPECT_EQ(proof.steps[1].rule, "comm-add");
}

TEST(Explain, BackwardStepsAreMarked) {
  EGraph graph(with_explanations());
  add_term(graph, "(+ x 0)");
  const PatternRewrite zero = PatternRewrite::parse("zero-add", "(+ ?a 0)", "?a", graph.symbols());
  Runner(graph).run(std::span<const PatternRewrite>(&zero, 1));
  const Explanation forward = explain(graph, "(+ x 0)", "x");
  ASSERT_EQ(forward.num_rewrites(), 1u);
  EXPECT_FALSE(forward.steps[1].backward);
  const Explanation backward = explain(graph, "x", "(+ x 0)");
  ASSERT_EQ(backward.num_rewrites(), 1u);
  EXPECT_TRUE(backward.steps[1].backward);
  EXPECT_EQ(backward.steps[1].term, "(+ x 0)");
}

TEST(Explain, GivenUnionsAndErrors) {
  EGraph graph(with_explanations());
  const Id a = add_term(graph, "a");
  const Id b = add_term(graph, "b");
  add_term(graph, "(g a)");
  graph.unite(a, b);
  graph.rebuild();
  const Explanation proof = explain(graph, "(g a)", "(g b)");
  ASSERT_EQ(proof.num_rewrites(), 1u);
  EXPECT_EQ(proof.steps[1].rule, "<given>");
  EXPECT_EQ(proof.steps[1].term, "(g b)");
  EXPECT_THROW(explain(graph, "a", "c"), std::invalid_argument);

  EGraph plain;
  add_term(plain, "a");
  EXPECT_THROW(plain.explain_equivalence(parse_term("a", plain.symbols()), parse_term("a", plain.symbols())),
               std::logic_error);
}

TEST(Explain, ExplanationsDoNotChangeCounts) {
  // The same rules and term with and without explanations give the same
  // canonical e-graph size: explanation copies are never canonical nodes.
  auto run = [](EGraphOptions options) {
    EGraph graph(options);
    add_term(graph, "(+ a (+ b (+ c d)))");
    std::vector<PatternRewrite> rules;
    rules.push_back(PatternRewrite::parse("comm-add", "(+ ?a ?b)", "(+ ?b ?a)", graph.symbols()));
    rules.push_back(PatternRewrite::parse("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)", graph.symbols()));
    RunnerLimits limits;
    limits.iterations = 4;
    Runner(graph, limits).run(rules);
    expect_sound(graph);
    return std::pair(graph.num_nodes(), graph.num_classes());
  };
  EXPECT_EQ(run({}), run(with_explanations()));
}

}  // namespace
}  // namespace smelt::egraph
