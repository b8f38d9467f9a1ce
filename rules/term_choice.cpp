#include "rules/term_choice.h"

#include <limits>
#include <random>
#include <unordered_map>
#include <vector>

namespace rules {

using smelt::egraph::EGraph;
using smelt::egraph::Id;
using smelt::egraph::kNoId;

TermChoice cheapest_terms(const EGraph& graph, const std::function<double(Id node)>& node_cost) {
  const double kInf = std::numeric_limits<double>::infinity();
  TermChoice choice(graph.num_ids(), kNoId);
  std::vector<double> best(graph.num_ids(), kInf);
  // Bellman-Ford style relaxation until nothing improves: a class's cost only
  // falls, and strictly positive node costs keep every chosen path acyclic.
  for (bool changed = true; changed;) {
    changed = false;
    for (Id cls : graph.classes()) {
      for (Id node : graph.class_nodes(cls)) {
        double cost = node_cost(node);
        for (Id child : graph.node(node).children) cost += best[graph.find(child)];
        if (cost < best[cls]) {
          best[cls] = cost;
          choice[cls] = node;
          changed = true;
        }
      }
    }
  }
  return choice;
}

TermChoice smallest_terms(const EGraph& graph) {
  return cheapest_terms(graph, [](Id) { return 1.0; });
}

TermChoice random_terms(const EGraph& graph, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(1.0, 16.0);
  std::unordered_map<Id, double> costs;
  for (Id cls : graph.classes())
    for (Id node : graph.class_nodes(cls)) costs[node] = dist(rng);
  return cheapest_terms(graph, [&](Id node) { return costs.at(node); });
}

}  // namespace rules
