#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "egraph/query.h"
#include "tests/egraph/test_util.h"

namespace smelt::egraph {
namespace {

using testing::add_term;

// Matches as sorted tuples of class ids, one tuple per match.
std::set<std::vector<Id>> matches_of(const EGraph& graph, const Query& query) {
  const std::vector<Id> flat = query.search_all(graph);
  std::set<std::vector<Id>> out;
  for (std::size_t at = 0; at < flat.size(); at += query.num_vars())
    out.insert(std::vector<Id>(flat.begin() + static_cast<std::ptrdiff_t>(at),
                               flat.begin() + static_cast<std::ptrdiff_t>(at + query.num_vars())));
  return out;
}

TEST(Query, MatchesEveryNodeWithTheRootOperator) {
  EGraph graph;
  const Id sum1 = add_term(graph, "(+ a b)");
  const Id sum2 = add_term(graph, "(+ b (* a c))");
  add_term(graph, "(* a b)");
  graph.rebuild();
  const Query query = Query::parse("(+ ?x ?y)", graph.symbols());
  EXPECT_EQ(query.var_names(), (std::vector<std::string>{"?root", "?x", "?y"}));
  const auto found = matches_of(graph, query);
  const Id a = graph.find(add_term(graph, "a"));
  const Id b = graph.find(add_term(graph, "b"));
  const Id ac = graph.find(add_term(graph, "(* a c)"));
  EXPECT_EQ(found, (std::set<std::vector<Id>>{{sum1, a, b}, {sum2, b, ac}}));
}

TEST(Query, NonLinearVariablesMustAgree) {
  EGraph graph;
  const Id same = add_term(graph, "(- x x)");
  add_term(graph, "(- x y)");
  graph.rebuild();
  const auto found = matches_of(graph, Query::parse("(- ?a ?a)", graph.symbols()));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found.begin()->front(), same);
  // After x = y, both subtractions are in one class and both match.
  graph.unite(*testing::find_term(graph, "x"), *testing::find_term(graph, "y"));
  graph.rebuild();
  EXPECT_EQ(matches_of(graph, Query::parse("(- ?a ?a)", graph.symbols())).size(), 1u);
  EXPECT_EQ(graph.class_nodes(same).size(), 1u);  // congruence merged the two
}

TEST(Query, GroundSubtermsAreCheckedByClass) {
  EGraph graph;
  const Id with_zero = add_term(graph, "(+ a 0)");
  add_term(graph, "(+ a 1)");
  const Id zero_alias = add_term(graph, "z");
  const Id other = add_term(graph, "(+ b z)");
  graph.unite(zero_alias, *testing::find_term(graph, "0"));
  graph.rebuild();
  const auto found = matches_of(graph, Query::parse("(+ ?a 0)", graph.symbols()));
  std::set<Id> roots;
  for (const auto& match : found) roots.insert(match[0]);
  EXPECT_EQ(roots, (std::set<Id>{graph.find(with_zero), graph.find(other)}));
  // A ground term absent from the e-graph matches nothing.
  EXPECT_TRUE(matches_of(graph, Query::parse("(+ ?a (f 7))", graph.symbols())).empty());
}

TEST(Query, MatchesInsideLargeClasses) {
  EGraph graph;
  // One class with many nodes: the op-sorted class index is binary-searched.
  const Id root = add_term(graph, "(g (f r))");
  const Id inner = *testing::find_term(graph, "(f r)");
  for (int i = 0; i < 40; ++i) graph.unite(inner, add_term(graph, "(h" + std::to_string(i) + " r)"));
  graph.unite(inner, add_term(graph, "(zz r)"));
  graph.rebuild();
  EXPECT_EQ(matches_of(graph, Query::parse("(g (zz ?x))", graph.symbols())).size(), 1u);
  EXPECT_EQ(matches_of(graph, Query::parse("(g (f ?x))", graph.symbols())).size(), 1u);
  EXPECT_EQ(matches_of(graph, Query::parse("(g ?y)", graph.symbols())).begin()->front(), graph.find(root));
}

TEST(Query, MultiPatternSharesVariables) {
  EGraph graph;
  add_term(graph, "(f a)");
  add_term(graph, "(g a)");
  add_term(graph, "(f b)");
  add_term(graph, "(g c)");
  graph.rebuild();
  const std::vector<std::string> patterns{"(= ?x (f ?v))", "(= ?y (g ?v))"};
  const Query query = Query::parse_all(patterns, graph.symbols());
  EXPECT_EQ(query.var_names(), (std::vector<std::string>{"?x", "?v", "?y"}));
  const auto found = matches_of(graph, query);
  ASSERT_EQ(found.size(), 1u);
  const std::vector<Id> expected{*testing::find_term(graph, "(f a)"), *testing::find_term(graph, "a"),
                                 *testing::find_term(graph, "(g a)")};
  EXPECT_EQ(*found.begin(), expected);
}

TEST(Query, BareVariableMatchesEveryClass) {
  EGraph graph;
  add_term(graph, "(f a b)");
  graph.rebuild();
  EXPECT_EQ(matches_of(graph, Query::parse("?x", graph.symbols())).size(), graph.num_classes());
}

TEST(Query, SearchStopsAtTheLimit) {
  EGraph graph;
  for (int i = 0; i < 100; ++i) add_term(graph, "(f c" + std::to_string(i) + ")");
  graph.rebuild();
  const Query query = Query::parse("(f ?x)", graph.symbols());
  std::size_t seen = 0;
  const std::size_t produced = query.search(
      graph,
      [&](std::span<const Id> matches) {
        seen += matches.size() / query.num_vars();
        return true;
      },
      10);
  EXPECT_GE(produced, 10u);
  EXPECT_EQ(produced, seen);
  EXPECT_LT(produced, 100u);
}

TEST(Query, PayloadsDistinguishLiterals) {
  EGraph graph;
  add_term(graph, "(* a 2)");
  add_term(graph, "(* a -2)");
  graph.rebuild();
  EXPECT_EQ(matches_of(graph, Query::parse("(* ?a -2)", graph.symbols())).size(), 1u);
  EXPECT_EQ(matches_of(graph, Query::parse("(* ?a ?n)", graph.symbols())).size(), 2u);
}

// The e-node ids a node-yielding query hands out, by node slot.
std::vector<std::vector<Id>> node_matches(const EGraph& graph, const Query& query) {
  const std::vector<Id> flat = query.search_all(graph);
  std::vector<std::vector<Id>> out;
  for (std::size_t at = 0; at < flat.size(); at += query.match_width())
    out.emplace_back(flat.begin() + static_cast<std::ptrdiff_t>(at + query.num_vars()),
                     flat.begin() + static_cast<std::ptrdiff_t>(at + query.match_width()));
  return out;
}

TEST(Query, AnOperatorWithAnyPayloadMatchesEveryPayload) {
  EGraph graph;
  add_term(graph, "(f#1 a)");
  add_term(graph, "(f#2 b)");
  add_term(graph, "(g a)");
  graph.rebuild();
  Pattern pattern;
  pattern.add_op(graph.symbols().intern("f"), std::nullopt, {pattern.add_var("?x")});
  const Query query = Query::from_patterns({pattern}, {}, /*yield_nodes=*/true);
  ASSERT_EQ(query.num_node_slots(), 1u);
  std::set<std::uint64_t> payloads;
  for (const auto& nodes : node_matches(graph, query)) payloads.insert(graph.node(nodes[0]).payload);
  EXPECT_EQ(payloads, (std::set<std::uint64_t>{1, 2}));
}

TEST(Query, AnOpVariableIsOneOperatorAndPayloadWhereverItRecurs) {
  EGraph graph;
  const Id same = add_term(graph, "(f#1 (f#1 a))");
  add_term(graph, "(f#1 (f#2 a))");
  add_term(graph, "(h (g a))");
  const Id gg = add_term(graph, "(g (g b))");
  graph.rebuild();
  Pattern pattern;
  const std::uint32_t inner = pattern.add_op_var("?op", {pattern.add_var("?x")});
  pattern.add_op_var("?op", {inner});
  const Query query = Query::from_patterns({pattern});
  std::set<Id> roots;
  const std::vector<Id> flat = query.search_all(graph);
  for (std::size_t at = 0; at < flat.size(); at += query.match_width()) roots.insert(flat[at]);
  EXPECT_EQ(roots, (std::set<Id>{graph.find(same), graph.find(gg)}));
}

// Records which guards ran; guard 0 rejects one class.
class RecordingGuard final : public QueryGuard {
 public:
  RecordingGuard(std::uint32_t var, Id reject) : var_(var), reject_(reject) {}
  bool holds(std::uint32_t guard, const PartialMatch& bound) override {
    ++calls[guard];
    return guard != 0 || bound.var(var_) != reject_;
  }
  std::size_t calls[2] = {0, 0};

 private:
  std::uint32_t var_;
  Id reject_;
};

TEST(Query, GuardsRunAsSoonAsWhatTheyReadIsBoundAndPrune) {
  EGraph graph;
  add_term(graph, "(+ a (* b c))");
  add_term(graph, "(+ d (* b c))");
  add_term(graph, "(+ e f)");
  graph.rebuild();
  Query query = Query::parse("(+ ?x (* ?y ?z))", graph.symbols());
  const std::uint32_t x = *query.var_index("?x");
  const std::uint32_t y = *query.var_index("?y");
  EXPECT_EQ(query.add_guard(std::vector<std::uint32_t>{x}, {}), 0u);
  EXPECT_EQ(query.add_guard(std::vector<std::uint32_t>{y}, {}), 1u);
  // The guard on ?x runs before the (* ?y ?z) node is looked for.
  const auto& program = query.program();
  std::size_t first_guard = 0, times_bind = 0;
  for (std::size_t i = 0; i < program.size(); ++i) {
    if (program[i].kind == Query::Instruction::Kind::kGuard && program[i].other == 0) first_guard = i;
    if (program[i].kind == Query::Instruction::Kind::kBind) times_bind = i;
  }
  EXPECT_LT(first_guard, times_bind);
  RecordingGuard guard(x, graph.find(add_term(graph, "a")));
  std::size_t found = 0;
  Query::SearchOptions options;
  options.guard = &guard;
  query.search(
      graph,
      [&](std::span<const Id> matches) {
        found += matches.size() / query.match_width();
        return true;
      },
      options);
  EXPECT_EQ(found, 1u);           // (+ d (* b c)): the other two fail the guard or the pattern
  EXPECT_EQ(guard.calls[0], 3u);  // once per + node
  EXPECT_EQ(guard.calls[1], 1u);  // only where ?x passed and (* ?y ?z) matched
  EXPECT_THROW(query.search_all(graph), std::invalid_argument);  // guards need a QueryGuard
}

TEST(Query, SearchStopsAtTheDeadline) {
  EGraph graph;
  for (int i = 0; i < 20000; ++i) add_term(graph, "(f c" + std::to_string(i) + ")");
  graph.rebuild();
  const Query query = Query::parse("(f ?x)", graph.symbols());
  Query::SearchOptions options;
  options.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  std::size_t seen = 0;
  const std::size_t produced = query.search(
      graph,
      [&](std::span<const Id> matches) {
        seen += matches.size() / query.match_width();
        return true;
      },
      options);
  EXPECT_EQ(produced, seen);
  EXPECT_LT(produced, 20000u);
}

}  // namespace
}  // namespace smelt::egraph
