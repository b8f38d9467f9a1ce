// The rule engine: matching (op variables, multi-patterns, attribute
// expressions), right sides that cannot be built, loud errors for rules that
// break types, limits, explanations, and a test harness that catches wrong rules.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <limits>
#include <set>

#include "egraph/explanation.h"
#include "ir/builder.h"
#include "error/memory_limit.h"
#include "rules/rule_query.h"
#include "rules/rhs_builder.h"
#include "rules/rule_library.h"
#include "rules/rule_parser.h"
#include "rules/saturate.h"
#include "rules/tensor_analysis.h"
#include "tests/rules/rule_case.h"

namespace smelt::rules {
namespace {

using smelt::egraph::EGraph;
using smelt::egraph::Id;

Rule rule_from(const std::string& text) { return parse_rules(text, "test.rules").at(0); }

const Rule& shipped(const std::string& name) {
  static const std::vector<Rule> all = all_rules();
  for (const Rule& r : all)
    if (r.name == name) return r;
  throw std::invalid_argument(name);
}

size_t count_matches(const ir::Graph& g, const Rule& rule) {
  EGraph graph = make_tensor_egraph();
  add_graph(graph, g);
  graph.rebuild();
  std::vector<RuleMatch> matches;
  return find_matches(graph, compile_rule(rule), SIZE_MAX, matches);
}

TEST(RuleEngine, AnOpVariableIsOneOpWithOneSetOfAttributes) {
  const Rule rule = rule_from("(rule t :lhs (concat (?f ?a) (?f ?b) :axis ?axis) :rhs (concat ?a ?b :axis ?axis))");
  auto with = [&](auto f, auto h) {
    ir::Graph g;
    auto x = ir::input(g, "x", ir::DType::F32, {4});
    auto y = ir::input(g, "y", ir::DType::F32, {4});
    g.add_output(ir::concat({f(x), h(y)}, 0));
    return count_matches(g, rule);
  };
  auto exp = [](ir::Tensor t) { return ir::exp(t); };
  auto log = [](ir::Tensor t) { return ir::log(t); };
  auto pad0 = [](ir::Tensor t) { return ir::pad(t, {1}, {0}, 0.0); };
  auto pad1 = [](ir::Tensor t) { return ir::pad(t, {1}, {0}, 1.0); };
  EXPECT_EQ(with(exp, exp), 1u);
  EXPECT_EQ(with(exp, log), 0u);
  EXPECT_EQ(with(pad0, pad0), 1u);
  EXPECT_EQ(with(pad0, pad1), 0u);  // same op, other attributes
}

TEST(RuleEngine, MultiPatternRootsAreDifferentClasses) {
  const Rule& rule = shipped("batch-matmuls-sharing-lhs.2");
  ir::Graph one;
  auto x = ir::input(one, "x", ir::DType::F32, {4, 3});
  auto w = ir::input(one, "w", ir::DType::F32, {3, 5});
  one.add_output(ir::matmul(x, w));
  EXPECT_EQ(count_matches(one, rule), 0u);
  ir::Graph two;
  auto x2 = ir::input(two, "x", ir::DType::F32, {4, 3});
  auto w1 = ir::input(two, "w1", ir::DType::F32, {3, 5});
  auto w2 = ir::input(two, "w2", ir::DType::F32, {3, 5});
  two.add_output(ir::matmul(x2, w1));
  two.add_output(ir::matmul(x2, w2));
  EXPECT_EQ(count_matches(two, rule), 2u);  // both orders
}

TEST(RuleEngine, LeftAttributeExpressionsMayUseVariablesBoundDeeper) {
  // The outer :start reads ?a, which only the inner slice binds.
  const Rule rule = rule_from("(rule t :lhs (slice (slice ?x :start ?a) :start (- ?a 1)) :rhs (neg ?x))");
  auto with = [&](int64_t outer_start) {
    ir::Graph g;
    auto x = ir::input(g, "x", ir::DType::F32, {10});
    g.add_output(ir::slice(ir::slice(x, {2}, {10}, {1}), {outer_start}, {8}, {1}));
    return count_matches(g, rule);
  };
  EXPECT_EQ(with(1), 1u);
  EXPECT_EQ(with(2), 0u);
}

TEST(RuleEngine, LiteralAttributesMatchExactly) {
  const Rule rule = rule_from("(rule t :lhs (cast ?x :to f16) :rhs (cast ?x :to f16))");
  ir::Graph g;
  auto x = ir::input(g, "x", ir::DType::F32, {4});
  g.add_output(ir::cast(x, ir::DType::F16));
  g.add_output(ir::cast(x, ir::DType::BF16));
  EXPECT_EQ(count_matches(g, rule), 1u);
}

Saturation run(const ir::Graph& g, const std::vector<Rule>& rules,
               smelt::egraph::RunnerLimits limits = default_limits()) {
  return saturate(g, rules, limits);
}

ir::Graph exp_of_vector() {
  ir::Graph g;
  g.add_output(ir::exp(ir::input(g, "x", ir::DType::F32, {4})));
  return g;
}

std::string error_of(const ir::Graph& g, const Rule& rule) {
  try {
    run(g, {rule});
  } catch (const RuleApplicationError& e) {
    return e.what();
  }
  return "no error";
}

TEST(RuleEngine, ARightSideThatFailsInferenceIsALoudErrorNamingTheRule) {
  const std::string e =
      error_of(exp_of_vector(), rule_from("(rule bad-reshape :lhs (exp ?x) :rhs (reshape ?x :shape [3]))"));
  EXPECT_NE(e.find("test.rules:1:1: rule bad-reshape"), std::string::npos) << e;
  EXPECT_NE(e.find("reshape(f32[4])"), std::string::npos) << e;
}

TEST(RuleEngine, ARightSideOfAnotherTypeIsALoudErrorNamingBothTypes) {
  const std::string e =
      error_of(exp_of_vector(), rule_from("(rule bad-type :lhs (exp ?x) :rhs (reshape (exp ?x) :shape [2 2]))"));
  EXPECT_NE(e.find("rule bad-type"), std::string::npos) << e;
  EXPECT_NE(e.find("f32[2,2]"), std::string::npos) << e;
  EXPECT_NE(e.find("f32[4]"), std::string::npos) << e;
}

TEST(RuleEngine, AValueOfTheWrongKindIsALoudErrorNamingTheRule) {
  const std::string e =
      error_of(exp_of_vector(), rule_from("(rule bad-kind :lhs (exp ?x) :rhs (reshape ?x :shape f32))"));
  EXPECT_NE(e.find("rule bad-kind"), std::string::npos) << e;
}

TEST(RuleEngine, AnUndefinedRightSideAddsNothing) {
  // x has no known constant: the rule matches but must not fire.
  const ir::Graph g = exp_of_vector();
  Saturation s = run(
      g, {rule_from("(rule needs-const :lhs (exp ?x) :rhs (full :shape (shape ?x) :dtype f32 :value (const ?x)))")});
  EXPECT_EQ(s.egraph.num_nodes(), 2u);
  EXPECT_EQ(s.rule_stats[0].matches, 1u);
  EXPECT_EQ(s.rule_stats[0].unions, 0u);
}

TEST(RuleEngine, StopsAtTheLimits) {
  // Commutativity alone saturates at once; sub/add-neg keep growing a chain of negations.
  ir::Graph g;
  auto x = ir::input(g, "x", ir::DType::F32, {4});
  g.add_output(ir::add(x, x));
  Saturation saturated = run(g, {shipped("add-commute")});
  EXPECT_EQ(saturated.report.stop_reason, smelt::egraph::StopReason::kSaturated);

  ir::Graph h;
  auto a = ir::input(h, "a", ir::DType::F32, {4});
  auto b = ir::input(h, "b", ir::DType::F32, {4});
  h.add_output(ir::sub(a, b));
  // Each neg gets an operand wrapped in one more (identity) reshape: an endless supply of new classes.
  const std::vector<Rule> growing = {
      shipped("sub-to-add-neg"), rule_from("(rule grow :lhs (neg ?x) :rhs (neg (reshape ?x :shape (shape ?x))))")};
  smelt::egraph::RunnerLimits one;
  one.iterations = 1;
  Saturation stopped = run(h, growing, one);
  EXPECT_EQ(stopped.report.stop_reason, smelt::egraph::StopReason::kIterationLimit);
  EXPECT_EQ(stopped.report.iterations.size(), 1u);
  smelt::egraph::RunnerLimits few_nodes;
  few_nodes.nodes = 8;
  Saturation capped = run(h, growing, few_nodes);
  EXPECT_EQ(capped.report.stop_reason, smelt::egraph::StopReason::kNodeLimit);
  EXPECT_TRUE(capped.egraph.invariant_violations().empty());
  smelt::egraph::RunnerLimits no_time;
  no_time.seconds = 0;
  EXPECT_EQ(run(h, growing, no_time).report.stop_reason, smelt::egraph::StopReason::kTimeLimit);
}

// Layers of slices, elementwise ops and a concat of the halves, whose view
// rules add classes every iteration without end.
ir::Graph exploding_graph() {
  ir::Graph g("explode");
  ir::Tensor t = ir::add(ir::input(g, "x", ir::DType::F32, {64}), ir::input(g, "y", ir::DType::F32, {64}));
  for (int layer = 0; layer < 80; ++layer) {
    const ir::Tensor lo = ir::slice_axis(t, 0, 0, 32), hi = ir::slice_axis(t, 0, 32, 64);
    t = ir::concat({ir::mul(hi, hi), ir::exp(lo)}, 0);
  }
  g.add_output(t);
  return g;
}

// Layers of slices, elementwise ops and a concat of the halves: the view
// rules (sink and hoist across slices, slice of concat, ...) add classes every
// iteration without end. Under the default limits with iterations unbounded,
// saturation stops at a limit, says which, and stays far below the memory limit.
TEST(RuleEngine, AGraphBuiltToExplodeStopsAtALimitAndSaysWhich) {
  const ir::Graph g = exploding_graph();
  smelt::egraph::RunnerLimits limits = default_limits();
  limits.iterations = 1'000'000;
  const Saturation s = saturate(g, default_rules(), limits);
  const smelt::egraph::StopReason reason = s.report.stop_reason;
  EXPECT_TRUE(reason == smelt::egraph::StopReason::kNodeLimit || reason == smelt::egraph::StopReason::kTimeLimit)
      << smelt::egraph::to_string(reason);
  // Checked after every rule: one rule's matches (at most the scheduler's match limit) past the limit.
  EXPECT_LT(s.egraph.num_nodes(), 2 * limits.nodes);
  EXPECT_LT(s.egraph.memory_bytes(), limits.memory_bytes / 16);
  EXPECT_TRUE(s.egraph.invariant_violations().empty());
}

// The e-graph counts against the process's memory limit (smelt
// --memory-limit): under a small one the same graph stops at the memory limit.
TEST(RuleEngine, TheDefaultEGraphMemoryLimitIsTheProcessLimit) {
  const ir::Graph g = exploding_graph();
  struct RestoreLimit {
    ~RestoreLimit() { set_memory_limit(0); }
  } restore;
  set_memory_limit(uint64_t{2} << 20);
  smelt::egraph::RunnerLimits limits = default_limits();
  EXPECT_EQ(limits.memory_bytes, size_t{2} << 20);
  // Only the memory limit may stop it (a sanitized build is slower than the time limit).
  limits.iterations = 1'000'000;
  limits.nodes = std::numeric_limits<size_t>::max();
  limits.seconds = 600;
  const Saturation s = saturate(g, default_rules(), limits);
  EXPECT_EQ(s.report.stop_reason, smelt::egraph::StopReason::kMemoryLimit);
  set_memory_limit(0);
  EXPECT_EQ(default_limits().memory_bytes, std::min<size_t>(size_t{4} << 30, memory_limit()));
}

TEST(RuleEngine, ExplanationsNameTheRules) {
  ir::Graph g;
  auto x = ir::input(g, "x", ir::DType::F32, {4});
  auto nn = ir::neg(ir::neg(x));
  g.add_output(nn);
  EGraph graph = make_tensor_egraph({.explanations = true});
  const GraphClasses c = add_graph(graph, g);
  const std::vector<CompiledRule> rules = compile_rules(std::vector<Rule>{shipped("neg-neg")});
  smelt::egraph::SimpleScheduler scheduler;
  run_rules(graph, rules, default_limits(), scheduler);
  const smelt::egraph::Explanation why = graph.explain_ids(c.values[nn.id], c.values[x.id]);
  ASSERT_EQ(why.num_rewrites(), 1u);
  EXPECT_EQ(why.steps.back().rule, "neg-neg");
}

// The per-rule harness of the family tests fails on wrong rules: the classic
// mistakes of each family are caught by the values of extracted terms.
void expect_caught(const std::string& rule, const std::string& graph, const std::string& rule_text) {
  const std::vector<Rule> extra = {rule_from(rule_text)};
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    testing::check_rule_case({rule, graph, ""}, extra);
  }
  EXPECT_GT(failures.size(), 0) << "the wrong rule " << rule << " passed";
}

TEST(RuleEngine, TheRuleHarnessCatchesWrongRules) {
  // luminal's bug: the pad value does not go through cos.
  expect_caught("bad-pad", "x = input() : f32[4]\np = pad(x, lo=[1], hi=[2], value=0)\nc = cos(p)\noutput c",
                "(rule bad-pad :lhs (?f (pad ?x :lo ?l :hi ?h :value ?v)) :rhs (pad (?f ?x) :lo ?l :hi ?h :value ?v)"
                " :if (elementwise ?f))");
  // A slice offset off by one.
  expect_caught(
      "bad-slice-slice",
      "x = input() : f32[10]\na = slice(x, start=[1], stop=[9], step=[2])\n"
      "b = slice(a, start=[0], stop=[2], step=[1])\noutput b",
      "(rule bad-slice-slice :lhs (slice (slice ?x :start ?s1 :stop ?e1 :step ?k1) :start ?s2 :stop ?e2 :step ?k2)"
      " :rhs (slice ?x :start (+ ?s1 (* ?s2 ?k1) 1) :stop (+ ?s1 (* (- ?e2 (sign ?k2)) ?k1) (sign (* ?k1 ?k2)) 1)"
      " :step (* ?k1 ?k2)))");
  // A permute composed in the wrong order (a cube, so that the shapes agree).
  expect_caught("bad-permute",
                "x = input() : f32[3,3,3]\na = permute(x, perm=[1,2,0])\nb = permute(a, perm=[1,0,2])\noutput b",
                "(rule bad-permute :lhs (permute (permute ?x :perm ?p) :perm ?q) :rhs (permute ?x :perm "
                "(compose-perm ?q ?p)))");
  // x + 0 = x claimed exact: wrong for x = -0.0.
  expect_caught("bad-add-zero", "x = input() : f32[64]\nz = full(value=0) : f32[64]\ny = add(x, z)\noutput y",
                "(rule bad-add-zero :lhs (add ?x ?z) :rhs ?x :if (= (const ?z) 0))");
}

TEST(RuleLibrary, ShippedRulesParseCompileAndExcludeUnsafeByDefault) {
  const std::vector<Rule> all = all_rules();
  const std::vector<Rule> safe = default_rules();
  EXPECT_GT(all.size(), safe.size());
  for (const Rule& r : safe) EXPECT_FALSE(r.unsafe_fp) << r.name;
  std::set<std::string> families;
  for (const Rule& r : all) {
    EXPECT_NO_THROW(compile_rule(r)) << r.name;
    families.insert(r.family);
  }
  EXPECT_EQ(families.size(), 9u);
  EXPECT_EQ(shipped_rule_files().size(), 9u);
  for (const RuleFile& f : shipped_rule_files()) EXPECT_EQ(f.name.substr(0, 6), "rules/");
}

}  // namespace
}  // namespace smelt::rules
