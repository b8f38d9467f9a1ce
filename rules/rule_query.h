#pragma once
// A compiled rule's left side searched with egraph::Query, the e-graph's one
// matcher: each pattern node becomes a query node (an operator with any
// payload, or an op variable), and what the tensor rules add rides on query
// guards run as soon as what they read is bound: attribute bindings read from
// the matched e-node's payload (equal wherever an attribute variable recurs),
// the roots of a multi-pattern being different tensors, and the rule's
// conditions on the tensor analysis.
#include <chrono>
#include <cstddef>
#include <vector>

#include "egraph/egraph.h"
#include "rules/compiled_rule.h"
#include "rules/value.h"

namespace smelt::rules {

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
// cannot overrun a saturation's time limit). Returns how many were found.
size_t find_matches(const smelt::egraph::EGraph& graph, const CompiledRule& rule, size_t limit,
                    std::vector<RuleMatch>& out,
                    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

// What a rule's expressions see (expr_eval.h) of e-class `cls` and of e-node
// `node` (its op, attributes and operand dtypes): the facts every ExprEnv over a
// tensor e-graph answers with (`analysis` is the graph's tensor_analysis).
TensorFacts class_facts(const smelt::egraph::EGraph& graph, const TensorAnalysis& analysis, smelt::egraph::Id cls);
OpFacts node_facts(const smelt::egraph::EGraph& graph, const TensorAnalysis& analysis, smelt::egraph::Id node);

}  // namespace smelt::rules
