#include "egraph/class_index.h"

#include <algorithm>
#include <stdexcept>

#include "egraph/egraph.h"

namespace smelt::egraph {

std::pair<std::uint32_t, std::uint32_t> ClassIndex::op_range(Id cls, Op op) const {
  std::uint32_t first = class_begin[cls];
  const std::uint32_t end = class_end[cls];
  if (end - first <= 16) {  // small classes: a linear scan beats binary search
    while (first < end && class_node_op[first] < op) ++first;
    std::uint32_t last = first;
    while (last < end && class_node_op[last] == op) ++last;
    return {first, last};
  }
  const Op* base = class_node_op.data();
  const Op* lo = std::lower_bound(base + first, base + end, op);
  const Op* hi = std::upper_bound(lo, base + end, op);
  return {static_cast<std::uint32_t>(lo - base), static_cast<std::uint32_t>(hi - base)};
}

std::size_t ClassIndex::memory_bytes() const {
  return (roots.capacity() + class_node.capacity() + op_node.capacity() + op_class.capacity()) * sizeof(Id) +
         (class_begin.capacity() + class_end.capacity() + op_begin.capacity()) * sizeof(std::uint32_t) +
         class_node_op.capacity() * sizeof(Op);
}

const ClassIndex& EGraph::index() const {
  // While a search/apply phase holds the snapshot it stays as it was taken.
  if (index_stale_ && index_readers_ == 0) {
    if (!is_clean()) throw std::logic_error("egraph: call rebuild() before reading classes");
    build_index();
    index_stale_ = false;
  }
  return index_;
}

std::span<const Id> EGraph::class_nodes(Id cls) const {
  const ClassIndex& ix = index();
  const Id root = find(cls);
  if (root < ix.class_begin.size() && ix.class_end[root] > ix.class_begin[root]) return ix.nodes_of(root);
  // Frozen snapshot and the class was absorbed since: cls itself was a root then.
  if (cls < ix.class_begin.size()) return ix.nodes_of(cls);
  return {};
}

void EGraph::build_index() const {
  ClassIndex& ix = index_;
  const std::size_t ids = store_.size();
  const std::size_t ops = symbols_.size();
  // Counting sort twice: by op, then (stably) by class, so each class's nodes
  // come out sorted by op.
  ix.class_begin.assign(ids, 0);
  ix.class_end.assign(ids, 0);
  ix.op_begin.assign(ops + 1, 0);
  std::size_t live_count = 0;
  for (Id id = 0; id < ids; ++id) {
    if (!live_[id]) continue;
    ++live_count;
    ++ix.op_begin[store_.view(id).op + 1];
    ++ix.class_end[find(id)];  // counts for now
  }
  for (std::size_t op = 0; op < ops; ++op) ix.op_begin[op + 1] += ix.op_begin[op];
  ix.op_node.resize(live_count);
  ix.op_class.resize(live_count);
  {
    std::vector<std::uint32_t> cursor(ix.op_begin.begin(), ix.op_begin.end() - 1);
    for (Id id = 0; id < ids; ++id) {
      if (!live_[id]) continue;
      const std::uint32_t at = cursor[store_.view(id).op]++;
      ix.op_node[at] = id;
      ix.op_class[at] = find(id);
    }
  }
  ix.roots.clear();
  std::uint32_t running = 0;
  for (Id id = 0; id < ids; ++id) {
    const std::uint32_t count = ix.class_end[id];
    if (count == 0) continue;
    ix.roots.push_back(id);
    ix.class_begin[id] = running;
    ix.class_end[id] = running;  // fill cursor; ends at the true end
    running += count;
  }
  ix.class_node.resize(live_count);
  ix.class_node_op.resize(live_count);
  for (std::size_t k = 0; k < live_count; ++k) {
    const Id cls = ix.op_class[k];
    const std::uint32_t at = ix.class_end[cls]++;
    ix.class_node[at] = ix.op_node[k];
    ix.class_node_op[at] = store_.view(ix.op_node[k]).op;
  }
}

}  // namespace smelt::egraph
