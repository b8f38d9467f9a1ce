#pragma once
// A part of a saturated e-graph in a canonical order: the classes reachable
// from the part's roots through every e-node, stopped at its leaves (values
// other parts store), numbered breadth-first with each class's nodes sorted
// by op and attributes. Two parts with equal keys are isomorphic — every
// class, node, attribute, type and edge in the same place — apart from their
// long literals (weights: only their dtype and shape count), so one part's
// extraction is the other's: GPT-2's twelve layers are one search and eleven
// look-ups.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "egraph/egraph.h"
#include "fusion/fusion_term.h"

namespace smelt::fusion {

struct PartShape {
  std::string key;                            // equal keys: isomorphic parts
  std::vector<egraph::Id> classes;            // canonical order (leaves included)
  std::vector<std::vector<egraph::Id>> nodes;  // by canonical class: its nodes in canonical order (leaves: none)
};

// `boundary[c]` (by class id) stops the walk at class c: kLeaf, read as an
// input; kOutside, another part's value the part may not reach.
PartShape part_shape(const egraph::EGraph& graph, std::span<const egraph::Id> roots,
                     const std::vector<ClassBoundary>& boundary);

// The choice and materialization `from` made, carried to the isomorphic `to`
// (equal keys): node j of class i of `from` becomes node j of class i of `to`.
void carry_choices(const PartShape& from, const PartShape& to, const std::vector<egraph::Id>& from_choice,
                   const std::vector<bool>& from_materialized, std::vector<egraph::Id>& to_choice,
                   std::vector<bool>& to_materialized);

}  // namespace smelt::fusion
