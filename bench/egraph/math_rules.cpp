#include "bench/egraph/math_rules.h"

#include <array>

namespace smelt::egraph::math {

namespace {

struct RuleText {
  const char* name;
  const char* lhs;
  const char* rhs;
};

// The benchmark's single-letter variables written as ?vars.
constexpr std::array<RuleText, 24> kRules{{
    {"comm-add", "(+ ?a ?b)", "(+ ?b ?a)"},
    {"comm-mul", "(* ?a ?b)", "(* ?b ?a)"},
    {"assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)"},
    {"assoc-mul", "(* ?a (* ?b ?c))", "(* (* ?a ?b) ?c)"},
    {"sub-canon", "(- ?a ?b)", "(+ ?a (* -1 ?b))"},
    {"zero-add", "(+ ?a 0)", "?a"},
    {"zero-mul", "(* ?a 0)", "0"},
    {"one-mul", "(* ?a 1)", "?a"},
    {"cancel-sub", "(- ?a ?a)", "0"},
    {"distribute", "(* ?a (+ ?b ?c))", "(+ (* ?a ?b) (* ?a ?c))"},
    {"factor", "(+ (* ?a ?b) (* ?a ?c))", "(* ?a (+ ?b ?c))"},
    {"pow-mul", "(* (pow ?a ?b) (pow ?a ?c))", "(pow ?a (+ ?b ?c))"},
    {"pow1", "(pow ?x 1)", "?x"},
    {"pow2", "(pow ?x 2)", "(* ?x ?x)"},
    {"d-add", "(d ?x (+ ?a ?b))", "(+ (d ?x ?a) (d ?x ?b))"},
    {"d-mul", "(d ?x (* ?a ?b))", "(+ (* ?a (d ?x ?b)) (* ?b (d ?x ?a)))"},
    {"d-sin", "(d ?x (sin ?x))", "(cos ?x)"},
    {"d-cos", "(d ?x (cos ?x))", "(* -1 (sin ?x))"},
    {"i-one", "(i 1 ?x)", "?x"},
    {"i-cos", "(i (cos ?x) ?x)", "(sin ?x)"},
    {"i-sin", "(i (sin ?x) ?x)", "(* -1 (cos ?x))"},
    {"i-sum", "(i (+ ?f ?g) ?x)", "(+ (i ?f ?x) (i ?g ?x))"},
    {"i-dif", "(i (- ?f ?g) ?x)", "(- (i ?f ?x) (i ?g ?x))"},
    {"i-parts", "(i (* ?a ?b) ?x)", "(- (* ?a (i ?b ?x)) (i (* (d ?x ?a) (i ?b ?x)) ?x))"},
}};

}  // namespace

std::vector<PatternRewrite> benchmark_rules(SymbolTable& symbols) {
  std::vector<PatternRewrite> rules;
  for (const RuleText& rule : kRules) rules.push_back(PatternRewrite::parse(rule.name, rule.lhs, rule.rhs, symbols));
  return rules;
}

const std::vector<std::string>& benchmark_root_terms() {
  static const std::vector<std::string> roots{
      "(i (ln x) x)",
      "(i (+ x (cos x)) x)",
      "(i (* (cos x) x) x)",
      "(d x (+ 1 (* 2 x)))",
      "(d x (- (pow x 3) (* 7 (pow x 2))))",
      "(+ (* y (+ x y)) (- (+ x 2) (+ x x)))",
      "(/ 1 (- (/ (+ 1 (sqrt five)) 2) (/ (- 1 (sqrt five)) 2)))",
  };
  return roots;
}

std::vector<Id> add_benchmark_roots(EGraph& graph) {
  std::vector<Id> roots;
  for (const std::string& text : benchmark_root_terms())
    roots.push_back(graph.add_expr(parse_term(text, graph.symbols())));
  return roots;
}

std::optional<std::size_t> expected_nodes(std::size_t steps) {
  static constexpr std::array<std::size_t, 8> kNodes{784, 1576, 3160, 8113, 28303, 136446, 1047896, 15987528};
  if (steps < 5 || steps > 12) return std::nullopt;
  return kNodes[steps - 5];
}

}  // namespace smelt::egraph::math
