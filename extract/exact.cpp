#include "extract/exact.h"

#include <cmath>

#include "extract/local_search.h"
#include "extract/maxsat.h"
#include "extract/reduce.h"

namespace smelt::extract {

bool same_cost(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::max(std::abs(a), std::abs(b))); }

ExtractResult ExactExtractor::extract(const Problem& problem, const ExtractOptions& options) const {
  const Deadline deadline(options.time_limit_s);
  const Reduction reduction = reduce(problem);
  const Problem& reduced = reduction.problem;

  // A good solution first: it is the answer if the solver stops without a better one.
  Extraction best{local_search_choice(reduced, deadline)};
  double best_cost = dag_cost(reduced, reachable_part(reduced, best));

  const MaxSatOutcome outcome = solve_maxsat(reduced, deadline.seconds_left());
  if (!outcome.choice.empty()) {
    const Extraction found{outcome.choice};
    // The model's choices are acyclic by construction; checked anyway, as every answer is.
    if (validate(reduced, found, 1).empty()) {
      const double cost = dag_cost(reduced, reachable_part(reduced, found));
      if (cost < best_cost) {
        best = found;
        best_cost = cost;
      }
    }
  }
  ExtractResult result;
  result.extraction = reachable_part(problem, expand(problem, reduction, reachable_part(reduced, best)));
  const double lower = std::min(outcome.lower_bound, best_cost);
  result.optimal = outcome.finished || same_cost(lower, best_cost);
  result.lower_bound = result.optimal ? best_cost : lower;
  if (!result.optimal) {
    // Z3 reports a timeout as "canceled" or "unknown"; the clock says which it was.
    result.note = "not proven optimal: " + (deadline.seconds_left() < 0.05 ? "time limit reached" : "Z3: " + outcome.status);
  }
  return result;
}

}  // namespace smelt::extract
