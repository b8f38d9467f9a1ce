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

}  // namespace
}  // namespace smelt::egraph
