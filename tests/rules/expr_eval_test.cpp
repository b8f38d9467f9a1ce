// The expression language of rules: values, identity equality, lists,
// undefined values and type errors.
#include "rules/expr_eval.h"

#include <gtest/gtest.h>

#include <cmath>

#include "rules/compiled_rule.h"
#include "rules/rule_parser.h"

namespace smelt::rules {
namespace {

// Variables of the rule below: ?f = exp of an f32 operand, ?x : f32[4,6]
// whose every element is -0.0, ?s = [1 2], ?e = [5 6], ?k = [1 -1].
class Env final : public ExprEnv {
 public:
  const Value& attr_var(int index) const override { return attrs_.at(index); }
  TensorFacts tensor_var(int) const override { return {{ir::DType::F32, {4, 6}}, -0.0}; }
  OpFacts op_var(int) const override { return {ir::Op::Exp, &no_attrs_, {ir::DType::F32}}; }
  void set(int index, Value v) {
    if (attrs_.size() <= static_cast<size_t>(index)) attrs_.resize(index + 1);
    attrs_[index] = std::move(v);
  }

 private:
  std::vector<Value> attrs_;
  ir::Attrs no_attrs_;
};

struct Evaluated {
  std::optional<Value> value;  // nullopt: undefined
};

Evaluated evaluate(const std::string& expr) {
  const std::string text = "(rule t :lhs (slice (?f ?x) :start ?s :stop ?e :step ?k) :rhs ?x :if " + expr + ")";
  const Rule rule = parse_rules(text, "test.rules").at(0);
  const CompiledRule compiled = compile_rule(rule);
  Env env;
  env.set(compiled.vars.find("?s")->index, Value::ints({1, 2}));
  env.set(compiled.vars.find("?e")->index, Value::ints({5, 6}));
  env.set(compiled.vars.find("?k")->index, Value::ints({1, -1}));
  try {
    return {eval(compile_expr(rule.conditions.at(0), compiled.vars), env)};
  } catch (const Undefined&) {
    return {};
  }
}

std::string show(const std::string& expr) {
  const Evaluated e = evaluate(expr);
  return e.value ? to_string(*e.value) : "undefined";
}

TEST(ExprEval, NumbersCompareByIdentity) {
  EXPECT_EQ(show("(= 0 -0.0)"), "false");
  EXPECT_EQ(show("(= 0 0.0)"), "true");
  EXPECT_EQ(show("(= 1 1.0)"), "true");
  EXPECT_EQ(show("(= nan nan)"), "true");
  EXPECT_EQ(show("(!= 0 -0.0)"), "true");
  EXPECT_EQ(show("(< -0.0 0)"), "false");  // orderings are IEEE
  EXPECT_EQ(show("(< nan 1)"), "false");
  EXPECT_EQ(show("(= (const ?x) 0)"), "false");
  EXPECT_EQ(show("(= (const ?x) -0.0)"), "true");
  EXPECT_EQ(show("(= f32 (dtype ?x))"), "true");
}

TEST(ExprEval, ArithmeticIsElementwiseOnLists) {
  EXPECT_EQ(show("(+ ?s 1)"), "[2 3]");
  EXPECT_EQ(show("(* ?s ?k)"), "[1 -2]");
  EXPECT_EQ(show("(- ?s)"), "[-1 -2]");
  EXPECT_EQ(show("(+ ?s ?e ?k)"), "[7 7]");
  EXPECT_EQ(show("(min ?k 0)"), "[0 -1]");
  EXPECT_EQ(show("(sign ?k)"), "[1 -1]");
  EXPECT_EQ(show("(abs ?k)"), "[1 1]");
  EXPECT_EQ(show("(= ?k 1)"), "false");
  EXPECT_EQ(show("(= [1 1] 1)"), "true");
  EXPECT_EQ(show("(< ?s ?e)"), "true");
  EXPECT_EQ(show("(!= ?s [1 3])"), "false");  // true only where every element differs
  EXPECT_EQ(show("(= [1 2] [1 2 3])"), "false");
  EXPECT_EQ(show("(not (= [1 2] [1 2 3]))"), "true");
  EXPECT_EQ(show("(+ [1 2] [1 2 3])"), "undefined");
  EXPECT_EQ(show("(+ 1 0.5)"), "1.5");
}

TEST(ExprEval, FloorDivisionAndModulo) {
  EXPECT_EQ(show("(floordiv -7 2)"), "-4");
  EXPECT_EQ(show("(mod -7 2)"), "1");
  EXPECT_EQ(show("(floordiv 7 -2)"), "-4");
  EXPECT_EQ(show("(mod 7 -2)"), "-1");
  EXPECT_EQ(show("(floordiv ?e ?k)"), "[5 -6]");
  EXPECT_EQ(show("(floordiv 1 0)"), "undefined");
}

TEST(ExprEval, Lists) {
  EXPECT_EQ(show("(list 1 (+ 1 1) 3)"), "[1 2 3]");
  EXPECT_EQ(show("(at ?s 1)"), "2");
  EXPECT_EQ(show("(at ?s 2)"), "undefined");
  EXPECT_EQ(show("(set ?s 0 9)"), "[9 2]");
  EXPECT_EQ(show("(len ?s)"), "2");
  EXPECT_EQ(show("(fill 3 1)"), "[1 1 1]");
  EXPECT_EQ(show("(range 3)"), "[0 1 2]");
  EXPECT_EQ(show("(take ?s 1)"), "[1]");
  EXPECT_EQ(show("(drop ?s 1)"), "[2]");
  EXPECT_EQ(show("(take ?s 3)"), "undefined");
  EXPECT_EQ(show("(append ?s ?e)"), "[1 2 5 6]");
  EXPECT_EQ(show("(product (shape ?x))"), "24");
  EXPECT_EQ(show("(product [4294967296 4294967296])"), "undefined");  // overflow
  EXPECT_EQ(show("(compose-perm [1 2 0] [2 0 1])"), "[0 1 2]");
  EXPECT_EQ(show("(compose-perm [10 20 30] [2 0 1])"), "[30 10 20]");  // a shape, permuted
  EXPECT_EQ(show("(inverse-perm [2 0 1])"), "[1 2 0]");
  EXPECT_EQ(show("(inverse-perm [0 0])"), "undefined");
}

TEST(ExprEval, TensorsAndOps) {
  EXPECT_EQ(show("(shape ?x)"), "[4 6]");
  EXPECT_EQ(show("(rank ?x)"), "2");
  EXPECT_EQ(show("(dim ?x 1)"), "6");
  EXPECT_EQ(show("(dim ?x 2)"), "undefined");
  EXPECT_EQ(show("(dtype ?x)"), "f32");
  EXPECT_EQ(show("(elementwise ?f)"), "true");
  EXPECT_EQ(show("(unary ?f)"), "true");
  EXPECT_EQ(show("(binary ?f)"), "false");
  EXPECT_EQ(show("(is-op ?f exp)"), "true");
  EXPECT_EQ(show("(is-op ?f log)"), "false");
  EXPECT_EQ(show("(apply ?f 0)"), "1");
  EXPECT_EQ(show("(= (apply ?f 1) 2.718281828459045)"), "false");  // rounded to f32
  EXPECT_EQ(show("(= (apply ?f 1) 2.7182817459106445)"), "true");
}

TEST(ExprEval, LogicIsLazyAndUndefinedIsFalse) {
  EXPECT_EQ(show("(and false (= (at ?s 9) 1))"), "false");
  EXPECT_EQ(show("(or true (= (at ?s 9) 1))"), "true");
  EXPECT_EQ(show("(and true (= (at ?s 9) 1))"), "undefined");
}

TEST(ExprEval, WrongKindsAreErrors) {
  EXPECT_THROW(evaluate("(+ f32 1)"), ExprTypeError);
  EXPECT_THROW(evaluate("(and 1 true)"), ExprTypeError);
  EXPECT_THROW(evaluate("(floordiv 1.5 1)"), ExprTypeError);
  EXPECT_THROW(evaluate("(= f32 1)"), ExprTypeError);
}

}  // namespace
}  // namespace smelt::rules
