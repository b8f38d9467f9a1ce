#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "egraph/egraph.h"
#include "egraph/parse_error.h"
#include "egraph/rec_expr.h"
#include "extract/problem.h"
#include "tests/extract/test_util.h"

namespace smelt::extract {
namespace {

using testing::class_named;
using testing::node_named;
using testing::parse_problem;

// Expects reading to fail with a message containing `needle`.
template <typename Error>
void expect_error(const std::string& json, const std::string& needle) {
  try {
    parse_problem(json);
    ADD_FAILURE() << "no error; expected " << needle;
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
  }
}

TEST(Problem, KeepsFileNodesClassesCostsAndIgnoresUnknownFields) {
  // b1 and b2 are congruent (same op, same children) but stay distinct nodes with their own costs.
  const Problem p = parse_problem(R"({
    "nodes": {
      "r": {"op": "f", "eclass": "R", "children": ["b1", "x"], "cost": 2.5, "subsumed": false},
      "b1": {"op": "g", "eclass": "B", "children": ["x"], "cost": 1},
      "b2": {"op": "g", "eclass": "B", "children": ["x"], "cost": 3},
      "x": {"op": "x", "eclass": "X"}
    },
    "root_eclasses": ["R"], "class_data": {"R": {"type": "T"}}})");
  ASSERT_EQ(p.num_nodes(), 4u);
  ASSERT_EQ(p.num_classes(), 3u);
  EXPECT_EQ(p.class_name(0), "R");  // classes in order of first node
  EXPECT_EQ(p.class_name(1), "B");
  const NodeId r = node_named(p, "r");
  EXPECT_EQ(p.cost(r), 2.5);
  EXPECT_EQ(p.cost(node_named(p, "x")), 1.0);  // missing cost defaults to 1
  ASSERT_EQ(p.children(r).size(), 2u);
  EXPECT_EQ(p.children(r)[0], class_named(p, "B"));  // children are classes
  EXPECT_EQ(p.children(r)[1], class_named(p, "X"));
  EXPECT_EQ(p.nodes(class_named(p, "B")).size(), 2u);
  ASSERT_EQ(p.roots().size(), 1u);
  EXPECT_EQ(p.roots()[0], class_named(p, "R"));
}

TEST(Problem, MalformedFilesNameTheProblem) {
  using egraph::ParseError;
  expect_error<ParseError>("{\"nodes\": {\"a\": ", "unexpected end of input");
  expect_error<ParseError>(R"({"nodes": {"a": {"op": "f", "eclass": "c", "children": ["zz"]}}})",
                           "node \"a\": child \"zz\" is not a node");
  expect_error<ParseError>(R"({"nodes": {"a": {"op": "f", "eclass": "c", "children": [3]}}})",
                           "children must be node names");
  expect_error<ParseError>(R"({"nodes": {"a": {"op": "f", "eclass": 7}}})", "\"eclass\" must be a string");
  expect_error<ParseError>(R"({"nodes": {"a": {"op": "f", "eclass": "c"}}, "root_eclasses": ["a"]})",
                           "root e-class \"a\" has no node");
  expect_error<ParseError>(R"({"nodes": {"a": {"op": "f", "eclass": "c", "cost": "1"}}})", "\"cost\" must be a number");
  expect_error<ProblemError>(R"({"nodes": {"a": {"op": "f", "eclass": "c", "cost": -1}}})",
                             "node \"a\": cost -1.000000 is not a finite number >= 0");
}

TEST(Problem, UnreadableFilesAreProblemErrors) {
  EXPECT_THROW(read_problem_file("/nonexistent/egraph.json"), ProblemError);
  EXPECT_THROW(read_problem_file(std::filesystem::temp_directory_path().string()), ProblemError);
}

TEST(Problem, BuildsFromALiveEGraph) {
  egraph::EGraph graph;
  const egraph::Id root = graph.add_expr(egraph::parse_term("(+ (* x 2) (* x 2))", graph.symbols()));
  const egraph::Id shift = graph.add_expr(egraph::parse_term("(<< x 1)", graph.symbols()));
  graph.unite(*graph.lookup_expr(egraph::parse_term("(* x 2)", graph.symbols())), shift);
  graph.rebuild();
  const std::vector<egraph::Id> roots{root};
  const Problem p = problem_from_egraph(graph, roots, [](const egraph::EGraph&, egraph::Id) { return 2.0; });
  EXPECT_EQ(p.num_classes(), graph.num_classes());
  EXPECT_EQ(p.num_nodes(), graph.num_nodes());
  ASSERT_EQ(p.roots().size(), 1u);
  ASSERT_EQ(p.nodes(p.roots()[0]).size(), 1u);
  const NodeId plus = p.nodes(p.roots()[0])[0];
  EXPECT_EQ(p.cost(plus), 2.0);
  ASSERT_EQ(p.children(plus).size(), 2u);
  EXPECT_EQ(p.children(plus)[0], p.children(plus)[1]);  // both operands are one class
  EXPECT_EQ(p.nodes(p.children(plus)[0]).size(), 2u);  // (* x 2) and (<< x 1)
}

}  // namespace
}  // namespace smelt::extract
