// TensorLang: graphs go into the e-graph and come back out unchanged.
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/text_format.h"
#include "rules/graph_io.h"
#include "rules/tensor_analysis.h"
#include "rules/term_choice.h"
#include "tests/rules/test_graphs.h"

namespace smelt::rules {
namespace {

using smelt::egraph::EGraph;
using smelt::egraph::Id;

TEST(TensorLang, EqualAttributesShareOnePayload) {
  EGraph graph = make_tensor_egraph();
  TensorLang& lang = tensor_analysis(graph).lang();
  ir::Attrs a;
  a.perm = {1, 0};
  a.axis = 7;  // permute ignores axis: not part of the record
  ir::Attrs b;
  b.perm = {1, 0};
  EXPECT_EQ(lang.payload(ir::Op::Permute, a), lang.payload(ir::Op::Permute, b));
  b.perm = {0, 1};
  EXPECT_NE(lang.payload(ir::Op::Permute, a), lang.payload(ir::Op::Permute, b));
}

TEST(TensorLang, InputsDifferByName) {
  ir::Graph g;
  auto x = ir::input(g, "x", ir::DType::F32, {4});
  auto y = ir::input(g, "y", ir::DType::F32, {4});
  g.add_output(ir::add(x, y));
  EGraph graph = make_tensor_egraph();
  const GraphClasses c = add_graph(graph, g);
  EXPECT_NE(graph.find(c.values[0]), graph.find(c.values[1]));
}

TEST(TensorLang, HashconsingSharesCommonSubexpressions) {
  // exp(a) written twice is one class: CSE for free.
  ir::Graph g;
  auto a = ir::input(g, "a", ir::DType::F32, {10});
  auto e1 = ir::exp(a);
  auto e2 = ir::exp(a);
  g.add_output(ir::add(e1, ir::sin(e2)));
  EGraph graph = make_tensor_egraph();
  const GraphClasses c = add_graph(graph, g);
  EXPECT_EQ(graph.find(c.values[e1.id]), graph.find(c.values[e2.id]));
}

TEST(TensorLang, NegativeZeroAndZeroAreDifferentPayloads) {
  EGraph graph = make_tensor_egraph();
  TensorLang& lang = tensor_analysis(graph).lang();
  ir::Attrs a, b;
  a.result = b.result = {ir::DType::F32, {2}};
  a.values = {0.0};
  b.values = {-0.0};
  EXPECT_NE(lang.payload(ir::Op::Full, a), lang.payload(ir::Op::Full, b));
}

// Every example graph goes into the e-graph and comes back (smallest terms)
// as a graph that prints the same modulo CSE and computes the same values.
TEST(TensorLang, ExamplesRoundTrip) {
  for (const std::string& name : testing::example_names()) {
    SCOPED_TRACE(name);
    const ir::Graph original = testing::example(name);
    EGraph graph = make_tensor_egraph();
    const GraphClasses classes = add_graph(graph, original);
    graph.rebuild();
    const ir::Graph back = read_graph(graph, classes.outputs, smallest_terms(graph), original.name());
    EXPECT_EQ(back.inputs().size(), original.inputs().size());
    EXPECT_LE(back.size(), original.size());
    EXPECT_EQ(testing::compare_outputs(original, back, testing::random_inputs(original, 1), 0.0), "");
    // Reading back what was read back changes nothing.
    EGraph again = make_tensor_egraph();
    const GraphClasses classes2 = add_graph(again, back);
    again.rebuild();
    const ir::Graph back2 = read_graph(again, classes2.outputs, smallest_terms(again), original.name());
    EXPECT_EQ(ir::print_graph(back2), ir::print_graph(back));
  }
}

TEST(TensorLang, ReadGraphRejectsMissingChoice) {
  ir::Graph g;
  auto x = ir::input(g, "x", ir::DType::F32, {4});
  g.add_output(ir::neg(x));
  EGraph graph = make_tensor_egraph();
  const GraphClasses c = add_graph(graph, g);
  graph.rebuild();
  TermChoice none(graph.num_ids(), smelt::egraph::kNoId);
  EXPECT_THROW(read_graph(graph, c.outputs, none), std::invalid_argument);
}

TEST(TensorLang, ReadGraphRejectsCyclicChoice) {
  // x = neg(neg(x)) makes the class of x contain neg(neg(x)); choosing that
  // node for x is a cycle.
  ir::Graph g;
  auto x = ir::input(g, "x", ir::DType::F32, {4});
  auto nn = ir::neg(ir::neg(x));
  g.add_output(nn);
  EGraph graph = make_tensor_egraph();
  const GraphClasses c = add_graph(graph, g);
  graph.unite(c.values[x.id], c.values[nn.id]);
  graph.rebuild();
  TermChoice choice = smallest_terms(graph);
  const Id xc = graph.find(c.values[x.id]);
  for (Id node : graph.class_nodes(xc))
    if (!graph.node(node).children.empty()) choice[xc] = node;
  EXPECT_THROW(read_graph(graph, c.outputs, choice), std::invalid_argument);
}

}  // namespace
}  // namespace smelt::rules
