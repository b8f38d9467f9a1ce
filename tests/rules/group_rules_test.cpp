// Group rules (:members, rules/group_template.h and rules/group_apply.h): the
// instances a template expands to, the template errors, and how saturation
// forms groups — all members at once, levels that never make a cycle, chunks
// no wider than the largest instance.
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "rules/rule_library.h"
#include "rules/rule_parser.h"
#include "rules/saturate.h"
#include "tests/rules/test_graphs.h"

namespace smelt::rules::testing {
namespace {

using smelt::egraph::Id;

const char* kWide = R"(
(rule wide
  :members 2 3
  :shared ?x
  :lhs (matmul ?x ?w)
  :let ?y (matmul ?x (concat ?w... :axis 1))
  :rhs (slice ?y :start (list 0 (* ?member (dim ?w 1))) :stop (list (dim ?x 0) (* (+ ?member 1) (dim ?w 1)))
                 :step [1 1])
  :if (and (= (rank ?x) 2) (= (rank ?w) 2) (= (shape ?w) (shape ?w.0)))))";

std::string error_of(const std::string& text) {
  try {
    parse_rules(text, "t.rules");
  } catch (const RuleError& e) {
    return e.what();
  }
  return "";
}

TEST(GroupRules, TemplateExpandsToOneInstancePerMemberCount) {
  const std::vector<Rule> rules = parse_rules(kWide, "t.rules");
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].name, "wide.2");
  EXPECT_EQ(rules[1].name, "wide.3");
  const Rule& three = rules[1];
  ASSERT_TRUE(three.group.has_value());
  EXPECT_EQ(three.group->name, "wide");
  EXPECT_EQ(three.group->members, 3);
  EXPECT_EQ(three.group->shared, std::vector<std::string>{"?x"});
  EXPECT_EQ(three.group->member_vars, std::vector<std::string>{"?w"});
  ASSERT_EQ(three.lhs.size(), 3u);
  ASSERT_EQ(three.rhs.size(), 3u);
  EXPECT_EQ(three.lhs[2].operands[0].var, "?x");    // shared
  EXPECT_EQ(three.lhs[2].operands[1].var, "?w.2");  // per member
  // The splice: one concat operand per member.
  ASSERT_EQ(three.lets.size(), 1u);
  const Term& concat = three.lets[0].second.operands[1];
  ASSERT_EQ(concat.operands.size(), 3u);
  EXPECT_EQ(concat.operands[1].var, "?w.1");
  // ?member is the member's index: member 2's block starts at 2 * (dim ?w.2 1).
  const Expr& start = three.rhs[2].attrs[0].second;
  ASSERT_EQ(start.args.size(), 2u);
  EXPECT_EQ(start.args[1].args[0].kind, Expr::Kind::kInt);
  EXPECT_EQ(start.args[1].args[0].int_value, 2);
  EXPECT_EQ(start.args[1].args[1].args[0].name, "?w.2");
  EXPECT_EQ(three.conditions.size(), 3u);  // one copy per member
}

TEST(GroupRules, PerMemberLetsAreCopiedPerMember) {
  const std::vector<Rule> rules = parse_rules(R"(
(rule stack :members 2 2 :lhs (matmul ?a ?w)
  :let ?a1 (reshape ?a :shape (append [1] (shape ?a)))
  :let ?y (concat ?a1... :axis 0)
  :rhs (matmul ?a ?w)))",
                                              "t.rules");
  ASSERT_EQ(rules.size(), 1u);
  ASSERT_EQ(rules[0].lets.size(), 3u);
  EXPECT_EQ(rules[0].lets[0].first, "?a1.0");
  EXPECT_EQ(rules[0].lets[1].first, "?a1.1");
  EXPECT_EQ(rules[0].lets[2].first, "?y");
  EXPECT_EQ(rules[0].lets[2].second.operands.size(), 2u);
}

TEST(GroupRules, RejectsBadTemplates) {
  EXPECT_NE(error_of("(rule a :members 1 3 :lhs (neg ?x) :rhs ?x)").find(":members needs 2 <= MIN <= MAX <= 16"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :members 3 2 :lhs (neg ?x) :rhs ?x)").find(":members needs"), std::string::npos);
  EXPECT_NE(error_of("(rule a :members 2 :lhs (neg ?x) :rhs ?x)").find(":members takes two counts"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :shared ?x :lhs (neg ?x) :rhs ?x)").find(":shared needs :members"), std::string::npos);
  EXPECT_NE(error_of("(rule a :members 2 3 :shared ?y :lhs (neg ?x) :rhs ?x)").find("not a variable of the left side"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :members 2 3 :shared ?x :lhs (add ?x ?w) :let ?y (concat ?x... :axis 0) :rhs ?x)")
                .find("not per member"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :distinct ?x :lhs (neg ?x) :rhs ?x)").find(":distinct needs :members"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :members 2 3 :shared ?x :distinct ?x :lhs (add ?x ?w) :rhs ?x)")
                .find(":distinct ?x is not a per-member variable"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :members 2 3 :lhs (neg ?x) (exp ?x) :rhs ?x ?x)").find("one :lhs term"),
            std::string::npos);
  // The instances are checked like any rule: an unbound variable is named with its instance.
  EXPECT_NE(error_of("(rule a :members 2 2 :lhs (neg ?x) :rhs ?z)").find("unbound variable ?z"), std::string::npos);
}

// x shared by `n` matmuls with [3,5] weights.
ir::Graph fan_out(int n) {
  ir::Graph g;
  auto x = ir::input(g, "x", ir::DType::F32, {4, 3});
  for (int k = 0; k < n; ++k)
    g.add_output(ir::matmul(x, ir::input(g, "w" + std::to_string(k), ir::DType::F32, {3, 5})));
  return g;
}

std::vector<Rule> instances_of(const std::string& name, int min, int max) {
  std::vector<Rule> out;
  for (const Rule& r : all_rules())
    if (r.group && r.group->name == name && r.group->members >= min && r.group->members <= max) out.push_back(r);
  return out;
}

// The shipped instances of a `:members 2 *` template and its member lemma.
std::vector<Rule> any_n(const std::string& name) {
  std::vector<Rule> out;
  for (const Rule& r : all_rules())
    if (r.group && r.group->name == name) out.push_back(r);
  return out;
}

// Whether the e-graph holds matmul(x, concat(w_first ... w_last)).
bool has_block(const Saturation& s, const ir::Graph& g, int first, int last) {
  ir::Graph term = g;
  std::vector<ir::Tensor> ws;
  for (int k = first; k <= last; ++k) ws.push_back({&term, term.find("w" + std::to_string(k))});
  const ir::Tensor m = ir::matmul({&term, term.find("x")}, ir::concat(ws, 1));
  return find_term(s.egraph, term, m.id).has_value();
}

TEST(GroupRules, AllMembersAtOnceAndNoPairs) {
  const ir::Graph g = fan_out(4);
  const Saturation s = saturate(g, instances_of("batch-matmuls-sharing-lhs", 2, 4));
  EXPECT_TRUE(has_block(s, g, 0, 3));
  EXPECT_FALSE(has_block(s, g, 0, 1));
  EXPECT_FALSE(has_block(s, g, 2, 3));
}

// Past the shipped instances (2..4) the member lemma stands for every n: 40
// members are one block, applied as an instance built on demand and counted
// at the lemma's place.
TEST(GroupRules, AMemberLemmaAppliesAnyGroupSizeAtOnce) {
  const ir::Graph g = fan_out(40);
  const std::vector<Rule> rules = any_n("batch-matmuls-sharing-lhs");
  ASSERT_EQ(rules.size(), 4u);
  ASSERT_TRUE(rules.back().group->generic);
  const Saturation s = saturate(g, rules);
  EXPECT_TRUE(has_block(s, g, 0, 39));
  EXPECT_FALSE(has_block(s, g, 0, 19));
  EXPECT_EQ(s.rule_stats.back().matches, 1u);
  for (size_t k = 0; k + 1 < rules.size(); ++k) EXPECT_EQ(s.rule_stats[k].matches, 0u) << rules[k].name;
}

// A concat e-node has at most 255 operands: 300 members are two chunks of 150.
TEST(GroupRules, GroupsPastAnENodesArityAreCutIntoEqualChunks) {
  const ir::Graph g = fan_out(300);
  const Saturation s = saturate(g, any_n("batch-matmuls-sharing-lhs"));
  EXPECT_TRUE(has_block(s, g, 0, 149));
  EXPECT_TRUE(has_block(s, g, 150, 299));
  EXPECT_EQ(s.rule_stats.back().matches, 2u);
}

// 7 members with instances of 2 and 3: as few chunks as the largest allows
// (3), as equal as possible (3 + 2 + 2), not 3 + 3 with the seventh alone.
TEST(GroupRules, LargeGroupsAreCutIntoEqualChunks) {
  const ir::Graph g = fan_out(7);
  const Saturation s = saturate(g, instances_of("batch-matmuls-sharing-lhs", 2, 3));
  EXPECT_TRUE(has_block(s, g, 0, 2));
  EXPECT_TRUE(has_block(s, g, 3, 4));
  EXPECT_TRUE(has_block(s, g, 5, 6));
  EXPECT_FALSE(has_block(s, g, 3, 5));
  EXPECT_FALSE(has_block(s, g, 0, 6));
}

TEST(GroupRules, MatmulsOfOneShapeStackByLevel) {
  // Two chains of two matmuls: the first of each chain stack together, the second too, never across.
  ir::Graph g;
  auto w = [&](const std::string& n) { return ir::input(g, n, ir::DType::F32, {4, 4}); };
  auto a1 = ir::matmul(w("a"), w("wa1")), b1 = ir::matmul(w("b"), w("wb1"));
  g.add_output(ir::matmul(a1, w("wa2")));
  g.add_output(ir::matmul(b1, w("wb2")));
  const Saturation s = saturate(g, any_n("batch-matmuls-same-shape"));
  ASSERT_EQ(s.rule_stats.size(), 4u);
  EXPECT_EQ(s.rule_stats[0].matches, 2u);  // two groups of two: level 0 (a1, b1) and level 1 (a2, b2)
  for (size_t k = 1; k < 4; ++k) EXPECT_EQ(s.rule_stats[k].matches, 0u);
  ir::Graph term = g;
  auto v = [&](const char* n) { return ir::Tensor{&term, term.find(n)}; };
  auto stack = [&](ir::Tensor x, ir::Tensor y) {
    return ir::concat({ir::reshape(x, {1, 4, 4}), ir::reshape(y, {1, 4, 4})}, 0);
  };
  EXPECT_TRUE(find_term(s.egraph, term, ir::matmul(stack(v("a"), v("b")), stack(v("wa1"), v("wb1"))).id).has_value());
  const ir::Tensor ta1{&term, a1.id}, tb1{&term, b1.id};
  EXPECT_TRUE(find_term(s.egraph, term, ir::matmul(stack(ta1, tb1), stack(v("wa2"), v("wb2"))).id).has_value());
}

// :distinct ?a: matmuls over one activation are never stacked (copies of it);
// a cluster takes only members over different ones.
TEST(GroupRules, DistinctMembersNeverShareTheirActivation) {
  ir::Graph g;
  auto in = [&](const std::string& n, ir::Shape s) { return ir::input(g, n, ir::DType::F32, std::move(s)); };
  const ir::Tensor a = in("a", {2, 4, 3}), b = in("b", {2, 4, 3});
  g.add_output(ir::matmul(a, in("w0", {3, 5})));
  g.add_output(ir::matmul(a, in("w1", {3, 5})));
  const std::vector<Rule> batched = instances_of("batch-matmuls-same-shape-batched", 2, 3);
  ASSERT_EQ(batched.size(), 2u);
  EXPECT_EQ(saturate(g, batched).rule_stats[0].matches, 0u);  // both over a: no cluster of two
  g.add_output(ir::matmul(b, in("w2", {3, 5})));
  const Saturation s = saturate(g, batched);
  EXPECT_EQ(s.rule_stats[0].matches + s.rule_stats[1].matches, 1u);  // one pair: a's first member with b's
  EXPECT_EQ(s.rule_stats[1].matches, 0u);                             // never all three
}

}  // namespace
}  // namespace smelt::rules::testing
