#include "extract/local_search.h"

#include <cmath>
#include <limits>

#include "extract/bottom_up.h"
#include "extract/greedy_dag.h"

namespace smelt::extract {

namespace {


bool improves(double candidate, double best) { return candidate < best - 1e-12 * std::max(1.0, std::abs(best)); }

}  // namespace

DagEvaluator::DagEvaluator(const Problem& problem) : problem_(problem), mark_(problem.num_classes(), 0) {}

double DagEvaluator::cost(const std::vector<NodeId>& choice) {
  if (epoch_ > UINT32_MAX - 4) {
    std::fill(mark_.begin(), mark_.end(), 0);
    epoch_ = 0;
  }
  epoch_ += 2;
  const std::uint32_t done = epoch_, open = epoch_ + 1;
  order_.clear();
  double total = 0;
  for (ClassId root : problem_.roots()) {
    if (mark_[root] == done) continue;
    if (choice[root] == kNone) return kInf;
    mark_[root] = open;
    stack_.assign(1, {root, 0});
    while (!stack_.empty()) {
      auto& [c, next] = stack_.back();
      const auto kids = problem_.children(choice[c]);
      if (next == kids.size()) {
        mark_[c] = done;
        total += problem_.cost(choice[c]);
        order_.push_back(c);
        stack_.pop_back();
        continue;
      }
      const ClassId k = kids[next++];
      if (mark_[k] == done) continue;
      if (mark_[k] == open || choice[k] == kNone) return kInf;  // a cycle, or no term
      mark_[k] = open;
      stack_.emplace_back(k, 0);
    }
  }
  return total;
}

std::vector<NodeId> improve_locally(const Problem& problem, std::vector<NodeId> choice, const Deadline& deadline) {
  DagEvaluator eval(problem);
  double best = eval.cost(choice);
  if (best == kInf) return choice;
  for (bool improved = true; improved && !deadline.passed();) {
    improved = false;
    // Parents first: changing a class high up frees or pulls in whole subterms.
    const std::vector<ClassId> classes(eval.reached().rbegin(), eval.reached().rend());
    for (ClassId c : classes) {
      if (deadline.passed()) break;
      const NodeId current = choice[c];
      NodeId best_node = current;
      for (NodeId n : problem.nodes(c)) {
        if (n == current) continue;
        choice[c] = n;
        const double cost = eval.cost(choice);
        if (improves(cost, best)) {
          best = cost;
          best_node = n;
        }
      }
      choice[c] = best_node;
      if (best_node != current) improved = true;
    }
    eval.cost(choice);  // refresh reached() for the next pass
  }
  return choice;
}

std::vector<NodeId> local_search_choice(const Problem& problem, const Deadline& deadline) {
  const TreeCosts tree = tree_costs(problem);
  require_extractable_roots(problem, tree.choice);
  // Greedy-dag's choices where it has them, tree-cost choices elsewhere.
  std::vector<NodeId> greedy = GreedyDagExtractor().extract(problem, {}).extraction.choice;
  for (ClassId c = 0; c < problem.num_classes(); ++c)
    if (greedy[c] == kNone) greedy[c] = tree.choice[c];
  std::vector<NodeId> a = improve_locally(problem, tree.choice, deadline);
  std::vector<NodeId> b = improve_locally(problem, std::move(greedy), deadline);
  DagEvaluator eval(problem);
  const double cost_a = eval.cost(a);
  return eval.cost(b) < cost_a ? b : a;
}

ExtractResult LocalSearchExtractor::extract(const Problem& problem, const ExtractOptions& options) const {
  const Deadline deadline(options.time_limit_s);
  return {reachable_part(problem, Extraction{local_search_choice(problem, deadline)}), std::nullopt, false, ""};
}

}  // namespace smelt::extract
