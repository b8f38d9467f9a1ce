#pragma once
// E-matching of compiled rules on a tensor e-graph. egraph::Query binds classes
// only; rules also bind attribute values and op variables, so this matcher
// walks the e-graph's ClassIndex itself: backtracking, top-down, the roots of a
// multi-pattern joined on their shared variables, each condition checked as
// soon as its variables are bound.
#include <chrono>
#include <cstddef>
#include <vector>

#include "egraph/egraph.h"
#include "rules/compiled_rule.h"
#include "rules/value.h"

namespace rules {

class TensorAnalysis;

struct RuleMatch {
  std::vector<smelt::egraph::Id> roots;     // the class matched by each left root
  std::vector<smelt::egraph::Id> tensors;   // by left-side tensor variable
  std::vector<smelt::egraph::Id> op_nodes;  // the e-node each op variable matched
  std::vector<Value> attrs;                 // by attribute variable
};

// Appends the matches of `rule` on the e-graph's ClassIndex snapshot (the
// e-graph must be clean, or its snapshot frozen by an IndexReadGuard) to
// `out`, stopping once `limit` were found or at `deadline` (so that one rule
// cannot overrun a saturation's time limit). The roots of a multi-pattern
// match different classes. Returns how many were found.
size_t find_matches(const smelt::egraph::EGraph& graph, const CompiledRule& rule, size_t limit,
                    std::vector<RuleMatch>& out,
                    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

// What a rule's expressions see (expr_eval.h) of e-class `cls` and of e-node
// `node` (its op, attributes and operand dtypes): the facts every ExprEnv over a
// tensor e-graph answers with (`analysis` is the graph's tensor_analysis).
TensorFacts class_facts(const smelt::egraph::EGraph& graph, const TensorAnalysis& analysis, smelt::egraph::Id cls);
OpFacts node_facts(const smelt::egraph::EGraph& graph, const TensorAnalysis& analysis, smelt::egraph::Id node);

}  // namespace rules
