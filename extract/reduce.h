#pragma once
// Shrinks a problem without changing its optimal DAG cost: what the exact
// extractor searches.
#include <vector>

#include "extract/extraction.h"
#include "extract/problem.h"

namespace smelt::extract {

struct Reduction {
  Problem problem;                     // the smaller problem
  std::vector<NodeId> original_node;   // its node -> the input's node
  std::vector<ClassId> original_class; // its class -> the input's class
};

// Drops, in order: nodes that can never be in an acyclic term (a child is the
// node's own class, or a child class has no acyclic term); nodes dominated by a
// node of the same class that costs no more and needs a subset of its child
// classes (swapping one for the other never adds a cycle or cost); classes
// the roots no longer reach. Throws ProblemError when a root has no acyclic term.
Reduction reduce(const Problem& problem);

// An extraction of the reduced problem as an extraction of the input.
Extraction expand(const Problem& input, const Reduction& reduction, const Extraction& reduced);

}  // namespace smelt::extract
