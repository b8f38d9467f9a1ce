#include <gtest/gtest.h>

#include "egraph/parse_error.h"
#include "egraph/pattern.h"
#include "egraph/rec_expr.h"
#include "egraph/rewrite.h"

namespace smelt::egraph {
namespace {

// Expects `parse` to throw a ParseError whose what() is exactly `message`.
template <class F>
void expect_parse_error(F&& parse, const std::string& message, int line, int column) {
  try {
    parse();
    ADD_FAILURE() << "no error; expected " << message;
  } catch (const ParseError& error) {
    EXPECT_EQ(std::string(error.what()), message);
    EXPECT_EQ(error.line(), line);
    EXPECT_EQ(error.column(), column);
  }
}

TEST(Parse, TermRoundTrips) {
  SymbolTable symbols;
  const RecExpr term = parse_term("(+ x  (* -1 (sin y)) )", symbols);
  EXPECT_EQ(term.to_string(symbols), "(+ x (* -1 (sin y)))");
  EXPECT_EQ(term.nodes().size(), 6u);
  EXPECT_EQ(parse_term("op#42", symbols).to_string(symbols), "op#42");
}

TEST(Parse, PatternKeepsVariablesInOrder) {
  SymbolTable symbols;
  const Pattern pattern = Pattern::parse("(+ ?a (* ?b ?a))", symbols);
  EXPECT_EQ(pattern.vars(), (std::vector<std::string>{"?a", "?b"}));
  EXPECT_EQ(pattern.to_string(symbols), "(+ ?a (* ?b ?a))");
  EXPECT_FALSE(pattern.is_ground(pattern.root()));
  const Pattern ground = Pattern::parse("(* 2 x)", symbols);
  EXPECT_TRUE(ground.is_ground(ground.root()));
}

TEST(Parse, MissingCloseParenNamesTheEnd) {
  SymbolTable symbols;
  expect_parse_error([&] { Pattern::parse("(+ ?a (* ?b 0)", symbols); }, "pattern:1:15: expected ')'", 1, 15);
}

TEST(Parse, StrayCloseParen) {
  SymbolTable symbols;
  expect_parse_error([&] { Pattern::parse("(+ ?a))", symbols); }, "pattern:1:7: unexpected input after the expression",
                     1, 7);
  expect_parse_error([&] { parse_term(")", symbols); }, "term:1:1: unexpected ')'", 1, 1);
}

TEST(Parse, PositionsCountLines) {
  SymbolTable symbols;
  expect_parse_error([&] { parse_term("(+ x\n   (* ?y 2))", symbols); },
                     "term:2:7: a variable cannot be used here: ?y", 2, 7);
}

TEST(Parse, BadOperators) {
  SymbolTable symbols;
  expect_parse_error([&] { parse_term("(3 x)", symbols); }, "term:1:2: expected an operator name, found the number 3", 1,
                     2);
  expect_parse_error([&] { Pattern::parse("(?f x)", symbols); }, "pattern:1:2: a variable cannot be an operator: ?f", 1,
                     2);
  expect_parse_error([&] { parse_term("()", symbols); }, "term:1:1: empty list, expected an operator", 1, 1);
  expect_parse_error([&] { parse_term("((f) x)", symbols); }, "term:1:2: expected an operator name, found a list", 1, 2);
  expect_parse_error([&] { parse_term("", symbols); }, "term:1:1: unexpected end of input, expected an expression", 1,
                     1);
  expect_parse_error([&] { parse_term("99999999999999999999", symbols); },
                     "term:1:1: integer literal out of range: 99999999999999999999", 1, 1);
  expect_parse_error([&] { Pattern::parse("(f ?)", symbols); }, "pattern:1:4: expected a variable name after '?'", 1, 4);
}

TEST(Parse, CommentsAreSkipped) {
  SymbolTable symbols;
  EXPECT_EQ(parse_term("; a comment\n(f ; inner\n x)", symbols).to_string(symbols), "(f x)");
}

TEST(Parse, RuleErrorsNameTheRule) {
  SymbolTable symbols;
  expect_parse_error([&] { PatternRewrite::parse("bad", "(+ ?a", "?a", symbols); }, "rule bad lhs:1:6: expected ')'", 1, 6);
  try {
    PatternRewrite::parse("unbound", "(+ ?a ?b)", "(+ ?a ?c)", symbols);
    ADD_FAILURE() << "expected an error";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()),
              "rule 'unbound': variable ?c on the right-hand side is not bound by the left-hand side");
  }
}

}  // namespace
}  // namespace smelt::egraph
