#include "rules/compiled_rule.h"

#include <algorithm>
#include <stdexcept>

#include "rules/group_template.h"
#include "rules/rule_parser.h"

namespace smelt::rules {
namespace {

// What every compiled rule carries of its rule: names, position, group.
CompiledRule compiled_header(const Rule& rule) {
  CompiledRule out;
  out.name = rule.name;
  out.family = rule.family;
  out.file = rule.file;
  out.pos = rule.pos;
  out.unsafe_fp = rule.unsafe_fp;
  out.group = rule.group;
  return out;
}

class Compiler {
 public:
  explicit Compiler(const Rule& rule) : rule_(rule), out_(compiled_header(rule)) {}

  CompiledRule compile() {
    try {
      for (const Term& root : rule_.lhs) out_.roots.push_back(add_pattern(root));
      out_.lhs_tensors = out_.vars.tensors;
      for (const auto& [hidden, expr] : attr_checks_) {
        CExpr eq;
        eq.fn = Fn::kEq;
        CExpr var;
        var.fn = Fn::kAttrVar;
        var.var = hidden;
        eq.args = {var, compile_expr(*expr, out_.vars)};
        schedule(std::move(eq), expr->pos);
      }
      for (const Expr& c : rule_.conditions) schedule_conjuncts(c);
      for (const auto& [name, term] : rule_.lets) {
        const uint32_t root = add_template(term);
        out_.lets.emplace_back(out_.vars.declare(name, VarIndex::Kind::kTensor).index, root);
      }
      for (const Term& t : rule_.rhs) out_.rhs.push_back(add_template(t));
    } catch (const std::logic_error& e) {
      fail(rule_.pos, e.what());
    }
    if (out_.rhs.size() != out_.roots.size()) fail(rule_.pos, ":lhs and :rhs have different numbers of terms");
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(SourcePos pos, const std::string& message) const {
    throw RuleError(rule_.file, pos.line, pos.col, rule_.name, message);
  }

  // The first pattern index at which a variable is bound.
  void note_bound(VarIndex::Slot slot, uint32_t at) {
    auto& first = slot.kind == VarIndex::Kind::kTensor ? tensor_at_
                  : slot.kind == VarIndex::Kind::kOp   ? op_at_
                                                       : attr_at_;
    if (first.size() <= static_cast<size_t>(slot.index)) first.resize(slot.index + 1, UINT32_MAX);
    first[slot.index] = std::min(first[slot.index], at);
  }

  uint32_t bound_at(VarIndex::Slot slot) const {
    const auto& first = slot.kind == VarIndex::Kind::kTensor ? tensor_at_
                        : slot.kind == VarIndex::Kind::kOp   ? op_at_
                                                             : attr_at_;
    if (static_cast<size_t>(slot.index) >= first.size() || first[slot.index] == UINT32_MAX)
      throw std::logic_error("a condition reads a variable the left side does not bind");
    return first[slot.index];
  }

  uint32_t add_pattern(const Term& t) {
    const auto index = static_cast<uint32_t>(out_.pattern.size());
    out_.pattern.emplace_back();
    PatternNode n;
    switch (t.kind) {
      case Term::Kind::kVar: {
        n.kind = PatternNode::Kind::kVar;
        const auto slot = out_.vars.declare(t.var, VarIndex::Kind::kTensor);
        n.var = slot.index;
        note_bound(slot, index);
        break;
      }
      case Term::Kind::kOpVar: {
        n.kind = PatternNode::Kind::kOpVar;
        const auto slot = out_.vars.declare(t.op_var, VarIndex::Kind::kOp);
        n.var = slot.index;
        note_bound(slot, index);
        break;
      }
      case Term::Kind::kOp: {
        n.kind = PatternNode::Kind::kOp;
        n.op = t.op;
        for (const auto& [key, expr] : t.attrs) {
          // A plain variable binds the attribute; anything else binds a hidden
          // variable that a condition then compares with the expression.
          const bool plain = expr.kind == Expr::Kind::kVar;
          const std::string name = plain ? expr.name : "%" + key + "@" + std::to_string(index);
          const auto slot = out_.vars.declare(name, VarIndex::Kind::kAttr);
          n.attrs.push_back({key, slot.index});
          note_bound(slot, index);
          if (!plain) attr_checks_.emplace_back(slot.index, &expr);
        }
        break;
      }
    }
    for (const Term& operand : t.operands) n.children.push_back(add_pattern(operand));
    out_.pattern[index] = std::move(n);
    return index;
  }

  // The operands of a top-level `and` are separate conditions, so each is
  // checked as early as its own variables allow (an (elementwise ?f) prunes
  // before the operands of ?f are even looked at).
  void schedule_conjuncts(const Expr& c) {
    if (c.kind == Expr::Kind::kCall && c.name == "and") {
      for (const Expr& part : c.args) schedule_conjuncts(part);
      return;
    }
    schedule(compile_expr(c, out_.vars), c.pos);
  }

  // A condition may read only what the left side binds (the matcher checks
  // it as soon as that is bound: rules/rule_query.h).
  void schedule(CExpr condition, SourcePos pos) {
    std::vector<VarIndex::Slot> used;
    collect_vars(condition, used);
    try {
      for (const VarIndex::Slot& slot : used) bound_at(slot);
    } catch (const std::logic_error& e) {
      fail(pos, e.what());
    }
    out_.conditions.push_back(std::move(condition));
  }

  uint32_t add_template(const Term& t) {
    TemplateNode n;
    switch (t.kind) {
      case Term::Kind::kVar: {
        auto slot = out_.vars.find(t.var);
        if (!slot || slot->kind != VarIndex::Kind::kTensor) fail(t.pos, "unbound tensor variable " + t.var);
        n.kind = TemplateNode::Kind::kVar;
        n.var = slot->index;
        break;
      }
      case Term::Kind::kOpVar: {
        auto slot = out_.vars.find(t.op_var);
        if (!slot || slot->kind != VarIndex::Kind::kOp) fail(t.pos, "unbound op variable " + t.op_var);
        n.kind = TemplateNode::Kind::kOpVar;
        n.var = slot->index;
        break;
      }
      case Term::Kind::kOp:
        n.kind = TemplateNode::Kind::kOp;
        n.op = t.op;
        for (const auto& [key, expr] : t.attrs) n.attrs.emplace_back(key, compile_expr(expr, out_.vars));
        break;
    }
    for (const Term& operand : t.operands) n.children.push_back(add_template(operand));
    out_.templates.push_back(std::move(n));
    return static_cast<uint32_t>(out_.templates.size() - 1);
  }

  const Rule& rule_;
  CompiledRule out_;
  std::vector<uint32_t> tensor_at_, op_at_, attr_at_;
  std::vector<std::pair<int, const Expr*>> attr_checks_;
};

}  // namespace

CompiledRule compile_rule(const Rule& rule) {
  if (rule.group && rule.group->generic) {
    if (!rule.group->tmpl) throw std::logic_error("rule " + rule.name + ": a member lemma without its template");
    CompiledRule lemma = compiled_header(rule);
    lemma.on_demand = std::make_shared<OnDemandInstances>(*rule.group);
    return lemma;
  }
  CompiledRule out = Compiler(rule).compile();
  if (rule.group) out.member = std::make_shared<const CompiledRule>(Compiler(group_member_rule(rule)).compile());
  return out;
}

const CompiledRule& OnDemandInstances::get(int n) {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::shared_ptr<const CompiledRule>& slot = compiled_[n];
  if (!slot) slot = std::make_shared<const CompiledRule>(compile_rule(lemma_instance(lemma_, n)));
  return *slot;
}

}  // namespace smelt::rules
