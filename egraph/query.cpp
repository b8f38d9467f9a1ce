#include "egraph/query.h"

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

std::optional<std::uint32_t> Query::var_index(std::string_view name) const {
  for (std::uint32_t i = 0; i < var_names_.size(); ++i)
    if (var_names_[i] == name) return i;
  return std::nullopt;
}

void Query::add_pattern(Pattern pattern, std::optional<std::string> root_name) {
  auto intern_var = [&](const std::string& name) {
    if (auto found = var_index(name)) return *found;
    var_names_.push_back(name);
    return static_cast<std::uint32_t>(var_names_.size() - 1);
  };
  const std::size_t p = patterns_.size();
  root_vars_.push_back(intern_var(root_name ? *root_name : (p == 0 ? "?root" : "?root" + std::to_string(p))));
  std::vector<std::uint32_t> map;
  for (const std::string& name : pattern.vars()) map.push_back(intern_var(name));
  var_maps_.push_back(std::move(map));
  patterns_.push_back(std::move(pattern));
}

void Query::compile() {
  var_regs_.assign(var_names_.size(), kNoId);
  num_regs_ = 0;
  program_.clear();
  ground_terms_.clear();
  auto bind_or_compare = [&](std::uint32_t var, std::uint32_t reg) {
    if (var_regs_[var] == kNoId) {
      var_regs_[var] = reg;
    } else if (var_regs_[var] != reg) {
      program_.push_back({Instruction::Kind::kCompare, reg, var_regs_[var], 0, 0, 0, 0});
    }
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
        program_.push_back({Instruction::Kind::kScanClasses, reg, 0, 0, 0, 0, 0});
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
      compile_node(p, pattern.root(), reg, true);
    }
  }
  program_.push_back({Instruction::Kind::kYield, 0, 0, 0, 0, 0, 0});
}

void Query::compile_node(std::size_t p, std::uint32_t node, std::uint32_t reg, bool scan) {
  const Pattern& pattern = patterns_[p];
  const Pattern::Node& pn = pattern.nodes()[node];
  const auto arity = static_cast<std::uint32_t>(pn.children.size());
  const std::uint32_t out = num_regs_;
  num_regs_ += arity;
  program_.push_back({scan ? Instruction::Kind::kScanOp : Instruction::Kind::kBind, reg, 0, pn.op, pn.payload,
                      arity, out});
  // Cheap checks (variables, ground terms) first, nested nodes after: prunes early.
  for (std::uint32_t i = 0; i < arity; ++i) {
    const std::uint32_t child = pn.children[i];
    const Pattern::Node& cn = pattern.nodes()[child];
    if (cn.is_var) {
      const std::uint32_t var = var_maps_[p][cn.var];
      if (var_regs_[var] == kNoId)
        var_regs_[var] = out + i;
      else
        program_.push_back({Instruction::Kind::kCompare, out + i, var_regs_[var], 0, 0, 0, 0});
    } else if (pattern.is_ground(child)) {
      ground_terms_.push_back(ground_term(pattern, child));
      program_.push_back({Instruction::Kind::kCheckGround, out + i,
                          static_cast<std::uint32_t>(ground_terms_.size() - 1), 0, 0, 0, 0});
    }
  }
  for (std::uint32_t i = 0; i < arity; ++i) {
    const std::uint32_t child = pn.children[i];
    if (!pattern.nodes()[child].is_var && !pattern.is_ground(child)) compile_node(p, child, out + i, false);
  }
}

namespace {

// Executes a compiled query by backtracking, egg-style: each Bind/Scan tries
// every candidate node and continues with the next instruction.
class Machine {
 public:
  Machine(const EGraph& graph, const std::vector<Query::Instruction>& program, std::vector<Id> ground,
          std::span<const std::uint32_t> yield_regs, std::uint32_t num_regs, std::vector<Id>& out)
      : graph_(graph),
        index_(graph.index()),
        program_(program),
        ground_(std::move(ground)),
        yield_regs_(yield_regs),
        regs_(num_regs, kNoId),
        out_(out) {}

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
    const NodeView view = graph_.node(node);
    if (view.payload != in.payload || view.children.size() != in.arity) return;
    for (std::uint32_t i = 0; i < in.arity; ++i) regs_[in.out + i] = view.children[i];
    run(next);
  }

  void run(std::size_t pc) {
    const Query::Instruction& in = program_[pc];
    switch (in.kind) {
      case Query::Instruction::Kind::kBind: {
        if (in.op + 1 >= index_.op_begin.size()) return;  // op unknown when the index was built
        const auto [first, last] = index_.op_range(regs_[in.reg], in.op);
        for (std::uint32_t k = first; k < last; ++k) bind_node(in, index_.class_node[k], pc + 1);
        return;
      }
      case Query::Instruction::Kind::kCompare:
        if (regs_[in.reg] == regs_[in.other]) run(pc + 1);
        return;
      case Query::Instruction::Kind::kCheckGround:
        if (regs_[in.reg] == ground_[in.other]) run(pc + 1);
        return;
      case Query::Instruction::Kind::kScanOp: {
        if (in.op + 1 >= index_.op_begin.size()) return;
        for (std::uint32_t k = index_.op_begin[in.op]; k < index_.op_begin[in.op + 1]; ++k) {
          regs_[in.reg] = index_.op_class[k];
          bind_node(in, index_.op_node[k], pc + 1);
        }
        return;
      }
      case Query::Instruction::Kind::kScanClasses:
        for (Id cls : index_.roots) {
          regs_[in.reg] = cls;
          run(pc + 1);
        }
        return;
      case Query::Instruction::Kind::kYield: {
        const std::size_t at = out_.size();
        out_.resize(at + yield_regs_.size());
        for (std::size_t v = 0; v < yield_regs_.size(); ++v) out_[at + v] = regs_[yield_regs_[v]];
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
  std::vector<Id>& out_;
};

constexpr std::size_t kBatchIds = 1 << 16;

}  // namespace

std::size_t Query::search(const EGraph& graph, const Sink& sink, std::size_t limit) const {
  std::vector<Id> ground;
  ground.reserve(ground_terms_.size());
  for (const RecExpr& term : ground_terms_) ground.push_back(graph.lookup_expr(term).value_or(kNoId));
  std::vector<Id> batch;
  Machine machine(graph, program_, std::move(ground), var_regs_, num_regs_, batch);  // builds the index
  const EGraph::IndexReadGuard guard(graph);
  const std::size_t per_match = var_names_.size();
  std::size_t produced = 0;
  const std::size_t roots = machine.num_roots();
  for (std::size_t k = 0; k < roots && produced < limit; ++k) {
    machine.run_root(k);
    // Hand batches over only between roots: the machine holds no pointers
    // into storage there, so the sink may add nodes.
    const std::size_t pending = batch.size() / per_match;
    if (pending > 0 && (batch.size() >= kBatchIds || k + 1 == roots || produced + pending >= limit)) {
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
