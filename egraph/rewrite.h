#pragma once
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

// A named rewrite: a query (the left-hand side), an optional condition over
// the match and analysis data, and an applier that is either patterns or a
// C++ function.
class Rewrite {
 public:
  using Condition = std::function<bool(const EGraph&, const Match&)>;
  // Adds nodes through context.graph() and unites through context.unite().
  using ApplyFn = std::function<void(ApplyContext&, const Match&)>;

  // "(+ ?a ?b)" => "(+ ?b ?a)": the right-hand side is added and united with the match.
  static Rewrite parse(std::string name, std::string_view lhs, std::string_view rhs, SymbolTable& symbols,
                       Condition condition = {});
  // Multi-pattern rule: every rhs is "(= ?x PATTERN)", adding PATTERN and
  // uniting it with ?x, a variable of the left-hand side.
  static Rewrite parse_multi(std::string name, std::span<const std::string> lhs,
                             std::span<const std::string> rhs, SymbolTable& symbols, Condition condition = {});
  static Rewrite with_function(std::string name, Query searcher, ApplyFn applier, Condition condition = {});

  const std::string& name() const { return name_; }
  const Query& searcher() const { return searcher_; }

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
};

}  // namespace smelt::egraph
