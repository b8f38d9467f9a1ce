#include "verify/value_domain.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace smelt::verify {
namespace {

// Shortest round-trip text of a double ("1", "-0", "2.5", "1e-05", "inf", "nan").
std::string double_text(double v) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

// The exact rational of a decimal text, for Z3 ("2.5" -> "25/10", "1e-05" -> "1/100000").
std::string rational_text(const std::string& decimal) {
  std::string digits, sign;
  long exponent = 0;
  size_t i = 0;
  if (decimal[i] == '-') sign = "-", ++i;
  for (; i < decimal.size() && decimal[i] != 'e'; ++i) {
    if (decimal[i] == '.') continue;
    digits += decimal[i];
    if (decimal.find('.') != std::string::npos && i > decimal.find('.')) --exponent;
  }
  if (i < decimal.size()) exponent += std::stol(decimal.substr(i + 1));
  if (exponent >= 0) return sign + digits + std::string(static_cast<size_t>(exponent), '0');
  return sign + digits + "/1" + std::string(static_cast<size_t>(-exponent), '0');
}

// Literals are constants per double: identity, so -0.0 differs from 0.0.
bool same_double(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

ValueDomain::ValueDomain(z3::context& ctx, bool real)
    : ctx_(ctx), real_(real), sort_(real ? ctx.real_sort() : ctx.uninterpreted_sort("Val")) {}

z3::func_decl ValueDomain::function(const std::string& name, const z3::sort_vector& domain,
                                    const z3::sort& range) {
  if (auto it = functions_.find(name); it != functions_.end()) return it->second;
  z3::func_decl f = z3::function(name.c_str(), domain, range);
  functions_.emplace(name, f);
  return f;
}

z3::func_decl ValueDomain::value_function(const std::string& name, size_t arity) {
  z3::sort_vector domain(ctx_);
  for (size_t i = 0; i < arity; ++i) domain.push_back(sort_);
  return function(name, domain, sort_);
}

z3::func_decl ValueDomain::op_function(const std::string& name, size_t arity) {
  z3::sort_vector domain(ctx_);
  domain.push_back(ctx_.int_sort());
  for (size_t i = 0; i < arity; ++i) domain.push_back(sort_);
  return function(name, domain, sort_);
}

z3::func_decl ValueDomain::var_function(const std::string& name, size_t arity) {
  z3::sort_vector domain(ctx_);
  for (size_t i = 0; i < arity; ++i) domain.push_back(ctx_.int_sort());
  for (size_t i = 0; i < arity; ++i) domain.push_back(sort_);
  return function(name, domain, sort_);
}

z3::expr ValueDomain::literal(double v) {
  if (real_) {
    if (std::isfinite(v)) return ctx_.real_val(rational_text(double_text(v)).c_str());
    return ctx_.constant(("lit " + double_text(v)).c_str(), sort_);
  }
  for (const auto& [d, e] : literals_)
    if (same_double(d, v)) return e;
  z3::expr e = ctx_.constant(("lit " + double_text(v)).c_str(), sort_);
  literals_.emplace_back(v, e);
  return e;
}

z3::expr ValueDomain::from_int(const z3::expr& i) {
  int64_t v = 0;
  if (i.is_numeral_i64(v) || i.simplify().is_numeral_i64(v)) return literal(static_cast<double>(v));
  if (real_) return z3::to_real(i);
  z3::sort_vector domain(ctx_);
  domain.push_back(ctx_.int_sort());
  return function("from_int", domain, sort_)(i);
}

z3::expr ValueDomain::to_int(const z3::expr& v) {
  if (real_) return z3::expr(ctx_, Z3_mk_real2int(ctx_, v));  // the z3++ of 4.8 has no to_int
  z3::sort_vector domain(ctx_);
  domain.push_back(sort_);
  return function("to_int", domain, ctx_.int_sort())(v);
}

z3::expr ValueDomain::apply(ir::Op op, const z3::expr& dtype, const std::vector<z3::expr>& a) {
  if (op == ir::Op::Where) {
    if (real_) return z3::ite(a[0] != literal(0), a[1], a[2]);
    z3::sort_vector domain(ctx_);
    domain.push_back(sort_);
    return z3::ite(function("truth", domain, ctx_.bool_sort())(a[0]), a[1], a[2]);
  }
  if (real_) {
    z3::expr zero = literal(0), one = literal(1);
    switch (op) {
      case ir::Op::Add: return a[0] + a[1];
      case ir::Op::Sub: return a[0] - a[1];
      case ir::Op::Mul: return scale_sum(a[0], a[1]);
      case ir::Op::Div: return a[0] / a[1];
      case ir::Op::Neg: return -a[0];
      case ir::Op::Recip: return one / a[0];
      case ir::Op::Max: return z3::ite(a[0] >= a[1], a[0], a[1]);
      case ir::Op::Min: return z3::ite(a[0] <= a[1], a[0], a[1]);
      case ir::Op::Abs: return z3::ite(a[0] >= zero, a[0], -a[0]);
      case ir::Op::Relu: return z3::ite(a[0] > zero, a[0], zero);
      case ir::Op::Lt: return z3::ite(a[0] < a[1], one, zero);
      case ir::Op::Le: return z3::ite(a[0] <= a[1], one, zero);
      case ir::Op::Eq: return z3::ite(a[0] == a[1], one, zero);
      default: break;
    }
  }
  z3::expr_vector args(ctx_);
  args.push_back(dtype);
  for (const z3::expr& x : a) args.push_back(x);
  return op_function(std::string(ir::op_name(op)), a.size())(args);
}

z3::expr ValueDomain::scale_sum(const z3::expr& a, const z3::expr& b) {
  auto is_sum = [](const z3::expr& e) {
    return e.is_app() && e.num_args() == 2 && e.decl().name().str() == "sum_over1" && e.arg(0).is_lambda();
  };
  if (!is_sum(a) && is_sum(b)) return scale_sum(b, a);
  // Through the masks of a sum's body: ite(m, t, e) * b = ite(m, t * b, e * b).
  if (a.is_ite()) return z3::ite(a.arg(0), scale_sum(a.arg(1), b), scale_sum(a.arg(2), b));
  if (!is_sum(a)) return a * b;
  // (sum_k f(k)) * b = sum_k f(k) * b: the factor moves into the body (and
  // into the sums nested there), so that a sum scaled outside and one whose
  // terms are scaled have bodies Z3 can compare.
  z3::expr k = ctx_.int_const(("scaled!" + std::to_string(++scaled_)).c_str());
  z3::expr_vector at(ctx_);
  at.push_back(k);
  z3::expr body = a.arg(0).body().substitute(at);
  return a.decl()(z3::lambda(k, scale_sum(body, b)), a.arg(1));
}

z3::expr ValueDomain::cast(const z3::expr& from, const z3::expr& to, const z3::expr& v) {
  z3::sort_vector domain(ctx_);
  domain.push_back(ctx_.int_sort());
  domain.push_back(ctx_.int_sort());
  domain.push_back(sort_);
  // A cast to the same dtype is the identity: a law (not an ite), so that
  // nested casts stay visible to the laws' patterns.
  if (real_) return z3::ite(to == from, v, function("cast", domain, sort_)(from, to, v));
  return function("cast", domain, sort_)(from, to, v);
}

z3::expr ValueDomain::apply_var(const std::string& name, const std::vector<z3::expr>& dtypes,
                                const std::vector<z3::expr>& a) {
  z3::expr_vector args(ctx_);
  for (const z3::expr& d : dtypes) args.push_back(d);
  for (const z3::expr& x : a) args.push_back(x);
  return var_function(name, a.size())(args);
}

z3::expr ValueDomain::var_accepts(const std::string& name, const std::vector<z3::expr>& dtypes) {
  z3::sort_vector domain(ctx_);
  z3::expr_vector args(ctx_);
  for (const z3::expr& d : dtypes) domain.push_back(ctx_.int_sort()), args.push_back(d);
  return function(name + " accepts", domain, ctx_.bool_sort())(args);
}

z3::expr ValueDomain::arith(const std::string& fn, const z3::expr& a, const z3::expr& b) {
  if (real_) {
    if (fn == "+") return a + b;
    if (fn == "-") return a - b;
    if (fn == "*") return a * b;
    if (fn == "min") return z3::ite(a <= b, a, b);
    if (fn == "max") return z3::ite(a >= b, a, b);
  }
  // Attribute arithmetic on floats is double arithmetic: left uninterpreted.
  return value_function("attr" + fn, 2)(a, b);
}

z3::expr ValueDomain::negate(const z3::expr& a) {
  if (real_) return -a;
  return value_function("attr-neg", 1)(a);
}

z3::expr ValueDomain::compare(const std::string& fn, const z3::expr& a, const z3::expr& b) {
  // `=` is identity in the rule engine (-0.0 differs from 0.0, NaN equals NaN).
  if (fn == "=") return a == b;
  if (real_) return fn == "<" ? a < b : a <= b;
  z3::sort_vector domain(ctx_);
  domain.push_back(sort_);
  domain.push_back(sort_);
  return function("attr" + fn, domain, ctx_.bool_sort())(a, b);
}

z3::func_decl ValueDomain::reduce_function(const std::string& name, size_t n) {
  z3::sort_vector index(ctx_), domain(ctx_);
  for (size_t i = 0; i < n; ++i) index.push_back(ctx_.int_sort());
  domain.push_back(n == 1 ? ctx_.array_sort(ctx_.int_sort(), sort_) : ctx_.array_sort(index, sort_));
  for (size_t i = 0; i < n; ++i) domain.push_back(ctx_.int_sort());
  return function(name + std::to_string(n), domain, sort_);
}

z3::expr ValueDomain::reduce(const std::string& kind, const std::vector<z3::expr>& vars,
                             const std::vector<z3::expr>& extents, const z3::expr& body) {
  if (real_) {
    // In the reals a multi-axis sum is the nest of one-axis sums, and matmul
    // is a sum of products like any other.
    std::string name = kind == "reduce_max" ? "max_over" : "sum_over";
    z3::expr out = body;
    for (size_t k = vars.size(); k-- > 0;) out = reduce_function(name, 1)(z3::lambda(vars[k], out), extents[k]);
    return out;
  }
  z3::expr_vector xs(ctx_), args(ctx_);
  for (const z3::expr& v : vars) xs.push_back(v);
  args.push_back(z3::lambda(xs, body));
  for (const z3::expr& n : extents) args.push_back(n);
  return reduce_function(kind, vars.size())(args);
}

z3::expr ValueDomain::copies(const z3::expr& v, const z3::expr& n) {
  if (real_) return v * z3::to_real(n);
  z3::sort_vector domain(ctx_);
  domain.push_back(sort_);
  domain.push_back(ctx_.int_sort());
  return function("copies", domain, sort_)(v, n);
}

z3::expr ValueDomain::dot(const z3::expr& a, const z3::expr& b) {
  if (real_) return a * b;
  return value_function("dot", 2)(a, b);
}

z3::expr ValueDomain::int_like(const z3::expr& dtype) {
  return dtype == static_cast<int>(ir::DType::I32) || dtype == static_cast<int>(ir::DType::I64) ||
         dtype == static_cast<int>(ir::DType::Bool);
}

z3::expr ValueDomain::int_zero() { return ctx_.constant("lit 0 (int)", sort_); }

z3::expr ValueDomain::element(const z3::expr& dtype, const z3::expr& v) {
  if (real_) return v;
  z3::expr zero = v == literal(0.0) || v == literal(-0.0);
  return z3::ite(int_like(dtype) && zero, int_zero(), v);
}

std::vector<Axiom> ValueDomain::laws() {
  std::vector<Axiom> out;
  if (real_) return out;
  z3::expr d = ctx_.int_const("d!"), e = ctx_.int_const("e!");
  z3::expr x = ctx_.constant("x!", sort_), y = ctx_.constant("y!", sort_);
  auto used = [&](const std::string& name) { return functions_.count(name) > 0; };
  auto law = [&](std::vector<z3::expr> vars, const z3::expr& pattern, const z3::expr& fact) {
    out.push_back(Axiom{std::move(vars), pattern, fact});
  };
  auto f1 = [&](const char* name) { return op_function(name, 1); };
  auto f2 = [&](const char* name) { return op_function(name, 2); };
  z3::expr one = literal(1), minus_one = literal(-1), zero = literal(0.0), minus_zero = literal(-0.0);
  z3::expr izero = int_zero();
  z3::expr is_int = int_like(d);
  auto is_float = [](const z3::expr& t) {
    return t == static_cast<int>(ir::DType::F32) || t == static_cast<int>(ir::DType::F16) ||
           t == static_cast<int>(ir::DType::BF16);
  };
  // Integer zero is its own constant (element() makes it): -0.0 and 0.0 are
  // one integer, and two identities of one op on one dtype would make their
  // constants one value in every dtype. So the float laws name 0.0 and -0.0,
  // the integer laws the integer zero.
  for (const char* op : {"add", "mul", "eq"})
    if (used(op)) law({d, x, y}, f2(op)(d, x, y), f2(op)(d, x, y) == f2(op)(d, y, x));
  if (used("mul")) {
    law({d, x}, f2("mul")(d, x, one), f2("mul")(d, x, one) == x);
    law({d, x}, f2("mul")(d, x, minus_one), f2("mul")(d, x, minus_one) == f1("neg")(d, x));
    law({d, x}, f2("mul")(d, x, izero), z3::implies(is_int, f2("mul")(d, x, izero) == izero));
    // Rounding to nearest is symmetric: (-a)*b = -(a*b).
    law({d, x, y}, f2("mul")(d, f1("neg")(d, x), y),
        f2("mul")(d, f1("neg")(d, x), y) == f1("neg")(d, f2("mul")(d, x, y)));
  }
  if (used("div")) {
    law({d, x}, f2("div")(d, x, one), f2("div")(d, x, one) == x);
    law({d, x}, f2("div")(d, x, minus_one), f2("div")(d, x, minus_one) == f1("neg")(d, x));
  }
  if (used("sub")) {
    law({d, x}, f2("sub")(d, x, zero), z3::implies(is_float(d), f2("sub")(d, x, zero) == x));
    law({d, x}, f2("sub")(d, x, izero), z3::implies(is_int, f2("sub")(d, x, izero) == x));
    law({d, x}, f2("sub")(d, x, x), z3::implies(is_int, f2("sub")(d, x, x) == izero));
    // IEEE defines a - b as a + (-b); wrapping integers agree.
    law({d, x, y}, f2("sub")(d, x, y), f2("sub")(d, x, y) == f2("add")(d, x, f1("neg")(d, y)));
  }
  if (used("add")) {
    law({d, x}, f2("add")(d, x, minus_zero), z3::implies(is_float(d), f2("add")(d, x, minus_zero) == x));
    law({d, x}, f2("add")(d, x, izero), z3::implies(is_int, f2("add")(d, x, izero) == x));
  }
  if (used("neg")) law({d, x}, f1("neg")(d, f1("neg")(d, x)), f1("neg")(d, f1("neg")(d, x)) == x);
  if (used("abs")) {
    law({d, x}, f1("abs")(d, f1("neg")(d, x)), f1("abs")(d, f1("neg")(d, x)) == f1("abs")(d, x));
    law({d, x}, f1("abs")(d, f1("abs")(d, x)), f1("abs")(d, f1("abs")(d, x)) == f1("abs")(d, x));
  }
  if (used("relu")) law({d, x}, f1("relu")(d, f1("relu")(d, x)), f1("relu")(d, f1("relu")(d, x)) == f1("relu")(d, x));
  for (const char* op : {"max", "min"})
    if (used(op)) law({d, x}, f2(op)(d, x, x), f2(op)(d, x, x) == x);
  if (used("cast")) {
    z3::sort_vector domain(ctx_);
    domain.push_back(ctx_.int_sort());
    domain.push_back(ctx_.int_sort());
    domain.push_back(sort_);
    z3::func_decl cast3 = function("cast", domain, sort_);
    law({d, x}, cast3(d, d, x), cast3(d, d, x) == x);
    auto code = [&](ir::DType t) { return ctx_.int_val(static_cast<int>(t)); };
    // Widening and back is exact where the wide type holds every narrow value.
    std::pair<ir::DType, ir::DType> exact[] = {{ir::DType::BF16, ir::DType::F32},
                                               {ir::DType::F16, ir::DType::F32},
                                               {ir::DType::I32, ir::DType::I64}};
    for (const auto& [narrow, wide] : exact) {
      z3::expr round_trip = cast3(code(wide), code(narrow), cast3(code(narrow), code(wide), x));
      law({x}, round_trip, round_trip == x);
    }
    z3::expr from_bool = cast3(e, code(ir::DType::Bool), cast3(code(ir::DType::Bool), e, x));
    law({e, x}, from_bool, from_bool == x);
    // Float-to-float rounding is symmetric.
    z3::expr through = cast3(d, e, f1("neg")(d, x));
    law({d, e, x}, through, z3::implies(is_float(d) && is_float(e), through == f1("neg")(e, cast3(d, e, x))));
  }
  // A dot sum (matmul's, conv's) over a box whose last axis has extent 1 is
  // the sum over the other axes of the terms at index 0 of that one: the same
  // terms in the same order (a 1x1 convolution is a matmul).
  for (size_t n = 4; n >= 2; --n) {
    if (!used("matmul" + std::to_string(n))) continue;
    z3::sort_vector index(ctx_);
    for (size_t i = 0; i < n; ++i) index.push_back(ctx_.int_sort());
    z3::expr f = ctx_.constant("f!", ctx_.array_sort(index, sort_));
    std::vector<z3::expr> vars{f};
    z3::expr_vector extents(ctx_), bound(ctx_), at(ctx_);
    for (size_t i = 0; i < n; ++i) {
      vars.push_back(ctx_.int_const(("n!" + std::to_string(i)).c_str()));
      extents.push_back(vars.back());
    }
    for (size_t i = 0; i + 1 < n; ++i) {
      bound.push_back(ctx_.int_const(("k!" + std::to_string(i)).c_str()));
      at.push_back(bound.back());
    }
    at.push_back(ctx_.int_val(0));
    z3::expr_vector fewer(ctx_);
    fewer.push_back(z3::lambda(bound, z3::select(f, at)));
    for (size_t i = 0; i + 1 < n; ++i) fewer.push_back(extents[static_cast<int>(i)]);
    z3::expr_vector all(ctx_);
    all.push_back(f);
    for (const z3::expr& extent : extents) all.push_back(extent);
    z3::expr whole = reduce_function("matmul", n)(all);
    law(vars, whole, z3::implies(extents[static_cast<int>(n - 1)] == 1, whole == reduce_function("matmul", n - 1)(fewer)));
  }
  // A reduction of arity n over a box: the body f, the extents, the
  // reduction's term, and a witness index inside the box (an uninterpreted
  // function `witness` of the body and the box) for the laws below.
  struct Box {
    std::vector<z3::expr> vars;  // f, then the extents
    z3::expr whole, nonempty, inside, at_witness, first, count;
  };
  auto box = [&](const std::string& kind, size_t n, const std::string& witness) {
    const std::string name = kind + std::to_string(n);
    z3::sort_vector index(ctx_);
    for (size_t i = 0; i < n; ++i) index.push_back(ctx_.int_sort());
    z3::expr f = ctx_.constant("f!", n == 1 ? ctx_.array_sort(ctx_.int_sort(), sort_) : ctx_.array_sort(index, sort_));
    std::vector<z3::expr> vars{f};
    z3::expr_vector all(ctx_), at(ctx_), zeros(ctx_);
    all.push_back(f);
    z3::sort_vector witness_domain(ctx_);
    witness_domain.push_back(f.get_sort());
    for (size_t i = 0; i < n; ++i) {
      vars.push_back(ctx_.int_const(("n!" + std::to_string(i)).c_str()));
      all.push_back(vars.back());
      witness_domain.push_back(ctx_.int_sort());
    }
    z3::expr nonempty = ctx_.bool_val(true), inside = ctx_.bool_val(true), count = ctx_.int_val(1);
    for (size_t i = 0; i < n; ++i) {
      const z3::expr& extent = vars[i + 1];
      z3::expr w = function(name + "." + witness + std::to_string(i), witness_domain, ctx_.int_sort())(all);
      nonempty = nonempty && extent >= 1;
      inside = inside && w >= 0 && w < extent;
      at.push_back(w);
      zeros.push_back(ctx_.int_val(0));
      count = count * extent;
    }
    return Box{vars, reduce_function(kind, n)(all), nonempty, inside, z3::select(f, at), z3::select(f, zeros), count};
  };
  for (size_t n = 1; n <= 4; ++n) {
    // The maximum over a nonempty box is one of its terms (max returns one of
    // its operands, a NaN where there is one): the body at a witness index
    // inside the box, argmax.
    if (used("reduce_max" + std::to_string(n))) {
      const Box b = box("reduce_max", n, "argmax");
      law(b.vars, b.whole, z3::implies(b.nonempty, b.inside && b.whole == b.at_witness));
    }
    // A sum over a nonempty box whose terms are all one value is that value's
    // copies, as many as the box holds (copies()). The witness stands for a
    // term that differs from the first where one does: where the term there
    // equals the first, the sum is the first's copies.
    if (used("reduce_sum" + std::to_string(n))) {
      const Box b = box("reduce_sum", n, "differs");
      law(b.vars, b.whole,
          z3::implies(b.nonempty, b.inside && z3::implies(b.at_witness == b.first, b.whole == copies(b.first, b.count))));
    }
  }
  return out;
}

z3::expr_vector ValueDomain::literal_facts() {
  z3::expr_vector out(ctx_);
  if (real_) return out;
  auto used = [&](const std::string& name) { return functions_.count(name) > 0; };
  // Facts about literals: integers as values, where's condition, IEEE order.
  auto lits = literals_;
  // Distinct doubles are distinct attribute values. As elements they may
  // round to one value, except those every dtype holds exactly: small
  // integers, the zeros (integer dtypes use int_zero() instead), inf, NaN.
  z3::expr_vector exact(ctx_);
  exact.push_back(int_zero());
  for (const auto& [v, lit] : lits)
    if (!std::isfinite(v) || (std::trunc(v) == v && std::fabs(v) <= 256)) exact.push_back(lit);
  if (exact.size() > 1) out.push_back(z3::distinct(exact));
  if (used("from_int")) {
    z3::sort_vector domain(ctx_);
    domain.push_back(ctx_.int_sort());
    z3::func_decl from_int = function("from_int", domain, sort_);
    for (const auto& [v, lit] : lits)
      // Small integers are exact in every dtype (bf16 holds them up to 256).
      if (std::trunc(v) == v && std::fabs(v) <= 256 && !(v == 0 && std::signbit(v)))
        out.push_back(from_int(ctx_.int_val(static_cast<int64_t>(v))) == lit);
  }
  if (used("truth")) {
    z3::sort_vector domain(ctx_);
    domain.push_back(sort_);
    z3::func_decl truth = function("truth", domain, ctx_.bool_sort());
    for (const auto& [v, lit] : lits) out.push_back(truth(lit) == ctx_.bool_val(v != 0 || std::isnan(v)));
    out.push_back(!truth(int_zero()));
  }
  for (const auto& [a, ea] : lits)
    for (const auto& [b, eb] : lits) {
      if (used("attr<")) out.push_back(compare("<", ea, eb) == ctx_.bool_val(a < b));
      if (used("attr<=")) out.push_back(compare("<=", ea, eb) == ctx_.bool_val(a <= b));
    }
  return out;
}

}  // namespace smelt::verify
