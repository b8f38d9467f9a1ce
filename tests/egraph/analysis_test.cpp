#include <gtest/gtest.h>

#include <bit>
#include <optional>

#include "egraph/runner.h"
#include "tests/egraph/test_util.h"

namespace smelt::egraph {
namespace {

using testing::add_term;
using testing::expect_sound;
using testing::find_term;

// Constant folding over + and * on the math language: a class's data is its
// integer value when known; modify adds the literal to the class.
class ConstantFolding final : public DataAnalysis<std::optional<std::int64_t>> {
 public:
  ConstantFolding(Op add, Op mul) : add_(add), mul_(mul) {}

  std::optional<std::int64_t> make_data(const EGraph& graph, NodeView node) const override {
    if (node.op == SymbolTable::kNumber) return std::bit_cast<std::int64_t>(node.payload);
    if ((node.op != add_ && node.op != mul_) || node.children.size() != 2) return std::nullopt;
    const auto& a = data(graph, node.children[0]);
    const auto& b = data(graph, node.children[1]);
    if (!a || !b) return std::nullopt;
    return node.op == add_ ? *a + *b : *a * *b;
  }

  bool merge_data(std::optional<std::int64_t>& into, const std::optional<std::int64_t>& from) const override {
    if (into || !from) return false;
    into = from;
    return true;
  }

  void modify(EGraph& graph, Id cls) override {
    if (const auto& value = data(graph, cls)) graph.unite(cls, graph.add_number(*value));
  }

 private:
  Op add_;
  Op mul_;
};

EGraph folding_graph() {
  SymbolTable symbols;
  const Op add = symbols.intern("+");
  const Op mul = symbols.intern("*");
  EGraph graph({}, std::make_unique<ConstantFolding>(add, mul));
  graph.symbols() = symbols;
  return graph;
}

const ConstantFolding& folding(const EGraph& graph) { return dynamic_cast<const ConstantFolding&>(*graph.analysis()); }

TEST(Analysis, ConstantFoldingOnAdd) {
  EGraph graph = folding_graph();
  const Id term = add_term(graph, "(+ (* 2 3) 4)");
  graph.rebuild();
  EXPECT_EQ(folding(graph).data(graph, term), std::optional<std::int64_t>(10));
  EXPECT_EQ(graph.find(term), *find_term(graph, "10"));
  EXPECT_EQ(folding(graph).data(graph, *find_term(graph, "(* 2 3)")), std::optional<std::int64_t>(6));
  EXPECT_FALSE(folding(graph).data(graph, add_term(graph, "(+ x 1)")).has_value());
  expect_sound(graph);
}

TEST(Analysis, DataPropagatesUpThroughUnions) {
  EGraph graph = folding_graph();
  const Id term = add_term(graph, "(* (+ x 1) 5)");
  EXPECT_FALSE(folding(graph).data(graph, term).has_value());
  // Learning x = 3 makes the whole term 20 after rebuild.
  graph.unite(*find_term(graph, "x"), add_term(graph, "3"));
  graph.rebuild();
  EXPECT_EQ(folding(graph).data(graph, term), std::optional<std::int64_t>(20));
  EXPECT_EQ(graph.find(term), *find_term(graph, "20"));
  expect_sound(graph);
}

TEST(Analysis, FoldingDuringEqualitySaturation) {
  EGraph graph = folding_graph();
  const Id term = add_term(graph, "(+ y (* (+ 1 1) (+ 2 1)))");
  const PatternRewrite comm = PatternRewrite::parse("comm-add", "(+ ?a ?b)", "(+ ?b ?a)", graph.symbols());
  Runner(graph).run(std::span<const PatternRewrite>(&comm, 1));
  EXPECT_EQ(graph.find(term), *find_term(graph, "(+ 6 y)"));
  expect_sound(graph);
}

TEST(Analysis, ConditionReadsAnalysisData) {
  EGraph graph = folding_graph();
  const Id known = add_term(graph, "(/ (+ 1 2) (+ 1 2))");
  const Id zero = add_term(graph, "(/ (+ 1 -1) (+ 1 -1))");
  const Id unknown = add_term(graph, "(/ y y)");
  // x / x = 1 only when x is a known non-zero constant.
  const PatternRewrite rule = PatternRewrite::parse("div-self", "(/ ?a ?a)", "1", graph.symbols(),
                                      [](const EGraph& g, const Match& match) {
                                        const auto& value = folding(g).data(g, match["?a"]);
                                        return value.has_value() && *value != 0;
                                      });
  Runner(graph).run(std::span<const PatternRewrite>(&rule, 1));
  const Id one = *find_term(graph, "1");
  EXPECT_EQ(graph.find(known), one);
  EXPECT_NE(graph.find(zero), one);
  EXPECT_NE(graph.find(unknown), one);
  expect_sound(graph);
}

TEST(Analysis, InconsistentDataIsReported) {
  EGraph graph = folding_graph();
  const Id term = add_term(graph, "(+ 2 x)");
  graph.rebuild();
  EXPECT_TRUE(graph.invariant_violations().empty());
  // Drop the value of the class of literal 2: its node makes 2, so the data
  // is no longer a fixpoint of the class's nodes.
  dynamic_cast<ConstantFolding&>(*graph.analysis()).mutable_data(graph, *find_term(graph, "2")).reset();
  const auto problems = graph.invariant_violations();
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems.front().find("analysis data"), std::string::npos);
  (void)term;
}

}  // namespace
}  // namespace smelt::egraph
