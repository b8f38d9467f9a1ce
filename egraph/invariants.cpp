// EGraph::invariant_violations: the checks tests and property tests rely on.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "egraph/egraph.h"

namespace smelt::egraph {

std::vector<std::string> EGraph::invariant_violations(std::size_t max_reports) const {
  std::vector<std::string> problems;
  auto report = [&](std::string message) {
    if (problems.size() < max_reports) problems.push_back(std::move(message));
  };
  if (!is_clean()) {
    report("e-graph has pending unions: rebuild() not called");
    return problems;
  }
  const std::size_t ids = store_.size();

  // Union-find: parents point at valid ids; class count matches the roots.
  std::size_t roots = 0;
  for (Id id = 0; id < ids; ++id) {
    if (uf_parent_[id] >= ids) report("union-find parent out of range at id " + std::to_string(id));
    if (uf_parent_[id] == id) ++roots;
  }
  if (!problems.empty()) return problems;
  if (roots != num_classes_)
    report("class count " + std::to_string(num_classes_) + " but " + std::to_string(roots) + " roots");

  // Hashcons canonical: every live node has canonical children and is found
  // under its own words; nothing else is stored.
  std::size_t live_count = 0;
  std::vector<std::uint32_t> nodes_per_class(ids, 0);
  std::vector<std::uint32_t> key;
  for (Id id = 0; id < ids; ++id) {
    if (!live_[id]) continue;
    ++live_count;
    ++nodes_per_class[find(id)];
    const NodeView view = store_.view(id);
    for (Id child : view.children)
      if (uf_parent_[child] != child)
        report("live node " + std::to_string(id) + " has non-canonical child " + std::to_string(child));
    const std::uint32_t* words = store_.words(id);
    const std::size_t n = store_.length(id);
    const Id found = hashcons_.find(words, n, NodeStore::hash(words, n), store_);
    if (found != id) report("hashcons does not map live node " + std::to_string(id) + " to itself");
  }
  if (live_count != hashcons_.size())
    report("hashcons holds " + std::to_string(hashcons_.size()) + " entries for " +
           std::to_string(live_count) + " live nodes");
  hashcons_.for_each([&](Id id) {
    if (id >= ids || !live_[id]) report("hashcons holds dead node " + std::to_string(id));
  });

  // Congruence closed: every node ever added (live or dead), canonicalized now,
  // is a live node of its own class. Placeholders (empty classes) have no node.
  for (Id id = 0; id < ids; ++id) {
    if (std::binary_search(placeholders_.begin(), placeholders_.end(), id)) continue;
    const NodeView view = store_.view(id);
    std::vector<Id> children(view.children.begin(), view.children.end());
    const std::optional<Id> cls = lookup(view.op, view.payload, children);
    if (!cls)
      report("node " + std::to_string(id) + " has no canonical counterpart in the hashcons");
    else if (*cls != find(id))
      report("congruence broken: node " + std::to_string(id) + " is in class " +
             std::to_string(find(id)) + " but its canonical form is in class " + std::to_string(*cls));
  }

  // Every class has a node.
  for (Id id = 0; id < ids; ++id)
    if (uf_parent_[id] == id && nodes_per_class[id] == 0)
      report("class " + std::to_string(id) + " has no node");

  // Parent lists: absorbed classes hold none; each live node is listed under
  // each of its children's classes.
  std::unordered_map<Id, std::vector<Id>> listed;
  for (Id id = 0; id < ids; ++id) {
    if (uf_parent_[id] != id) {
      if (parents_[id].head != kNoId) report("absorbed class " + std::to_string(id) + " still has parents");
      continue;
    }
    std::vector<Id>& parents = listed[id];
    for_each_parent(id, [&](Id parent) { parents.push_back(parent); });
    std::sort(parents.begin(), parents.end());
  }
  for (Id id = 0; id < ids; ++id) {
    if (!live_[id]) continue;
    for (Id child : store_.view(id).children) {
      const std::vector<Id>& parents = listed[find(child)];
      if (!std::binary_search(parents.begin(), parents.end(), id))
        report("node " + std::to_string(id) + " missing from the parent list of class " +
               std::to_string(find(child)));
    }
  }

  // Analysis data is a fixpoint of its nodes.
  if (analysis_ && problems.empty()) {
    for (Id cls : classes())
      if (!analysis_->consistent(*this, cls))
        report("analysis data of class " + std::to_string(cls) + " disagrees with its nodes");
  }
  return problems;
}

}  // namespace smelt::egraph
