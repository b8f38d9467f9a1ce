#pragma once
// Exact DAG extraction as weighted MaxSAT modulo difference constraints, solved
// by Z3's optimizer (core-guided MaxRes: its lower bound rises as it works).
#include <string>
#include <vector>

#include "extract/problem.h"

namespace smelt::extract {

struct MaxSatOutcome {
  std::vector<NodeId> choice;  // the best model's choice per class (kNone: not needed); empty without a model
  double lower_bound = 0;      // proven: no valid extraction costs less
  bool finished = false;       // Z3 proved `choice` optimal
  std::string status;          // Z3's reason when it did not finish
};

// Variables: a_c (class c is needed), x_n (node n chosen). Hard: roots needed;
// a needed class chooses a node; a chosen node needs its child classes; inside a
// strongly connected component an integer level per class decreases along every
// chosen edge, so the chosen nodes never form a cycle. Soft: not x_n, weight
// cost(n). Costs are passed to Z3 as 20-digit decimals.
MaxSatOutcome solve_maxsat(const Problem& problem, double seconds);

}  // namespace smelt::extract
