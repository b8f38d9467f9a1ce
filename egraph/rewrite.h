#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/pattern.h"
#include "egraph/query.h"
#include "egraph/scheduler.h"

namespace smelt::egraph {

// One match of a query: a class id per query variable.
class Match {
 public:
  Match(const Query& query, std::span<const Id> classes) : query_(&query), classes_(classes) {}
  Id root() const { return classes_[0]; }
  // Class bound to a variable ("?a"); throws std::out_of_range for unknown names.
  Id operator[](std::string_view var) const;
  std::span<const Id> classes() const { return classes_; }
  const Query& query() const { return *query_; }

 private:
  const Query* query_;
  std::span<const Id> classes_;
};

// Handed to C++ appliers: unite() records the rule as the reason, so
// explanations name it.
class ApplyContext {
 public:
  ApplyContext(EGraph& graph, Justification why) : graph_(graph), why_(why) {}
  EGraph& graph() { return graph_; }
  bool unite(Id a, Id b) {
    const bool changed = graph_.unite(a, b, why_);
    unions_ += changed ? 1 : 0;
    return changed;
  }
  std::size_t unions() const { return unions_; }

 private:
  EGraph& graph_;
  Justification why_;
  std::size_t unions_ = 0;
};

// Seconds since `start` on the steady clock: how the Runner and every Rewrite time themselves.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What one rule did in one iteration of a run (Rewrite::step).
struct RuleStep {
  std::size_t found = 0;    // matches the search found
  std::size_t applied = 0;  // matches handed to the applier (before conditions)
  std::size_t unions = 0;   // unions that changed the e-graph
  bool refused = false;     // the scheduler refused a limited search's matches
  double search_s = 0, apply_s = 0;
};

// How the Runner has a rule take one step.
struct StepControl {
  // Scheduler::match_limit (never 0). Scheduler::kUnlimited: apply every match
  // (a rule may apply batches as it finds them: the search reads a frozen
  // snapshot, so that equals searching first). Otherwise search at most
  // `limit` and apply only if `accept(found)` (Scheduler::should_apply).
  std::size_t limit = 0;
  std::function<bool(std::size_t found)> accept;
  // Polled between batches: a run limit was hit, stop early.
  std::function<bool()> stop;
  std::chrono::steady_clock::time_point deadline;  // the run's time limit, for long searches
  std::uint32_t rule_id = 0;  // EGraph::intern_rule(name()): the reason given for its unions
};

// A rule the Runner runs (egg's Rewrite: a searcher and an applier over one
// frozen snapshot per iteration). PatternRewrite is the e-graph's own; the
// tensor rules of rules/ (attribute bindings, op variables, conditions on the
// tensor analysis, group templates) plug in the same way.
class Rewrite {
 public:
  virtual ~Rewrite() = default;
  virtual std::string_view name() const = 0;
  // Searches and applies; throws what the rule's applier throws.
  virtual RuleStep step(EGraph& graph, const StepControl& control) const = 0;
};

// A named rewrite: a query (the left-hand side), an optional condition over
// the match and analysis data, and an applier that is either patterns or a
// C++ function.
class PatternRewrite final : public Rewrite {
 public:
  using Condition = std::function<bool(const EGraph&, const Match&)>;
  // Adds nodes through context.graph() and unites through context.unite().
  using ApplyFn = std::function<void(ApplyContext&, const Match&)>;

  // "(+ ?a ?b)" => "(+ ?b ?a)": the right-hand side is added and united with the match.
  static PatternRewrite parse(std::string name, std::string_view lhs, std::string_view rhs, SymbolTable& symbols,
                       Condition condition = {});
  // Multi-pattern rule: every rhs is "(= ?x PATTERN)", adding PATTERN and
  // uniting it with ?x, a variable of the left-hand side.
  static PatternRewrite parse_multi(std::string name, std::span<const std::string> lhs,
                             std::span<const std::string> rhs, SymbolTable& symbols, Condition condition = {});
  static PatternRewrite with_function(std::string name, Query searcher, ApplyFn applier, Condition condition = {});

  std::string_view name() const override { return name_; }
  const Query& searcher() const { return searcher_; }
  RuleStep step(EGraph& graph, const StepControl& control) const override;

  // Applies matches (flat, searcher().num_vars() ids each); returns how many
  // unions changed the e-graph. `rule_id` is the e-graph's id for this rule's name.
  std::size_t apply(EGraph& graph, std::span<const Id> matches, std::uint32_t rule_id) const;

 private:
  struct Target {
    std::uint32_t var = 0;                 // query variable to unite with
    Pattern pattern;                       // what to add
    std::vector<std::uint32_t> var_map;    // pattern var -> query var
  };
  std::size_t apply_batched(EGraph& graph, std::span<const Id> matches, Justification why) const;
  Id instantiate(EGraph& graph, const Pattern& pattern, std::span<const std::uint32_t> var_map,
                 std::span<const Id> match) const;
  void add_target(std::uint32_t var, Pattern pattern);

  std::string name_;
  Query searcher_;
  std::vector<Target> targets_;
  ApplyFn function_;
  Condition condition_;
  // Per-rule scratch for instantiation: values of pattern nodes and children.
  mutable std::vector<Id> values_;
  mutable std::vector<Id> children_;
  mutable std::vector<Id> match_buffer_;  // a limited search's matches
};

}  // namespace smelt::egraph
