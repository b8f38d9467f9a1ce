#include "verify/rule_prover.h"

#include <algorithm>
#include <chrono>
#include <functional>

#include "rules/group_template.h"
#include "verify/case_check.h"

namespace smelt::verify {
namespace {

using rules::Expr;
using rules::Term;

void collect_op_vars(const Term& t, std::map<std::string, size_t>& arity) {
  if (t.kind == Term::Kind::kOpVar) arity[t.op_var] = t.operands.size();
  for (const Term& o : t.operands) collect_op_vars(o, arity);
}

// Whether `e` holding implies that op variable `f` is an elementwise op.
bool implies_elementwise(const Expr& e, const std::string& f) {
  if (e.kind != Expr::Kind::kCall) return false;
  auto implies = [&](const Expr& a) { return implies_elementwise(a, f); };
  if (e.name == "and") return std::any_of(e.args.begin(), e.args.end(), implies);
  if (e.name == "or") return !e.args.empty() && std::all_of(e.args.begin(), e.args.end(), implies);
  if (e.args.empty() || e.args[0].name != f) return false;
  if (e.name == "elementwise" || e.name == "unary" || e.name == "binary") return true;
  return e.name == "is-op" && ir::op_class(*ir::parse_op(e.args[1].name)) == ir::OpClass::Elementwise;
}

// Every op variable must be restricted to elementwise ops by the conditions:
// only then is "an uninterpreted function per op" a sound model. A top-level
// (is-op ?f NAME) fixes the op.
std::map<std::string, OpVarInfo> analyze_op_vars(const rules::Rule& rule) {
  std::map<std::string, size_t> arity;
  for (const Term& t : rule.lhs) collect_op_vars(t, arity);
  const std::vector<const Expr*> facts = rules::condition_facts(rule);
  std::map<std::string, OpVarInfo> out;
  for (const auto& [name, n] : arity) {
    OpVarInfo info{n, std::nullopt, {}, false};
    bool elementwise = false;
    for (const Expr* f : facts) {
      elementwise = elementwise || implies_elementwise(*f, name);
      if (f->kind == Expr::Kind::kCall && f->name == "is-op" && f->args[0].name == name) {
        ir::Op op = *ir::parse_op(f->args[1].name);
        if (ir::op_class(op) != ir::OpClass::Elementwise)
          throw Unsupported(name + " is " + f->args[1].name + ", which is not elementwise");
        info.op = op;
      }
    }
    if (!elementwise)
      throw Unsupported("op variable " + name + " is not restricted to elementwise ops by the conditions");
    out.emplace(name, info);
  }
  return out;
}

void collect_const_uses(const Expr& e, std::set<std::string>& out) {
  if (e.kind == Expr::Kind::kCall && e.name == "const" && !e.args.empty()) out.insert(e.args[0].name);
  for (const Expr& a : e.args) collect_const_uses(a, out);
}

void collect_const_uses(const Term& t, std::set<std::string>& out) {
  for (const auto& [k, v] : t.attrs) collect_const_uses(v, out);
  for (const Term& o : t.operands) collect_const_uses(o, out);
}

std::set<std::string> const_tensors(const rules::Rule& rule) {
  std::set<std::string> out;
  for (const Expr& c : rule.conditions) collect_const_uses(c, out);
  for (const Term& t : rule.lhs) collect_const_uses(t, out);
  for (const Term& t : rule.rhs) collect_const_uses(t, out);
  for (const auto& [n, t] : rule.lets) collect_const_uses(t, out);
  return out;
}

bool has_reshape(const Term& t) {
  if (t.kind == Term::Kind::kOp && t.op == ir::Op::Reshape) return true;
  return std::any_of(t.operands.begin(), t.operands.end(), [](const Term& o) { return has_reshape(o); });
}

bool has_reshape(const rules::Rule& rule) {
  auto any = [](const std::vector<Term>& ts) { return std::any_of(ts.begin(), ts.end(), [](const Term& t) { return has_reshape(t); }); };
  bool in_lets = std::any_of(rule.lets.begin(), rule.lets.end(), [](const auto& l) { return has_reshape(l.second); });
  return any(rule.lhs) || any(rule.rhs) || in_lets;
}

// "?k[0]" and "?k[1]" are reported once, as "?k".
std::string param_group(const std::string& name) {
  size_t open = name.rfind('[');
  return open != std::string::npos && name.back() == ']' ? name.substr(0, open) : name;
}

// "?k1 ?k2 in {-3..3}\{0}; ?x.shape in 0..4"
std::string describe_finite(const std::map<std::string, ParamKind>& finite) {
  std::map<ParamKind, std::set<std::string>> by_kind;
  for (const auto& [name, kind] : finite) by_kind[kind].insert(param_group(name));
  std::string out;
  for (const auto& [kind, names] : by_kind) {
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : " ") + n;
    out += (out.empty() ? "" : "; ") + list + " in " + finite_range_text(kind);
  }
  return out;
}

// "ranks 1..4 of ?x ?y; rank 2 of ?w; list lengths up to 4 of ?shape; each value of ?p, slice@2:9.step"
// (ranks a condition fixes are listed by their one value; variables whose rank
// is tied to another's follow it).
std::string describe_structure(const std::set<std::string>& groups, int max_rank,
                               const std::map<std::string, int>& fixed,
                               const std::map<std::string, std::string>& tied) {
  std::string ranks, lengths, chosen;
  std::map<int, std::string> fixed_ranks;
  auto with_tied = [&](const std::string& var) {
    std::string names = " " + var;
    for (const auto& [v, rep] : tied)
      if (rep == var && v != var) names += " " + v;
    return names;
  };
  for (const std::string& g : groups) {
    if (g.rfind("rank ", 0) == 0 && fixed.count(g.substr(5))) fixed_ranks[fixed.at(g.substr(5))] += with_tied(g.substr(5));
    else if (g.rfind("rank ", 0) == 0) ranks += with_tied(g.substr(5));
    else if (g.rfind("len ", 0) == 0) lengths += " " + g.substr(4);
    else chosen += (chosen.empty() ? "" : ", ") + g;
  }
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : "; ") + part; };
  if (!ranks.empty()) add("ranks 1.." + std::to_string(max_rank) + " of" + ranks);
  for (const auto& [rank, names] : fixed_ranks) add("rank " + std::to_string(rank) + " of" + names);
  if (!lengths.empty()) add("list lengths up to " + std::to_string(max_rank) + " of" + lengths);
  if (!chosen.empty()) add("each value of " + chosen);
  return out;
}

// Ranks fixed by a top-level (= (rank ?x) R) or (= R (rank ?x)): every case
// with another rank of ?x is vacuous, so it is not enumerated (a group rule's
// instance has one such condition per member; 4^n rank cases otherwise).
std::map<std::string, int> fixed_ranks(const rules::Rule& rule) {
  const std::vector<const Expr*> facts = rules::condition_facts(rule);
  std::map<std::string, int> out;
  auto rank_of = [](const Expr& e) -> const std::string* {
    if (e.kind == Expr::Kind::kCall && e.name == "rank" && e.args.size() == 1 && e.args[0].kind == Expr::Kind::kVar)
      return &e.args[0].name;
    return nullptr;
  };
  for (const Expr* f : facts) {
    if (f->kind != Expr::Kind::kCall || f->name != "=" || f->args.size() != 2) continue;
    for (int side = 0; side < 2; ++side) {
      const std::string* var = rank_of(f->args[side]);
      const Expr& value = f->args[1 - side];
      if (var && value.kind == Expr::Kind::kInt) out.emplace(*var, static_cast<int>(value.int_value));
    }
  }
  return out;
}

// Ranks tied by a top-level (= (shape ?x) (shape ?y)) or (= (rank ?x) (rank ?y))
// (shapes of different lengths are unequal): every case where they differ is
// vacuous, so a tied class has one rank choice, named by its least variable
// (a group rule's (= (shape ?a) (shape ?a.0)) per member: one case per rank
// of ?a.0 instead of 4^n). Ranks a condition fixes are left as they are.
std::map<std::string, std::string> tied_ranks(const rules::Rule& rule, const std::map<std::string, int>& fixed) {
  const std::vector<const Expr*> facts = rules::condition_facts(rule);
  std::map<std::string, std::string> parent;
  std::function<std::string(const std::string&)> find = [&](const std::string& v) -> std::string {
    auto it = parent.find(v);
    return it == parent.end() || it->second == v ? v : find(it->second);
  };
  auto var_of = [](const Expr& e, const char* fn) -> const std::string* {
    if (e.kind == Expr::Kind::kCall && e.name == fn && e.args.size() == 1 && e.args[0].kind == Expr::Kind::kVar)
      return &e.args[0].name;
    return nullptr;
  };
  for (const Expr* f : facts) {
    if (f->kind != Expr::Kind::kCall || f->name != "=" || f->args.size() != 2) continue;
    for (const char* fn : {"shape", "rank"}) {
      const std::string *x = var_of(f->args[0], fn), *y = var_of(f->args[1], fn);
      if (!x || !y || fixed.count(*x) || fixed.count(*y)) continue;
      std::string rx = find(*x), ry = find(*y);
      if (rx != ry) parent[std::max(rx, ry)] = std::min(rx, ry);
    }
  }
  std::map<std::string, std::string> out;
  for (const auto& [v, p] : parent) out[v] = find(v);
  return out;
}

}  // namespace

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kProved: return "proved";
    case Verdict::kFailed: return "FAILED";
    case Verdict::kUnknown: return "UNKNOWN";
  }
  return "?";
}

std::ostream& operator<<(std::ostream& out, Verdict v) { return out << verdict_name(v); }

namespace {

// Explores every case of the rule once: linear (products of symbolic integers
// make their parameters finite) or nonlinear (they go to Z3 as they are).
// `built_nonlinear` says whether any case's encoding had such a term.
RuleResult explore_cases(const rules::Rule& rule, const ProverOptions& options, bool nonlinear,
                         bool& built_nonlinear) {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  RuleResult result;
  result.name = rule.name;
  result.file = rule.file;
  result.line = rule.pos.line;
  result.unsafe_fp = rule.unsafe_fp;
  auto finish = [&](Verdict v, std::string message) {
    result.verdict = v;
    result.message = std::move(message);
    result.seconds = elapsed();
    return result;
  };

  z3::context ctx;
  std::map<std::string, OpVarInfo> op_vars;
  std::set<std::string> consts = const_tensors(rule);
  try {
    op_vars = analyze_op_vars(rule);
  } catch (const Unsupported& u) {
    return finish(Verdict::kUnknown, std::string("not modeled: ") + u.what());
  }
  std::map<std::string, int> fixed = fixed_ranks(rule);
  std::map<std::string, std::string> tied = tied_ranks(rule, fixed);
  CaseSetup setup{rule,
                  op_vars,
                  consts,
                  options.query_timeout_ms,
                  options.max_rank,
                  has_reshape(rule),
                  std::move(fixed),
                  std::move(tied),
                  nonlinear,
                  options.nonlinear_query_timeout_ms,
                  options.stride_match_query_timeout_ms};

  std::map<std::string, ParamKind> finite;
  std::set<std::string> finite_names, groups;
  std::optional<std::string> unknown;
  std::vector<Case> todo{Case{}};
  while (!todo.empty()) {
    if (elapsed() > options.rule_time_limit_s)
      return finish(Verdict::kUnknown, "time limit reached after " + std::to_string(result.cases) + " cases");
    Case c = std::move(todo.back());
    todo.pop_back();
    for (;;) {
      try {
        CaseOutcome o = check_case(ctx, setup, c, finite_names);
        built_nonlinear = built_nonlinear || o.nonlinear;
        for (const auto& [g, v] : c) groups.insert(g);
        if (o.kind == CaseOutcome::Kind::kProved) ++result.cases;
        if (o.kind == CaseOutcome::Kind::kUnknown && !unknown) unknown = o.message;
        if (o.kind == CaseOutcome::Kind::kFailed) {
          result.counterexample = o.counterexample;
          result.mode = finite.empty() ? "symbolic" : "enumerated";
          result.enumerated = describe_finite(finite);
          result.structure = describe_structure(groups, options.max_rank, setup.fixed_ranks, setup.tied_ranks);
          return finish(Verdict::kFailed, o.message);
        }
      } catch (const NeedChoice& n) {
        // Depth first, first option first.
        for (auto it = n.options.rbegin(); it != n.options.rend(); ++it) {
          Case more = c;
          more[n.group] = *it;
          todo.push_back(std::move(more));
        }
      } catch (const NeedFinite& f) {
        for (const auto& [name, kind] : f.params) {
          if (rule.group && rule.group->generic &&
              (name == rules::kMemberIndexVar || name == rules::kMembersAfterVar))
            return finish(Verdict::kUnknown, "a member lemma holds for every n only with " + name + " symbolic");
          finite.emplace(name, kind);
          finite_names.insert(name);
        }
        continue;  // the same case again, with those parameters finite
      } catch (const Vacuous&) {
      } catch (const Unsupported& u) {
        return finish(Verdict::kUnknown, std::string("not modeled: ") + u.what());
      } catch (const z3::exception& e) {
        return finish(Verdict::kUnknown, std::string("Z3 error: ") + e.msg());
      } catch (const std::exception& e) {
        return finish(Verdict::kUnknown, std::string("internal error: ") + e.what());
      }
      break;
    }
  }
  result.mode = finite.empty() ? "symbolic" : "enumerated";
  result.enumerated = describe_finite(finite);
  result.structure = describe_structure(groups, options.max_rank, setup.fixed_ranks, setup.tied_ranks);
  if (unknown) return finish(Verdict::kUnknown, *unknown);
  if (result.cases == 0)
    return finish(Verdict::kUnknown, "vacuous: in no case can the left side match with the conditions holding");
  return finish(Verdict::kProved, "");
}

}  // namespace

RuleResult prove_rule(const rules::Rule& rule, const ProverOptions& options) {
  // Symbolic extents first, with Z3's non-linear arithmetic where the encoding
  // multiplies symbolic integers (row-major strides, scaled slice bounds). A
  // counterexample there is a real one; where Z3 gives up, the linear
  // encoding over small enumerated values decides.
  // Only rules with a reshape (row-major strides) go there. In the others the
  // products (of lists, scaled bounds) mostly ran into the limit, query after
  // query (batch-matmuls-same-shape.*), before the enumerated pass proved them.
  bool built_nonlinear = false;
  // A member lemma multiplies the symbolic member index by extents; an
  // enumerated proof would cover only small groups.
  if (rule.group && rule.group->generic) return explore_cases(rule, options, true, built_nonlinear);
  if (!has_reshape(rule)) return explore_cases(rule, options, false, built_nonlinear);
  RuleResult symbolic = explore_cases(rule, options, true, built_nonlinear);
  if (!built_nonlinear || symbolic.verdict != Verdict::kUnknown) return symbolic;
  bool unused = false;
  RuleResult enumerated = explore_cases(rule, options, false, unused);
  enumerated.seconds += symbolic.seconds;
  if (enumerated.verdict == Verdict::kUnknown)
    enumerated.message = "symbolic: " + symbolic.message + "; enumerated: " + enumerated.message;
  return enumerated;
}

}  // namespace smelt::verify
