#include "extract/extraction.h"

#include <cstdint>

namespace smelt::extract {

namespace {

enum class Mark : std::uint8_t { kUnseen, kOpen, kDone };

std::string class_label(const Problem& problem, ClassId c) {
  return problem.class_name(c).empty() ? "class " + std::to_string(c) : "class \"" + problem.class_name(c) + "\"";
}

}  // namespace

std::vector<std::string> validate(const Problem& problem, const Extraction& extraction, std::size_t max_reports) {
  std::vector<std::string> problems;
  auto report = [&](std::string text) {
    if (problems.size() < max_reports) problems.push_back(std::move(text));
  };
  if (extraction.choice.size() != problem.num_classes()) {
    report("extraction has " + std::to_string(extraction.choice.size()) + " choices for " +
           std::to_string(problem.num_classes()) + " classes");
    return problems;
  }
  auto usable = [&](ClassId c) {
    const NodeId n = extraction.choice[c];
    if (n == kNone) return false;
    if (n >= problem.num_nodes() || problem.class_of(n) != c) {
      report(class_label(problem, c) + ": chosen node " + std::to_string(n) + " is not in the class");
      return false;
    }
    return true;
  };
  for (ClassId root : problem.roots())
    if (extraction.choice[root] == kNone) report("root " + class_label(problem, root) + " has no choice");

  // Iterative DFS over chosen nodes: an edge into an open class closes a cycle.
  std::vector<Mark> mark(problem.num_classes(), Mark::kUnseen);
  std::vector<std::pair<ClassId, std::uint32_t>> stack;  // class, next child position
  for (ClassId root : problem.roots()) {
    if (mark[root] != Mark::kUnseen || !usable(root)) continue;
    mark[root] = Mark::kOpen;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [c, next] = stack.back();
      const auto kids = problem.children(extraction.choice[c]);
      if (next == kids.size()) {
        mark[c] = Mark::kDone;
        stack.pop_back();
        continue;
      }
      const ClassId child = kids[next++];
      if (mark[child] == Mark::kOpen) {
        report("cycle: " + class_label(problem, c) + " reaches itself through " + class_label(problem, child));
      } else if (mark[child] == Mark::kUnseen) {
        if (extraction.choice[child] == kNone) {
          report(class_label(problem, c) + ": child " + class_label(problem, child) + " has no choice");
          mark[child] = Mark::kDone;
        } else if (usable(child)) {
          mark[child] = Mark::kOpen;
          stack.emplace_back(child, 0);
        } else {
          mark[child] = Mark::kDone;
        }
      }
    }
  }
  return problems;
}

Extraction reachable_part(const Problem& problem, const Extraction& extraction) {
  Extraction out{std::vector<NodeId>(problem.num_classes(), kNone)};
  std::vector<ClassId> stack(problem.roots().begin(), problem.roots().end());
  while (!stack.empty()) {
    const ClassId c = stack.back();
    stack.pop_back();
    if (out.choice[c] != kNone) continue;
    out.choice[c] = extraction.choice[c];
    for (ClassId child : problem.children(out.choice[c]))
      if (out.choice[child] == kNone) stack.push_back(child);
  }
  return out;
}

double tree_cost(const Problem& problem, const Extraction& extraction) {
  // memo[c]: cost of class c's term = node cost + children's terms, left to right.
  constexpr double kUnknown = -1;
  std::vector<double> memo(problem.num_classes(), kUnknown);
  std::vector<std::pair<ClassId, std::uint32_t>> stack;
  auto value = [&](ClassId root) {
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [c, next] = stack.back();
      const NodeId n = extraction.choice[c];
      const auto kids = problem.children(n);
      while (next < kids.size() && memo[kids[next]] != kUnknown) ++next;
      if (next < kids.size()) {
        stack.emplace_back(kids[next], 0);
        continue;
      }
      double inner = 0;
      for (ClassId child : kids) inner += memo[child];
      memo[c] = problem.cost(n) + inner;
      stack.pop_back();
    }
    return memo[root];
  };
  double total = 0;
  for (ClassId root : problem.roots()) total += memo[root] != kUnknown ? memo[root] : value(root);
  return total;
}

double dag_cost(const Problem& problem, const Extraction& extraction) {
  // Classes in order of first visit by a LIFO walk from the roots, as extraction-gym sums them.
  std::vector<char> seen(problem.num_classes(), 0);
  std::vector<ClassId> todo(problem.roots().begin(), problem.roots().end());
  double total = 0;
  while (!todo.empty()) {
    const ClassId c = todo.back();
    todo.pop_back();
    if (seen[c]) continue;
    seen[c] = 1;
    const NodeId n = extraction.choice[c];
    total += problem.cost(n);
    const auto kids = problem.children(n);
    todo.insert(todo.end(), kids.begin(), kids.end());
  }
  return total;
}

}  // namespace smelt::extract
