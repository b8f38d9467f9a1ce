#include "rules/matcher.h"

#include <optional>

#include "rules/attr_values.h"
#include "rules/tensor_analysis.h"

namespace rules {

using smelt::egraph::ClassIndex;
using smelt::egraph::EGraph;
using smelt::egraph::Id;
using smelt::egraph::NodeView;

namespace {

class Matcher final : public ExprEnv {
 public:
  Matcher(const EGraph& graph, const CompiledRule& rule, size_t limit, std::vector<RuleMatch>& out,
          std::chrono::steady_clock::time_point deadline)
      : deadline_(deadline),
        graph_(graph),
        analysis_(tensor_analysis(graph)),
        lang_(analysis_.lang()),
        rule_(rule),
        index_(graph.index()),
        limit_(limit),
        out_(out),
        regs_(rule.pattern.size(), smelt::egraph::kNoId),
        tensors_(rule.lhs_tensors, smelt::egraph::kNoId),
        op_nodes_(rule.vars.ops, smelt::egraph::kNoId),
        attrs_(rule.vars.attrs),
        root_number_(rule.pattern.size(), -1) {
    for (size_t k = 0; k < rule.roots.size(); ++k) root_number_[rule.roots[k]] = static_cast<int>(k);
  }

  size_t run() {
    if (limit_ > 0 && !rule_.pattern.empty()) step(0);
    return found_;
  }

  const Value& attr_var(int index) const override { return *attrs_[index]; }

  TensorFacts tensor_var(int index) const override { return class_facts(graph_, analysis_, tensors_[index]); }
  OpFacts op_var(int index) const override { return node_facts(graph_, analysis_, op_nodes_[index]); }

 private:
  bool done() const { return found_ >= limit_ || timed_out_; }

  // Looks at the clock every few thousand candidate nodes.
  void tick() {
    if (++ticks_ % 4096 == 0 && std::chrono::steady_clock::now() > deadline_) timed_out_ = true;
  }

  void step(uint32_t i) {
    if (done()) return;
    if (i == rule_.pattern.size()) {
      emit();
      return;
    }
    const PatternNode& p = rule_.pattern[i];
    if (root_number_[i] >= 0) {
      scan_root(i, p);
      return;
    }
    const Id cls = regs_[i];
    switch (p.kind) {
      case PatternNode::Kind::kVar: {
        Id& bound = tensors_[p.var];
        if (bound != smelt::egraph::kNoId) {
          if (bound == cls && checks_hold(i)) step(i + 1);
          return;
        }
        bound = cls;
        if (checks_hold(i)) step(i + 1);
        bound = smelt::egraph::kNoId;
        return;
      }
      case PatternNode::Kind::kOp: {
        const auto [first, last] = index_.op_range(cls, lang_.symbol(p.op));
        for (uint32_t k = first; k < last && !done(); ++k) try_node(i, p, index_.class_node[k]);
        return;
      }
      case PatternNode::Kind::kOpVar:
        for (Id node : index_.nodes_of(cls)) {
          if (done()) return;
          try_node(i, p, node);
        }
        return;
    }
  }

  // Every node that can be a root: by op, or every node for an op variable.
  void scan_root(uint32_t i, const PatternNode& p) {
    uint32_t first = 0, last = static_cast<uint32_t>(index_.op_node.size());
    if (p.kind == PatternNode::Kind::kOp) {
      const smelt::egraph::Op symbol = lang_.symbol(p.op);
      if (symbol + 1 >= index_.op_begin.size()) return;
      first = index_.op_begin[symbol];
      last = index_.op_begin[symbol + 1];
    }
    const bool later_root = root_number_[i] > 0;
    for (uint32_t k = first; k < last && !done(); ++k) {
      const Id cls = index_.op_class[k];
      // The roots of a multi-pattern are different tensors.
      if (later_root && cls == regs_[rule_.roots[0]]) continue;
      regs_[i] = cls;
      try_node(i, p, index_.op_node[k]);
    }
  }

  void try_node(uint32_t i, const PatternNode& p, Id node_id) {
    tick();
    const NodeView node = graph_.node(node_id);
    if (node.children.size() != p.children.size()) return;
    bool bound_op = false;
    if (p.kind == PatternNode::Kind::kOp) {
      if (node.op != lang_.symbol(p.op)) return;
    } else {  // op variable: the same op with the same attributes wherever it recurs
      Id& bound = op_nodes_[p.var];
      if (bound != smelt::egraph::kNoId) {
        const NodeView first = graph_.node(bound);
        if (first.op != node.op || first.payload != node.payload) return;
      } else {
        if (!lang_.op_of(node.op)) return;
        bound = node_id;
        bound_op = true;
      }
    }
    // Cheap pruning first: operands that must be an already bound tensor.
    for (size_t k = 0; k < p.children.size(); ++k) {
      const PatternNode& child = rule_.pattern[p.children[k]];
      if (child.kind == PatternNode::Kind::kVar && tensors_[child.var] != smelt::egraph::kNoId &&
          tensors_[child.var] != node.children[k]) {
        if (bound_op) op_nodes_[p.var] = smelt::egraph::kNoId;
        return;
      }
    }
    const AttrRecord& record = lang_.record(node.payload);
    size_t attrs_bound = 0;
    bool ok = true;
    for (const AttrBinding& b : p.attrs) {
      std::optional<Value> v = attr_value(record.op, record.attrs, b.key);
      std::optional<Value>& slot = attrs_[b.attr_var];
      if (!v) {
        ok = false;
      } else if (slot) {
        ok = identical(*slot, *v);
      } else {
        slot = std::move(v);
        newly_bound_.push_back(b.attr_var);
        ++attrs_bound;
      }
      if (!ok) break;
    }
    if (ok) {
      for (size_t k = 0; k < p.children.size(); ++k) regs_[p.children[k]] = node.children[k];
      if (checks_hold(i)) step(i + 1);
    }
    for (; attrs_bound > 0; --attrs_bound) {
      attrs_[newly_bound_.back()].reset();
      newly_bound_.pop_back();
    }
    if (bound_op) op_nodes_[p.var] = smelt::egraph::kNoId;
  }

  bool checks_hold(uint32_t i) const {
    for (uint32_t c : rule_.checks_at[i])
      if (!holds(rule_.conditions[c], *this)) return false;
    return true;
  }

  void emit() {
    RuleMatch m;
    for (uint32_t root : rule_.roots) m.roots.push_back(regs_[root]);
    m.tensors = tensors_;
    m.op_nodes = op_nodes_;
    m.attrs.reserve(attrs_.size());
    for (const auto& a : attrs_) m.attrs.push_back(*a);
    out_.push_back(std::move(m));
    ++found_;
  }

  std::chrono::steady_clock::time_point deadline_;
  uint64_t ticks_ = 0;
  bool timed_out_ = false;
  const EGraph& graph_;
  const TensorAnalysis& analysis_;
  const TensorLang& lang_;
  const CompiledRule& rule_;
  const ClassIndex& index_;
  size_t limit_;
  std::vector<RuleMatch>& out_;
  size_t found_ = 0;

  std::vector<Id> regs_;  // the class each pattern node must match
  std::vector<Id> tensors_;
  std::vector<Id> op_nodes_;
  std::vector<std::optional<Value>> attrs_;
  std::vector<int> newly_bound_;
  std::vector<int> root_number_;  // by pattern index: which left root, or -1
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
  return Matcher(graph, rule, limit, out, deadline).run();
}

}  // namespace rules
