#include "verify/case_check.h"

#include <functional>
#include <map>
#include <optional>
#include <unordered_set>

#include "rules/group_template.h"
#include "verify/counterexample.h"
#include "verify/z3_expr.h"
#include "verify/tensor_encoder.h"

namespace smelt::verify {
namespace {

using OutcomeKind = CaseOutcome::Kind;

// Rounds of instantiation: enough for every chain of laws the value domain has
// (comm, then an identity, then a law on the new term).
constexpr int kInstantiationRounds = 4;

z3::expr all_of(z3::context& ctx, const std::vector<z3::expr>& v) {
  z3::expr out = ctx.bool_val(true);
  for (const z3::expr& e : v) out = out && e;
  return out;
}

z3::expr all_of(z3::context& ctx, const z3::expr_vector& v) {
  z3::expr out = ctx.bool_val(true);
  for (const z3::expr& e : v) out = out && e;
  return out;
}

std::string shape_text(const std::vector<z3::expr>& shape, const z3::model& m) {
  std::string out;
  for (const z3::expr& n : shape) out += (out.empty() ? "" : ",") + m.eval(n, true).to_string();
  return "[" + out + "]";
}

// The left side, its conditions and its expression attributes as assumptions.
void encode_left(EncodingState& s, std::vector<SymTensor>& lhs) {
  for (const rules::Term& t : s.rule.lhs) lhs.push_back(encode_term(s, t, Side::kLhs));
  for (const rules::Expr& c : s.rule.conditions) {
    z3::expr_vector defined(s.ctx);
    AttrValue v = eval_expr(s, c, defined);
    if (v.is_list || v.kind != AttrKind::kBool)
      throw Unsupported("the condition at " + pos_text(c.pos) + " is not a bool");
    // An undefined value makes the whole condition false (docs/rules.md).
    s.assumptions.push_back(all_of(s.ctx, defined) && v.items[0]);
  }
  for (const auto& [hidden, e] : s.pending) {
    z3::expr_vector defined(s.ctx);
    AttrValue v = eval_expr(s, *e, defined);
    s.assumptions.push_back(all_of(s.ctx, defined) && values_equal(s, hidden, v));
  }
}

// One fact the right side must satisfy, with how to explain its failure.
struct Goal {
  std::string what;
  z3::expr fact;
  std::function<std::string(const z3::model&)> explain;
  std::optional<ValueMismatch> mismatch;
};

bool has_binder(const z3::expr& e) {
  std::unordered_set<unsigned> seen;
  std::function<bool(const z3::expr&)> walk = [&](const z3::expr& x) {
    if (!seen.insert(x.id()).second) return false;
    if (x.is_lambda() || x.is_quantifier()) return true;
    if (!x.is_app()) return false;
    for (unsigned i = 0; i < x.num_args(); ++i)
      if (walk(x.arg(i))) return true;
    return false;
  };
  return walk(e);
}

class Checker {
 public:
  Checker(z3::context& ctx, const CaseSetup& setup, const Case& c, const std::set<std::string>& finite)
      : ctx_(ctx),
        timeout_ms_(setup.timeout_ms),
        nonlinear_timeout_ms_(setup.nonlinear_timeout_ms),
        stride_match_timeout_ms_(setup.stride_match_timeout_ms),
        params_(ctx, c, finite),
        arith_(ctx, params_, setup.nonlinear),
        values_(ctx, setup.rule.unsafe_fp),
        s_(ctx, params_, arith_, values_, setup.rule, setup.max_rank),
        solver_(ctx) {
    s_.op_vars = setup.op_vars;
    s_.const_tensors = setup.const_tensors;
    s_.flat_vars = setup.flat_vars;
    s_.fixed_ranks = setup.fixed_ranks;
    s_.tied_ranks = setup.tied_ranks;
    if (setup.rule.group && setup.rule.group->generic) {
      // A member lemma's counts: symbolic, >= 0 (any member of any group).
      for (std::string_view name : {rules::kMemberIndexVar, rules::kMembersAfterVar}) {
        const std::string n(name);
        s_.attrs.emplace(n, AttrValue{AttrKind::kInt, false, {params_.get(n, ParamKind::kExtent)}, false});
      }
    }
    configure(solver_, true);
  }

  bool built_nonlinear() const { return arith_.built_nonlinear(); }

  CaseOutcome run() {
    std::vector<SymTensor> lhs, rhs;
    encode_left(s_, lhs);
    std::optional<std::string> static_failure;
    try {
      for (const auto& [name, t] : s_.rule.lets) s_.tensors.insert_or_assign(name, encode_term(s_, t, Side::kRhs));
      for (const rules::Term& t : s_.rule.rhs) rhs.push_back(encode_term(s_, t, Side::kRhs));
      for (size_t i = 0; i < lhs.size(); ++i)
        if (lhs[i].shape.size() != rhs[i].shape.size())
          throw StaticFailure{"the right side has rank " + std::to_string(rhs[i].shape.size()) +
                              ", the left side rank " + std::to_string(lhs[i].shape.size())};
    } catch (const StaticFailure& f) {
      static_failure = f.what;
    }
    std::vector<Goal> goals;
    if (!static_failure) goals = make_goals(lhs, rhs);
    if (arith_.built_nonlinear()) {
      timeout_ms_ = nonlinear_timeout_ms_;
      configure(solver_, true);
    }

    // Every term exists now: instantiate the value laws over them.
    z3::expr_vector formulas(ctx_);
    for (const z3::expr& a : s_.assumptions) formulas.push_back(a);
    for (const Goal& g : goals) formulas.push_back(g.fact);
    laws_ = values_.laws();
    for (const z3::expr& d : params_.domain()) base_.push_back(d);
    for (const z3::expr& a : s_.assumptions) base_.push_back(a);
    for (const z3::expr& f : arith_.facts()) base_.push_back(f);
    for (const z3::expr& f : values_.literal_facts()) base_.push_back(f);
    for (const z3::expr& f : ground_instances(laws_, formulas, kInstantiationRounds)) base_.push_back(f);
    for (const z3::expr& f : base_) solver_.add(f);

    switch (solver_.check()) {
      case z3::unsat: return {OutcomeKind::kVacuous, "", ""};
      case z3::unknown: return unknown("deciding whether the left side can match");
      case z3::sat: break;
    }
    if (static_failure) {
      return {OutcomeKind::kFailed, "the right side does not type-check: " + *static_failure,
              describe_model(s_, solver_.get_model(), std::nullopt)};
    }
    for (const Goal& g : goals)
      if (auto out = refute(g)) return *out;
    return {OutcomeKind::kProved, "", ""};
  }

 private:
  void configure(z3::solver& solver, bool model_based) {
    z3::params p(ctx_);
    p.set("timeout", timeout_ms_);
    // Without model-based instantiation a quantified query is decided by
    // E-matching alone: `unsat` answers only, quickly.
    if (!model_based) p.set("mbqi", false);
    solver.set(p);
  }

  std::vector<Goal> make_goals(const std::vector<SymTensor>& lhs, const std::vector<SymTensor>& rhs) {
    std::vector<Goal> goals;
    std::vector<z3::expr> obligations;
    for (const auto& [what, fact] : s_.obligations) obligations.push_back(fact);
    auto first_false = [this](const z3::model& m) {
      for (const auto& [what, fact] : s_.obligations)
        if (m.eval(fact, true).is_false()) return "the right side does not type-check: " + what;
      return std::string("the right side does not type-check");
    };
    goals.push_back({"the right side type-checks", all_of(ctx_, obligations), first_false, std::nullopt});

    std::vector<z3::expr> same;
    for (size_t i = 0; i < lhs.size(); ++i) {
      same.push_back(lhs[i].dtype == rhs[i].dtype);
      for (size_t k = 0; k < lhs[i].shape.size(); ++k) same.push_back(lhs[i].shape[k] == rhs[i].shape[k]);
    }
    auto shapes = [lhs, rhs](const z3::model& m) {
      std::string text;
      for (size_t i = 0; i < lhs.size(); ++i)
        text += (i ? "; " : "") + shape_text(lhs[i].shape, m) + " vs " + shape_text(rhs[i].shape, m) +
                ", dtype " + dtype_text(m.eval(lhs[i].dtype, true).get_numeral_int64()) + " vs " +
                dtype_text(m.eval(rhs[i].dtype, true).get_numeral_int64());
      return "the shapes or dtypes differ (left vs right): " + text;
    };
    goals.push_back({"shapes and dtypes agree", all_of(ctx_, same), shapes, std::nullopt});

    for (size_t i = 0; i < lhs.size(); ++i) {
      std::vector<z3::expr> idx, in_bounds;
      for (size_t k = 0; k < lhs[i].shape.size(); ++k) {
        idx.push_back(ctx_.int_const(("i" + std::to_string(i) + "." + std::to_string(k)).c_str()));
        in_bounds.push_back(idx.back() >= 0 && idx.back() < lhs[i].shape[k]);
      }
      z3::expr l = lhs[i].at(idx), r = rhs[i].at(idx);
      std::string root = lhs.size() > 1 ? " (root " + std::to_string(i + 1) + ")" : "";
      goals.push_back({"the elements agree" + root, z3::implies(all_of(ctx_, in_bounds), l == r),
                       [root](const z3::model&) { return "the elements differ" + root; },
                       ValueMismatch{idx, l, r}});
    }
    return goals;
  }

  CaseOutcome unknown(const std::string& what) {
    return {OutcomeKind::kUnknown, "Z3 gave up (" + solver_.reason_unknown() + ") " + what, ""};
  }

  // nullopt when the goal follows from the assumptions.
  std::optional<CaseOutcome> refute(const Goal& g) {
    if (g.mismatch && !stride_matches_) stride_matches_ = held_stride_matches();
    solver_.push();
    solver_.add(!g.fact);
    // Only a query given stride matches gets the longer limit.
    const unsigned timeout = timeout_ms_;
    if (g.mismatch && add_stride_matches() > 0 && stride_match_timeout_ms_ > timeout_ms_) {
      timeout_ms_ = stride_match_timeout_ms_;
      configure(solver_, true);
    }
    std::optional<CaseOutcome> out;
    switch (solver_.check()) {
      case z3::unsat: break;
      case z3::unknown: out = unknown("proving " + g.what); break;
      case z3::sat: {
        z3::model m = solver_.get_model();
        // The ground instances did not prove it; the laws as quantifiers may
        // (terms under binders). Otherwise the model is the counterexample.
        if (!proved_with_quantified_laws(g))
          out = CaseOutcome{OutcomeKind::kFailed, g.explain(m), describe_model(s_, m, g.mismatch)};
        break;
      }
    }
    solver_.pop();
    if (timeout_ms_ != timeout) {
      timeout_ms_ = timeout;
      configure(solver_, true);
    }
    return out;
  }

  // IntArith's stride matches whose strides the case's assumptions (base_,
  // already in the solver) imply equal; asked once per case, before any
  // element query, so a consequence of every query. Strides shrink with the
  // split point on both sides, so after a match at (m, m2) a later split of
  // the digits can only match a later split of the other shape: most pairs,
  // which Z3 cannot refute quickly, are never asked.
  std::vector<size_t> held_stride_matches() {
    std::vector<size_t> held;
    const std::vector<IntArith::StrideMatch>& all = arith_.stride_matches();
    std::map<int, std::pair<size_t, size_t>> matched;  // per delinearization: the last (split, from_split)
    for (size_t i = 0; i < all.size(); ++i) {
      const IntArith::StrideMatch& sm = all[i];
      auto it = matched.find(sm.digits);
      if (it != matched.end() && (sm.split <= it->second.first || sm.from_split <= it->second.second)) continue;
      solver_.push();
      solver_.add(!sm.same_stride);
      bool holds = solver_.check() == z3::unsat;
      solver_.pop();
      if (!holds) continue;
      held.push_back(i);
      matched[sm.digits] = {sm.split, sm.from_split};
    }
    return held;
  }

  // Asserts, inside the current query, the stride equalities found to hold
  // (sound: the assumptions imply them) and their matches' facts (theorems).
  // Returns how many it asserted.
  size_t add_stride_matches() {
    for (size_t i : *stride_matches_) {
      const IntArith::StrideMatch& sm = arith_.stride_matches()[i];
      // Asked again inside the query (unsat at once, the assumptions imply
      // it): the element query after it is decided much sooner that way.
      solver_.push();
      solver_.add(!sm.same_stride);
      solver_.check();
      solver_.pop();
      solver_.add(sm.same_stride);
      solver_.add(sm.fact);
    }
    return stride_matches_->size();
  }

  bool proved_with_quantified_laws(const Goal& g) {
    // Only terms under a binder escape the ground instances.
    if (laws_.empty() || !has_binder(g.fact)) return false;
    z3::solver q(ctx_);
    configure(q, false);
    for (const z3::expr& f : base_) q.add(f);
    for (const Axiom& a : laws_) q.add(quantify(a));
    q.add(!g.fact);
    return q.check() == z3::unsat;
  }

  z3::context& ctx_;
  unsigned timeout_ms_;
  unsigned nonlinear_timeout_ms_;
  unsigned stride_match_timeout_ms_;
  std::optional<std::vector<size_t>> stride_matches_;  // held_stride_matches(), once asked
  Params params_;
  IntArith arith_;
  ValueDomain values_;
  EncodingState s_;
  z3::solver solver_;
  std::vector<Axiom> laws_;
  std::vector<z3::expr> base_;  // domain, assumptions, literal facts, ground instances
};

}  // namespace

CaseOutcome check_case(z3::context& ctx, const CaseSetup& setup, const Case& c,
                       const std::set<std::string>& finite) {
  Checker checker(ctx, setup, c, finite);
  CaseOutcome out = checker.run();
  out.nonlinear = checker.built_nonlinear();
  return out;
}

}  // namespace smelt::verify
