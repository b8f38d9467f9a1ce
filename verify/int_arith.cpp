#include "verify/int_arith.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

namespace smelt::verify {
namespace {

// Enough for the joint range of three extents; beyond that the expansion would
// be too large to help the solver anyway.
constexpr size_t kMaxCombinations = 4096;
constexpr size_t kMaxValues = 128;

}  // namespace

std::vector<z3::expr> free_int_constants(const z3::expr& e) {
  std::vector<z3::expr> out;
  std::unordered_set<unsigned> seen, seen_const;
  std::function<void(const z3::expr&)> walk = [&](const z3::expr& x) {
    if (!seen.insert(x.id()).second) return;
    if (x.is_quantifier() || x.is_lambda()) {
      walk(x.body());
      return;
    }
    if (!x.is_app()) return;
    if (x.is_const() && !x.is_numeral() && x.is_int() &&
        x.decl().decl_kind() == Z3_OP_UNINTERPRETED) {
      if (seen_const.insert(x.id()).second) out.push_back(x);
      return;
    }
    for (unsigned i = 0; i < x.num_args(); ++i) walk(x.arg(i));
  };
  walk(e);
  return out;
}

bool has_bound_variable(const z3::expr& e) {
  std::unordered_set<unsigned> seen;
  std::function<bool(const z3::expr&)> walk = [&](const z3::expr& x) {
    if (!seen.insert(x.id()).second) return false;
    if (x.is_var() || x.is_quantifier() || x.is_lambda()) return true;
    if (!x.is_app()) return false;
    for (unsigned i = 0; i < x.num_args(); ++i)
      if (walk(x.arg(i))) return true;
    return false;
  };
  return walk(e);
}

std::optional<int64_t> IntArith::numeral(const z3::expr& e) {
  int64_t v = 0;
  if (e.is_numeral_i64(v)) return v;
  z3::expr s = e.simplify();
  if (s.is_numeral_i64(v)) return v;
  return std::nullopt;
}

std::optional<std::vector<int64_t>> IntArith::values(const z3::expr& e) {
  if (auto it = cache_.find(e.id()); it != cache_.end()) return it->second.second;
  std::optional<std::vector<int64_t>> result;
  if (auto v = numeral(e)) {
    result = std::vector<int64_t>{*v};
  } else {
    std::vector<z3::expr> consts = free_int_constants(e);
    bool all_finite = !consts.empty() && std::all_of(consts.begin(), consts.end(), [&](const z3::expr& c) {
      return params_.is_param(c) && params_.is_finite(c.decl().name().str());
    });
    size_t combinations = 1;
    std::vector<std::vector<int64_t>> ranges;
    if (all_finite) {
      for (const z3::expr& c : consts) {
        ranges.push_back(finite_range(params_.kind_of(c.decl().name().str())));
        combinations *= ranges.back().size();
        if (combinations > kMaxCombinations) all_finite = false;
      }
    }
    if (all_finite) {
      std::vector<int64_t> vals;
      z3::expr_vector from(ctx_), to(ctx_);
      for (const z3::expr& c : consts) from.push_back(c);
      std::vector<size_t> pick(consts.size(), 0);
      for (size_t n = 0; n < combinations; ++n) {
        z3::expr_vector assignment(ctx_);
        for (size_t k = 0; k < consts.size(); ++k) assignment.push_back(ctx_.int_val(ranges[k][pick[k]]));
        z3::expr copy = e;
        if (auto value = numeral(copy.substitute(from, assignment))) vals.push_back(*value);
        for (size_t k = 0; k < pick.size() && ++pick[k] == ranges[k].size(); ++k) pick[k] = 0;
      }
      std::sort(vals.begin(), vals.end());
      vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
      if (!vals.empty() && vals.size() <= kMaxValues) result = std::move(vals);
    }
  }
  cache_.emplace(e.id(), std::make_pair(e, result));
  return result;
}

template <typename F>
z3::expr IntArith::expand(const z3::expr& e, const std::vector<int64_t>& vals, F f) {
  z3::expr out = f(vals.back());
  for (size_t k = vals.size() - 1; k-- > 0;) out = z3::ite(e == ctx_.int_val(vals[k]), f(vals[k]), out);
  return out;
}

z3::expr IntArith::witness(const char* what) {
  return ctx_.int_const((std::string(what) + "#" + std::to_string(++witnesses_)).c_str());
}

z3::expr IntArith::quotient_witness(const z3::expr& a, const z3::expr& b) {
  auto key = std::make_pair(a.id(), b.id());
  if (auto it = quotients_.find(key); it != quotients_.end()) return it->second.back();
  z3::expr q = witness("quotient");
  quotients_.emplace(key, std::vector<z3::expr>{a, b, q});
  // floor(a/b) = q: b*q <= a < b*q + b for b > 0, b*q + b < a <= b*q for
  // b < 0. Satisfiable for every a and b: a definition, never an assumption.
  define(z3::implies(b > 0, b * q <= a && a < b * q + b));
  define(z3::implies(b < 0, b * q + b < a && a <= b * q));
  return q;
}

bool IntArith::has_symbolic_step(const z3::expr& e) const {
  for (const z3::expr& c : free_int_constants(e)) {
    if (!params_.is_param(c)) continue;
    std::string name = c.decl().name().str();
    if (params_.kind_of(name) == ParamKind::kStep && !params_.is_finite(name)) return true;
  }
  return false;
}

void IntArith::need_finite(const z3::expr& a, const z3::expr& b, const char* what) {
  // Make finite the factor that depends on parameters only, preferring steps,
  // then extents (small shapes are natural test cases), then other attributes;
  // then the one with fewer parameters.
  auto preference = [](ParamKind k) { return k == ParamKind::kStep ? 0 : k == ParamKind::kInt ? 2 : 1; };
  struct Factor {
    bool params_only = true;
    int worst = -1;
    std::map<std::string, ParamKind> symbolic;
  };
  auto inspect = [&](const z3::expr& e) {
    Factor f;
    for (const z3::expr& c : free_int_constants(e)) {
      if (!params_.is_param(c)) {
        f.params_only = false;
        continue;
      }
      std::string name = c.decl().name().str();
      if (params_.is_finite(name)) continue;
      f.symbolic.emplace(name, params_.kind_of(name));
      f.worst = std::max(f.worst, preference(params_.kind_of(name)));
    }
    return f;
  };
  Factor fa = inspect(a), fb = inspect(b);
  bool a_ok = fa.params_only && !fa.symbolic.empty(), b_ok = fb.params_only && !fb.symbolic.empty();
  if (a_ok && b_ok) {
    bool prefer_a = fa.worst < fb.worst || (fa.worst == fb.worst && fa.symbolic.size() < fb.symbolic.size());
    throw NeedFinite{prefer_a ? fa.symbolic : fb.symbolic};
  }
  if (b_ok) throw NeedFinite{fb.symbolic};
  if (a_ok) throw NeedFinite{fa.symbolic};
  throw Unsupported(std::string("a ") + what + " of two index-dependent or unbounded values (" +
                    a.to_string() + ", " + b.to_string() + ")");
}

z3::expr IntArith::mul(const z3::expr& a, const z3::expr& b) {
  if (auto x = numeral(a)) return *x == 0 ? ctx_.int_val(0) : *x == 1 ? b : ctx_.int_val(*x) * b;
  if (auto y = numeral(b)) return *y == 0 ? ctx_.int_val(0) : *y == 1 ? a : a * ctx_.int_val(*y);
  auto va = values(a), vb = values(b);
  auto times = [&](const z3::expr& other) {
    return [&, other](int64_t v) { return v == 0 ? ctx_.int_val(0) : v == 1 ? other : ctx_.int_val(v) * other; };
  };
  if (vb && (!va || vb->size() <= va->size())) return expand(b, *vb, times(a));
  if (va) return expand(a, *va, times(b));
  // A slice step is a few values in practice, and an index times a symbolic
  // step is what Z3's non-linear arithmetic decides worst: steps stay finite.
  if (nonlinear_ && !has_symbolic_step(a) && !has_symbolic_step(b)) {
    built_nonlinear_ = true;
    return a * b;
  }
  need_finite(a, b, "product");
}

z3::expr IntArith::product(const std::vector<z3::expr>& factors) {
  z3::expr out = ctx_.int_val(1);
  for (const z3::expr& f : factors) out = mul(out, f);
  return out;
}

z3::expr IntArith::floordiv(const z3::expr& a, const z3::expr& b, z3::expr_vector& defined) {
  auto by = [&](int64_t v) {
    if (v == 0) return ctx_.int_val(0);
    if (v > 0) return v == 1 ? a : a / ctx_.int_val(v);
    return (-a) / ctx_.int_val(-v);  // floor(a/v) = floor(-a/-v), and Z3's div floors for v > 0
  };
  if (auto y = numeral(b)) {
    if (*y == 0) defined.push_back(ctx_.bool_val(false));
    return by(*y);
  }
  if (nonlinear_) {
    built_nonlinear_ = true;
    defined.push_back(b != 0);
    if (!has_bound_variable(a) && !has_bound_variable(b)) return quotient_witness(a, b);
    return z3::ite(b > 0, a / b, (-a) / (-b));
  }
  if (auto vb = values(b)) {
    if (std::binary_search(vb->begin(), vb->end(), 0)) defined.push_back(b != 0);
    return expand(b, *vb, by);
  }
  need_finite(a, b, "quotient");
}

z3::expr IntArith::mod(const z3::expr& a, const z3::expr& b, z3::expr_vector& defined) {
  auto by = [&](int64_t v) {
    if (v == 0) return ctx_.int_val(0);
    if (v > 0) return z3::mod(a, ctx_.int_val(v));
    return -z3::mod(-a, ctx_.int_val(-v));  // the floor modulo has the divisor's sign
  };
  if (auto y = numeral(b)) {
    if (*y == 0) defined.push_back(ctx_.bool_val(false));
    return by(*y);
  }
  if (nonlinear_) {
    built_nonlinear_ = true;
    defined.push_back(b != 0);
    if (!has_bound_variable(a) && !has_bound_variable(b)) return a - b * quotient_witness(a, b);
    return z3::ite(b > 0, z3::mod(a, b), -z3::mod(-a, -b));
  }
  if (auto vb = values(b)) {
    if (std::binary_search(vb->begin(), vb->end(), 0)) defined.push_back(b != 0);
    return expand(b, *vb, by);
  }
  need_finite(a, b, "modulo");
}

}  // namespace smelt::verify
