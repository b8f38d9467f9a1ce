#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/pattern.h"

namespace smelt::egraph {

// What a search has bound so far, as a QueryGuard sees it.
class PartialMatch {
 public:
  PartialMatch(std::span<const Id> regs, std::span<const std::uint32_t> var_regs, std::span<const Id> nodes)
      : regs_(regs), var_regs_(var_regs), nodes_(nodes) {}
  Id var(std::uint32_t v) const { return regs_[var_regs_[v]]; }  // the class of query variable v
  Id node(std::uint32_t slot) const { return nodes_[slot]; }     // the e-node of node slot `slot`

 private:
  std::span<const Id> regs_;
  std::span<const std::uint32_t> var_regs_;
  std::span<const Id> nodes_;
};

// Checks a partial match as soon as everything a guard reads is bound (a
// condition on analysis data, on payloads, between roots), so that a search
// prunes early. May keep state: guards run in the order the search binds.
class QueryGuard {
 public:
  virtual ~QueryGuard() = default;
  // Guard number `guard` (Query::add_guard's); false drops the partial match.
  virtual bool holds(std::uint32_t guard, const PartialMatch& bound) = 0;
};

// What to search for: one pattern, or several patterns sharing variables (a
// multi-pattern: all must match at once, e.g. two roots over a common ?a).
// Variable 0 is the root of the first pattern. Patterns are compiled into a
// small matching program (egg's machine) run over the e-graph's ClassIndex.
class Query {
 public:
  // One pattern; its root is variable "?root" unless written "(= ?name PATTERN)".
  static Query parse(std::string_view pattern, SymbolTable& symbols, std::string_view source = "pattern");
  // Several patterns; each may name its root with "(= ?name PATTERN)".
  static Query parse_all(std::span<const std::string> patterns, SymbolTable& symbols,
                         std::string_view source = "pattern");
  // Patterns built in code; pattern p's root is variable root_names[p] ("?root",
  // "?root1", ... where empty). `yield_nodes`: each match also carries the
  // e-node matched by every operator node (match_width()).
  static Query from_patterns(std::vector<Pattern> patterns, std::vector<std::string> root_names = {},
                             bool yield_nodes = false);

  // Adds a guard reading query variables `vars` and node slots `nodes`; it runs
  // right after the last of them is bound (after that node's cheap variable
  // checks). Guards at one point run in the order added. Returns its number.
  std::uint32_t add_guard(std::span<const std::uint32_t> vars, std::span<const std::uint32_t> nodes);
  std::size_t num_guards() const { return guards_.size(); }

  std::size_t num_vars() const { return var_names_.size(); }
  const std::vector<std::string>& var_names() const { return var_names_; }
  std::optional<std::uint32_t> var_index(std::string_view name) const;
  const std::vector<Pattern>& patterns() const { return patterns_; }
  // Query variable of pattern p's variable v.
  std::uint32_t query_var(std::size_t p, std::uint32_t v) const { return var_maps_[p][v]; }
  std::uint32_t root_var(std::size_t p) const { return root_vars_[p]; }
  // Every operator node (op variables included) has a node slot; kNoSlot for variables.
  static constexpr std::uint32_t kNoSlot = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t node_slot(std::size_t p, std::uint32_t node) const { return node_slots_[p][node]; }
  std::size_t num_node_slots() const { return num_node_slots_; }
  // Ids per match handed to a Sink: num_vars() classes, then (yield_nodes) num_node_slots() e-nodes.
  std::size_t match_width() const { return var_names_.size() + (yield_nodes_ ? num_node_slots_ : 0); }
  // When the search binds a variable / node slot: earlier binds have smaller numbers.
  std::uint32_t var_bound_at(std::uint32_t v) const { return var_bound_at_[v]; }
  std::uint32_t node_bound_at(std::uint32_t slot) const { return node_bound_at_[slot]; }

  // Receives matches in batches: a flat array, match_width() ids per match.
  // Returns false to stop the search.
  using Sink = std::function<bool(std::span<const Id> matches)>;
  struct SearchOptions {
    std::size_t limit = std::numeric_limits<std::size_t>::max();
    QueryGuard* guard = nullptr;  // required when the query has guards
    // Looked at every few thousand candidate e-nodes: one search cannot overrun a run's time limit.
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  };
  // Runs on a clean e-graph; stops once at least `limit` matches were handed
  // out. It reads only the ClassIndex and node words (never the union-find),
  // so the sink may apply rewrites while the search goes on. Returns the
  // number of matches handed to the sink.
  std::size_t search(const EGraph& graph, const Sink& sink,
                     std::size_t limit = std::numeric_limits<std::size_t>::max()) const;
  std::size_t search(const EGraph& graph, const Sink& sink, const SearchOptions& options) const;
  // Convenience for tests: every match, flat.
  std::vector<Id> search_all(const EGraph& graph) const;

  struct Instruction {
    // kBindAnyOp: any node of the class (an op variable's first node);
    // kBindSameOp: a node with the op and payload of node slot `other` (its later nodes).
    enum class Kind : std::uint8_t {
      kScanOp, kScanClasses, kBind, kBindAnyOp, kBindSameOp, kCompare, kCheckGround, kGuard, kYield
    };
    Kind kind = Kind::kYield;
    bool any_payload = false;  // the payload is not compared (kBindSameOp compares it itself)
    std::uint32_t reg = 0;     // class register read (binds, kCompare, kCheckGround) or written (scans)
    std::uint32_t other = 0;   // kCompare: second register; kCheckGround: ground term; kBindSameOp: slot; kGuard: guard
    Op op = 0;
    std::uint64_t payload = 0;
    std::uint32_t arity = 0;
    std::uint32_t out = 0;        // first register receiving the node's children
    std::uint32_t slot = kNoSlot;  // node slot receiving the bound e-node
  };
  const std::vector<Instruction>& program() const { return program_; }

 private:
  struct Guard {
    std::vector<std::uint32_t> vars, nodes;
  };
  void add_pattern(Pattern pattern, std::optional<std::string> root_name);
  void compile();
  void compile_node(std::size_t p, std::uint32_t node, std::uint32_t reg, bool scan);
  void place_guards();

  std::vector<Pattern> patterns_;
  std::vector<std::vector<std::uint32_t>> var_maps_;
  std::vector<std::uint32_t> root_vars_;
  std::vector<std::vector<std::uint32_t>> node_slots_;  // by pattern, by pattern node
  std::size_t num_node_slots_ = 0;
  std::vector<std::vector<std::uint32_t>> op_var_maps_;  // by pattern: pattern op variable -> query op variable
  std::vector<std::string> op_var_names_;
  std::vector<std::uint32_t> op_var_first_;  // by query op variable: the slot bound first
  bool yield_nodes_ = false;
  std::vector<Guard> guards_;
  std::vector<std::uint32_t> var_bound_at_, node_bound_at_;
  std::vector<std::string> var_names_;
  std::vector<Instruction> unguarded_;  // the program before place_guards()
  std::vector<Instruction> program_;
  std::vector<std::uint32_t> var_regs_;  // register holding each variable
  std::vector<RecExpr> ground_terms_;    // looked up once per search
  std::uint32_t num_regs_ = 0;
};

}  // namespace smelt::egraph
