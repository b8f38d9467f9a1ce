// The .rules parser: the AST it builds and every static error it reports.
#include "rules/rule_parser.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace smelt::rules {
namespace {

// The what() of the RuleError that parsing `text` throws ("" if none).
std::string error_of(const std::string& text) {
  try {
    parse_rules(text, "t.rules");
  } catch (const RuleError& e) {
    return e.what();
  }
  return "";
}

TEST(RuleParser, ParsesTheDocumentedExamples) {
  auto rules = parse_rules(R"(
; a comment
(family view-algebra)
(rule slice-of-slice
  :lhs (slice (slice ?x :start ?s1 :stop ?e1 :step ?k1) :start ?s2 :stop ?e2 :step ?k2)
  :rhs (slice ?x :start (+ ?s1 (* ?s2 ?k1))
                 :stop (+ ?s1 (* (- ?e2 (sign ?k2)) ?k1) (sign (* ?k1 ?k2)))
                 :step (* ?k1 ?k2)))
(family algebra)
(rule hoist-unary-above-slice
  :lhs (slice (?f ?x) :start ?s :stop ?e :step ?k)
  :rhs (?f (slice ?x :start ?s :stop ?e :step ?k))
  :if (elementwise ?f))
(rule distribute :unsafe-fp
  :lhs (mul ?a (add ?b ?c))
  :rhs (add (mul ?a ?b) (mul ?a ?c)))
)",
                           "doc.rules");
  ASSERT_EQ(rules.size(), 3u);
  const Rule& s = rules[0];
  EXPECT_EQ(s.name, "slice-of-slice");
  EXPECT_EQ(s.family, "view-algebra");
  EXPECT_EQ(s.file, "doc.rules");
  EXPECT_EQ(s.pos.line, 4);
  EXPECT_EQ(s.pos.col, 1);
  ASSERT_EQ(s.lhs.size(), 1u);
  EXPECT_EQ(s.lhs[0].kind, Term::Kind::kOp);
  EXPECT_EQ(s.lhs[0].op, ir::Op::Slice);
  ASSERT_EQ(s.lhs[0].operands.size(), 1u);
  EXPECT_EQ(s.lhs[0].operands[0].operands[0].var, "?x");
  ASSERT_EQ(s.lhs[0].attrs.size(), 3u);
  EXPECT_EQ(s.lhs[0].attrs[0].first, "start");
  EXPECT_EQ(s.lhs[0].attrs[0].second.kind, Expr::Kind::kVar);
  EXPECT_EQ(s.lhs[0].attrs[0].second.name, "?s2");
  const Expr& stop = s.rhs[0].attrs[1].second;
  EXPECT_EQ(stop.kind, Expr::Kind::kCall);
  EXPECT_EQ(stop.name, "+");
  EXPECT_EQ(stop.args.size(), 3u);
  EXPECT_FALSE(s.unsafe_fp);

  const Rule& h = rules[1];
  EXPECT_EQ(h.family, "algebra");
  EXPECT_EQ(h.lhs[0].operands[0].kind, Term::Kind::kOpVar);
  EXPECT_EQ(h.lhs[0].operands[0].op_var, "?f");
  ASSERT_EQ(h.conditions.size(), 1u);
  EXPECT_EQ(h.conditions[0].name, "elementwise");
  EXPECT_TRUE(rules[2].unsafe_fp);
}

TEST(RuleParser, ParsesLiteralsListsLetsAndMultiPatterns) {
  auto rules = parse_rules(R"(
(rule batch
  :lhs (matmul ?x ?w1) (matmul ?x ?w2)
  :rhs (slice ?y :start [0 0] :stop [(dim ?x 0) (dim ?w1 1)])
       (slice ?y :start [0 (dim ?w1 1)] :stop [(dim ?x 0) (+ (dim ?w1 1) (dim ?w2 1))])
  :let ?y (matmul ?x (concat ?w1 ?w2 :axis 1))
  :if (= (rank ?x) 2)
  :if (!= (dim ?x 0) 0))
)",
                           "m.rules");
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].lhs.size(), 2u);
  EXPECT_EQ(rules[0].rhs.size(), 2u);
  ASSERT_EQ(rules[0].lets.size(), 1u);
  EXPECT_EQ(rules[0].lets[0].first, "?y");
  EXPECT_EQ(rules[0].lets[0].second.operands[1].op, ir::Op::Concat);
  EXPECT_EQ(rules[0].rhs[0].attrs[0].second.kind, Expr::Kind::kList);
  EXPECT_EQ(rules[0].rhs[0].attrs[0].second.args[1].int_value, 0);
}

TEST(RuleParser, ParsesScalarLiteralsAndOpNames) {
  auto rules = parse_rules(R"(
(rule r
  :lhs (pad (?f ?x) :lo ?lo :hi ?hi :value ?v)
  :rhs (full :shape (shape ?x) :dtype f16 :value -1.5e3)
  :if (and (is-op ?f cast) true (!= ?v nan) (< ?v inf) (= (const ?x) -7)))
)",
                           "m.rules");
  const Expr& value = rules[0].rhs[0].attrs[2].second;
  EXPECT_EQ(value.kind, Expr::Kind::kFloat);
  EXPECT_EQ(value.float_value, -1500.0);
  EXPECT_EQ(rules[0].rhs[0].attrs[1].second.kind, Expr::Kind::kDType);
  EXPECT_EQ(rules[0].rhs[0].attrs[1].second.dtype, ir::DType::F16);
  const Expr& cond = rules[0].conditions[0];
  EXPECT_EQ(cond.args[0].args[1].kind, Expr::Kind::kSymbol);
  EXPECT_EQ(cond.args[0].args[1].name, "cast");
  EXPECT_EQ(cond.args[1].kind, Expr::Kind::kBool);
  EXPECT_EQ(cond.args[4].args[1].int_value, -7);
}

TEST(RuleParser, ErrorsNameFileLineColumnAndRule) {
  EXPECT_EQ(error_of("(rule a\n  :lhs (frobnicate ?x)\n  :rhs ?x)"),
            "t.rules:2:9: rule a: unknown op 'frobnicate'");
  EXPECT_EQ(error_of("\n  (bogus)"), "t.rules:2:4: unknown form 'bogus' (expected rule or family)");
}

TEST(RuleParser, RejectsDuplicateNames) {
  EXPECT_EQ(error_of("(rule a :lhs (neg ?x) :rhs ?x)\n(rule a :lhs (neg ?x) :rhs ?x)"),
            "t.rules:2:1: rule a: duplicate rule name (first defined at 1:1)");
  auto one = parse_rules("(rule a :lhs (neg ?x) :rhs ?x)", "one.rules");
  auto two = parse_rules("(rule a :lhs (exp ?x) :rhs ?x)", "two.rules");
  one.insert(one.end(), two.begin(), two.end());
  try {
    check_unique_names(one);
    FAIL() << "expected a RuleError";
  } catch (const RuleError& e) {
    EXPECT_STREQ(e.what(), "two.rules:1:1: rule a: duplicate rule name (first defined at one.rules:1:1)");
  }
}

TEST(RuleParser, RejectsUnknownAttributeKeys) {
  EXPECT_EQ(error_of("(rule a :lhs (slice ?x :begin ?b) :rhs ?x)"),
            "t.rules:1:24: rule a: slice has no attribute ':begin' (accepted: :start :stop :step)");
  EXPECT_NE(error_of("(rule a :lhs (neg ?x :axis 1) :rhs ?x)").find("neg has no attribute ':axis'"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (?f ?x :axis 1) :rhs ?x)").find("an op variable takes no attributes"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (slice ?x :start ?a :start ?b) :rhs ?x)").find("given twice"),
            std::string::npos);
}

TEST(RuleParser, RejectsUnbalancedParentheses) {
  EXPECT_EQ(error_of("(rule a :lhs (neg ?x) :rhs ?x"),
            "t.rules:1:1: rule a: unclosed '(' (unbalanced parentheses)");
  EXPECT_EQ(error_of("(rule a :lhs (neg ?x) :rhs ?x))"),
            "t.rules:1:31: unexpected ')' (unbalanced parentheses)");
  EXPECT_EQ(error_of("(rule a :lhs (neg ?x] :rhs ?x)"),
            "t.rules:1:21: rule a: expected ')' to close the '(' at 1:14, found ']'");
}

TEST(RuleParser, RejectsWrongClauses) {
  EXPECT_EQ(error_of("(rule a :lhs (neg ?x) :rhs ?x :when (= 1 1))"),
            "t.rules:1:31: rule a: unknown clause ':when' (expected :lhs :rhs :let :if :members :shared :distinct :unsafe-fp)");
  EXPECT_NE(error_of("(rule a (neg ?x) :rhs ?x)").find("expected a clause"), std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (neg ?x))").find("missing :rhs"), std::string::npos);
  EXPECT_NE(error_of("(rule a :rhs ?x)").find("missing :lhs"), std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (neg ?x) :lhs (exp ?x) :rhs ?x)").find("a second :lhs"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (neg ?x) :rhs ?x :if)").find(":if takes one condition"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :unsafe-fp 1 :lhs (neg ?x) :rhs ?x)").find("takes no arguments"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs ?x :rhs ?x)").find("must be an op term"), std::string::npos);
}

TEST(RuleParser, RejectsMismatchedRootCounts) {
  EXPECT_EQ(error_of("(rule a :lhs (neg ?x) (exp ?x) :rhs ?x)"),
            "t.rules:1:1: rule a: :lhs has 2 terms but :rhs has 1");
}

TEST(RuleParser, RejectsUnboundVariables) {
  EXPECT_EQ(error_of("(rule a :lhs (neg ?x) :rhs (add ?x ?y))"),
            "t.rules:1:36: rule a: unbound variable ?y in :rhs");
  EXPECT_NE(error_of("(rule a :lhs (neg ?x) :rhs (?f ?x))").find("unbound op variable ?f"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (slice ?x :start ?s) :rhs (slice ?x :start ?t :stop ?s))")
                .find("unbound variable ?t in :rhs"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (neg ?x) :rhs ?x :if (= (rank ?y) 1))").find("unbound variable ?y"),
            std::string::npos);
  // Conditions see only the left side, not the right side's lets.
  EXPECT_NE(error_of("(rule a :lhs (neg ?x) :rhs ?y :let ?y (exp ?x) :if (= (rank ?y) 1))")
                .find("unbound variable ?y in :if"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (neg ?x) :rhs ?x :let ?x (exp ?x))").find("already bound"),
            std::string::npos);
}

TEST(RuleParser, RejectsAVariableOfTwoKinds) {
  EXPECT_EQ(error_of("(rule a :lhs (slice ?x :start ?x) :rhs ?x)"),
            "t.rules:1:31: rule a: ?x is used as an attribute variable here but as a tensor "
            "variable elsewhere");
  EXPECT_NE(error_of("(rule a :lhs (?f ?x) :rhs ?x :if (= (rank ?f) 1))").find("as a tensor variable here"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (?f ?x) :rhs (?f ?x ?x))").find("used with 2 operands here but 1"),
            std::string::npos);
}

TEST(RuleParser, RejectsBadOperandsAndFunctions) {
  EXPECT_NE(error_of("(rule a :lhs (add ?x 1) :rhs ?x)").find("a literal cannot be an operand"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (add ?x) :rhs ?x)").find("add takes 2 operands, given 1"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (neg ?x) :rhs ?x :if (frob ?x))").find("unknown function 'frob'"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (neg ?x) :rhs ?x :if (sign 1 2))").find("'sign' takes 1 argument"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (?f ?x) :rhs ?x :if (is-op ?f frob))").find("expects an op name"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (neg ?x) :rhs (slice ?x :start [0]))").find("slice needs :stop"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (neg ?x) :rhs (full :shape [2] :value 0))").find("full needs :dtype"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (neg ?x) :rhs ?x :if (= 99999999999999999999 1))").find("out of range"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (input) :rhs ?x)").find("input cannot appear"), std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (slice ?x :stop ?e :start) :rhs ?x)").find("needs a value"),
            std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (slice ?x :start ?s ?y) :rhs ?x)").find("operands come before"),
            std::string::npos);
}

TEST(RuleParser, SurvivesArbitraryBytes) {
  EXPECT_NE(error_of(std::string(100000, '(')).find("nesting deeper than"), std::string::npos);
  EXPECT_NE(error_of("(rule a :lhs (neg \x01?x) :rhs ?x)").find("unexpected byte 0x01"), std::string::npos);
  const std::string alphabet = "()[] ;\n?:-.0123456789abcdefgilmnoprstuxyz\x80\xff";
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    size_t length = rng() % 60;
    for (size_t k = 0; k < length; ++k) text += alphabet[rng() % alphabet.size()];
    if (i % 3 == 0) text = "(rule r :lhs " + text + " :rhs ?x)";
    try {
      parse_rules(text, "fuzz.rules");
    } catch (const RuleError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("fuzz.rules:", 0), 0u) << e.what();
    }
  }
}

}  // namespace
}  // namespace smelt::rules
