#include "extract/bottom_up.h"

#include <limits>

namespace smelt::extract {

TreeCosts tree_costs(const Problem& problem) {
  TreeCosts out{std::vector<double>(problem.num_classes(), kInf), std::vector<NodeId>(problem.num_classes(), kNone)};
  bool changed = true;
  while (changed) {
    changed = false;
    for (ClassId c = 0; c < problem.num_classes(); ++c) {
      for (NodeId n : problem.nodes(c)) {
        double children = 0;
        for (ClassId child : problem.children(n)) children += out.cost[child];
        const double cost = problem.cost(n) + children;
        if (cost < out.cost[c]) {
          out.cost[c] = cost;
          out.choice[c] = n;
          changed = true;
        }
      }
    }
  }
  return out;
}

void require_extractable_roots(const Problem& problem, const std::vector<NodeId>& choice) {
  for (ClassId root : problem.roots())
    if (choice[root] == kNone)
      throw ProblemError("root class " +
                         (problem.class_name(root).empty() ? std::to_string(root) : "\"" + problem.class_name(root) + "\"") +
                         " has no acyclic term");
}

ExtractResult BottomUpExtractor::extract(const Problem& problem, const ExtractOptions&) const {
  TreeCosts costs = tree_costs(problem);
  require_extractable_roots(problem, costs.choice);
  return {reachable_part(problem, Extraction{std::move(costs.choice)}), std::nullopt, false, ""};
}

}  // namespace smelt::extract
