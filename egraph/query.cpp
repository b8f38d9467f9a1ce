#include "egraph/query.h"

#include <algorithm>
#include <stdexcept>

#include "egraph/parse_error.h"
#include "egraph/sexpr.h"

namespace smelt::egraph {

namespace {

bool is_named_root(const SExpr& sexpr) {
  return sexpr.is_list && !sexpr.items.empty() && !sexpr.items[0].is_list && sexpr.items[0].atom == "=";
}

// The fixed term a variable-free pattern subtree stands for.
RecExpr ground_term(const Pattern& pattern, std::uint32_t node) {
  RecExpr term;
  std::vector<Id> at(pattern.nodes().size(), kNoId);
  // Nodes are children-first, so one forward pass over the subtree suffices.
  std::vector<std::uint32_t> stack{node};
  std::vector<std::uint32_t> order;
  while (!stack.empty()) {
    const std::uint32_t n = stack.back();
    stack.pop_back();
    order.push_back(n);
    for (std::uint32_t child : pattern.nodes()[n].children) stack.push_back(child);
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (at[*it] != kNoId) continue;
    const Pattern::Node& pn = pattern.nodes()[*it];
    ENode enode{pn.op, pn.payload, {}};
    for (std::uint32_t child : pn.children) enode.children.push_back(at[child]);
    at[*it] = term.add(std::move(enode));
  }
  return term;
}

}  // namespace

Query Query::parse(std::string_view pattern, SymbolTable& symbols, std::string_view source) {
  const std::string text(pattern);
  return parse_all(std::span<const std::string>(&text, 1), symbols, source);
}

Query Query::parse_all(std::span<const std::string> patterns, SymbolTable& symbols,
                       std::string_view source) {
  if (patterns.empty()) throw std::invalid_argument("query: no pattern");
  Query query;
  for (const std::string& text : patterns) {
    const SExpr sexpr = parse_sexpr(text, source);
    if (is_named_root(sexpr)) {
      if (sexpr.items.size() != 3 || sexpr.items[1].is_list || sexpr.items[1].atom.size() < 2 ||
          sexpr.items[1].atom[0] != '?')
        throw ParseError(std::string(source), sexpr.line, sexpr.column, "expected (= ?name PATTERN)");
      query.add_pattern(Pattern::from_sexpr(sexpr.items[2], symbols, source), sexpr.items[1].atom);
    } else {
      query.add_pattern(Pattern::from_sexpr(sexpr, symbols, source), std::nullopt);
    }
  }
  query.compile();
  return query;
}

Query Query::from_patterns(std::vector<Pattern> patterns, std::vector<std::string> root_names, bool yield_nodes) {
  if (patterns.empty()) throw std::invalid_argument("query: no pattern");
  Query query;
  query.yield_nodes_ = yield_nodes;
  for (std::size_t p = 0; p < patterns.size(); ++p) {
    if (patterns[p].nodes().empty()) throw std::invalid_argument("query: an empty pattern");
    std::optional<std::string> name;
    if (p < root_names.size() && !root_names[p].empty()) name = root_names[p];
    query.add_pattern(std::move(patterns[p]), std::move(name));
  }
  query.compile();
  return query;
}

std::optional<std::uint32_t> Query::var_index(std::string_view name) const {
  for (std::uint32_t i = 0; i < var_names_.size(); ++i)
    if (var_names_[i] == name) return i;
  return std::nullopt;
}

void Query::add_pattern(Pattern pattern, std::optional<std::string> root_name) {
  auto intern = [](std::vector<std::string>& names, const std::string& name) {
    for (std::uint32_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return i;
    names.push_back(name);
    return static_cast<std::uint32_t>(names.size() - 1);
  };
  const std::size_t p = patterns_.size();
  root_vars_.push_back(intern(var_names_, root_name ? *root_name : (p == 0 ? "?root" : "?root" + std::to_string(p))));
  std::vector<std::uint32_t> map;
  for (const std::string& name : pattern.vars()) map.push_back(intern(var_names_, name));
  var_maps_.push_back(std::move(map));
  std::vector<std::uint32_t> op_map;
  for (const std::string& name : pattern.op_vars()) op_map.push_back(intern(op_var_names_, name));
  op_var_maps_.push_back(std::move(op_map));
  std::vector<std::uint32_t> slots;
  for (const Pattern::Node& node : pattern.nodes())
    slots.push_back(node.is_var ? kNoSlot : static_cast<std::uint32_t>(num_node_slots_++));
  node_slots_.push_back(std::move(slots));
  patterns_.push_back(std::move(pattern));
}

std::uint32_t Query::add_guard(std::span<const std::uint32_t> vars, std::span<const std::uint32_t> nodes) {
  for (std::uint32_t v : vars)
    if (v >= var_names_.size()) throw std::out_of_range("query guard: no variable " + std::to_string(v));
  for (std::uint32_t n : nodes)
    if (n >= num_node_slots_) throw std::out_of_range("query guard: no node slot " + std::to_string(n));
  guards_.push_back({{vars.begin(), vars.end()}, {nodes.begin(), nodes.end()}});
  place_guards();
  return static_cast<std::uint32_t>(guards_.size() - 1);
}

void Query::compile() {
  var_regs_.assign(var_names_.size(), kNoId);
  num_regs_ = 0;
  unguarded_.clear();
  ground_terms_.clear();
  node_bound_at_.assign(num_node_slots_, 0);
  op_var_first_.assign(op_var_names_.size(), kNoSlot);
  auto bind_or_compare = [&](std::uint32_t var, std::uint32_t reg) {
    if (var_regs_[var] == kNoId) {
      var_regs_[var] = reg;
    } else if (var_regs_[var] != reg) {
      unguarded_.push_back({Instruction::Kind::kCompare, false, reg, var_regs_[var], 0, 0, 0, 0, kNoSlot});
    }
  };
  auto scan_classes = [&](std::uint32_t reg) {
    unguarded_.push_back({Instruction::Kind::kScanClasses, false, reg, 0, 0, 0, 0, 0, kNoSlot});
  };
  for (std::size_t p = 0; p < patterns_.size(); ++p) {
    const Pattern& pattern = patterns_[p];
    const Pattern::Node& root = pattern.nodes()[pattern.root()];
    const std::uint32_t root_var = root_vars_[p];
    if (root.is_var) {
      // A bare variable matches any class.
      const std::uint32_t var = var_maps_[p][root.var];
      std::uint32_t reg = var_regs_[var] != kNoId ? var_regs_[var] : var_regs_[root_var];
      if (reg == kNoId) {
        reg = num_regs_++;
        scan_classes(reg);
      }
      bind_or_compare(var, reg);
      bind_or_compare(root_var, reg);
      continue;
    }
    if (var_regs_[root_var] != kNoId) {
      compile_node(p, pattern.root(), var_regs_[root_var], false);
    } else {
      const std::uint32_t reg = num_regs_++;
      var_regs_[root_var] = reg;
      // An op variable's root is any node of any class.
      if (root.is_op_var) scan_classes(reg);
      compile_node(p, pattern.root(), reg, !root.is_op_var);
    }
  }
  unguarded_.push_back({Instruction::Kind::kYield, false, 0, 0, 0, 0, 0, 0, kNoSlot});
  // When each register, hence each variable, is first written.
  std::vector<std::uint32_t> reg_at(num_regs_, 0);
  for (std::uint32_t i = static_cast<std::uint32_t>(unguarded_.size()); i-- > 0;) {
    const Instruction& in = unguarded_[i];
    if (in.kind == Instruction::Kind::kScanOp || in.kind == Instruction::Kind::kScanClasses) reg_at[in.reg] = i;
    if (in.slot != kNoSlot) {
      node_bound_at_[in.slot] = i;
      for (std::uint32_t k = 0; k < in.arity; ++k) reg_at[in.out + k] = i;
    }
  }
  var_bound_at_.assign(var_names_.size(), 0);
  for (std::size_t v = 0; v < var_names_.size(); ++v) var_bound_at_[v] = reg_at[var_regs_[v]];
  place_guards();
}

void Query::compile_node(std::size_t p, std::uint32_t node, std::uint32_t reg, bool scan) {
  const Pattern& pattern = patterns_[p];
  const Pattern::Node& pn = pattern.nodes()[node];
  const auto arity = static_cast<std::uint32_t>(pn.children.size());
  const std::uint32_t out = num_regs_;
  const std::uint32_t slot = node_slots_[p][node];
  num_regs_ += arity;
  if (pn.is_op_var) {
    std::uint32_t& first = op_var_first_[op_var_maps_[p][pn.var]];
    if (first == kNoSlot) {
      first = slot;
      unguarded_.push_back({Instruction::Kind::kBindAnyOp, true, reg, 0, 0, 0, arity, out, slot});
    } else {
      unguarded_.push_back({Instruction::Kind::kBindSameOp, true, reg, first, 0, 0, arity, out, slot});
    }
  } else {
    unguarded_.push_back({scan ? Instruction::Kind::kScanOp : Instruction::Kind::kBind, pn.any_payload, reg, 0, pn.op,
                          pn.payload, arity, out, slot});
  }
  // Cheap checks (variables, ground terms) first, nested nodes after: prunes early.
  for (std::uint32_t i = 0; i < arity; ++i) {
    const std::uint32_t child = pn.children[i];
    const Pattern::Node& cn = pattern.nodes()[child];
    if (cn.is_var) {
      const std::uint32_t var = var_maps_[p][cn.var];
      if (var_regs_[var] == kNoId)
        var_regs_[var] = out + i;
      else
        unguarded_.push_back({Instruction::Kind::kCompare, false, out + i, var_regs_[var], 0, 0, 0, 0, kNoSlot});
    } else if (pattern.is_ground(child)) {
      ground_terms_.push_back(ground_term(pattern, child));
      unguarded_.push_back({Instruction::Kind::kCheckGround, false, out + i,
                            static_cast<std::uint32_t>(ground_terms_.size() - 1), 0, 0, 0, 0, kNoSlot});
    }
  }
  for (std::uint32_t i = 0; i < arity; ++i) {
    const std::uint32_t child = pn.children[i];
    if (!pattern.nodes()[child].is_var && !pattern.is_ground(child)) compile_node(p, child, out + i, false);
  }
}

void Query::place_guards() {
  // Each guard goes after the instruction binding the last thing it reads and
  // that instruction's variable checks.
  std::vector<std::vector<std::uint32_t>> after(unguarded_.size());
  for (std::uint32_t g = 0; g < guards_.size(); ++g) {
    std::uint32_t at = 0;
    for (std::uint32_t v : guards_[g].vars) at = std::max(at, var_bound_at_[v]);
    for (std::uint32_t n : guards_[g].nodes) at = std::max(at, node_bound_at_[n]);
    while (at + 1 < unguarded_.size() && (unguarded_[at + 1].kind == Instruction::Kind::kCompare ||
                                          unguarded_[at + 1].kind == Instruction::Kind::kCheckGround))
      ++at;
    after[at].push_back(g);
  }
  program_.clear();
  for (std::size_t i = 0; i < unguarded_.size(); ++i) {
    program_.push_back(unguarded_[i]);
    for (std::uint32_t g : after[i])
      program_.push_back({Instruction::Kind::kGuard, false, 0, g, 0, 0, 0, 0, kNoSlot});
  }
}

namespace {

// Executes a compiled query by backtracking, egg-style: each Bind/Scan tries
// every candidate node and continues with the next instruction.
class Machine {
 public:
  Machine(const EGraph& graph, const std::vector<Query::Instruction>& program, std::vector<Id> ground,
          std::span<const std::uint32_t> yield_regs, std::uint32_t num_regs, std::size_t num_slots, bool yield_nodes,
          const Query::SearchOptions& options, std::vector<Id>& out)
      : graph_(graph),
        index_(graph.index()),
        program_(program),
        ground_(std::move(ground)),
        yield_regs_(yield_regs),
        regs_(num_regs, kNoId),
        nodes_(num_slots, kNoId),
        yield_nodes_(yield_nodes),
        guard_(options.guard),
        deadline_(options.deadline),
        out_(out) {}

  bool stopped() const { return stopped_; }

  // Candidate count of the first instruction, and running one of them.
  std::size_t num_roots() const {
    const Query::Instruction& first = program_[0];
    if (first.kind == Query::Instruction::Kind::kScanClasses) return index_.roots.size();
    if (first.op + 1 >= index_.op_begin.size()) return 0;
    return index_.op_begin[first.op + 1] - index_.op_begin[first.op];
  }
  void run_root(std::size_t k) {
    const Query::Instruction& first = program_[0];
    if (first.kind == Query::Instruction::Kind::kScanClasses) {
      regs_[first.reg] = index_.roots[k];
      run(1);
      return;
    }
    const std::size_t at = index_.op_begin[first.op] + k;
    regs_[first.reg] = index_.op_class[at];
    bind_node(first, index_.op_node[at], 1);
  }

 private:
  void bind_node(const Query::Instruction& in, Id node, std::size_t next) {
    // The clock is read every few thousand candidates.
    if (++ticks_ % 4096 == 0 && std::chrono::steady_clock::now() > deadline_) stopped_ = true;
    const NodeView view = graph_.node(node);
    if ((!in.any_payload && view.payload != in.payload) || view.children.size() != in.arity) return;
    for (std::uint32_t i = 0; i < in.arity; ++i) regs_[in.out + i] = view.children[i];
    nodes_[in.slot] = node;
    run(next);
  }

  void bind_range(const Query::Instruction& in, std::uint32_t first, std::uint32_t last, std::size_t next) {
    for (std::uint32_t k = first; k < last && !stopped_; ++k) bind_node(in, index_.class_node[k], next);
  }

  void run(std::size_t pc) {
    const Query::Instruction& in = program_[pc];
    switch (in.kind) {
      case Query::Instruction::Kind::kBind: {
        if (in.op + 1 >= index_.op_begin.size()) return;  // op unknown when the index was built
        const auto [first, last] = index_.op_range(regs_[in.reg], in.op);
        bind_range(in, first, last, pc + 1);
        return;
      }
      case Query::Instruction::Kind::kBindAnyOp: {
        const Id cls = regs_[in.reg];
        bind_range(in, index_.class_begin[cls], index_.class_end[cls], pc + 1);
        return;
      }
      case Query::Instruction::Kind::kBindSameOp: {
        const NodeView first_node = graph_.node(nodes_[in.other]);
        const auto [first, last] = index_.op_range(regs_[in.reg], first_node.op);
        const std::uint64_t payload = first_node.payload;
        for (std::uint32_t k = first; k < last && !stopped_; ++k)
          if (graph_.node(index_.class_node[k]).payload == payload) bind_node(in, index_.class_node[k], pc + 1);
        return;
      }
      case Query::Instruction::Kind::kCompare:
        if (regs_[in.reg] == regs_[in.other]) run(pc + 1);
        return;
      case Query::Instruction::Kind::kCheckGround:
        if (regs_[in.reg] == ground_[in.other]) run(pc + 1);
        return;
      case Query::Instruction::Kind::kGuard:
        if (guard_->holds(in.other, PartialMatch(regs_, yield_regs_, nodes_))) run(pc + 1);
        return;
      case Query::Instruction::Kind::kScanOp: {
        if (in.op + 1 >= index_.op_begin.size()) return;
        for (std::uint32_t k = index_.op_begin[in.op]; k < index_.op_begin[in.op + 1] && !stopped_; ++k) {
          regs_[in.reg] = index_.op_class[k];
          bind_node(in, index_.op_node[k], pc + 1);
        }
        return;
      }
      case Query::Instruction::Kind::kScanClasses:
        for (Id cls : index_.roots) {
          if (stopped_) return;
          regs_[in.reg] = cls;
          run(pc + 1);
        }
        return;
      case Query::Instruction::Kind::kYield: {
        const std::size_t at = out_.size();
        out_.resize(at + yield_regs_.size() + (yield_nodes_ ? nodes_.size() : 0));
        for (std::size_t v = 0; v < yield_regs_.size(); ++v) out_[at + v] = regs_[yield_regs_[v]];
        if (yield_nodes_) std::copy(nodes_.begin(), nodes_.end(), out_.begin() + at + yield_regs_.size());
        return;
      }
    }
  }

  const EGraph& graph_;
  const ClassIndex& index_;
  const std::vector<Query::Instruction>& program_;
  std::vector<Id> ground_;
  std::span<const std::uint32_t> yield_regs_;
  std::vector<Id> regs_;
  std::vector<Id> nodes_;  // by node slot
  bool yield_nodes_;
  QueryGuard* guard_;
  std::chrono::steady_clock::time_point deadline_;
  std::uint64_t ticks_ = 0;
  bool stopped_ = false;
  std::vector<Id>& out_;
};

constexpr std::size_t kBatchIds = 1 << 16;

}  // namespace

std::size_t Query::search(const EGraph& graph, const Sink& sink, std::size_t limit) const {
  SearchOptions options;
  options.limit = limit;
  return search(graph, sink, options);
}

std::size_t Query::search(const EGraph& graph, const Sink& sink, const SearchOptions& options) const {
  if (!guards_.empty() && options.guard == nullptr) throw std::invalid_argument("query: guards without a QueryGuard");
  std::vector<Id> ground;
  ground.reserve(ground_terms_.size());
  for (const RecExpr& term : ground_terms_) ground.push_back(graph.lookup_expr(term).value_or(kNoId));
  std::vector<Id> batch;
  Machine machine(graph, program_, std::move(ground), var_regs_, num_regs_, num_node_slots_, yield_nodes_, options,
                  batch);  // builds the index
  const EGraph::IndexReadGuard guard(graph);
  const std::size_t per_match = match_width();
  std::size_t produced = 0;
  const std::size_t roots = machine.num_roots();
  for (std::size_t k = 0; k < roots && produced < options.limit && !machine.stopped(); ++k) {
    machine.run_root(k);
    // Hand batches over only between roots: the machine holds no pointers
    // into storage there, so the sink may add nodes.
    const std::size_t pending = batch.size() / per_match;
    if (pending > 0 && (batch.size() >= kBatchIds || k + 1 == roots || produced + pending >= options.limit ||
                        machine.stopped())) {
      produced += pending;
      const bool go_on = sink(batch);
      batch.clear();
      if (!go_on) break;
    }
  }
  return produced;
}

std::vector<Id> Query::search_all(const EGraph& graph) const {
  std::vector<Id> all;
  search(graph, [&](std::span<const Id> matches) {
    all.insert(all.end(), matches.begin(), matches.end());
    return true;
  });
  return all;
}

}  // namespace smelt::egraph
