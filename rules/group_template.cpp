#include "rules/group_template.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace smelt::rules {
namespace {

void bound_by(const Term& t, std::set<std::string>& out) {
  if (t.kind == Term::Kind::kVar) out.insert(t.var);
  if (t.kind == Term::Kind::kOpVar) out.insert(t.op_var);
  for (const auto& [key, value] : t.attrs)
    if (value.kind == Expr::Kind::kVar) out.insert(value.name);
  for (const Term& o : t.operands) bound_by(o, out);
}

bool uses_any(const Expr& e, const std::set<std::string>& names) {
  if (e.kind == Expr::Kind::kVar && (names.count(e.name) || e.name == kMemberIndexVar)) return true;
  return std::any_of(e.args.begin(), e.args.end(), [&](const Expr& a) { return uses_any(a, names); });
}

bool uses_any(const Term& t, const std::set<std::string>& names) {
  if (t.kind == Term::Kind::kVar && names.count(t.var)) return true;
  if (t.kind == Term::Kind::kOpVar && names.count(t.op_var)) return true;
  for (const auto& [key, value] : t.attrs)
    if (uses_any(value, names)) return true;
  return std::any_of(t.operands.begin(), t.operands.end(), [&](const Term& o) { return uses_any(o, names); });
}

bool is_splice(const std::string& name) {
  return name.size() > kSpliceSuffix.size() && name.ends_with(kSpliceSuffix);
}

// Renames for one member k (k < 0: outside any member, where only splices and
// shared variables may appear).
// Member k of a member lemma: ?member stays a variable, ?w becomes ?w.k.
constexpr int kGenericMember = -2;

std::string member_name(const std::string& var, int k) {
  return var + "." + (k == kGenericMember ? std::string("k") : std::to_string(k));
}

class Expander {
 public:
  // n == 0: a member lemma, whose splices are [?v.before ?v.k ?v.after].
  Expander(std::set<std::string> per_member, int n) : per_member_(std::move(per_member)), n_(n) {}

  const std::vector<MemberBlock>& blocks() const { return blocks_; }

  Expr expr(const Expr& e, int k) const {
    Expr out = e;
    if (e.kind == Expr::Kind::kVar) {
      if (e.name == kMemberIndexVar) {
        if (k == kGenericMember) return out;
        if (k < 0) throw std::logic_error(std::string(kMemberIndexVar) + " outside a member's term");
        out.kind = Expr::Kind::kInt;
        out.int_value = k;
        out.name.clear();
      } else if (per_member_.count(e.name)) {
        if (k == -1) throw std::logic_error("per-member variable " + e.name + " outside a member's term (splice it: " +
                                            e.name + std::string(kSpliceSuffix) + ")");
        out.name = member_name(e.name, k);
      }
    }
    for (Expr& a : out.args) a = expr(a, k);
    return out;
  }

  Term term(const Term& t, int k) const {
    Term out = t;
    out.operands.clear();
    if (t.kind == Term::Kind::kVar && per_member_.count(t.var)) {
      if (k == -1) throw std::logic_error("per-member variable " + t.var + " outside a member's term (splice it: " +
                                        t.var + std::string(kSpliceSuffix) + ")");
      out.var = member_name(t.var, k);
    }
    if (t.kind == Term::Kind::kOpVar && per_member_.count(t.op_var)) {
      if (k == -1) throw std::logic_error("per-member op variable " + t.op_var + " outside a member's term");
      out.op_var = member_name(t.op_var, k);
    }
    for (auto& [key, value] : out.attrs) value = expr(value, k);
    for (const Term& o : t.operands) {
      if (o.kind == Term::Kind::kVar && is_splice(o.var)) {
        const std::string base = o.var.substr(0, o.var.size() - kSpliceSuffix.size());
        if (!per_member_.count(base))
          throw std::logic_error("splice " + o.var + " of a variable that is not per member");
        if (n_ == 0) {
          splice_blocks(t, o, base, out);
          continue;
        }
        for (int m = 0; m < n_; ++m) {
          Term operand = o;
          operand.var = member_name(base, m);
          out.operands.push_back(std::move(operand));
        }
      } else {
        out.operands.push_back(term(o, k));
      }
    }
    return out;
  }

 private:
  // In a member lemma, the splice ?v... of (concat ?v... :axis A) is the
  // members before k, member k and the members after it: three operands.
  void splice_blocks(const Term& parent, const Term& splice, const std::string& base, Term& out) const {
    const Expr* axis = nullptr;
    for (const auto& [key, value] : parent.attrs)
      if (key == "axis") axis = &value;
    if (parent.kind != Term::Kind::kOp || parent.op != ir::Op::Concat || parent.operands.size() != 1 || !axis ||
        axis->kind != Expr::Kind::kInt)
      throw std::logic_error("no member lemma: the splice " + splice.var +
                             " is not the one operand of a concat with a literal :axis");
    const std::string k = member_name(base, kGenericMember);
    for (const char* where : {".before", ".k", ".after"}) {
      Term operand = splice;
      operand.var = base + where;
      out.operands.push_back(std::move(operand));
    }
    const int a = static_cast<int>(axis->int_value);
    if (std::any_of(blocks_.begin(), blocks_.end(), [&](const MemberBlock& b) { return b.member == k; })) return;
    blocks_.push_back({base + ".before", k, a, std::string(kMemberIndexVar)});
    blocks_.push_back({base + ".after", k, a, std::string(kMembersAfterVar)});
  }

  std::set<std::string> per_member_;
  int n_;
  mutable std::vector<MemberBlock> blocks_;
};

void vars_of(const Expr& e, std::set<std::string>& out) {
  if (e.kind == Expr::Kind::kVar) out.insert(e.name);
  for (const Expr& a : e.args) vars_of(a, out);
}

}  // namespace

namespace {

// A template's per-member variables (left side, then lets) and its instances'
// common fields.
struct Expansion {
  Rule out;
  std::set<std::string> per_member;
  std::vector<bool> let_per_member;
};

Expansion start_expansion(const Rule& tmpl, const std::vector<std::string>& shared,
                          const std::vector<std::string>& distinct, const std::string& name, int n) {
  if (tmpl.lhs.size() != 1 || tmpl.rhs.size() != 1)
    throw std::logic_error("a group template has one :lhs term and one :rhs term (those of one member)");
  std::set<std::string> lhs_vars;
  bound_by(tmpl.lhs[0], lhs_vars);
  if (lhs_vars.count(std::string(kMemberIndexVar)))
    throw std::logic_error(std::string(kMemberIndexVar) + " is the member index; the left side cannot bind it");
  Expansion e;
  e.per_member = lhs_vars;
  for (const std::string& v : shared) {
    if (!lhs_vars.count(v)) throw std::logic_error(":shared " + v + " is not a variable of the left side");
    e.per_member.erase(v);
  }
  if (e.per_member.empty()) throw std::logic_error("every variable is :shared: the members would be one match");
  for (const std::string& d : distinct)
    if (!e.per_member.count(d)) throw std::logic_error(":distinct " + d + " is not a per-member variable of the left side");
  e.out.name = name;
  e.out.family = tmpl.family;
  e.out.file = tmpl.file;
  e.out.pos = tmpl.pos;
  e.out.unsafe_fp = tmpl.unsafe_fp;
  e.out.group = GroupInfo{tmpl.name, n, std::vector<std::string>(e.per_member.begin(), e.per_member.end()),
                          shared, distinct, nullptr, 0, false, {}};
  // A :let that reads a per-member variable (not through a splice) is per member.
  for (const auto& [let_name, term] : tmpl.lets) {
    const bool member = uses_any(term, e.per_member);
    e.let_per_member.push_back(member);
    if (member) e.per_member.insert(let_name);
  }
  return e;
}

// Conditions for the members `ks`; those that read no per-member variable once.
void expand_conditions(const Rule& tmpl, Expansion& e, const Expander& expand, const std::vector<int>& ks) {
  Rule& out = e.out;
  for (const Expr& c : tmpl.conditions) {
    if (!uses_any(c, e.per_member)) {
      out.conditions.push_back(expand.expr(c, -1));
      continue;
    }
    for (int k : ks) out.conditions.push_back(expand.expr(c, k));
  }
}

void expand_lets(const Rule& tmpl, Expansion& e, const Expander& expand, const std::vector<int>& ks) {
  for (size_t l = 0; l < tmpl.lets.size(); ++l) {
    const auto& [name, term] = tmpl.lets[l];
    if (!e.let_per_member[l]) {
      e.out.lets.emplace_back(name, expand.term(term, -1));
      continue;
    }
    for (int k : ks) e.out.lets.emplace_back(member_name(name, k), expand.term(term, k));
  }
}

bool is_call(const Expr& e, const char* fn, const std::string& var) {
  return e.kind == Expr::Kind::kCall && e.name == fn && e.args.size() == 1 && e.args[0].kind == Expr::Kind::kVar &&
         e.args[0].name == var;
}

// Whether a top-level condition says (= (FN ?v) (FN ?v.0)), either way round.
bool states_equal(const std::vector<const Expr*>& facts, const char* fn, const std::string& v) {
  const std::string v0 = v + ".0";
  return std::any_of(facts.begin(), facts.end(), [&](const Expr* f) {
    return f->kind == Expr::Kind::kCall && f->name == "=" && f->args.size() == 2 &&
           ((is_call(f->args[0], fn, v) && is_call(f->args[1], fn, v0)) ||
            (is_call(f->args[0], fn, v0) && is_call(f->args[1], fn, v)));
  });
}

void tensor_vars(const Term& t, std::set<std::string>& out) {
  if (t.kind == Term::Kind::kVar) out.insert(t.var);
  for (const Term& o : t.operands) tensor_vars(o, out);
}

bool calls(const Expr& e, const char* fn) {
  if (e.kind == Expr::Kind::kCall && e.name == fn) return true;
  return std::any_of(e.args.begin(), e.args.end(), [&](const Expr& a) { return calls(a, fn); });
}

bool calls(const Term& t, const char* fn) {
  for (const auto& [key, value] : t.attrs)
    if (calls(value, fn)) return true;
  return std::any_of(t.operands.begin(), t.operands.end(), [&](const Term& o) { return calls(o, fn); });
}

}  // namespace

Rule group_instance(const Rule& tmpl, const std::vector<std::string>& shared, int n,
                    const std::vector<std::string>& distinct) {
  if (n < 1) throw std::logic_error("a group has at least one member");
  Expansion e = start_expansion(tmpl, shared, distinct, tmpl.name + "." + std::to_string(n), n);
  const Expander expand(e.per_member, n);
  std::vector<int> all(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) all[static_cast<size_t>(k)] = k;
  for (int k : all) e.out.lhs.push_back(expand.term(tmpl.lhs[0], k));
  expand_conditions(tmpl, e, expand, all);
  expand_lets(tmpl, e, expand, all);
  for (int k : all) e.out.rhs.push_back(expand.term(tmpl.rhs[0], k));
  return std::move(e.out);
}

Rule group_member_lemma(const Rule& tmpl, const std::vector<std::string>& shared,
                        const std::vector<std::string>& distinct) {
  Expansion e = start_expansion(tmpl, shared, distinct, tmpl.name + ".n", 0);
  // Every member's per-member values have member 0's shape and dtype, so the
  // members before k (after k) are k (m) blocks of member k's extent along a
  // concat's axis: what the lemma's blocks assume. Per-member lets then agree
  // too, being functions of those shapes (no ?member, no (const ...) values).
  std::set<std::string> tensors;
  tensor_vars(tmpl.lhs[0], tensors);
  const std::vector<const Expr*> facts = condition_facts(tmpl);
  for (const std::string& v : e.out.group->member_vars) {
    if (!tensors.count(v)) throw std::logic_error("no member lemma: per-member variable " + v + " is not a tensor");
    for (const char* fn : {"shape", "dtype"})
      if (!states_equal(facts, fn, v))
        throw std::logic_error(std::string("no member lemma: no condition (= (") + fn + " " + v + ") (" + fn + " " +
                               v + ".0))");
  }
  const std::set<std::string> member_index{std::string(kMemberIndexVar)};
  for (size_t l = 0; l < tmpl.lets.size(); ++l)
    if (e.let_per_member[l] && (uses_any(tmpl.lets[l].second, member_index) || calls(tmpl.lets[l].second, "const")))
      throw std::logic_error("no member lemma: per-member :let " + tmpl.lets[l].first +
                             " reads ?member or a constant's value");
  std::set<std::string> every;
  bound_by(tmpl.lhs[0], every);
  for (const auto& l : tmpl.lets) every.insert(l.first);
  if (every.count(std::string(kMembersAfterVar)))
    throw std::logic_error(std::string(kMembersAfterVar) + " is reserved for member lemmas");

  const Expander expand(e.per_member, 0);
  const std::vector<int> ks{0, kGenericMember};
  for (int k : ks) e.out.lhs.push_back(expand.term(tmpl.lhs[0], k));
  expand_conditions(tmpl, e, expand, ks);
  expand_lets(tmpl, e, expand, ks);
  // Member 0 is there for the conditions that name it; the claim is member k's.
  e.out.rhs.push_back(e.out.lhs[0]);
  e.out.rhs.push_back(expand.term(tmpl.rhs[0], kGenericMember));
  e.out.group->generic = true;
  e.out.group->blocks = expand.blocks();
  return std::move(e.out);
}

Rule lemma_instance(const GroupInfo& lemma, int n) {
  if (!lemma.generic || !lemma.tmpl) throw std::logic_error("rule " + lemma.name + ".n: not a member lemma");
  if (n < lemma.min_members) throw std::logic_error("rule " + lemma.name + ": fewer than MIN members");
  return group_instance(*lemma.tmpl, lemma.shared, n, lemma.distinct);
}

Rule group_member_rule(const Rule& instance) {
  if (instance.lhs.empty()) throw std::logic_error("a group instance without members");
  Rule out;
  out.name = instance.name + "/member";
  out.family = instance.family;
  out.file = instance.file;
  out.pos = instance.pos;
  out.lhs = {instance.lhs[0]};
  out.rhs = {instance.lhs[0]};
  std::set<std::string> member0;
  bound_by(instance.lhs[0], member0);
  for (const Expr& c : instance.conditions) {
    std::set<std::string> used;
    vars_of(c, used);
    if (std::all_of(used.begin(), used.end(), [&](const std::string& v) { return member0.count(v) > 0; }))
      out.conditions.push_back(c);
  }
  return out;
}

}  // namespace smelt::rules
