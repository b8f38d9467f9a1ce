#include "rules/rule_query.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "egraph/query.h"
#include "rules/attr_values.h"
#include "rules/tensor_analysis.h"

namespace smelt::rules {

using smelt::egraph::EGraph;
using smelt::egraph::Id;
using smelt::egraph::NodeView;
using smelt::egraph::PartialMatch;
using smelt::egraph::Pattern;
using smelt::egraph::Query;

namespace {

std::string tensor_var_name(int var) { return "?t" + std::to_string(var); }
std::string root_var_name(size_t root) { return "?root" + std::to_string(root); }

// What the rule's variables are in the query, and the guards that check what
// a Query cannot: attributes, distinct roots, conditions.
class RuleQuery final : public smelt::egraph::QueryGuard, public ExprEnv {
 public:
  RuleQuery(const EGraph& graph, const CompiledRule& rule)
      : graph_(graph), analysis_(tensor_analysis(graph)), lang_(analysis_.lang()), rule_(rule) {
    std::vector<Pattern> patterns;
    std::vector<std::string> root_names;
    place_.assign(rule.pattern.size(), {0, 0});
    for (size_t r = 0; r < rule.roots.size(); ++r) {
      Pattern pattern;
      add(pattern, r, rule.roots[r]);
      patterns.push_back(std::move(pattern));
      root_names.push_back(root_var_name(r));
    }
    query_ = Query::from_patterns(std::move(patterns), std::move(root_names), /*yield_nodes=*/true);
    resolve_variables();
    add_guards();
  }

  size_t find(size_t limit, std::vector<RuleMatch>& out, std::chrono::steady_clock::time_point deadline) {
    Query::SearchOptions options;
    options.limit = limit;
    options.guard = this;
    options.deadline = deadline;
    const size_t width = query_.match_width();
    size_t found = 0;
    query_.search(
        graph_,
        [&](std::span<const Id> matches) {
          for (size_t at = 0; at + width <= matches.size() && found < limit; at += width, ++found)
            out.push_back(rule_match(matches.subspan(at, width)));
          return found < limit;
        },
        options);
    return found;
  }

  bool holds(std::uint32_t guard, const PartialMatch& bound) override {
    bound_ = &bound;
    const Guard& g = guards_[guard];
    switch (g.kind) {
      case Guard::Kind::kAttributes:
        return bind_attributes(g.pattern_node, bound);
      case Guard::Kind::kDistinctRoots:
        return bound.var(root_vars_[0]) != bound.var(root_vars_[g.index]);
      case Guard::Kind::kCondition:
        return rules::holds(rule_.conditions[g.index], *this);
    }
    return false;
  }

  const Value& attr_var(int index) const override { return *attrs_[index]; }
  TensorFacts tensor_var(int index) const override {
    return class_facts(graph_, analysis_, bound_->var(tensor_vars_[index]));
  }
  OpFacts op_var(int index) const override { return node_facts(graph_, analysis_, bound_->node(op_slots_[index])); }

 private:
  struct Guard {
    enum class Kind : uint8_t { kAttributes, kDistinctRoots, kCondition };
    Kind kind;
    uint32_t pattern_node = 0;  // kAttributes
    size_t index = 0;           // kDistinctRoots: the later root; kCondition: the condition
  };

  // Adds pattern node `i` and its subterms to `pattern`, children first.
  uint32_t add(Pattern& pattern, size_t root, uint32_t i) {
    const PatternNode& p = rule_.pattern[i];
    std::vector<uint32_t> children;
    for (uint32_t child : p.children) children.push_back(add(pattern, root, child));
    uint32_t node = 0;
    switch (p.kind) {
      case PatternNode::Kind::kVar:
        node = pattern.add_var(tensor_var_name(p.var));
        break;
      case PatternNode::Kind::kOp:
        node = pattern.add_op(lang_.symbol(p.op), std::nullopt, std::move(children));
        break;
      case PatternNode::Kind::kOpVar:
        node = pattern.add_op_var("?op" + std::to_string(p.var), std::move(children));
        break;
    }
    place_[i] = {root, node};
    return node;
  }

  uint32_t slot(uint32_t i) const { return query_.node_slot(place_[i].first, place_[i].second); }

  // Query variables and node slots of the rule's variables; an op or attribute
  // variable is read from the node the search binds first.
  void resolve_variables() {
    for (size_t r = 0; r < rule_.roots.size(); ++r) root_vars_.push_back(*query_.var_index(root_var_name(r)));
    for (int t = 0; t < rule_.lhs_tensors; ++t) {
      const auto var = query_.var_index(tensor_var_name(t));
      if (!var) throw std::logic_error("rule " + rule_.name + ": tensor variable not bound by the left side");
      tensor_vars_.push_back(*var);
    }
    op_slots_.assign(rule_.vars.ops, Query::kNoSlot);
    attr_binder_.assign(rule_.vars.attrs, UINT32_MAX);
    auto earlier = [&](uint32_t current, uint32_t i) {
      return current == UINT32_MAX || query_.node_bound_at(slot(i)) < query_.node_bound_at(slot(current));
    };
    std::vector<uint32_t> op_binder(rule_.vars.ops, UINT32_MAX);
    for (uint32_t i = 0; i < rule_.pattern.size(); ++i) {
      const PatternNode& p = rule_.pattern[i];
      if (p.kind == PatternNode::Kind::kOpVar && earlier(op_binder[p.var], i)) op_binder[p.var] = i;
      for (const AttrBinding& b : p.attrs)
        if (earlier(attr_binder_[b.attr_var], i)) attr_binder_[b.attr_var] = i;
    }
    for (int o = 0; o < rule_.vars.ops; ++o) {
      if (op_binder[o] == UINT32_MAX) throw std::logic_error("rule " + rule_.name + ": op variable not bound");
      op_slots_[o] = slot(op_binder[o]);
    }
    for (uint32_t binder : attr_binder_)
      if (binder == UINT32_MAX) throw std::logic_error("rule " + rule_.name + ": attribute variable not bound");
    attrs_.assign(rule_.vars.attrs, std::nullopt);
  }

  void add_guard(Guard guard, std::vector<uint32_t> vars, std::vector<uint32_t> slots) {
    query_.add_guard(vars, slots);
    guards_.push_back(guard);
  }

  // Attribute guards in the order the search binds their nodes (a binder's
  // guard runs before the guards comparing with it), then the roots, then the
  // conditions, each after what it reads.
  void add_guards() {
    std::vector<uint32_t> with_attrs;
    for (uint32_t i = 0; i < rule_.pattern.size(); ++i) {
      const PatternNode& p = rule_.pattern[i];
      if (!p.attrs.empty() || p.kind == PatternNode::Kind::kOpVar) with_attrs.push_back(i);
    }
    std::sort(with_attrs.begin(), with_attrs.end(), [&](uint32_t a, uint32_t b) {
      return query_.node_bound_at(slot(a)) < query_.node_bound_at(slot(b));
    });
    for (uint32_t i : with_attrs) {
      std::vector<uint32_t> slots{slot(i)};
      for (const AttrBinding& b : rule_.pattern[i].attrs) slots.push_back(slot(attr_binder_[b.attr_var]));
      add_guard({Guard::Kind::kAttributes, i, 0}, {}, std::move(slots));
    }
    for (size_t r = 1; r < root_vars_.size(); ++r)
      add_guard({Guard::Kind::kDistinctRoots, 0, r}, {root_vars_[0], root_vars_[r]}, {});
    for (size_t c = 0; c < rule_.conditions.size(); ++c) {
      std::vector<VarIndex::Slot> used;
      collect_vars(rule_.conditions[c], used);
      std::vector<uint32_t> vars, slots;
      for (const VarIndex::Slot& s : used) {
        if (s.kind == VarIndex::Kind::kTensor) vars.push_back(tensor_vars_.at(s.index));
        if (s.kind == VarIndex::Kind::kOp) slots.push_back(op_slots_.at(s.index));
        if (s.kind == VarIndex::Kind::kAttr) slots.push_back(slot(attr_binder_.at(s.index)));
      }
      add_guard({Guard::Kind::kCondition, 0, c}, std::move(vars), std::move(slots));
    }
  }

  // The node of pattern node `i` is a tensor op; its attributes bind the
  // variables it binds first and equal the others.
  bool bind_attributes(uint32_t i, const PartialMatch& bound) {
    const NodeView node = graph_.node(bound.node(slot(i)));
    if (rule_.pattern[i].kind == PatternNode::Kind::kOpVar && !lang_.op_of(node.op)) return false;
    const AttrRecord& record = lang_.record(node.payload);
    for (const AttrBinding& b : rule_.pattern[i].attrs) {
      std::optional<Value> v = attr_value(record.op, record.attrs, b.key);
      if (!v) return false;
      if (attr_binder_[b.attr_var] == i) {
        attrs_[b.attr_var] = std::move(v);
      } else if (!identical(*attrs_[b.attr_var], *v)) {
        return false;
      }
    }
    return true;
  }

  RuleMatch rule_match(std::span<const Id> match) const {
    const std::span<const Id> nodes = match.subspan(query_.num_vars());
    RuleMatch m;
    for (uint32_t var : root_vars_) m.roots.push_back(match[var]);
    for (uint32_t var : tensor_vars_) m.tensors.push_back(match[var]);
    for (uint32_t s : op_slots_) m.op_nodes.push_back(nodes[s]);
    for (size_t a = 0; a < attr_binder_.size(); ++a) {
      const uint32_t i = attr_binder_[a];
      const AttrRecord& record = lang_.record(graph_.node(nodes[slot(i)]).payload);
      for (const AttrBinding& b : rule_.pattern[i].attrs)
        if (b.attr_var == static_cast<int>(a)) m.attrs.push_back(*attr_value(record.op, record.attrs, b.key));
    }
    return m;
  }

  const EGraph& graph_;
  const TensorAnalysis& analysis_;
  const TensorLang& lang_;
  const CompiledRule& rule_;
  Query query_;
  std::vector<std::pair<size_t, uint32_t>> place_;  // by pattern node: (root, node in that root's Pattern)
  std::vector<uint32_t> root_vars_, tensor_vars_;   // query variables
  std::vector<uint32_t> op_slots_;                  // by op variable: the node slot binding it
  std::vector<uint32_t> attr_binder_;               // by attribute variable: the pattern node binding it
  std::vector<Guard> guards_;
  std::vector<std::optional<Value>> attrs_;  // the current partial match's attribute values
  const PartialMatch* bound_ = nullptr;      // the partial match a condition is evaluated on
};

}  // namespace

TensorFacts class_facts(const EGraph& graph, const TensorAnalysis& analysis, Id cls) {
  const TensorData& d = analysis.data(graph, cls);
  return {*d.type, d.splat};
}

OpFacts node_facts(const EGraph& graph, const TensorAnalysis& analysis, Id node) {
  const NodeView view = graph.node(node);
  const AttrRecord& r = analysis.lang().record(view.payload);
  OpFacts f{r.op, &r.attrs, {}};
  for (Id child : view.children) f.operand_dtypes.push_back(analysis.type(graph, child).dtype);
  return f;
}

size_t find_matches(const EGraph& graph, const CompiledRule& rule, size_t limit, std::vector<RuleMatch>& out,
                    std::chrono::steady_clock::time_point deadline) {
  if (limit == 0 || rule.pattern.empty()) return 0;
  return RuleQuery(graph, rule).find(limit, out, deadline);
}

}  // namespace smelt::rules
