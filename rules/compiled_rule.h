#pragma once
// A rule (rule_ast.h) compiled for the e-graph: the left side flattened into
// pattern nodes in matching order, variables resolved to indices, every
// attribute of the left side turned into a variable binding (plus an equality
// condition where the attribute is an expression), the conditions split into
// conjuncts (rules/rule_query.h checks each as soon as its variables are
// bound), and the right side / :let terms as templates.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rules/expr_eval.h"
#include "rules/rule_ast.h"

namespace smelt::rules {

struct AttrBinding {
  std::string key;  // .sg key ("start", ...; "shape"/"dtype" of factories)
  int attr_var = -1;
};

struct PatternNode {
  enum class Kind : uint8_t { kVar, kOp, kOpVar };
  Kind kind = Kind::kVar;
  int var = -1;                    // tensor variable (kVar) or op variable (kOpVar)
  ir::Op op = ir::Op::Input;       // kOp
  std::vector<uint32_t> children;  // pattern node indices (later in the list)
  std::vector<AttrBinding> attrs;  // kOp
};

struct TemplateNode {
  enum class Kind : uint8_t { kVar, kOp, kOpVar };
  Kind kind = Kind::kVar;
  int var = -1;  // tensor variable (left side or :let) or op variable
  ir::Op op = ir::Op::Input;
  std::vector<uint32_t> children;  // template node indices
  std::vector<std::pair<std::string, CExpr>> attrs;
};

struct CompiledRule;

// The instances of a `:members MIN *` template that saturation builds from its
// member lemma's template for the n a graph needs (the lemma proves them all).
class OnDemandInstances {
 public:
  explicit OnDemandInstances(const GroupInfo& lemma) : lemma_(lemma) {}
  // The compiled instance for n members (n >= the template's MIN), built once.
  const CompiledRule& get(int n);

 private:
  GroupInfo lemma_;
  std::mutex mutex_;
  std::map<int, std::shared_ptr<const CompiledRule>> compiled_;
};

struct CompiledRule {
  std::string name;
  std::string family;
  std::string file;
  SourcePos pos;
  bool unsafe_fp = false;
  std::optional<GroupInfo> group;  // an instance of a group template (applied by rules/group_apply.h)
  std::shared_ptr<const CompiledRule> member;  // a group instance's member pattern (group_member_rule)
  // A member lemma (group->generic) is never matched itself: it only stands
  // for its instances of any n, built here.
  std::shared_ptr<OnDemandInstances> on_demand;

  VarIndex vars;
  int lhs_tensors = 0;  // tensor variables [0, lhs_tensors) are bound by the left side, the rest by :let

  // Left side in matching order: each root followed by its subterms, preorder.
  std::vector<PatternNode> pattern;
  std::vector<uint32_t> roots;  // pattern index of each left root
  // Each a conjunct of the rule's conditions (or an attribute's expression
  // equality), reading only variables the left side binds.
  std::vector<CExpr> conditions;

  std::vector<TemplateNode> templates;
  std::vector<std::pair<int, uint32_t>> lets;  // (tensor variable, template root), in order
  std::vector<uint32_t> rhs;                   // template root replacing each left root
};

// Throws RuleError ("FILE:LINE:COL: rule NAME: ...") for what the engine cannot
// run (the parser has already checked the language itself).
CompiledRule compile_rule(const Rule& rule);

}  // namespace smelt::rules
