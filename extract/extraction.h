#pragma once
// An extraction: one chosen e-node per needed e-class, its costs, and its checks.
#include <string>
#include <vector>

#include "extract/problem.h"

namespace smelt::extract {

// choice[c] is the node chosen for class c, or kNone for a class not extracted.
struct Extraction {
  std::vector<NodeId> choice;
};

// Problems that make `extraction` not a term of `problem`: a root or a chosen
// node's child class without a choice, a choice outside its class, a cycle.
// Empty when valid. Classes not reachable from the roots are not checked.
std::vector<std::string> validate(const Problem& problem, const Extraction& extraction, std::size_t max_reports = 10);

// Keeps only the choices reachable from the roots (what dag_cost counts).
// Requires every reachable class to have a choice.
Extraction reachable_part(const Problem& problem, const Extraction& extraction);

// extraction-gym's definitions, summed in the same order so that equal choices
// give bit-identical numbers. Both require a valid (acyclic) extraction.
// Tree cost: each root's term as a tree, shared subterms counted once per use.
double tree_cost(const Problem& problem, const Extraction& extraction);
// DAG cost: sum of the costs of the distinct chosen nodes reachable from the roots.
double dag_cost(const Problem& problem, const Extraction& extraction);

}  // namespace smelt::extract
