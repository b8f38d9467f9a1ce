#include "extract/reduce.h"

#include <algorithm>

#include "extract/bottom_up.h"

namespace smelt::extract {

namespace {

// Distinct child classes of n, sorted.
std::vector<ClassId> child_set(const Problem& problem, NodeId n) {
  std::vector<ClassId> kids(problem.children(n).begin(), problem.children(n).end());
  std::sort(kids.begin(), kids.end());
  kids.erase(std::unique(kids.begin(), kids.end()), kids.end());
  return kids;
}

// Nodes that are part of some acyclic term: a worklist over "children not yet
// known to have a term", seeded by leaves. Self-loop nodes never qualify.
std::vector<char> extractable_nodes(const Problem& problem) {
  std::vector<std::uint32_t> missing(problem.num_nodes());
  std::vector<std::vector<NodeId>> users(problem.num_classes());
  std::vector<char> node_ok(problem.num_nodes(), 0), class_ok(problem.num_classes(), 0);
  std::vector<NodeId> ready;
  for (NodeId n = 0; n < problem.num_nodes(); ++n) {
    const std::vector<ClassId> kids = child_set(problem, n);
    if (std::binary_search(kids.begin(), kids.end(), problem.class_of(n))) {
      missing[n] = UINT32_MAX;
      continue;
    }
    missing[n] = static_cast<std::uint32_t>(kids.size());
    for (ClassId k : kids) users[k].push_back(n);
    if (kids.empty()) ready.push_back(n);
  }
  while (!ready.empty()) {
    const NodeId n = ready.back();
    ready.pop_back();
    node_ok[n] = 1;
    const ClassId c = problem.class_of(n);
    if (class_ok[c]) continue;
    class_ok[c] = 1;
    for (NodeId user : users[c])
      if (--missing[user] == 0) ready.push_back(user);
  }
  return node_ok;
}

// Bit sets over classes, one row per class.
class ClassSets {
 public:
  ClassSets(std::size_t rows, std::size_t bits) : words_((bits + 63) / 64), data_(rows * words_, ~std::uint64_t{0}) {}
  std::uint64_t* row(std::size_t r) { return data_.data() + r * words_; }
  std::size_t words() const { return words_; }

 private:
  std::size_t words_;
  std::vector<std::uint64_t> data_;
};

// needs(c): classes that every acyclic term of c contains. The greatest
// fixpoint of needs(c) = {c} ∪ ⋂_{n ∈ c} ⋃_{k child of n} needs(k) is sound: by
// induction over a term's depth, needs(c) ⊆ the classes of each term of c.
// A node n of c with c ∈ needs(k) for a child k is only ever part of a cycle:
// it is dropped, and the sets recomputed, until nothing changes. Quadratic in
// the number of classes, so skipped above kMaxClasses.
void drop_nodes_that_need_their_own_class(const Problem& problem, std::vector<char>& keep) {
  constexpr std::size_t kMaxClasses = 40000;
  const std::size_t classes = problem.num_classes();
  if (classes > kMaxClasses) return;
  for (bool dropped = true; dropped;) {
    dropped = false;
    ClassSets needs(classes, classes);  // from the top again: dropped nodes make the sets grow
    const std::size_t words = needs.words();
    std::vector<std::uint64_t> meet(words), join(words);
    for (bool changed = true; changed;) {
      changed = false;
      for (ClassId c = 0; c < classes; ++c) {
        std::fill(meet.begin(), meet.end(), ~std::uint64_t{0});
        for (NodeId n : problem.nodes(c)) {
          if (!keep[n]) continue;
          std::fill(join.begin(), join.end(), 0);
          for (ClassId k : problem.children(n)) {
            const std::uint64_t* kid = needs.row(k);
            for (std::size_t w = 0; w < words; ++w) join[w] |= kid[w];
          }
          for (std::size_t w = 0; w < words; ++w) meet[w] &= join[w];
        }
        meet[c / 64] |= std::uint64_t{1} << (c % 64);
        std::uint64_t* mine = needs.row(c);
        for (std::size_t w = 0; w < words; ++w) {
          const std::uint64_t next = mine[w] & meet[w];  // sets only shrink: a descending iteration
          if (next != mine[w]) changed = true;
          mine[w] = next;
        }
      }
    }
    for (NodeId n = 0; n < problem.num_nodes(); ++n) {
      if (!keep[n]) continue;
      const ClassId c = problem.class_of(n);
      for (ClassId k : problem.children(n))
        if (needs.row(k)[c / 64] >> (c % 64) & 1) {
          keep[n] = 0;
          dropped = true;
          break;
        }
    }
  }
}

}  // namespace

Reduction reduce(const Problem& problem) {
  std::vector<char> keep = extractable_nodes(problem);
  drop_nodes_that_need_their_own_class(problem, keep);
  {
    std::vector<NodeId> choice(problem.num_classes(), kNone);
    for (NodeId n = 0; n < problem.num_nodes(); ++n)
      if (keep[n]) choice[problem.class_of(n)] = n;
    require_extractable_roots(problem, choice);
  }

  // Dominance inside each class; among equals the first node stays.
  for (ClassId c = 0; c < problem.num_classes(); ++c) {
    std::vector<std::pair<NodeId, std::vector<ClassId>>> alive;
    for (NodeId n : problem.nodes(c))
      if (keep[n]) alive.emplace_back(n, child_set(problem, n));
    for (std::size_t i = 0; i < alive.size(); ++i) {
      const auto& [n, kids] = alive[i];
      for (std::size_t j = 0; j < alive.size() && keep[n]; ++j) {
        const auto& [m, other] = alive[j];
        if (i == j || !keep[m] || problem.cost(m) > problem.cost(n)) continue;
        if (!std::includes(kids.begin(), kids.end(), other.begin(), other.end())) continue;
        const bool strictly = problem.cost(m) < problem.cost(n) || other.size() < kids.size() || j < i;
        if (strictly) keep[n] = 0;
      }
    }
  }

  // Classes reachable from the roots through kept nodes, numbered in order of discovery.
  Reduction out{Problem({}, {}, {}, {}), {}, {}};
  std::vector<ClassId> new_class(problem.num_classes(), kNone);
  std::vector<ClassId> stack;
  auto visit = [&](ClassId c) {
    if (new_class[c] != kNone) return;
    new_class[c] = static_cast<ClassId>(out.original_class.size());
    out.original_class.push_back(c);
    stack.push_back(c);
  };
  for (ClassId root : problem.roots()) visit(root);
  while (!stack.empty()) {
    const ClassId c = stack.back();
    stack.pop_back();
    for (NodeId n : problem.nodes(c))
      if (keep[n])
        for (ClassId k : problem.children(n)) visit(k);
  }

  std::vector<ClassId> node_class;
  std::vector<double> cost;
  std::vector<std::vector<ClassId>> children;
  std::vector<std::string> node_names, class_names;
  for (ClassId c : out.original_class) {
    class_names.push_back(problem.class_name(c));
    for (NodeId n : problem.nodes(c)) {
      if (!keep[n]) continue;
      out.original_node.push_back(n);
      node_class.push_back(new_class[c]);
      cost.push_back(problem.cost(n));
      std::vector<ClassId>& kids = children.emplace_back();
      for (ClassId k : problem.children(n)) kids.push_back(new_class[k]);
      node_names.push_back(problem.node_name(n));
    }
  }
  std::vector<ClassId> roots;
  for (ClassId root : problem.roots()) roots.push_back(new_class[root]);
  out.problem = Problem(std::move(node_class), std::move(cost), children, std::move(roots), std::move(node_names),
                        std::move(class_names));
  return out;
}

Extraction expand(const Problem& input, const Reduction& reduction, const Extraction& reduced) {
  Extraction out{std::vector<NodeId>(input.num_classes(), kNone)};
  for (ClassId c = 0; c < reduced.choice.size(); ++c)
    if (reduced.choice[c] != kNone) out.choice[reduction.original_class[c]] = reduction.original_node[reduced.choice[c]];
  return out;
}

}  // namespace smelt::extract
