#include "rules/rhs_builder.h"

#include <string>
#include <vector>

#include "rules/attr_values.h"
#include "rules/tensor_analysis.h"

namespace smelt::rules {

using smelt::egraph::EGraph;
using smelt::egraph::Id;

namespace {

// A right-side value: an existing class, or a node planned but not yet added.
struct Ref {
  bool planned = false;
  uint32_t index = 0;  // into the plan
  Id cls = smelt::egraph::kNoId;
};

struct PlannedNode {
  ir::Op op;
  ir::Attrs attrs;  // canonical (after inference)
  std::vector<Ref> children;
  ir::TensorType type;
};

// Plans the whole right side first and adds nothing until every expression
// has a value and every node type-checks, so a rule that does not fire on a
// match leaves no stray nodes behind.
class RhsBuilder final : public ExprEnv {
 public:
  RhsBuilder(EGraph& graph, const CompiledRule& rule, const RuleMatch& match)
      : graph_(graph), analysis_(tensor_analysis(graph)), rule_(rule), match_(match) {}

  size_t apply(smelt::egraph::Justification why) {
    std::vector<Ref> results;
    try {
      for (const auto& [var, root] : rule_.lets) {
        const Ref ref = plan(root);
        if (lets_.size() <= static_cast<size_t>(var - rule_.lhs_tensors)) lets_.resize(var - rule_.lhs_tensors + 1);
        lets_[var - rule_.lhs_tensors] = ref;
      }
      for (uint32_t root : rule_.rhs) results.push_back(plan(root));
    } catch (const Undefined&) {
      return 0;
    } catch (const ExprTypeError& e) {
      fail(e.what());
    }
    for (size_t k = 0; k < results.size(); ++k) {
      const ir::TensorType& want = analysis_.type(graph_, match_.roots[k]);
      const ir::TensorType got = type_of(results[k]);
      if (got != want)
        fail("right side " + std::to_string(k + 1) + " has type " + ir::type_str(got) +
             " but the matched left side has type " + ir::type_str(want));
    }
    std::vector<Id> added(plan_.size());
    TensorLang& lang = analysis_.lang();
    for (size_t k = 0; k < plan_.size(); ++k) {
      std::vector<Id> children;
      for (const Ref& c : plan_[k].children) children.push_back(c.planned ? added[c.index] : c.cls);
      added[k] = graph_.add(lang.symbol(plan_[k].op), lang.payload(plan_[k].op, plan_[k].attrs), children);
    }
    size_t unions = 0;
    for (size_t k = 0; k < results.size(); ++k) {
      const Id to = results[k].planned ? added[results[k].index] : results[k].cls;
      unions += graph_.unite(match_.roots[k], to, why) ? 1 : 0;
    }
    return unions;
  }

  const Value& attr_var(int index) const override { return match_.attrs[index]; }

  TensorFacts tensor_var(int index) const override {
    const Ref ref = tensor_ref(index);
    if (ref.planned) return {plan_[ref.index].type, std::nullopt};
    return class_facts(graph_, analysis_, ref.cls);
  }

  OpFacts op_var(int index) const override { return node_facts(graph_, analysis_, match_.op_nodes[index]); }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw RuleApplicationError(rule_.file + ":" + std::to_string(rule_.pos.line) + ":" +
                               std::to_string(rule_.pos.col) + ": rule " + rule_.name + ": " + message);
  }

  Ref tensor_ref(int var) const {
    if (var < rule_.lhs_tensors) return Ref{false, 0, match_.tensors[var]};
    return lets_.at(var - rule_.lhs_tensors);
  }

  ir::TensorType type_of(const Ref& ref) const {
    return ref.planned ? plan_[ref.index].type : analysis_.type(graph_, ref.cls);
  }

  Ref plan(uint32_t t) {
    const TemplateNode& n = rule_.templates[t];
    if (n.kind == TemplateNode::Kind::kVar) return tensor_ref(n.var);
    std::vector<Ref> children;
    std::vector<ir::TensorType> types;
    for (uint32_t c : n.children) {
      children.push_back(plan(c));
      types.push_back(type_of(children.back()));
    }
    PlannedNode node;
    if (n.kind == TemplateNode::Kind::kOpVar) {
      // The matched op with its own attributes, over new operands.
      const AttrRecord& r = analysis_.lang().record(graph_.node(match_.op_nodes[n.var]).payload);
      node.op = r.op;
      node.attrs = r.attrs;
    } else {
      node.op = n.op;
      for (const auto& [key, expr] : n.attrs) set_attr(n.op, node.attrs, key, eval(expr, *this));
      // The .sg defaults of the attributes a right side may leave out.
      if (n.op == ir::Op::Slice && node.attrs.step.empty()) node.attrs.step.assign(node.attrs.start.size(), 1);
      if (n.op == ir::Op::Pad && node.attrs.values.empty()) node.attrs.values = {0};
    }
    const ir::OpInfo& info = ir::op_info(node.op);
    if (info.arity >= 0 && types.size() != static_cast<size_t>(info.arity))
      fail(std::string(info.name) + " takes " + std::to_string(info.arity) + " operands");
    ir::Inferred inferred = info.infer(types, node.attrs);
    if (!inferred.error.empty()) {
      std::string sig = std::string(info.name) + "(";
      for (size_t k = 0; k < types.size(); ++k) sig += (k ? ", " : "") + ir::type_str(types[k]);
      fail("the right side " + sig + ") does not type-check: " + inferred.error);
    }
    node.type = std::move(inferred.type);
    node.children = std::move(children);
    plan_.push_back(std::move(node));
    return Ref{true, static_cast<uint32_t>(plan_.size() - 1), smelt::egraph::kNoId};
  }

  EGraph& graph_;
  TensorAnalysis& analysis_;
  const CompiledRule& rule_;
  const RuleMatch& match_;
  std::vector<PlannedNode> plan_;
  std::vector<Ref> lets_;
};

}  // namespace

size_t apply_match(EGraph& graph, const CompiledRule& rule, const RuleMatch& match,
                   smelt::egraph::Justification why) {
  return RhsBuilder(graph, rule, match).apply(why);
}

}  // namespace smelt::rules
