#pragma once
// Simple term choices over a tensor e-graph, for tests and tools: per class the
// node of least tree cost (egg's AstSize-style extractor). The real,
// fusion-aware extractors live in extract/.
#include <cstdint>
#include <functional>

#include "egraph/egraph.h"
#include "rules/graph_io.h"

namespace smelt::rules {

// Per class the node minimizing node_cost(node) + Σ cost of its children's
// classes. Costs must be positive, which makes every choice acyclic. The
// e-graph must be clean (rebuilt).
TermChoice cheapest_terms(const smelt::egraph::EGraph& graph,
                          const std::function<double(smelt::egraph::Id node)>& node_cost);

// Fewest nodes (tree size).
TermChoice smallest_terms(const smelt::egraph::EGraph& graph);

// A random acyclic choice: random node costs in [1, 16) drawn from `seed`.
TermChoice random_terms(const smelt::egraph::EGraph& graph, uint64_t seed);

}  // namespace smelt::rules
