#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "egraph/analysis.h"
#include "egraph/class_index.h"
#include "egraph/enode.h"
#include "egraph/hashcons.h"
#include "egraph/ids.h"
#include "egraph/justification.h"
#include "egraph/node_store.h"
#include "egraph/explanation.h"
#include "egraph/proof_forest.h"
#include "egraph/rec_expr.h"
#include "egraph/symbol_table.h"

namespace smelt::egraph {

struct EGraphOptions {
  // Record a proof forest so explain_equivalence can answer; costs memory and
  // time on every add and union, so it is off unless asked for.
  bool explanations = false;
};

// The e-graph: flat node storage, one hashcons of canonical nodes, union-find
// with path compression, and deferred rebuilding: unite() only records the
// union; rebuild() restores congruence (and analysis data) once, walking only
// the parents of the classes that were absorbed.
//
// Ids: every node gets its own id; a class id is the id of the class's
// representative (find). Nodes that turned out congruent to another node are
// "dead": they keep their id as a union-find element but leave the hashcons.
//
// Not thread-safe: even const queries compress union-find paths.
class EGraph {
 public:
  explicit EGraph(EGraphOptions options = {}, std::unique_ptr<Analysis> analysis = nullptr);
  ~EGraph();
  EGraph(EGraph&&) noexcept;
  EGraph& operator=(EGraph&&) noexcept;
  EGraph(const EGraph&) = delete;
  EGraph& operator=(const EGraph&) = delete;

  SymbolTable& symbols() { return symbols_; }
  const SymbolTable& symbols() const { return symbols_; }

  // --- adding -----------------------------------------------------------
  // Adds a node (children: any ids) and returns its class id.
  Id add(Op op, std::uint64_t payload, std::span<const Id> children);
  Id add(const ENode& node) { return add(node.op, node.payload, node.children); }
  Id add_leaf(Op op) { return add(op, 0, {}); }
  Id add_number(std::int64_t value);
  Id add_expr(const RecExpr& expr);
  // Like add, but with explanations on returns the id of this exact node (with
  // these exact child ids) rather than its class: the handle a proof talks about.
  Id add_uncanonical(Op op, std::uint64_t payload, std::span<const Id> children);
  // A class with no node yet, for importers of cyclic graphs: unite a node
  // into it before the next rebuild.
  Id add_empty_class();

  std::optional<Id> lookup(Op op, std::uint64_t payload, std::span<const Id> children) const;
  std::optional<Id> lookup_expr(const RecExpr& expr) const;
  // The live node equal to this one once canonicalized (a node id, not a class).
  std::optional<Id> lookup_node(Op op, std::uint64_t payload, std::span<const Id> children) const;

  // Performance hints for batched appliers (no effect on results): warm the
  // cache lines a later find(id) / add(op, payload, children) will touch, so
  // the memory latency of many independent adds overlaps.
  void prefetch_class(Id id) const { __builtin_prefetch(&uf_parent_[id]); }
  // Prefetches the hashcons slot of the node and returns its canonical hash;
  // a later prefetch_candidate(hash) pulls in the node stored there.
  std::uint64_t prefetch_add(Op op, std::uint64_t payload, std::span<const Id> children) const;
  void prefetch_candidate(std::uint64_t hash) const {
    const Id candidate = hashcons_.first_candidate(hash);
    if (candidate != kNoId) store_.prefetch(candidate);
  }

  // --- union / rebuild --------------------------------------------------
  // Records that a and b are equal; true when they were in different classes.
  bool unite(Id a, Id b, Justification why = Justification::given());
  // Restores the invariants: canonical hashcons, congruence closure, analysis.
  void rebuild();
  bool is_clean() const { return absorbed_.empty() && analysis_dirty_.empty(); }
  Id find(Id id) const {
    // Path halving; the parent array is a cache of the union-find, so find is
    // logically const.
    while (uf_parent_[id] != id) {
      uf_parent_[id] = uf_parent_[uf_parent_[id]];
      id = uf_parent_[id];
    }
    return id;
  }

  // --- sizes ------------------------------------------------------------
  std::size_t num_nodes() const { return hashcons_.size(); }  // distinct canonical e-nodes
  std::size_t num_classes() const { return num_classes_; }
  std::size_t num_ids() const { return store_.size(); }
  // Grows on every new node and every effective union: unchanged => saturated.
  std::uint64_t version() const { return version_; }
  std::size_t memory_bytes() const;

  // --- structure (clean e-graph) -----------------------------------------
  NodeView node(Id node_id) const { return store_.view(node_id); }
  bool is_live(Id node_id) const { return live_[node_id] != 0; }
  const ClassIndex& index() const;           // builds the snapshot if stale
  // Freezes the snapshot while held (a search, or a runner's search+apply
  // phase): index() and class_nodes() then keep answering from the snapshot
  // taken when the phase began, although rewrites are being applied.
  class IndexReadGuard {
   public:
    explicit IndexReadGuard(const EGraph& graph) : graph_(graph) { ++graph_.index_readers_; }
    ~IndexReadGuard() { --graph_.index_readers_; }
    IndexReadGuard(const IndexReadGuard&) = delete;
    IndexReadGuard& operator=(const IndexReadGuard&) = delete;

   private:
    const EGraph& graph_;
  };
  std::span<const Id> classes() const { return index().roots; }
  // Live nodes of the class of `cls`, sorted by op. While a runner phase holds
  // the snapshot, answers for the class as it was when the phase began.
  std::span<const Id> class_nodes(Id cls) const;

  // --- analysis -----------------------------------------------------------
  Analysis* analysis() { return analysis_.get(); }
  const Analysis* analysis() const { return analysis_.get(); }

  // --- explanations -------------------------------------------------------
  bool explanations_enabled() const { return explain_ != nullptr; }
  std::uint32_t intern_rule(std::string_view name);
  const std::string& rule_name(std::uint32_t rule) const { return rule_names_.at(rule); }
  // The chain of rewrites proving a = b (both are added if absent). Throws
  // std::logic_error when explanations are off, std::invalid_argument when
  // the terms are not equal.
  Explanation explain_equivalence(const RecExpr& a, const RecExpr& b, const ExplainOptions& options = {});
  Explanation explain_ids(Id a, Id b, const ExplainOptions& options = {}) const;

  // --- invariants (tests) -------------------------------------------------
  // Problems found, at most max_reports; empty when the e-graph is sound:
  // clean, hashcons canonical and complete, congruence closed, parent lists
  // complete, analysis data a fixpoint.
  std::vector<std::string> invariant_violations(std::size_t max_reports = 20) const;

 private:
  struct ExplainState;
  friend class Explainer;

  enum class NodeKind : std::uint8_t {
    kLive,         // a new canonical node, in the hashcons
    kDeadCopy,     // explanations: a new spelling of an existing node
    kPlaceholder,  // add_empty_class: an id with no node
  };
  Id make_node(const std::uint32_t* words, std::size_t n, NodeKind kind, const std::uint32_t* original,
               std::size_t original_n);
  Id add_expr_uncanonical(const RecExpr& expr);
  bool unite_internal(Id a, Id b, Justification why, bool is_change);
  void add_parent_edge(Id cls, Id parent);
  void splice_parents(Id from, Id into);
  template <class F>
  void for_each_parent(Id cls, F&& visit) const {
    for (Id edge = parents_[cls].head; edge != kNoId; edge = edge_next_[edge]) visit(edge_node_[edge]);
  }
  void repair(Id parent);
  void process_analysis_worklist();
  void encode_canonical(Op op, std::uint64_t payload, std::span<const Id> children);
  void mark_changed() {
    ++version_;
    index_stale_ = true;
  }
  void build_index() const;

  SymbolTable symbols_;
  NodeStore store_;
  Hashcons hashcons_;
  mutable std::vector<Id> uf_parent_;
  std::vector<std::uint8_t> live_;
  // Parents of each class as a singly linked list of edges: adding a parent
  // touches only the class's head (new edges go in front), absorbing a class
  // splices its list in O(1), and there are no per-class vectors.
  struct ParentList {
    Id head = kNoId;
    std::uint32_t count = 0;  // edges, for union by parent count
  };
  std::vector<ParentList> parents_;        // by class
  std::vector<Id> parent_tail_;            // by class: last edge, valid when head != kNoId
  std::vector<Id> edge_node_;              // the parent node of each edge
  std::vector<Id> edge_next_;
  std::vector<Id> placeholders_;           // ids made by add_empty_class (ascending)
  std::vector<Id> absorbed_;               // classes absorbed since the last rebuild
  std::vector<Id> analysis_dirty_;         // classes whose data grew
  NodeKey key_;                            // canonical words of the node being added
  std::vector<std::uint32_t> scratch_original_;
  std::size_t num_classes_ = 0;
  std::uint64_t version_ = 0;
  std::unique_ptr<Analysis> analysis_;
  std::unique_ptr<ExplainState> explain_;
  std::vector<std::string> rule_names_;
  mutable ClassIndex index_;
  mutable bool index_stale_ = true;
  mutable int index_readers_ = 0;
};

// ---- DataAnalysis members that need EGraph ------------------------------
template <class Data>
const Data& DataAnalysis<Data>::data(const EGraph& graph, Id id) const {
  return data_[graph.find(id)];
}

template <class Data>
Data& DataAnalysis<Data>::mutable_data(const EGraph& graph, Id id) {
  return data_[graph.find(id)];
}

template <class Data>
void DataAnalysis<Data>::make_class(const EGraph& graph, Id node) {
  Data made = make_data(graph, graph.node(node));
  grow(node);
  data_[node] = std::move(made);
}

template <class Data>
bool DataAnalysis<Data>::remake(const EGraph& graph, Id node, Id cls) {
  Data made = make_data(graph, graph.node(node));
  return merge_data(data_[cls], made);
}

template <class Data>
bool DataAnalysis<Data>::consistent(const EGraph& graph, Id cls) const {
  for (Id node : graph.class_nodes(cls)) {
    Data copy = data_[cls];
    if (merge_data(copy, make_data(graph, graph.node(node)))) return false;
  }
  return true;
}

}  // namespace smelt::egraph
