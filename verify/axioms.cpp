#include "verify/axioms.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_set>
#include <z3.h>

namespace smelt::verify {
namespace {

// Ground applications of uninterpreted functions, by function name.
using TermIndex = std::map<std::string, std::vector<z3::expr>>;

// Collects the ground applications in `e` (those that mention no variable
// bound outside them: a closed lambda, a sum's body, is ground); returns one
// more than the largest de Bruijn index of a variable free in `e` (0: ground).
unsigned collect(const z3::expr& e, TermIndex& index, std::unordered_set<unsigned>& seen,
                 std::map<unsigned, unsigned>& free_depth) {
  if (auto it = free_depth.find(e.id()); it != free_depth.end()) return it->second;
  unsigned depth = 0;
  if (e.is_var()) {
    depth = Z3_get_index_value(e.ctx(), e) + 1;
  } else if (e.is_quantifier() || e.is_lambda()) {
    const unsigned inner = collect(e.body(), index, seen, free_depth);
    const unsigned bound = Z3_get_quantifier_num_bound(e.ctx(), e);
    depth = inner > bound ? inner - bound : 0;
  } else if (e.is_app()) {
    for (unsigned i = 0; i < e.num_args(); ++i) depth = std::max(depth, collect(e.arg(i), index, seen, free_depth));
    if (depth == 0 && e.num_args() > 0 && e.decl().decl_kind() == Z3_OP_UNINTERPRETED && seen.insert(e.id()).second)
      index[e.decl().name().str()].push_back(e);
  }
  free_depth.emplace(e.id(), depth);
  return depth;
}

struct AxiomMatch {
  std::map<unsigned, z3::expr> binding;  // variable id -> term
  std::vector<z3::expr> conditions;
};

class Matcher {
 public:
  explicit Matcher(const Axiom& a) {
    for (const z3::expr& v : a.vars) vars_.insert(v.id());
  }

  // Extends `m` so that `pattern` matches `term`; false when a head differs.
  // Applications match syntactically (matching them modulo equality too would
  // multiply the instances round after round); constants and repeated
  // variables match under a condition.
  bool match(const z3::expr& pattern, const z3::expr& term, AxiomMatch& m) const {
    if (vars_.count(pattern.id())) {
      auto it = m.binding.find(pattern.id());
      if (it == m.binding.end()) m.binding.emplace(pattern.id(), term);
      else if (!z3::eq(it->second, term)) m.conditions.push_back(it->second == term);
      return true;
    }
    if (!pattern.is_app() || pattern.num_args() == 0) {
      if (!z3::eq(pattern, term)) m.conditions.push_back(pattern == term);
      return true;
    }
    if (!term.is_app() || !z3::eq(term.decl(), pattern.decl())) return false;
    for (unsigned i = 0; i < pattern.num_args(); ++i)
      if (!match(pattern.arg(i), term.arg(i), m)) return false;
    return true;
  }

 private:
  std::set<unsigned> vars_;
};

}  // namespace

z3::expr quantify(const Axiom& a) {
  z3::context& ctx = a.fact.ctx();
  std::vector<Z3_app> vars;
  for (const z3::expr& v : a.vars) vars.push_back(reinterpret_cast<Z3_app>(static_cast<Z3_ast>(v)));
  Z3_ast terms[] = {a.pattern};
  Z3_pattern p = Z3_mk_pattern(ctx, 1, terms);
  Z3_ast q = Z3_mk_forall_const(ctx, 0, static_cast<unsigned>(vars.size()), vars.data(), 1, &p, a.fact);
  ctx.check_error();
  return z3::expr(ctx, q);
}

z3::expr_vector ground_instances(const std::vector<Axiom>& axioms, const z3::expr_vector& formulas,
                                 int rounds) {
  z3::context& ctx = formulas.ctx();
  z3::expr_vector out(ctx);
  TermIndex index;
  std::unordered_set<unsigned> seen, done;
  std::map<unsigned, unsigned> free_depth;
  std::vector<z3::expr> keep;  // keeps the instances' terms alive (their ids index `seen`)
  for (const z3::expr& f : formulas) collect(f, index, seen, free_depth);
  for (int round = 0; round < rounds; ++round) {
    TermIndex snapshot = index;
    size_t before = out.size();
    for (const Axiom& a : axioms) {
      auto heads = snapshot.find(a.pattern.decl().name().str());
      if (heads == snapshot.end()) continue;
      Matcher matcher(a);
      for (const z3::expr& t : heads->second) {
        if (!z3::eq(t.decl(), a.pattern.decl())) continue;
        AxiomMatch m;
        if (!matcher.match(a.pattern, t, m) || m.binding.size() != a.vars.size()) continue;
        {
          z3::expr_vector from(ctx), to(ctx);
          for (const z3::expr& v : a.vars) {
            from.push_back(v);
            to.push_back(m.binding.at(v.id()));
          }
          z3::expr fact = a.fact;
          fact = fact.substitute(from, to);
          z3::expr condition = ctx.bool_val(true);
          for (const z3::expr& c : m.conditions) condition = condition && c;
          z3::expr instance = m.conditions.empty() ? fact : z3::implies(condition, fact);
          if (!done.insert(instance.id()).second) continue;
          keep.push_back(instance);
          out.push_back(instance);
          collect(instance, index, seen, free_depth);
        }
      }
    }
    if (out.size() == before) break;
  }
  return out;
}

}  // namespace smelt::verify
