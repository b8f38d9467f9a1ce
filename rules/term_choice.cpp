#include "rules/term_choice.h"

#include <functional>
#include <limits>
#include <queue>
#include <random>
#include <unordered_map>
#include <vector>

namespace smelt::rules {

using smelt::egraph::EGraph;
using smelt::egraph::Id;
using smelt::egraph::kNoId;

TermChoice cheapest_terms(const EGraph& graph, const std::function<double(Id node)>& node_cost) {
  // Knuth's generalization of Dijkstra: with positive costs a class's cost is
  // final when it is the least among the nodes whose children are all final,
  // so each node is costed and summed once: O(E log E), where relaxing every
  // class until nothing changes took one sweep of the whole e-graph per level
  // of a chain listed parents first (quadratic in a 5,000-op chain).
  const std::size_t ids = graph.num_ids();
  TermChoice choice(ids, kNoId);
  std::vector<double> best(ids, std::numeric_limits<double>::infinity());
  std::vector<std::vector<Id>> readers(ids);  // by class: nodes with it as a child, once per occurrence
  std::vector<std::size_t> waiting(ids, 0);   // by node: children whose class is not final yet
  std::vector<Id> class_of(ids, kNoId);       // by node
  using Entry = std::pair<double, Id>;        // (cost, node): ties go to the lower node id
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  auto push = [&](Id node) {
    double cost = node_cost(node);
    for (Id child : graph.node(node).children) cost += best[graph.find(child)];
    ready.emplace(cost, node);
  };
  for (Id cls : graph.classes())
    for (Id node : graph.class_nodes(cls)) {
      class_of[node] = cls;
      const auto children = graph.node(node).children;
      waiting[node] = children.size();
      for (Id child : children) readers[graph.find(child)].push_back(node);
      if (children.empty()) push(node);
    }
  while (!ready.empty()) {
    const auto [cost, node] = ready.top();
    ready.pop();
    const Id cls = class_of[node];
    if (choice[cls] != kNoId) continue;
    best[cls] = cost;
    choice[cls] = node;
    for (Id reader : readers[cls])
      if (--waiting[reader] == 0) push(reader);
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

}  // namespace smelt::rules
