#include "egraph/egraph.h"

#include <algorithm>
#include <array>
#include <bit>
#include <stdexcept>

#include "egraph/explain_state.h"

namespace smelt::egraph {

EGraph::EGraph(EGraphOptions options, std::unique_ptr<Analysis> analysis)
    : analysis_(std::move(analysis)) {
  if (options.explanations) explain_ = std::make_unique<ExplainState>();
}

EGraph::~EGraph() = default;
EGraph::EGraph(EGraph&&) noexcept = default;
EGraph& EGraph::operator=(EGraph&&) noexcept = default;

void EGraph::encode_canonical(Op op, std::uint64_t payload, std::span<const Id> children) {
  key_.encode(op, payload, children);
  for (std::size_t i = key_.first_child(); i < key_.size(); ++i) {
    if (key_[i] >= store_.size()) throw std::invalid_argument("egraph: child id out of range");
    key_[i] = find(key_[i]);
  }
}

Id EGraph::make_node(const std::uint32_t* words, std::size_t n, NodeKind kind,
                     const std::uint32_t* original, std::size_t original_n) {
  const Id id = store_.append({words, n});
  uf_parent_.push_back(id);
  live_.push_back(kind == NodeKind::kLive ? 1 : 0);
  parents_.push_back({});
  parent_tail_.push_back(kNoId);
  ++num_classes_;
  if (explain_) {
    explain_->originals.append({original, original_n});
    explain_->forest.add_id();
  }
  if (kind == NodeKind::kLive) {
    for (Id child : store_.children(id)) add_parent_edge(child, id);
    mark_changed();
  } else {
    index_stale_ = true;
  }
  // Analysis hooks last: modify may add nodes, which reuses key_ (`words`).
  if (analysis_) {
    if (kind == NodeKind::kPlaceholder) {
      analysis_->make_empty_class(id);
    } else {
      analysis_->make_class(*this, id);
      if (kind == NodeKind::kLive) analysis_->modify(*this, id);
    }
  }
  return id;
}

void EGraph::add_parent_edge(Id cls, Id parent) {
  const Id edge = static_cast<Id>(edge_node_.size());
  ParentList& list = parents_[cls];
  edge_node_.push_back(parent);
  edge_next_.push_back(list.head);
  if (list.head == kNoId) parent_tail_[cls] = edge;
  list.head = edge;
  ++list.count;
}

void EGraph::splice_parents(Id from, Id into) {
  ParentList& source = parents_[from];
  if (source.head == kNoId) return;
  ParentList& target = parents_[into];
  // The absorbed list goes in front of the target's.
  if (target.head == kNoId) {
    parent_tail_[into] = parent_tail_[from];
  } else {
    edge_next_[parent_tail_[from]] = target.head;
  }
  target.head = source.head;
  source.head = kNoId;
}

Id EGraph::add(Op op, std::uint64_t payload, std::span<const Id> children) {
  if (explain_) return find(add_uncanonical(op, payload, children));
  encode_canonical(op, payload, children);
  const std::uint32_t* key = key_.data();
  const std::size_t n = key_.size();
  const Id fresh = store_.size();
  const Id found = hashcons_.find_or_insert(key, n, NodeStore::hash(key, n), fresh, store_);
  if (found != fresh) return find(found);
  return make_node(key, n, NodeKind::kLive, nullptr, 0);
}

Id EGraph::add_uncanonical(Op op, std::uint64_t payload, std::span<const Id> children) {
  if (!explain_) return add(op, payload, children);
  NodeStore::encode(op, payload, children, scratch_original_);
  const std::size_t on = scratch_original_.size();
  const std::uint64_t original_hash = NodeStore::hash(scratch_original_.data(), on);
  const Id known =
      explain_->by_original.find(scratch_original_.data(), on, original_hash, explain_->originals);
  if (known != kNoId) return known;

  encode_canonical(op, payload, children);
  const std::uint32_t* key = key_.data();
  const std::size_t n = key_.size();
  const Id fresh = store_.size();
  const Id found = hashcons_.find_or_insert(key, n, NodeStore::hash(key, n), fresh, store_);
  explain_->by_original.find_or_insert(scratch_original_.data(), on, original_hash, fresh,
                                       explain_->originals);
  if (found == fresh) return make_node(key, n, NodeKind::kLive, scratch_original_.data(), on);
  // A new spelling of an existing node: its own id (so proofs can name it),
  // kept out of the hashcons and joined to the existing node by congruence.
  const Id copy = make_node(key, n, NodeKind::kDeadCopy, scratch_original_.data(), on);
  unite_internal(found, copy, Justification::congruence(), false);
  return copy;
}

Id EGraph::add_number(std::int64_t value) {
  return add(SymbolTable::kNumber, std::bit_cast<std::uint64_t>(value), {});
}

Id EGraph::add_empty_class() {
  const std::uint32_t head = 0;
  const Id id = make_node(&head, 1, NodeKind::kPlaceholder, &head, 1);
  placeholders_.push_back(id);
  return id;
}

Id EGraph::add_expr(const RecExpr& expr) { return find(add_expr_uncanonical(expr)); }

Id EGraph::add_expr_uncanonical(const RecExpr& expr) {
  if (expr.empty()) throw std::invalid_argument("egraph: add_expr of an empty term");
  std::vector<Id> ids(expr.nodes().size());
  std::vector<Id> children;
  for (std::size_t i = 0; i < expr.nodes().size(); ++i) {
    const ENode& node = expr.nodes()[i];
    children.clear();
    for (Id child : node.children) children.push_back(ids[child]);
    ids[i] = add_uncanonical(node.op, node.payload, children);
  }
  return ids.back();
}

std::optional<Id> EGraph::lookup(Op op, std::uint64_t payload, std::span<const Id> children) const {
  const std::optional<Id> node = lookup_node(op, payload, children);
  if (!node) return std::nullopt;
  return find(*node);
}

std::optional<Id> EGraph::lookup_node(Op op, std::uint64_t payload, std::span<const Id> children) const {
  std::vector<std::uint32_t> key;
  NodeStore::encode(op, payload, children, key);
  for (std::size_t i = NodeStore::child_offset(key.data()); i < key.size(); ++i) {
    if (key[i] >= store_.size()) return std::nullopt;
    key[i] = find(key[i]);
  }
  const Id found = hashcons_.find(key.data(), key.size(), NodeStore::hash(key.data(), key.size()), store_);
  if (found == kNoId) return std::nullopt;
  return found;
}

std::uint64_t EGraph::prefetch_add(Op op, std::uint64_t payload, std::span<const Id> children) const {
  constexpr std::size_t kMaxPrefetchArity = 8;
  if (children.size() > kMaxPrefetchArity) return 0;
  std::array<std::uint32_t, 3 + kMaxPrefetchArity> key{};
  std::size_t n = 0;
  const bool has_payload = payload != 0;
  key[n++] = op | (static_cast<std::uint32_t>(children.size()) << NodeStore::kArityShift) |
             (has_payload ? NodeStore::kPayloadFlag : 0);
  if (has_payload) {
    key[n++] = static_cast<std::uint32_t>(payload);
    key[n++] = static_cast<std::uint32_t>(payload >> 32);
  }
  for (Id child : children) {
    key[n] = find(child);
    __builtin_prefetch(&parents_[key[n]]);  // add_parent_edge reads it if the node is new
    ++n;
  }
  const std::uint64_t hash = NodeStore::hash(key.data(), n);
  hashcons_.prefetch(hash);
  return hash;
}

std::optional<Id> EGraph::lookup_expr(const RecExpr& expr) const {
  if (expr.empty()) return std::nullopt;
  std::vector<Id> ids(expr.nodes().size());
  std::vector<Id> children;
  for (std::size_t i = 0; i < expr.nodes().size(); ++i) {
    const ENode& node = expr.nodes()[i];
    children.clear();
    for (Id child : node.children) children.push_back(ids[child]);
    const std::optional<Id> found = lookup(node.op, node.payload, children);
    if (!found) return std::nullopt;
    ids[i] = *found;
  }
  return ids.back();
}

bool EGraph::unite(Id a, Id b, Justification why) {
  if (a >= store_.size() || b >= store_.size()) throw std::invalid_argument("egraph: unite of an unknown id");
  return unite_internal(a, b, why, true);
}

bool EGraph::unite_internal(Id a, Id b, Justification why, bool is_change) {
  Id winner = find(a);
  Id loser = find(b);
  if (winner == loser) return false;
  if (explain_) explain_->forest.unite(a, b, why);
  // The class with fewer parents is absorbed: fewer nodes to repair.
  if (parents_[winner].count < parents_[loser].count) std::swap(winner, loser);
  uf_parent_[loser] = winner;
  parents_[winner].count += parents_[loser].count;
  absorbed_.push_back(loser);
  --num_classes_;
  if (is_change) {
    mark_changed();
  } else {
    index_stale_ = true;
  }
  if (analysis_) {
    const Analysis::MergeResult merged = analysis_->merge_classes(winner, loser);
    if (merged.into_changed) analysis_dirty_.push_back(winner);
    // The absorbed class's parents are repaired by rebuild, which remakes their data.
    analysis_->modify(*this, winner);
  }
  return true;
}

void EGraph::rebuild() {
  while (!absorbed_.empty() || !analysis_dirty_.empty()) {
    while (!absorbed_.empty()) {
      const Id absorbed = absorbed_.back();
      absorbed_.pop_back();
      // Nodes that name the absorbed class as a child are no longer canonical.
      // The list is stable while we walk it: only root lists gain edges or
      // splices, and `absorbed` is no longer a root. A union during the walk
      // (a repaired node congruent to another) may absorb a class that a node
      // repaired before it now names; the list is then spliced into the new
      // root, away from that class, so it is walked again until no union
      // happens (a property run on a new seed found the missed repair).
      for (std::size_t pending = absorbed_.size();;) {
        for (Id edge = parents_[absorbed].head; edge != kNoId; edge = edge_next_[edge])
          repair(edge_node_[edge]);
        if (absorbed_.size() == pending) break;
        pending = absorbed_.size();
      }
      splice_parents(absorbed, find(absorbed));
    }
    process_analysis_worklist();
  }
}

void EGraph::repair(Id parent) {
  if (!live_[parent]) return;
  std::uint32_t* words = store_.words(parent);
  const std::size_t n = NodeStore::word_count(words);
  const std::size_t first = NodeStore::child_offset(words);
  bool canonical = true;
  for (std::size_t i = first; i < n && canonical; ++i) canonical = uf_parent_[words[i]] == words[i];
  if (!canonical) {
    hashcons_.erase(NodeStore::hash(words, n), parent);
    for (std::size_t i = first; i < n; ++i) words[i] = find(words[i]);
    const Id found = hashcons_.find_or_insert(words, n, NodeStore::hash(words, n), parent, store_);
    if (found != parent) {
      // Congruent to an existing node: keep that one, merge the classes.
      live_[parent] = 0;
      unite_internal(found, parent, Justification::congruence(), true);
    }
  }
  if (analysis_) {
    const Id cls = find(parent);
    if (analysis_->remake(*this, parent, cls)) {
      analysis_dirty_.push_back(cls);
      analysis_->modify(*this, cls);
    }
  }
}

void EGraph::process_analysis_worklist() {
  std::vector<Id> parents;
  while (!analysis_dirty_.empty()) {
    const Id cls = find(analysis_dirty_.back());
    analysis_dirty_.pop_back();
    parents.clear();
    // Copy first: modify() may add parent edges to this very list.
    for_each_parent(cls, [&](Id parent) { parents.push_back(parent); });
    for (Id parent : parents) {
      if (!live_[parent]) continue;
      const Id parent_class = find(parent);
      if (analysis_->remake(*this, parent, parent_class)) {
        analysis_dirty_.push_back(parent_class);
        analysis_->modify(*this, parent_class);
      }
    }
  }
}

std::uint32_t EGraph::intern_rule(std::string_view name) {
  for (std::size_t i = 0; i < rule_names_.size(); ++i)
    if (rule_names_[i] == name) return static_cast<std::uint32_t>(i);
  rule_names_.emplace_back(name);
  return static_cast<std::uint32_t>(rule_names_.size() - 1);
}

std::size_t EGraph::memory_bytes() const {
  std::size_t bytes = store_.memory_bytes() + hashcons_.memory_bytes() +
                      uf_parent_.capacity() * sizeof(Id) + live_.capacity() +
                      parents_.capacity() * sizeof(ParentList) + parent_tail_.capacity() * sizeof(Id) +
                      edge_node_.capacity() * sizeof(Id) + edge_next_.capacity() * sizeof(std::uint32_t) +
                      absorbed_.capacity() * sizeof(Id) + index_.memory_bytes();
  if (explain_)
    bytes += explain_->originals.memory_bytes() + explain_->by_original.memory_bytes() +
             explain_->forest.size() * sizeof(ProofForest::Edge);
  return bytes;
}

}  // namespace smelt::egraph
