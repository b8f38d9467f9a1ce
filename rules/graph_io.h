#pragma once
// smelt::ir::Graph ⇄ tensor e-graph: add a graph's values as e-nodes, and read a
// chosen term per class back as a graph.
#include <span>
#include <string>
#include <vector>

#include "egraph/egraph.h"
#include "ir/graph.h"

namespace smelt::rules {

struct GraphClasses {
  std::vector<smelt::egraph::Id> values;   // by ir::ValueId
  std::vector<smelt::egraph::Id> outputs;  // by output position
};

// Adds every value of `g` to a tensor e-graph (make_tensor_egraph); equal
// subterms share one class. Call graph.rebuild() before matching.
GraphClasses add_graph(smelt::egraph::EGraph& graph, const ir::Graph& g);

// One chosen e-node per class, indexed by class id (kNoId: none chosen).
using TermChoice = std::vector<smelt::egraph::Id>;

// The graph computing `roots` (its outputs, in order) from the chosen node of
// each needed class, in topological order. Its inputs are every input the
// e-graph has seen, in the order first seen (so the original graph's input
// values apply unchanged), even those the chosen terms no longer read.
// std::invalid_argument when a needed class has no choice or the choice is cyclic.
ir::Graph read_graph(const smelt::egraph::EGraph& graph, std::span<const smelt::egraph::Id> roots,
                     const TermChoice& choice, std::string name = {});

}  // namespace smelt::rules
