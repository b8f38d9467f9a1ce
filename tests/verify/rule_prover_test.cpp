// The rule prover on rules written here: known-sound ones are proved (with the
// mode the report promises), wrong ones fail with a counterexample.
#include <gtest/gtest.h>

#include "tests/verify/prove_test_util.h"

namespace smelt::verify {
namespace {

using testing::explain;
using testing::prove_text;

TEST(RuleProver, ProvesSliceOfSliceWithEnumeratedSteps) {
  RuleResult r = prove_text(R"(
(rule slice-slice
  :lhs (slice (slice ?x :start ?s1 :stop ?e1 :step ?k1) :start ?s2 :stop ?e2 :step ?k2)
  :rhs (slice ?x :start (+ ?s1 (* ?s2 ?k1))
                 :stop (+ ?s1 (* (- ?e2 (sign ?k2)) ?k1) (sign (* ?k1 ?k2)))
                 :step (* ?k1 ?k2))))");
  EXPECT_EQ(r.verdict, Verdict::kProved) << explain(r);
  // Steps multiply indices: they are enumerated; starts, stops and extents stay symbolic.
  EXPECT_EQ(r.mode, "enumerated");
  EXPECT_EQ(r.enumerated, "?k1 ?k2 in {-3..3}\\{0}");
  EXPECT_EQ(r.structure, "ranks 1..4 of ?x");
  EXPECT_EQ(r.cases, 4);
}

TEST(RuleProver, ProvesElementwiseOpsCommutingWithSlices) {
  RuleResult sink = prove_text(R"(
(rule sink-slice-binary
  :lhs (slice (?f ?a ?b) :start ?s :stop ?e :step ?k)
  :rhs (?f (slice ?a :start ?s :stop ?e :step ?k) (slice ?b :start ?s :stop ?e :step ?k))
  :if (elementwise ?f)))");
  EXPECT_EQ(sink.verdict, Verdict::kProved) << explain(sink);
  RuleResult hoist = prove_text(R"(
(rule hoist-unary
  :lhs (?f (slice ?x :start ?s :stop ?e :step ?k))
  :rhs (slice (?f ?x) :start ?s :stop ?e :step ?k)
  :if (unary ?f)))");
  EXPECT_EQ(hoist.verdict, Verdict::kProved) << explain(hoist);
}

TEST(RuleProver, ProvesPadElementwiseWithTheOpAppliedToThePadValue) {
  RuleResult r = prove_text(R"(
(rule binary-into-pads
  :lhs (?f (pad ?a :lo ?lo :hi ?hi :value ?v) (pad ?b :lo ?lo :hi ?hi :value ?w))
  :rhs (pad (?f ?a ?b) :lo ?lo :hi ?hi :value (apply ?f ?v ?w))
  :if (and (elementwise ?f) (= (shape ?a) (shape ?b)))))");
  EXPECT_EQ(r.verdict, Verdict::kProved) << explain(r);
  EXPECT_EQ(r.mode, "symbolic");
}

TEST(RuleProver, ProvesGemmSplitAndConcatOfMatmuls) {
  RuleResult split = prove_text(R"(
(rule split-matmul
  :lhs (slice (matmul ?a ?b) :start ?s :stop ?e :step ?k)
  :rhs (matmul (slice ?a :start (list (at ?s 0) 0) :stop (list (at ?e 0) (dim ?a 1)) :step (list (at ?k 0) 1))
               (slice ?b :start (list 0 (at ?s 1)) :stop (list (dim ?b 0) (at ?e 1)) :step (list 1 (at ?k 1))))
  :if (and (= (rank ?a) 2) (= (rank ?b) 2))))");
  EXPECT_EQ(split.verdict, Verdict::kProved) << explain(split);
  RuleResult concat = prove_text(R"(
(rule concat-matmuls
  :lhs (concat (matmul ?x ?w1) (matmul ?x ?w2) :axis 1)
  :rhs (matmul ?x (concat ?w1 ?w2 :axis 1))
  :if (and (= (rank ?x) 2) (= (rank ?w1) 2))))");
  EXPECT_EQ(concat.verdict, Verdict::kProved) << explain(concat);
}

TEST(RuleProver, RejectsAGemmSplitThatAllowsBatchedOperands) {
  // Without (= (rank ?b) 2), b may be batched: the right side's 2-d slice of b
  // does not type-check.
  RuleResult r = prove_text(R"(
(rule split-matmul
  :lhs (slice (matmul ?a ?b) :start ?s :stop ?e :step ?k)
  :rhs (matmul (slice ?a :start (list (at ?s 0) 0) :stop (list (at ?e 0) (dim ?a 1)) :step (list (at ?k 0) 1))
               (slice ?b :start (list 0 (at ?s 1)) :stop (list (dim ?b 0) (at ?e 1)) :step (list 1 (at ?k 1))))
  :if (= (rank ?a) 2)))");
  ASSERT_EQ(r.verdict, Verdict::kFailed);
  EXPECT_NE(r.message.find("the right side does not type-check"), std::string::npos) << r.message;
  EXPECT_NE(r.counterexample.find("rank ?b = 3"), std::string::npos) << r.counterexample;
}

TEST(RuleProver, ProvesMultiPatternRulesRootByRoot) {
  RuleResult r = prove_text(R"(
(rule batch-matmuls-sharing-lhs
  :lhs (matmul ?x ?w1) (matmul ?x ?w2)
  :let ?y (matmul ?x (concat ?w1 ?w2 :axis 1))
  :rhs (slice ?y :start [0 0] :stop (list (dim ?x 0) (dim ?w1 1)) :step [1 1])
       (slice ?y :start (list 0 (dim ?w1 1)) :stop (list (dim ?x 0) (+ (dim ?w1 1) (dim ?w2 1))) :step [1 1])
  :if (and (= (rank ?x) 2) (= (rank ?w1) 2) (= (rank ?w2) 2))))");
  EXPECT_EQ(r.verdict, Verdict::kProved) << explain(r);
}

// A group template (:members) is proved instance by instance; the ranks its
// conditions fix are one case each, not 4^n.
TEST(RuleProver, ProvesGroupRuleInstances) {
  const std::vector<rules::Rule> instances = rules::parse_rules(R"(
(rule wide
  :members 2 6
  :shared ?x
  :lhs (matmul ?x ?w)
  :let ?y (matmul ?x (concat ?w... :axis 1))
  :rhs (slice ?y :start (list 0 (* ?member (dim ?w 1))) :stop (list (dim ?x 0) (* (+ ?member 1) (dim ?w 1)))
                 :step [1 1])
  :if (and (= (rank ?x) 2) (= (rank ?w) 2) (= (shape ?w) (shape ?w.0)))))",
                                                                "inline.rules");
  ASSERT_EQ(instances.size(), 5u);
  const RuleResult six = prove_rule(instances.back());
  EXPECT_EQ(six.name, "wide.6");
  EXPECT_EQ(six.verdict, Verdict::kProved) << explain(six);
  EXPECT_EQ(six.structure, "rank 2 of ?w.0 ?w.1 ?w.2 ?w.3 ?w.4 ?w.5 ?x");
  EXPECT_EQ(six.cases, 1);
}

// Members whose shapes a condition equates share one rank choice: 4 cases for
// 6 members of any rank, not 4^6.
TEST(RuleProver, TiesTheRanksOfMembersOfOneShape) {
  const std::vector<rules::Rule> instances = rules::parse_rules(R"(
(rule stacked
  :members 6 6
  :lhs (neg (neg ?a))
  :rhs ?a
  :if (= (shape ?a) (shape ?a.0))))",
                                                                "inline.rules");
  ASSERT_EQ(instances.size(), 1u);
  const RuleResult r = prove_rule(instances[0]);
  EXPECT_EQ(r.verdict, Verdict::kProved) << explain(r);
  EXPECT_EQ(r.structure, "ranks 1..4 of ?a.0 ?a.1 ?a.2 ?a.3 ?a.4 ?a.5");
  EXPECT_EQ(r.cases, 4);
}

TEST(RuleProver, FailsAGroupRuleWhoseMembersTakeTheWrongBlock) {
  const std::vector<rules::Rule> instances = rules::parse_rules(R"(
(rule wide-swapped
  :members 2 2
  :shared ?x
  :lhs (matmul ?x ?w)
  :let ?y (matmul ?x (concat ?w... :axis 1))
  :rhs (slice ?y :start (list 0 (* (- 1 ?member) (dim ?w 1))) :stop (list (dim ?x 0) (* (- 2 ?member) (dim ?w 1)))
                 :step [1 1])
  :if (and (= (rank ?x) 2) (= (rank ?w) 2) (= (shape ?w) (shape ?w.0)))))",
                                                                "inline.rules");
  const RuleResult r = prove_rule(instances.at(0));
  EXPECT_EQ(r.verdict, Verdict::kFailed) << explain(r);
  EXPECT_NE(r.message.find("elements differ"), std::string::npos) << explain(r);
}

// `:members 2 *`: the member lemma (member k of a group of any size, beside
// blocks of ?member and ?members-after members) is proved with both counts
// symbolic, so it covers every n; instances 2..4 are proved besides.
constexpr const char* kWideAnyN = R"(
(rule wide
  :members 2 *
  :shared ?x
  :lhs (matmul ?x ?w)
  :let ?y (matmul ?x (concat ?w... :axis 1))
  :rhs (slice ?y :start (list 0 (* START (dim ?w 1))) :stop (list (dim ?x 0) (* (+ START 1) (dim ?w 1)))
                 :step [1 1])
  :if (and (= (rank ?x) 2) (= (rank ?w) 2) (= (shape ?w) (shape ?w.0)) (= (dtype ?w) (dtype ?w.0)))))";

std::string with_start(std::string text, const std::string& start) {
  for (size_t at; (at = text.find("START")) != std::string::npos;) text.replace(at, 5, start);
  return text;
}

std::vector<rules::Rule> wide_any_n(const std::string& start) {
  return rules::parse_rules(with_start(kWideAnyN, start), "inline.rules");
}

TEST(RuleProver, ProvesAGroupRuleForEveryMemberCountByItsMemberLemma) {
  const std::vector<rules::Rule> rules = wide_any_n("?member");
  ASSERT_EQ(rules.size(), 4u);  // wide.2 .. wide.4 and wide.n
  const rules::Rule& lemma = rules.back();
  EXPECT_EQ(lemma.name, "wide.n");
  ASSERT_TRUE(lemma.group && lemma.group->generic);
  const RuleResult r = prove_rule(lemma);
  EXPECT_EQ(r.verdict, Verdict::kProved) << explain(r);
  EXPECT_EQ(r.mode, "symbolic");
  EXPECT_EQ(r.enumerated, "");
}

// Member k reading member k+1's block: right shape, wrong elements. The lemma
// fails with blocks as the counterexample shows them.
TEST(RuleProver, FailsAMemberLemmaThatReadsTheNextMembersBlock) {
  const RuleResult r = prove_rule(wide_any_n("(+ ?member 1)").back());
  EXPECT_EQ(r.verdict, Verdict::kFailed) << explain(r);
  EXPECT_NE(r.counterexample.find("?w.after"), std::string::npos) << explain(r);
}

// Holds for members 0..4 only (the slice start is clamped there): no enumerated
// member index can prove it.
TEST(RuleProver, FailsAMemberLemmaThatHoldsOnlyForSmallGroups) {
  const RuleResult r = prove_rule(wide_any_n("(min ?member 4)").back());
  EXPECT_EQ(r.verdict, Verdict::kFailed) << explain(r);
}

// Without every member's shape and dtype tied to member 0's, the members before
// k need not be k blocks of k's extent: such a template has no lemma.
TEST(RuleProver, AMemberLemmaNeedsMembersOfOneShape) {
  std::string text = with_start(kWideAnyN, "?member");
  text.replace(text.find(" (= (dtype ?w) (dtype ?w.0))"), 28, "");
  try {
    rules::parse_rules(text, "inline.rules");
    FAIL() << "parsed";
  } catch (const rules::RuleError& e) {
    EXPECT_NE(std::string(e.what()).find("no member lemma: no condition (= (dtype ?w) (dtype ?w.0))"),
              std::string::npos)
        << e.what();
  }
}

// Row-major strides are products of symbolic extents: Z3's non-linear
// arithmetic proves the rule for every extent, none enumerated.
TEST(RuleProver, ProvesReshapesWithSymbolicExtents) {
  RuleResult r = prove_text(R"(
(rule reshape-reshape
  :lhs (reshape (reshape ?x :shape ?inner) :shape ?outer)
  :rhs (reshape ?x :shape ?outer)))");
  EXPECT_EQ(r.verdict, Verdict::kProved) << explain(r);
  EXPECT_EQ(r.mode, "symbolic");
  EXPECT_EQ(r.enumerated, "");
}

TEST(RuleProver, ProvesUnsafeFpRulesInRealArithmeticOnly) {
  const std::string distribute = R"(
    :lhs (mul ?a (add ?b ?c))
    :rhs (add (mul ?a ?b) (mul ?a ?c))))";
  RuleResult real = prove_text("(rule distribute :unsafe-fp" + distribute);
  EXPECT_EQ(real.verdict, Verdict::kProved) << explain(real);
  RuleResult ieee = prove_text("(rule distribute" + distribute);
  EXPECT_EQ(ieee.verdict, Verdict::kFailed);
}

TEST(RuleProver, KeepsTheSignOfZero) {
  // x - (+0) = x holds for every float x; x + (+0) = x fails for -0.0.
  RuleResult sub = prove_text("(rule r :lhs (sub ?x ?z) :rhs ?x :if (= (const ?z) 0))");
  EXPECT_EQ(sub.verdict, Verdict::kProved) << explain(sub);
  RuleResult add = prove_text("(rule r :lhs (add ?x ?z) :rhs ?x :if (= (const ?z) 0))");
  ASSERT_EQ(add.verdict, Verdict::kFailed);
  EXPECT_NE(add.counterexample.find("left:  add:"), std::string::npos) << add.counterexample;
  // In integer dtypes both zeros are 0.
  RuleResult int_add = prove_text(
      "(rule r :lhs (add ?x ?z) :rhs ?x :if (and (= (const ?z) -0.0) (= (dtype ?x) i32)))");
  EXPECT_EQ(int_add.verdict, Verdict::kProved) << explain(int_add);
  // max(+0, -0) is +0 but max(-0, +0) is -0: not commutative in IEEE arithmetic.
  RuleResult max = prove_text("(rule r :lhs (max ?a ?b) :rhs (max ?b ?a))");
  EXPECT_EQ(max.verdict, Verdict::kFailed);
}

TEST(RuleProver, RejectsPadsWithDifferentValues) {
  RuleResult r = prove_text(R"(
(rule pad-pad-two-values
  :lhs (pad (pad ?x :lo ?lo1 :hi ?hi1 :value ?v) :lo ?lo2 :hi ?hi2 :value ?w)
  :rhs (pad ?x :lo (+ ?lo1 ?lo2) :hi (+ ?hi1 ?hi2) :value ?v)))");
  ASSERT_EQ(r.verdict, Verdict::kFailed);
  EXPECT_EQ(r.message, "the elements differ");
  EXPECT_NE(r.counterexample.find("at index"), std::string::npos) << r.counterexample;
}

TEST(RuleProver, RejectsHoistingAboveSlicesOfDifferentShapes) {
  // Equal canonical bounds on different shapes: the right side's op gets
  // operands of different shapes.
  RuleResult r = prove_text(R"(
(rule hoist-binary-above-slices
  :lhs (?f (slice ?a :start ?s :stop ?e :step ?k) (slice ?b :start ?s :stop ?e :step ?k))
  :rhs (slice (?f ?a ?b) :start ?s :stop ?e :step ?k)
  :if (elementwise ?f)))");
  ASSERT_EQ(r.verdict, Verdict::kFailed);
  EXPECT_NE(r.message.find("the right side does not type-check"), std::string::npos) << r.message;
}

TEST(RuleProver, ModelsTheRightSidesSliceClamping) {
  // A stop beyond the end is clamped by shape inference: the result is x.
  RuleResult r = prove_text(R"(
(rule slice-past-the-end
  :lhs (neg ?x)
  :rhs (neg (slice ?x :start (fill (rank ?x) -5) :stop (+ (shape ?x) 7) :step (fill (rank ?x) 1)))))");
  EXPECT_EQ(r.verdict, Verdict::kProved) << explain(r);
}

TEST(RuleProver, UnrestrictedOpVariablesAreNotModeled) {
  // ?f could be a slice or a reduction: an uninterpreted elementwise function
  // would not be a sound model.
  RuleResult r = prove_text("(rule r :lhs (?f (neg ?x)) :rhs (neg (?f ?x)))");
  EXPECT_EQ(r.verdict, Verdict::kUnknown);
  EXPECT_NE(r.message.find("not restricted to elementwise"), std::string::npos) << r.message;
}

TEST(RuleProver, ContradictoryConditionsAreNotProved) {
  RuleResult r = prove_text("(rule r :lhs (neg ?x) :rhs ?x :if (and (= (rank ?x) 1) (= (rank ?x) 2)))");
  EXPECT_EQ(r.verdict, Verdict::kUnknown);
  EXPECT_NE(r.message.find("vacuous"), std::string::npos) << r.message;
}

TEST(RuleProver, ATimeoutIsUnknownNeverProved) {
  ProverOptions hurried;
  hurried.query_timeout_ms = 1;
  RuleResult r = prove_text(R"(
(rule slice-slice
  :lhs (slice (slice ?x :start ?s1 :stop ?e1 :step ?k1) :start ?s2 :stop ?e2 :step ?k2)
  :rhs (slice ?x :start (+ ?s1 (* ?s2 ?k1))
                 :stop (+ ?s1 (* (- ?e2 (sign ?k2)) ?k1) (sign (* ?k1 ?k2)))
                 :step (* ?k1 ?k2))))",
                            hurried);
  EXPECT_EQ(r.verdict, Verdict::kUnknown) << explain(r);
  EXPECT_NE(r.message.find("Z3 gave up"), std::string::npos) << r.message;
}

}  // namespace
}  // namespace smelt::verify
