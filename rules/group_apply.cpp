#include "rules/group_apply.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "rules/rule_query.h"
#include "rules/rhs_builder.h"
#include "rules/tensor_analysis.h"

namespace smelt::rules {

using smelt::egraph::EGraph;
using smelt::egraph::Id;
using smelt::egraph::NodeView;

namespace {

// Conditions evaluated on a match that was assembled, not found.
class MatchEnv final : public ExprEnv {
 public:
  MatchEnv(const EGraph& graph, const RuleMatch& match)
      : graph_(graph), analysis_(tensor_analysis(graph)), match_(match) {}

  const Value& attr_var(int index) const override { return match_.attrs[index]; }
  TensorFacts tensor_var(int index) const override { return class_facts(graph_, analysis_, match_.tensors[index]); }
  OpFacts op_var(int index) const override { return node_facts(graph_, analysis_, match_.op_nodes[index]); }

 private:
  const EGraph& graph_;
  const TensorAnalysis& analysis_;
  const RuleMatch& match_;
};

bool conditions_hold(const EGraph& graph, const CompiledRule& rule, const RuleMatch& match) {
  const MatchEnv env(graph, match);
  return std::all_of(rule.conditions.begin(), rule.conditions.end(),
                     [&](const CExpr& c) { return holds(c, env); });
}

// Where an instance variable's value comes from: member k's match, under the
// member pattern's name for it.
struct Source {
  int member = 0;
  std::string name;
};

Source source_of(const std::string& name, const CompiledRule& instance, size_t member_pattern_size) {
  const GroupInfo& g = *instance.group;
  if (name.starts_with("%")) {  // a hidden attribute variable "%key@INDEX" of the left side
    const size_t at = name.rfind('@');
    const size_t index = std::stoul(name.substr(at + 1));
    return {static_cast<int>(index / member_pattern_size),
            name.substr(0, at + 1) + std::to_string(index % member_pattern_size)};
  }
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos &&
      std::find(g.member_vars.begin(), g.member_vars.end(), name.substr(0, dot)) != g.member_vars.end())
    return {std::stoi(name.substr(dot + 1)), name.substr(0, dot) + ".0"};
  return {0, name};
}

// The match of `instance` whose member k is members[k].
RuleMatch assemble(const CompiledRule& instance, std::span<const RuleMatch* const> members) {
  const CompiledRule& member = *instance.member;
  if (instance.pattern.size() != members.size() * member.pattern.size())
    throw std::logic_error("rule " + instance.name + ": its members are not copies of the member pattern");
  RuleMatch m;
  for (const RuleMatch* k : members) m.roots.push_back(k->roots[0]);
  m.tensors.assign(instance.lhs_tensors, smelt::egraph::kNoId);
  m.op_nodes.assign(instance.vars.ops, smelt::egraph::kNoId);
  m.attrs.assign(instance.vars.attrs, Value{});
  for (const auto& [name, slot] : instance.vars.slots) {
    if (slot.kind == VarIndex::Kind::kTensor && slot.index >= instance.lhs_tensors) continue;  // a :let
    const Source src = source_of(name, instance, member.pattern.size());
    const std::optional<VarIndex::Slot> from = member.vars.find(src.name);
    if (!from || from->kind != slot.kind || src.member >= static_cast<int>(members.size()))
      throw std::logic_error("rule " + instance.name + ": no member binds " + name);
    const RuleMatch& k = *members[src.member];
    switch (slot.kind) {
      case VarIndex::Kind::kTensor: m.tensors[slot.index] = k.tensors[from->index]; break;
      case VarIndex::Kind::kOp: m.op_nodes[slot.index] = k.op_nodes[from->index]; break;
      case VarIndex::Kind::kAttr: m.attrs[slot.index] = k.attrs[from->index]; break;
    }
  }
  return m;
}

// Whether two member matches bind the shared variables alike.
bool same_shared(const EGraph& graph, const CompiledRule& member, const GroupInfo& g, const RuleMatch& a,
                 const RuleMatch& b) {
  for (const std::string& name : g.shared) {
    const VarIndex::Slot slot = *member.vars.find(name);
    switch (slot.kind) {
      case VarIndex::Kind::kTensor:
        if (graph.find(a.tensors[slot.index]) != graph.find(b.tensors[slot.index])) return false;
        break;
      case VarIndex::Kind::kOp: {
        const NodeView x = graph.node(a.op_nodes[slot.index]), y = graph.node(b.op_nodes[slot.index]);
        if (x.op != y.op || x.payload != y.payload) return false;
        break;
      }
      case VarIndex::Kind::kAttr:
        if (!identical(a.attrs[slot.index], b.attrs[slot.index])) return false;
        break;
    }
  }
  return true;
}

// Whether `candidate` binds each :distinct variable to another class than
// every member of `cluster` does.
bool distinct_from(const EGraph& graph, const CompiledRule& member, const GroupInfo& g,
                   const std::vector<const RuleMatch*>& cluster, const RuleMatch& candidate) {
  for (const std::string& name : g.distinct) {
    const size_t slot = member.vars.find(name + ".0")->index;
    for (const RuleMatch* m : cluster)
      if (graph.find(m->tensors[slot]) == graph.find(candidate.tensors[slot])) return false;
  }
  return true;
}

// Levels of the members of one group (-1: on a cycle of members, left out).
std::vector<int> levels(const EGraph& graph, const std::vector<Id>& member_classes) {
  const size_t n = member_classes.size();
  // below[i]: the members that member i reaches through its operands.
  std::vector<std::vector<size_t>> below(n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<Id> stack;
    std::vector<bool> seen;
    auto visit = [&](Id cls) {
      cls = graph.find(cls);
      if (seen.size() <= cls) seen.resize(cls + 1, false);
      if (seen[cls]) return;
      seen[cls] = true;
      stack.push_back(cls);
    };
    for (Id node : graph.class_nodes(member_classes[i]))
      for (Id child : graph.node(node).children) visit(child);
    while (!stack.empty()) {
      const Id cls = stack.back();
      stack.pop_back();
      for (Id node : graph.class_nodes(cls))
        for (Id child : graph.node(node).children) visit(child);
    }
    for (size_t j = 0; j < n; ++j)
      if (j != i && member_classes[j] < seen.size() && seen[member_classes[j]]) below[i].push_back(j);
  }
  std::vector<int> level(n, -2);  // -2: not computed, -3: being computed
  auto compute = [&](auto&& self, size_t i) -> int {
    if (level[i] == -3) return -1;
    if (level[i] != -2) return level[i];
    level[i] = -3;
    int mine = 0;
    for (size_t j : below[i]) {
      const int l = self(self, j);
      if (l < 0) {
        mine = -1;
        break;
      }
      mine = std::max(mine, l + 1);
    }
    level[i] = mine;
    return mine;
  };
  for (size_t i = 0; i < n; ++i) compute(compute, i);
  return level;
}

}  // namespace

namespace {

// One chunk of a cluster: the instance applied (a position in the span) and
// its member count (an on-demand instance of a member lemma: any count).
struct Chunk {
  size_t instance;
  size_t members;
};

// The chunks a cluster of `size` members is cut into: as few as the largest
// instance allows, of sizes as equal as possible (10 members with instances
// up to 8: 5 + 5, not 8 + 2), when instances of those sizes exist; else
// greedily the largest that fits, then smaller ones. A member lemma
// (`lemma`) has an instance of every size from its template's MIN up to
// kMaxOnDemandMembers.
std::vector<Chunk> chunk_plan(std::span<const CompiledRule* const> instances, const std::vector<size_t>& by_size,
                              std::optional<size_t> lemma, size_t size) {
  auto members = [&](size_t s) { return static_cast<size_t>(instances[s]->group->members); };
  auto instance_of = [&](size_t n) -> std::optional<size_t> {
    for (size_t s : by_size)
      if (members(s) == n) return s;
    if (lemma && n >= static_cast<size_t>(instances[*lemma]->group->min_members) && n <= kMaxOnDemandMembers)
      return *lemma;
    return std::nullopt;
  };
  const size_t largest = lemma ? kMaxOnDemandMembers : members(by_size.front());
  const size_t chunks = (size + largest - 1) / largest;
  std::vector<Chunk> plan;
  bool balanced = chunks > 0;
  for (size_t c = 0; c < chunks && balanced; ++c) {
    const size_t n = size / chunks + (c < size % chunks ? 1 : 0);
    const std::optional<size_t> s = instance_of(n);
    if (s) plan.push_back({*s, n});
    balanced = s.has_value();
  }
  if (balanced) return plan;
  plan.clear();
  size_t left = size;
  for (size_t s : by_size)
    for (; left >= members(s); left -= members(s)) plan.push_back({s, members(s)});
  return plan;
}

}  // namespace

GroupApplication apply_groups(EGraph& graph, std::span<const CompiledRule* const> instances,
                              std::span<const smelt::egraph::Justification> why,
                              std::chrono::steady_clock::time_point deadline) {
  GroupApplication out{std::vector<size_t>(instances.size(), 0), std::vector<size_t>(instances.size(), 0)};
  if (instances.empty()) return out;
  // Instance positions by member count, largest first; the member lemma apart.
  std::vector<size_t> by_size;
  std::optional<size_t> lemma;
  for (size_t i = 0; i < instances.size(); ++i) {
    if (instances[i]->group->generic) lemma = i;
    else by_size.push_back(i);
  }
  if (by_size.empty()) return out;  // the lemma's template instances are all banned this iteration
  std::sort(by_size.begin(), by_size.end(),
            [&](size_t a, size_t b) { return instances[a]->group->members > instances[b]->group->members; });
  const CompiledRule& smallest = *instances[by_size.back()];
  const CompiledRule& member = *smallest.member;
  const GroupInfo& info = *smallest.group;

  std::vector<RuleMatch> found;
  find_matches(graph, member, SIZE_MAX, found, deadline);
  // One member per class, in class order: the canonical order of a group.
  for (RuleMatch& m : found) m.roots[0] = graph.find(m.roots[0]);
  std::stable_sort(found.begin(), found.end(),
                   [](const RuleMatch& a, const RuleMatch& b) { return a.roots[0] < b.roots[0]; });
  found.erase(std::unique(found.begin(), found.end(),
                          [](const RuleMatch& a, const RuleMatch& b) { return a.roots[0] == b.roots[0]; }),
              found.end());

  std::vector<std::vector<const RuleMatch*>> groups;
  for (const RuleMatch& m : found) {
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const auto& group) { return same_shared(graph, member, info, *group[0], m); });
    if (g == groups.end()) {
      groups.push_back({&m});
    } else {
      g->push_back(&m);
    }
  }

  // A cluster's first member and a candidate satisfy the smallest instance's
  // conditions, its other members standing in as the first.
  auto compatible = [&](const RuleMatch* first, const RuleMatch* candidate) {
    std::vector<const RuleMatch*> members(static_cast<size_t>(smallest.group->members), first);
    members[1] = candidate;
    return conditions_hold(graph, smallest, assemble(smallest, members));
  };

  for (const auto& group : groups) {
    if (group.size() < static_cast<size_t>(smallest.group->members)) continue;
    std::vector<Id> classes;
    for (const RuleMatch* m : group) classes.push_back(m->roots[0]);
    const std::vector<int> level = levels(graph, classes);
    const int top = *std::max_element(level.begin(), level.end());
    for (int l = 0; l <= top; ++l) {
      std::vector<std::vector<const RuleMatch*>> clusters;
      for (size_t i = 0; i < group.size(); ++i) {
        if (level[i] != l) continue;
        auto c = std::find_if(clusters.begin(), clusters.end(),
                              [&](const auto& cluster) {
                                return distinct_from(graph, member, info, cluster, *group[i]) &&
                                       compatible(cluster[0], group[i]);
                              });
        if (c == clusters.end()) {
          clusters.push_back({group[i]});
        } else {
          c->push_back(group[i]);
        }
      }
      for (const auto& cluster : clusters) {
        size_t next = 0;
        for (const auto [s, n] : chunk_plan(instances, by_size, lemma, cluster.size())) {
          const CompiledRule& instance = s == lemma ? instances[s]->on_demand->get(static_cast<int>(n)) : *instances[s];
          const std::span<const RuleMatch* const> chunk(cluster.data() + next, n);
          next += n;
          const RuleMatch match = assemble(instance, chunk);
          if (!conditions_hold(graph, instance, match)) continue;
          ++out.applied[s];
          out.unions[s] += apply_match(graph, instance, match, why[s]);
        }
      }
    }
  }
  return out;
}

}  // namespace smelt::rules
