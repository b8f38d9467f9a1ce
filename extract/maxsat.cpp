#include "extract/maxsat.h"

#include <z3++.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <cstdio>

#include "extract/scc.h"

namespace smelt::extract {

MaxSatOutcome solve_maxsat(const Problem& problem, double seconds) {
  MaxSatOutcome out;
  z3::context ctx;
  z3::optimize opt(ctx);
  z3::params params(ctx);
  params.set("timeout", static_cast<unsigned>(std::clamp(seconds, 0.001, 4e6) * 1000));
  opt.set(params);

  const Components components = class_components(problem);
  std::vector<z3::expr> needed, chosen, level;
  needed.reserve(problem.num_classes());
  chosen.reserve(problem.num_nodes());
  for (ClassId c = 0; c < problem.num_classes(); ++c) {
    const std::string id = std::to_string(c);
    needed.push_back(ctx.bool_const(("a" + id).c_str()));
    // Levels only where a cycle is possible.
    level.push_back(components.size[components.of_class[c]] > 1 ? ctx.int_const(("l" + id).c_str()) : ctx.int_val(0));
  }
  for (NodeId n = 0; n < problem.num_nodes(); ++n) chosen.push_back(ctx.bool_const(("x" + std::to_string(n)).c_str()));

  for (ClassId root : problem.roots()) opt.add(needed[root]);
  for (ClassId c = 0; c < problem.num_classes(); ++c) {
    z3::expr_vector options(ctx);
    for (NodeId n : problem.nodes(c)) options.push_back(chosen[n]);
    opt.add(z3::implies(needed[c], z3::mk_or(options)));
    for (NodeId n : problem.nodes(c)) {
      opt.add(z3::implies(chosen[n], needed[c]));  // no stray choices
      for (ClassId k : problem.children(n)) {
        opt.add(z3::implies(chosen[n], needed[k]));
        if (components.of_class[k] == components.of_class[c]) opt.add(z3::implies(chosen[n], level[c] > level[k]));
      }
    }
  }
  char weight[64];
  std::optional<z3::optimize::handle> objective;
  for (NodeId n = 0; n < problem.num_nodes(); ++n) {
    if (problem.cost(n) == 0) continue;
    std::snprintf(weight, sizeof weight, "%.20f", problem.cost(n));
    objective = opt.add_soft(!chosen[n], weight);
  }

  const z3::check_result result = opt.check();
  if (result == z3::unsat) {
    out.status = "no valid extraction";  // cannot happen for a reduced problem: its roots have terms
    return out;
  }
  out.finished = result == z3::sat;
  if (!out.finished) out.status = Z3_optimize_get_reason_unknown(ctx, opt);
  try {
    const z3::model model = opt.get_model();
    out.choice.assign(problem.num_classes(), kNone);
    for (ClassId c = 0; c < problem.num_classes(); ++c)
      for (NodeId n : problem.nodes(c))
        if (out.choice[c] == kNone && model.eval(chosen[n], true).is_true()) out.choice[c] = n;
  } catch (const z3::exception&) {
    out.choice.clear();  // stopped before the first model
  }
  if (objective) {
    // Rounded down so that the bound stays a bound after conversion to double.
    const double lower = opt.lower(*objective).as_double();
    out.lower_bound = std::max(0.0, std::nextafter(lower, -INFINITY));
  } else {
    out.lower_bound = 0;  // every node is free
  }
  return out;
}

}  // namespace smelt::extract
