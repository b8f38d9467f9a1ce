#include "extract/greedy_dag.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <deque>
#include <functional>

#include "extract/bottom_up.h"

namespace smelt::extract {

namespace {


// The classes one term of a class needs, each with the cost of its chosen node,
// sorted by class id.
struct CostSet {
  std::vector<std::pair<ClassId, double>> entries;
  double total = kInf;
  NodeId choice = kNone;
};

// Ranks of names in string order: the reference orders class ids as strings.
std::vector<std::uint32_t> name_ranks(std::size_t count, const std::function<const std::string&(std::uint32_t)>& name) {
  std::vector<std::uint32_t> order(count);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return name(a) < name(b); });
  std::vector<std::uint32_t> rank(count);
  for (std::uint32_t i = 0; i < count; ++i) rank[order[i]] = i;
  return rank;
}

// into ∪ from, a key in both taking from's value.
void merge_overwriting(std::vector<std::pair<ClassId, double>>& into, const std::vector<std::pair<ClassId, double>>& from,
                       std::vector<std::pair<ClassId, double>>& scratch) {
  scratch.clear();
  scratch.reserve(into.size() + from.size());
  auto a = into.begin();
  auto b = from.begin();
  while (a != into.end() && b != from.end()) {
    if (a->first < b->first) {
      scratch.push_back(*a++);
    } else {
      if (a->first == b->first) ++a;
      scratch.push_back(*b++);
    }
  }
  scratch.insert(scratch.end(), a, into.end());
  scratch.insert(scratch.end(), b, from.end());
  into.swap(scratch);
}

class GreedyDag {
 public:
  explicit GreedyDag(const Problem& problem)
      : p_(problem),
        class_rank_(name_ranks(problem.num_classes(), [&](std::uint32_t c) -> const std::string& { return problem.class_name(c); })),
        sets_(problem.num_classes()),
        parents_(problem.num_classes()),
        queued_(problem.num_nodes(), 0) {}

  std::vector<NodeId> run() {
    for (ClassId c = 0; c < p_.num_classes(); ++c)
      for (NodeId n : p_.nodes(c)) {
        for (ClassId child : p_.children(n)) parents_[child].push_back(n);
        if (p_.children(n).empty()) push(n);
      }
    while (!fifo_.empty()) {
      const NodeId n = fifo_.front();
      fifo_.pop_front();
      queued_[n] = 0;
      const ClassId c = p_.class_of(n);
      const auto kids = p_.children(n);
      if (!std::all_of(kids.begin(), kids.end(), [&](ClassId k) { return sets_[k].choice != kNone; })) continue;
      CostSet next = cost_set(n, sets_[c].total);
      if (next.total < sets_[c].total) {
        sets_[c] = std::move(next);
        for (NodeId parent : parents_[c]) push(parent);
      }
    }
    std::vector<NodeId> choice(p_.num_classes(), kNone);
    for (ClassId c = 0; c < p_.num_classes(); ++c) choice[c] = sets_[c].choice;
    return choice;
  }

 private:
  // A FIFO that holds each node at most once.
  void push(NodeId n) {
    if (queued_[n]) return;
    queued_[n] = 1;
    fifo_.push_back(n);
  }

  CostSet cost_set(NodeId n, double best) {
    const ClassId c = p_.class_of(n);
    CostSet out;
    out.choice = n;
    if (p_.children(n).empty()) {
      out.entries = {{c, p_.cost(n)}};
      out.total = p_.cost(n);
      return out;
    }
    kids_.assign(p_.children(n).begin(), p_.children(n).end());
    std::sort(kids_.begin(), kids_.end(), [&](ClassId a, ClassId b) { return class_rank_[a] < class_rank_[b]; });
    kids_.erase(std::unique(kids_.begin(), kids_.end()), kids_.end());
    if (std::find(kids_.begin(), kids_.end(), c) != kids_.end() ||
        (kids_.size() == 1 && p_.cost(n) + sets_[kids_[0]].total > best))
      return out;  // a self-loop, or no cheaper than the class already is
    // The last of the largest sets is copied, the others inserted over it in order.
    ClassId biggest = kids_[0];
    for (ClassId k : kids_)
      if (sets_[k].entries.size() >= sets_[biggest].entries.size()) biggest = k;
    out.entries = sets_[biggest].entries;
    for (ClassId k : kids_)
      if (k != biggest) merge_overwriting(out.entries, sets_[k].entries, scratch_);
    const auto self = std::lower_bound(out.entries.begin(), out.entries.end(), std::pair<ClassId, double>{c, -kInf});
    if (self != out.entries.end() && self->first == c) return out;  // the term needs its own class: a cycle
    out.entries.insert(self, {c, p_.cost(n)});
    out.total = 0;
    for (const auto& entry : out.entries) out.total += entry.second;
    return out;
  }

  const Problem& p_;
  std::vector<std::uint32_t> class_rank_;
  std::vector<CostSet> sets_;
  std::vector<std::vector<NodeId>> parents_;
  std::vector<char> queued_;
  std::deque<NodeId> fifo_;
  std::vector<ClassId> kids_;
  std::vector<std::pair<ClassId, double>> scratch_;
};

}  // namespace

ExtractResult GreedyDagExtractor::extract(const Problem& problem, const ExtractOptions&) const {
  std::vector<NodeId> choice = GreedyDag(problem).run();
  require_extractable_roots(problem, choice);
  Extraction extraction{std::move(choice)};
  // Each class keeps the choice of its own best set; two such choices can in
  // principle close a cycle. Then the tree-cost choice (always acyclic) is used.
  if (!validate(problem, extraction, 1).empty())
    return {reachable_part(problem, Extraction{tree_costs(problem).choice}), std::nullopt, false,
            "greedy choices formed a cycle; fell back to bottom-up"};
  return {reachable_part(problem, extraction), std::nullopt, false, ""};
}

}  // namespace smelt::extract
