#include <gtest/gtest.h>

#include "egraph/runner.h"
#include "tests/egraph/test_util.h"

namespace smelt::egraph {
namespace {

using testing::add_term;
using testing::expect_sound;
using testing::find_term;

std::vector<PatternRewrite> arithmetic_rules(SymbolTable& symbols) {
  std::vector<PatternRewrite> rules;
  rules.push_back(PatternRewrite::parse("comm-add", "(+ ?a ?b)", "(+ ?b ?a)", symbols));
  rules.push_back(PatternRewrite::parse("comm-mul", "(* ?a ?b)", "(* ?b ?a)", symbols));
  rules.push_back(PatternRewrite::parse("zero-add", "(+ ?a 0)", "?a", symbols));
  rules.push_back(PatternRewrite::parse("one-mul", "(* ?a 1)", "?a", symbols));
  return rules;
}

TEST(Runner, SaturatesAndProvesEqualities) {
  EGraph graph;
  const Id term = add_term(graph, "(* 1 (+ 0 x))");
  const std::vector<PatternRewrite> rules = arithmetic_rules(graph.symbols());
  const RunReport report = Runner(graph).run(rules);
  EXPECT_EQ(report.stop_reason, StopReason::kSaturated);
  EXPECT_EQ(graph.find(term), *find_term(graph, "x"));
  ASSERT_FALSE(report.iterations.empty());
  EXPECT_EQ(report.iterations.back().unions, 0u);  // the last iteration changed nothing
  EXPECT_EQ(report.iterations.back().nodes, graph.num_nodes());
  expect_sound(graph);
}

TEST(Runner, StatisticsAreRecordedPerIteration) {
  EGraph graph;
  add_term(graph, "(+ a (+ b c))");
  const std::vector<PatternRewrite> rules = arithmetic_rules(graph.symbols());
  const RunReport report = Runner(graph).run(rules);
  ASSERT_GE(report.iterations.size(), 2u);
  EXPECT_GT(report.iterations[0].matches, 0u);
  EXPECT_GT(report.iterations[0].nodes, 5u);
  for (const IterationStats& it : report.iterations) {
    EXPECT_GE(it.search_s, 0);
    EXPECT_GE(it.apply_s, 0);
    EXPECT_GE(it.rebuild_s, 0);
    EXPECT_GT(it.classes, 0u);
  }
  EXPECT_NE(report.summary().find("stop reason: saturated"), std::string::npos);
}

TEST(Runner, NodeLimitStopsCleanly) {
  EGraph graph;
  add_term(graph, "(+ a (+ b (+ c (+ d (+ e f)))))");
  std::vector<PatternRewrite> rules;
  rules.push_back(PatternRewrite::parse("comm-add", "(+ ?a ?b)", "(+ ?b ?a)", graph.symbols()));
  rules.push_back(PatternRewrite::parse("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)", graph.symbols()));
  RunnerLimits limits;
  limits.nodes = 60;
  const RunReport report = Runner(graph, limits).run(rules);
  EXPECT_EQ(report.stop_reason, StopReason::kNodeLimit);
  EXPECT_GT(graph.num_nodes(), 60u);
  EXPECT_TRUE(graph.is_clean());
  expect_sound(graph);
}

TEST(Runner, IterationAndTimeLimits) {
  {
    EGraph graph;
    add_term(graph, "(+ a (+ b (+ c d)))");
    std::vector<PatternRewrite> rules;
    rules.push_back(PatternRewrite::parse("comm-add", "(+ ?a ?b)", "(+ ?b ?a)", graph.symbols()));
    rules.push_back(PatternRewrite::parse("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)", graph.symbols()));
    RunnerLimits limits;
    limits.iterations = 2;
    const RunReport report = Runner(graph, limits).run(rules);
    EXPECT_EQ(report.stop_reason, StopReason::kIterationLimit);
    EXPECT_EQ(report.iterations.size(), 2u);
    expect_sound(graph);
  }
  {
    EGraph graph;
    add_term(graph, "(+ a b)");
    std::vector<PatternRewrite> rules = arithmetic_rules(graph.symbols());
    RunnerLimits limits;
    limits.seconds = -1;  // already over before the first iteration
    const RunReport report = Runner(graph, limits).run(rules);
    EXPECT_EQ(report.stop_reason, StopReason::kTimeLimit);
    EXPECT_TRUE(report.iterations.empty());
    expect_sound(graph);
  }
}

TEST(Runner, MemoryLimitStopsMidIteration) {
  EGraph graph;
  add_term(graph, "(+ a (+ b (+ c (+ d e))))");
  std::vector<PatternRewrite> rules;
  rules.push_back(PatternRewrite::parse("comm-add", "(+ ?a ?b)", "(+ ?b ?a)", graph.symbols()));
  rules.push_back(PatternRewrite::parse("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)", graph.symbols()));
  RunnerLimits limits;
  limits.nodes = 1'000'000;
  limits.memory_bytes = graph.memory_bytes() + 4096;
  const RunReport report = Runner(graph, limits).run(rules);
  EXPECT_EQ(report.stop_reason, StopReason::kMemoryLimit);
  EXPECT_TRUE(graph.is_clean());
  expect_sound(graph);
}

TEST(Runner, ConditionalRewriteSeesTheMatch) {
  EGraph graph;
  const Id div_xx = add_term(graph, "(/ x x)");
  const Id div_zero = add_term(graph, "(/ 0 0)");
  // x / x = 1 unless x is the literal 0.
  const PatternRewrite rule = PatternRewrite::parse("div-self", "(/ ?a ?a)", "1", graph.symbols(),
                                      [](const EGraph& g, const Match& match) {
                                        for (Id node : g.class_nodes(match["?a"]))
                                          if (g.node(node).op == SymbolTable::kNumber && g.node(node).payload == 0)
                                            return false;
                                        return true;
                                      });
  Runner(graph).run(std::span<const PatternRewrite>(&rule, 1));
  const Id one = *find_term(graph, "1");
  EXPECT_EQ(graph.find(div_xx), one);
  EXPECT_NE(graph.find(div_zero), one);
}

TEST(Runner, FunctionApplier) {
  EGraph graph;
  const Id term = add_term(graph, "(double 21)");
  SymbolTable& symbols = graph.symbols();
  const PatternRewrite rule = PatternRewrite::with_function(
      "eval-double", Query::parse("(double ?n)", symbols), [](ApplyContext& context, const Match& match) {
        EGraph& g = context.graph();
        for (Id node : g.class_nodes(match["?n"])) {
          const NodeView view = g.node(node);
          if (view.op != SymbolTable::kNumber) continue;
          context.unite(match.root(), g.add_number(2 * static_cast<std::int64_t>(view.payload)));
        }
      });
  const RunReport report = Runner(graph).run(std::span<const PatternRewrite>(&rule, 1));
  EXPECT_EQ(report.stop_reason, StopReason::kSaturated);
  EXPECT_EQ(graph.find(term), *find_term(graph, "42"));
}

TEST(Runner, MultiPatternRule) {
  EGraph graph;
  const Id fa = add_term(graph, "(f a)");
  const Id ga = add_term(graph, "(g a)");
  const Id fb = add_term(graph, "(f b)");
  const std::vector<std::string> lhs{"(= ?x (f ?v))", "(= ?y (g ?v))"};
  const std::vector<std::string> rhs{"(= ?x (h ?v))", "(= ?y (h ?v))"};
  const PatternRewrite rule = PatternRewrite::parse_multi("f-g-same", lhs, rhs, graph.symbols());
  Runner(graph).run(std::span<const PatternRewrite>(&rule, 1));
  EXPECT_EQ(graph.find(fa), graph.find(ga));
  EXPECT_NE(graph.find(fa), graph.find(fb));
  EXPECT_EQ(graph.find(fa), *find_term(graph, "(h a)"));
  expect_sound(graph);
}

TEST(Runner, BackoffSchedulerBansNoisyRules) {
  EGraph graph;
  add_term(graph, "(+ a (+ b (+ c (+ d (+ e (+ f g))))))");
  std::vector<PatternRewrite> rules;
  rules.push_back(PatternRewrite::parse("comm-add", "(+ ?a ?b)", "(+ ?b ?a)", graph.symbols()));
  rules.push_back(PatternRewrite::parse("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)", graph.symbols()));
  auto scheduler = std::make_unique<BackoffScheduler>(8, 2);
  BackoffScheduler* backoff = scheduler.get();
  RunnerLimits limits;
  limits.iterations = 6;
  limits.nodes = 100'000;
  Runner runner(graph, limits);  // owns the scheduler: alive while its stats are read
  const RunReport report = runner.with_scheduler(std::move(scheduler)).run(rules);
  EXPECT_GT(backoff->stats(0).times_banned + backoff->stats(1).times_banned, 0u);
  // A banned rule contributes no matches in its banned iterations: fewer
  // matches than the simple scheduler on the same input.
  EGraph plain;
  add_term(plain, "(+ a (+ b (+ c (+ d (+ e (+ f g))))))");
  std::vector<PatternRewrite> plain_rules;
  plain_rules.push_back(PatternRewrite::parse("comm-add", "(+ ?a ?b)", "(+ ?b ?a)", plain.symbols()));
  plain_rules.push_back(PatternRewrite::parse("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)", plain.symbols()));
  Runner(plain, limits).run(plain_rules);
  EXPECT_LT(graph.num_nodes(), plain.num_nodes());
  expect_sound(graph);
  (void)report;
}

TEST(Runner, BackoffUnbansInsteadOfStoppingEarly) {
  BackoffScheduler scheduler(1, 100);
  EXPECT_EQ(scheduler.match_limit(0, 0), 2u);
  EXPECT_FALSE(scheduler.should_apply(0, 0, 5));  // over the limit of 1: banned
  EXPECT_TRUE(scheduler.is_banned(1, 0));
  EXPECT_EQ(scheduler.match_limit(1, 0), 0u);
  EXPECT_FALSE(scheduler.can_stop(1));  // a banned rule may still have work
  EXPECT_FALSE(scheduler.is_banned(2, 0));
  EXPECT_EQ(scheduler.match_limit(2, 0), 3u);  // limit doubled after one ban
  EXPECT_TRUE(scheduler.can_stop(2));
}

}  // namespace
}  // namespace smelt::egraph
