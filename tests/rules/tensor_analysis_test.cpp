// The tensor analysis: types agree across classes, constants fold (with the
// interpreter's rounding), cheap classes are flagged, and uniting tensors of
// different types is an error naming both types.
#include "rules/tensor_analysis.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ir/builder.h"
#include "rules/graph_io.h"
#include "rules/rule_library.h"
#include "rules/saturate.h"
#include "tests/rules/test_graphs.h"

namespace smelt::rules {
namespace {

using smelt::egraph::EGraph;
using smelt::egraph::Id;

struct Built {
  EGraph graph = make_tensor_egraph();
  GraphClasses classes;
  const TensorData& data(ir::Tensor t) { return tensor_analysis(graph).data(graph, classes.values.at(t.id)); }
  std::optional<double> splat(ir::Tensor t) { return data(t).splat; }
};

Built build(const ir::Graph& g) {
  Built b;
  b.classes = add_graph(b.graph, g);
  b.graph.rebuild();
  return b;
}

TEST(TensorAnalysis, EveryClassOfEverySaturatedExampleHasOneType) {
  const std::vector<CompiledRule> rules = compile_rules(default_rules());
  for (const std::string& name : testing::example_names()) {
    SCOPED_TRACE(name);
    Saturation s = saturate(testing::example(name), std::span<const CompiledRule>(rules));
    const TensorAnalysis& analysis = tensor_analysis(s.egraph);
    for (Id cls : s.egraph.classes()) {
      const ir::TensorType& type = analysis.type(s.egraph, cls);
      // Each node, inferred again from its operands' classes, has the class's type.
      for (Id node : s.egraph.class_nodes(cls)) {
        const auto view = s.egraph.node(node);
        const AttrRecord& r = analysis.lang().record(view.payload);
        std::vector<ir::TensorType> operands;
        for (Id child : view.children) operands.push_back(analysis.type(s.egraph, child));
        ir::Attrs attrs = r.attrs;
        const ir::Inferred inferred = ir::op_info(r.op).infer(operands, attrs);
        ASSERT_EQ(inferred.error, "");
        ASSERT_EQ(inferred.type, type) << ir::op_name(r.op);
      }
    }
  }
}

TEST(TensorAnalysis, FoldsConstantsAndAddsTheFoldedFull) {
  ir::Graph g;
  auto two = ir::broadcast(ir::constant(g, 2.0), {4});
  auto three = ir::full(g, {4}, 3.0);
  auto six = ir::mul(two, three);
  auto x = ir::input(g, "x", ir::DType::F32, {4});
  auto not_constant = ir::add(x, three);
  g.add_output(six);
  g.add_output(not_constant);
  Built b = build(g);
  EXPECT_EQ(b.splat(two), 2.0);
  EXPECT_EQ(b.splat(six), 6.0);
  EXPECT_FALSE(b.splat(not_constant).has_value());
  // modify() put full(6) into the class of the product.
  ir::Graph expect;
  auto full6 = ir::full(expect, {4}, 6.0);
  expect.add_output(full6);
  const auto found = testing::find_term(b.graph, expect);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(b.graph.find(*found), b.graph.find(b.classes.values[six.id]));
}

TEST(TensorAnalysis, FoldingRoundsLikeTheInterpreter) {
  ir::Graph g;
  // f16: 1000 * 1000 overflows to inf.
  auto big = ir::mul(ir::full(g, {2}, 1000, ir::DType::F16), ir::full(g, {2}, 1000, ir::DType::F16));
  // i32 wraps.
  auto wrapped = ir::add(ir::full(g, {2}, 2147483647, ir::DType::I32), ir::full(g, {2}, 1, ir::DType::I32));
  // f32 -> i32 casts truncate and wrap (docs/ops.md: 1e10 -> 1410065408).
  auto cast = ir::cast(ir::full(g, {2}, 1e10, ir::DType::F32), ir::DType::I32);
  // 0.1 is stored as its f32 value.
  auto tenth = ir::full(g, {2}, 0.1, ir::DType::F32);
  g.add_output(big);
  Built b = build(g);
  EXPECT_EQ(b.splat(big), std::numeric_limits<double>::infinity());
  EXPECT_EQ(b.splat(wrapped), -2147483648.0);
  EXPECT_EQ(b.splat(cast), 1410065408.0);
  EXPECT_EQ(b.splat(tenth), static_cast<double>(0.1f));
}

TEST(TensorAnalysis, SplatsThroughViewsPadsConcatsAndWhere) {
  ir::Graph g;
  auto x = ir::input(g, "x", ir::DType::F32, {3});
  auto zeros = ir::full(g, {2, 3}, 0.0);
  auto view = ir::slice(ir::permute(zeros, {1, 0}), {0, 0}, {2, 2}, {1, 1});
  auto same_pad = ir::pad(zeros, {1, 0}, {0, 2}, 0.0);
  auto other_pad = ir::pad(zeros, {1, 0}, {0, 2}, 1.0);
  auto neg_zero_pad = ir::pad(zeros, {1, 0}, {0, 2}, -0.0);
  auto joined = ir::concat({zeros, ir::full(g, {1, 3}, 0.0)}, 0);
  auto picked = ir::where(ir::full(g, {3}, 1, ir::DType::Bool), ir::full(g, {3}, 5.0), x);
  Built b = build(g);
  EXPECT_EQ(b.splat(view), 0.0);
  EXPECT_EQ(b.splat(same_pad), 0.0);
  EXPECT_FALSE(b.splat(other_pad).has_value());
  EXPECT_FALSE(b.splat(neg_zero_pad).has_value());  // -0.0 is not 0.0
  EXPECT_EQ(b.splat(joined), 0.0);
  EXPECT_EQ(b.splat(picked), 5.0);  // the other branch need not be known
}

TEST(TensorAnalysis, CheapClasses) {
  ir::Graph g;
  auto x = ir::input(g, "x", ir::DType::F32, {4, 4});
  auto c = ir::broadcast(ir::constant(g, 0.5), {4, 4});
  auto i = ir::cast(ir::iota(g, {4, 4}, 1), ir::DType::F32);
  auto mask_term = ir::mul(ir::permute(i, {1, 0}), c);
  auto uses_x = ir::mul(x, c);
  auto reduced = ir::reduce_sum(c, {0});
  Built b = build(g);
  EXPECT_TRUE(b.data(c).cheap);
  EXPECT_TRUE(b.data(i).cheap);
  EXPECT_TRUE(b.data(mask_term).cheap);  // elementwise of views of factories
  EXPECT_FALSE(b.data(x).cheap);
  EXPECT_FALSE(b.data(uses_x).cheap);
  EXPECT_FALSE(b.data(reduced).cheap);
}

TEST(TensorAnalysis, UnitingDifferentTypesThrowsNamingBoth) {
  ir::Graph g;
  auto x = ir::input(g, "x", ir::DType::F32, {4});
  auto y = ir::input(g, "y", ir::DType::F32, {5});
  g.add_output(x);
  Built b = build(g);
  try {
    b.graph.unite(b.classes.values[x.id], b.classes.values[y.id]);
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("f32[4]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("f32[5]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace smelt::rules
