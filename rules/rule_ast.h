#pragma once
// The syntax tree of the .rules language (docs/rules.md). The parser
// (rule_parser.h) produces it; the rule engine (rules/) instantiates it on the
// e-graph and the prover (verify/) encodes it in Z3 — both read this one form.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/ops.h"

namespace smelt::rules {

struct SourcePos {
  int line = 0;
  int col = 0;
};

// An attribute value or condition expression.
struct Expr {
  enum class Kind : uint8_t {
    kInt,    // int_value
    kFloat,  // float_value
    kBool,   // bool_value
    kDType,  // dtype
    kList,   // args: the elements (expressions)
    kVar,    // name: "?s" — an attribute variable or a tensor/op variable
    kCall,   // name: the function ("+", "shape", "const", ...), args
    kSymbol, // name: a bare op name, only as NAME in (is-op ?f NAME)
  };
  Kind kind = Kind::kInt;
  int64_t int_value = 0;
  double float_value = 0;
  bool bool_value = false;
  ir::DType dtype = ir::DType::F32;
  std::string name;
  std::vector<Expr> args;
  SourcePos pos;
};

// A pattern (left side) or template (right side) term.
struct Term {
  enum class Kind : uint8_t {
    kVar,    // var: "?x", a tensor variable
    kOp,     // op: a concrete op of the table
    kOpVar,  // op_var: "?f", any op with operands.size() operands
  };
  Kind kind = Kind::kVar;
  std::string var;
  ir::Op op = ir::Op::Input;
  std::string op_var;
  std::vector<Term> operands;
  // Attributes by key (.sg names). Left side: a kVar expression binds the value,
  // anything else must evaluate equal. Right side: any expression. Factories
  // use the extra keys "shape" and "dtype" for their result type.
  std::vector<std::pair<std::string, Expr>> attrs;
  SourcePos pos;
};

// A rule made from a group template (`:members MIN MAX`, docs/rules.md): one
// instance per member count n, whose left roots are the n members. Per-member
// variables ?v are named ?v.0 ... ?v.{n-1} in the instance; `shared` ones keep
// their names. Saturation applies the instances of one template together, to
// whole groups of matches (rules/group_apply.h).
//
// A template with `:members MIN *` has no largest n: besides a few instances
// it yields its *member lemma* (`generic`, named "NAME.n"), the claim for one
// member k of a group of any size, whose proof covers every n
// (group_template.h); saturation builds the instance for the n it needs from
// `tmpl` (rules/group_apply.h).
struct Rule;

// In a member lemma: the members before member k (count "?member") or after it
// (count kMembersAfterVar), spliced into a concat along `axis` as one operand.
struct MemberBlock {
  std::string name;    // "?w.before" / "?w.after"
  std::string member;  // member k's variable it stands beside: "?w.k"
  int axis = 0;
  std::string count;   // the member count it spans: "?member" or kMembersAfterVar
};

struct GroupInfo {
  std::string name;                      // the template's name
  int members = 0;                       // n: this instance's member count (0 in a member lemma)
  std::vector<std::string> member_vars;  // per-member left-side variables, template names ("?w")
  std::vector<std::string> shared;       // variables every member binds to the same value
  std::vector<std::string> distinct;     // per-member tensor variables no two members bind to one class
  std::shared_ptr<const Rule> tmpl;      // a member lemma's template, from which any n is instantiated
  int min_members = 0;                   // a member lemma's: the template's MIN
  bool generic = false;                  // the member lemma (roots: member 0, member k)
  std::vector<MemberBlock> blocks;       // the member lemma's blocks
};

struct Rule {
  std::string name;
  std::string family;  // from the latest (family NAME) line, or ""
  std::string file;
  SourcePos pos;
  std::vector<Term> lhs;  // one root, or two for a multi-pattern
  std::vector<Term> rhs;  // rhs[i] replaces the match of lhs[i]
  std::vector<std::pair<std::string, Term>> lets;  // ":let ?y TERM", in order
  std::vector<Expr> conditions;                     // all must hold
  bool unsafe_fp = false;
  std::optional<GroupInfo> group;  // set on the instances of a group template
};

// Conditions that hold on every match: the :if clauses and, recursively, the
// arguments of their top-level `and`s (the prover and the group templates read
// facts from them).
inline void top_level_conjuncts(const Expr& e, std::vector<const Expr*>& out) {
  if (e.kind == Expr::Kind::kCall && e.name == "and") {
    for (const Expr& a : e.args) top_level_conjuncts(a, out);
    return;
  }
  out.push_back(&e);
}

inline std::vector<const Expr*> condition_facts(const Rule& rule) {
  std::vector<const Expr*> out;
  for (const Expr& c : rule.conditions) top_level_conjuncts(c, out);
  return out;
}

}  // namespace smelt::rules
