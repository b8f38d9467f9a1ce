#include "egraph/rewrite.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <vector>

#include "egraph/parse_error.h"
#include "egraph/sexpr.h"

namespace smelt::egraph {

Id Match::operator[](std::string_view var) const {
  const auto index = query_->var_index(var);
  if (!index) throw std::out_of_range("match: no variable " + std::string(var));
  return classes_[*index];
}

void PatternRewrite::add_target(std::uint32_t var, Pattern pattern) {
  Target target{var, std::move(pattern), {}};
  for (const std::string& name : target.pattern.vars()) {
    const auto index = searcher_.var_index(name);
    if (!index)
      throw std::invalid_argument("rule '" + name_ + "': variable " + name +
                                  " on the right-hand side is not bound by the left-hand side");
    target.var_map.push_back(*index);
  }
  targets_.push_back(std::move(target));
}

PatternRewrite PatternRewrite::parse(std::string name, std::string_view lhs, std::string_view rhs, SymbolTable& symbols,
                       Condition condition) {
  PatternRewrite rule;
  rule.name_ = std::move(name);
  rule.searcher_ = Query::parse(lhs, symbols, "rule " + rule.name_ + " lhs");
  rule.add_target(0, Pattern::parse(rhs, symbols, "rule " + rule.name_ + " rhs"));
  rule.condition_ = std::move(condition);
  return rule;
}

PatternRewrite PatternRewrite::parse_multi(std::string name, std::span<const std::string> lhs, std::span<const std::string> rhs,
                             SymbolTable& symbols, Condition condition) {
  PatternRewrite rule;
  rule.name_ = std::move(name);
  const std::string source = "rule " + rule.name_ + " rhs";
  rule.searcher_ = Query::parse_all(lhs, symbols, "rule " + rule.name_ + " lhs");
  for (const std::string& text : rhs) {
    const SExpr sexpr = parse_sexpr(text, source);
    const bool named = sexpr.is_list && sexpr.items.size() == 3 && !sexpr.items[0].is_list &&
                       sexpr.items[0].atom == "=" && !sexpr.items[1].is_list;
    if (!named) throw ParseError(source, sexpr.line, sexpr.column, "expected (= ?var PATTERN)");
    const auto var = rule.searcher_.var_index(sexpr.items[1].atom);
    if (!var)
      throw ParseError(source, sexpr.items[1].line, sexpr.items[1].column,
                       "variable " + sexpr.items[1].atom + " is not bound by the left-hand side");
    rule.add_target(*var, Pattern::from_sexpr(sexpr.items[2], symbols, source));
  }
  rule.condition_ = std::move(condition);
  return rule;
}

PatternRewrite PatternRewrite::with_function(std::string name, Query searcher, ApplyFn applier, Condition condition) {
  PatternRewrite rule;
  rule.name_ = std::move(name);
  rule.searcher_ = std::move(searcher);
  rule.function_ = std::move(applier);
  rule.condition_ = std::move(condition);
  return rule;
}

Id PatternRewrite::instantiate(EGraph& graph, const Pattern& pattern, std::span<const std::uint32_t> var_map,
                        std::span<const Id> match) const {
  const std::vector<Pattern::Node>& nodes = pattern.nodes();
  values_.resize(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Pattern::Node& node = nodes[i];
    if (node.is_var) {
      values_[i] = match[var_map[node.var]];
      continue;
    }
    children_.clear();
    for (std::uint32_t child : node.children) children_.push_back(values_[child]);
    // With explanations, the exact spelling matters: proofs name these ids.
    values_[i] = graph.explanations_enabled() ? graph.add_uncanonical(node.op, node.payload, children_)
                                              : graph.add(node.op, node.payload, children_);
  }
  return values_.back();
}

std::size_t PatternRewrite::apply_batched(EGraph& graph, std::span<const Id> matches, Justification why) const {
  // Matches are independent, so their adds can be interleaved: for each
  // right-hand-side node, first hash it for every match of a small batch and
  // prefetch its hashcons slot, then the stored candidate, then add. The
  // cache misses of a batch overlap instead of adding up. The result equals
  // one-by-one application: the e-graph after rebuild is the congruence
  // closure of the same adds and unions.
  constexpr std::size_t kBatch = 32;
  const std::size_t per_match = searcher_.num_vars();
  const std::size_t num_matches = matches.size() / per_match;
  std::size_t unions = 0;
  std::array<std::size_t, kBatch> active{};
  std::array<std::uint64_t, kBatch> hashes{};
  std::array<Id, 8> children{};
  for (std::size_t first = 0; first < num_matches; first += kBatch) {
    const std::size_t last = std::min(first + kBatch, num_matches);
    // Warm the union-find entries of the next batch while this one runs.
    for (std::size_t k = last * per_match; k < std::min(last + kBatch, num_matches) * per_match; ++k)
      graph.prefetch_class(matches[k]);
    std::size_t count = 0;
    for (std::size_t m = first; m < last; ++m)
      if (!condition_ || condition_(graph, Match(searcher_, matches.subspan(m * per_match, per_match))))
        active[count++] = m;
    for (const Target& target : targets_) {
      const std::vector<Pattern::Node>& nodes = target.pattern.nodes();
      const std::size_t width = nodes.size();
      values_.resize(kBatch * width);
      for (std::size_t i = 0; i < width; ++i) {
        const Pattern::Node& node = nodes[i];
        if (node.is_var) {
          for (std::size_t a = 0; a < count; ++a)
            values_[a * width + i] = matches[active[a] * per_match + target.var_map[node.var]];
          continue;
        }
        const std::size_t arity = node.children.size();
        if (arity <= children.size()) {
          for (std::size_t a = 0; a < count; ++a) {
            for (std::size_t c = 0; c < arity; ++c) children[c] = values_[a * width + node.children[c]];
            hashes[a] = graph.prefetch_add(node.op, node.payload, std::span<const Id>(children.data(), arity));
          }
          for (std::size_t a = 0; a < count; ++a) graph.prefetch_candidate(hashes[a]);
        }
        for (std::size_t a = 0; a < count; ++a) {
          children_.resize(arity);
          for (std::size_t c = 0; c < arity; ++c) children_[c] = values_[a * width + node.children[c]];
          values_[a * width + i] = graph.add(node.op, node.payload, children_);
        }
      }
      for (std::size_t a = 0; a < count; ++a)
        unions += graph.unite(matches[active[a] * per_match + target.var], values_[a * width + width - 1], why) ? 1 : 0;
    }
  }
  return unions;
}

std::size_t PatternRewrite::apply(EGraph& graph, std::span<const Id> matches, std::uint32_t rule_id) const {
  const std::size_t per_match = searcher_.num_vars();
  const Justification why = Justification::by_rule(rule_id);
  const bool explain = graph.explanations_enabled();
  if (!function_ && !explain) return apply_batched(graph, matches, why);

  std::size_t unions = 0;
  ApplyContext context(graph, why);
  for (std::size_t at = 0; at + per_match <= matches.size(); at += per_match) {
    const std::span<const Id> match = matches.subspan(at, per_match);
    if (condition_ && !condition_(graph, Match(searcher_, match))) continue;
    if (function_) {
      function_(context, Match(searcher_, match));
      continue;
    }
    for (const Target& target : targets_) {
      Id from = match[target.var];
      if (target.var == 0 && searcher_.patterns().size() == 1) {
        // Explanations: name the matched term itself, so the proof step reads lhs => rhs.
        const Pattern& lhs = searcher_.patterns()[0];
        std::vector<std::uint32_t> identity(lhs.vars().size());
        for (std::uint32_t v = 0; v < identity.size(); ++v) identity[v] = searcher_.query_var(0, v);
        if (!lhs.nodes()[lhs.root()].is_var) from = instantiate(graph, lhs, identity, match);
      }
      const Id to = instantiate(graph, target.pattern, target.var_map, match);
      unions += graph.unite(from, to, why) ? 1 : 0;
    }
  }
  return unions + context.unions();
}

using Clock = std::chrono::steady_clock;

RuleStep PatternRewrite::step(EGraph& graph, const StepControl& control) const {
  RuleStep step;
  const Clock::time_point start = Clock::now();
  const std::size_t per_match = searcher_.num_vars();
  auto apply_batch = [&](std::span<const Id> matches) {
    const Clock::time_point apply_start = Clock::now();
    step.unions += apply(graph, matches, control.rule_id);
    step.applied += matches.size() / per_match;
    step.apply_s += seconds_since(apply_start);
  };
  if (control.limit == Scheduler::kUnlimited) {
    step.found = searcher_.search(graph, [&](std::span<const Id> matches) {
      apply_batch(matches);
      return !control.stop();
    });
  } else {
    std::vector<Id>& buffer = match_buffer_;
    buffer.clear();
    step.found = searcher_.search(
        graph,
        [&](std::span<const Id> matches) {
          buffer.insert(buffer.end(), matches.begin(), matches.end());
          return true;
        },
        control.limit);
    if (control.accept(step.found)) {
      apply_batch(buffer);
    } else {
      step.refused = true;
    }
  }
  step.search_s = seconds_since(start) - step.apply_s;
  return step;
}

}  // namespace smelt::egraph
