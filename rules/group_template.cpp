#include "rules/group_template.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace rules {
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

std::string member_name(const std::string& var, int k) { return var + "." + std::to_string(k); }

// Renames for one member k (k < 0: outside any member, where only splices and
// shared variables may appear).
class Expander {
 public:
  Expander(std::set<std::string> per_member, int n) : per_member_(std::move(per_member)), n_(n) {}

  Expr expr(const Expr& e, int k) const {
    Expr out = e;
    if (e.kind == Expr::Kind::kVar) {
      if (e.name == kMemberIndexVar) {
        if (k < 0) throw std::logic_error(std::string(kMemberIndexVar) + " outside a member's term");
        out.kind = Expr::Kind::kInt;
        out.int_value = k;
        out.name.clear();
      } else if (per_member_.count(e.name)) {
        if (k < 0) throw std::logic_error("per-member variable " + e.name + " outside a member's term (splice it: " +
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
      if (k < 0) throw std::logic_error("per-member variable " + t.var + " outside a member's term (splice it: " +
                                        t.var + std::string(kSpliceSuffix) + ")");
      out.var = member_name(t.var, k);
    }
    if (t.kind == Term::Kind::kOpVar && per_member_.count(t.op_var)) {
      if (k < 0) throw std::logic_error("per-member op variable " + t.op_var + " outside a member's term");
      out.op_var = member_name(t.op_var, k);
    }
    for (auto& [key, value] : out.attrs) value = expr(value, k);
    for (const Term& o : t.operands) {
      if (o.kind == Term::Kind::kVar && is_splice(o.var)) {
        const std::string base = o.var.substr(0, o.var.size() - kSpliceSuffix.size());
        if (!per_member_.count(base))
          throw std::logic_error("splice " + o.var + " of a variable that is not per member");
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
  std::set<std::string> per_member_;
  int n_;
};

void vars_of(const Expr& e, std::set<std::string>& out) {
  if (e.kind == Expr::Kind::kVar) out.insert(e.name);
  for (const Expr& a : e.args) vars_of(a, out);
}

}  // namespace

Rule group_instance(const Rule& tmpl, const std::vector<std::string>& shared, int n,
                    const std::vector<std::string>& distinct) {
  if (tmpl.lhs.size() != 1 || tmpl.rhs.size() != 1)
    throw std::logic_error("a group template has one :lhs term and one :rhs term (those of one member)");
  if (n < 1) throw std::logic_error("a group has at least one member");
  std::set<std::string> lhs_vars;
  bound_by(tmpl.lhs[0], lhs_vars);
  if (lhs_vars.count(std::string(kMemberIndexVar)))
    throw std::logic_error(std::string(kMemberIndexVar) + " is the member index; the left side cannot bind it");
  std::set<std::string> per_member = lhs_vars;
  for (const std::string& s : shared) {
    if (!lhs_vars.count(s)) throw std::logic_error(":shared " + s + " is not a variable of the left side");
    per_member.erase(s);
  }
  if (per_member.empty()) throw std::logic_error("every variable is :shared: the members would be one match");
  for (const std::string& d : distinct)
    if (!per_member.count(d)) throw std::logic_error(":distinct " + d + " is not a per-member variable of the left side");

  Rule out;
  out.name = tmpl.name + "." + std::to_string(n);
  out.family = tmpl.family;
  out.file = tmpl.file;
  out.pos = tmpl.pos;
  out.unsafe_fp = tmpl.unsafe_fp;
  GroupInfo info{tmpl.name, n, std::vector<std::string>(per_member.begin(), per_member.end()), shared, distinct};

  // A :let that reads a per-member variable (not through a splice) is per member.
  std::vector<bool> let_per_member;
  for (const auto& [name, term] : tmpl.lets) {
    const bool member = uses_any(term, per_member);
    let_per_member.push_back(member);
    if (member) per_member.insert(name);
  }
  const Expander expand(per_member, n);
  for (int k = 0; k < n; ++k) out.lhs.push_back(expand.term(tmpl.lhs[0], k));
  for (const Expr& c : tmpl.conditions) {
    if (!uses_any(c, per_member)) {
      out.conditions.push_back(expand.expr(c, -1));
      continue;
    }
    for (int k = 0; k < n; ++k) out.conditions.push_back(expand.expr(c, k));
  }
  for (size_t l = 0; l < tmpl.lets.size(); ++l) {
    const auto& [name, term] = tmpl.lets[l];
    if (!let_per_member[l]) {
      out.lets.emplace_back(name, expand.term(term, -1));
      continue;
    }
    for (int k = 0; k < n; ++k) out.lets.emplace_back(member_name(name, k), expand.term(term, k));
  }
  for (int k = 0; k < n; ++k) out.rhs.push_back(expand.term(tmpl.rhs[0], k));
  out.group = std::move(info);
  return out;
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

}  // namespace rules
