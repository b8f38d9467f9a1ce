#include "verify/z3_expr.h"

#include <algorithm>

namespace smelt::verify {
namespace {

using rules::Expr;

std::string_view kind_name(AttrKind k) {
  switch (k) {
    case AttrKind::kInt: return "integer";
    case AttrKind::kFloat: return "float";
    case AttrKind::kBool: return "bool";
    case AttrKind::kDType: return "dtype";
  }
  return "?";
}

AttrValue scalar(AttrKind kind, const z3::expr& e) { return {kind, false, {e}, false}; }

// Lists are shapes and per-axis attributes: a few entries.
constexpr int64_t kMaxListLength = 64;

class Evaluator {
 public:
  Evaluator(EncodingState& s, z3::expr_vector& defined) : s_(s), ctx_(s.ctx), defined_(defined) {}

  AttrValue eval(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kInt: return scalar(AttrKind::kInt, ctx_.int_val(e.int_value));
      case Expr::Kind::kFloat: return scalar(AttrKind::kFloat, s_.values.literal(e.float_value));
      case Expr::Kind::kBool: return scalar(AttrKind::kBool, ctx_.bool_val(e.bool_value));
      case Expr::Kind::kDType: return scalar(AttrKind::kDType, ctx_.int_val(static_cast<int>(e.dtype)));
      case Expr::Kind::kList: return list_of(e.args);
      case Expr::Kind::kVar: {
        auto it = s_.attrs.find(e.name);
        if (it == s_.attrs.end()) throw Unsupported("attribute variable " + e.name + " has no value");
        return it->second;
      }
      case Expr::Kind::kSymbol: throw Unsupported("a bare name outside (is-op ?f NAME)");
      case Expr::Kind::kCall: return call(e);
    }
    throw Unsupported("unknown expression");
  }

 private:
  AttrValue list_of(const std::vector<Expr>& args) {
    std::vector<AttrValue> items;
    for (const Expr& a : args) {
      items.push_back(eval(a));
      if (items.back().is_list) throw Unsupported("nested lists");
    }
    AttrValue out{AttrKind::kInt, true, {}};
    for (const AttrValue& v : items)
      if (v.kind != AttrKind::kInt) out.kind = v.kind;
    for (const AttrValue& v : items) out.items.push_back(convert(s_, v, out.kind).items[0]);
    return out;
  }

  int64_t concrete(const AttrValue& v, const char* what) {
    if (v.is_list || v.kind != AttrKind::kInt) throw Unsupported(std::string(what) + " must be an integer");
    auto n = IntArith::numeral(v.items[0]);
    if (!n) throw Unsupported(std::string(what) + " must follow from the rule's structure (ranks, lengths)");
    return *n;
  }

  const z3::expr& one(const AttrValue& v, AttrKind kind, const char* fn) {
    if (v.is_list || v.kind != kind)
      throw Unsupported(std::string(fn) + " expects a " + std::string(kind_name(kind)) + " scalar");
    return v.items[0];
  }

  // Applies f elementwise, broadcasting a scalar against a list.
  template <typename F>
  AttrValue zip(const AttrValue& a, const AttrValue& b, AttrKind result, F f) {
    if (a.is_list && b.is_list && a.items.size() != b.items.size()) {
      defined_.push_back(ctx_.bool_val(false));
      return AttrValue{result, true, {}};
    }
    AttrValue out{result, a.is_list || b.is_list, {}};
    size_t n = a.is_list ? a.items.size() : b.is_list ? b.items.size() : 1;
    for (size_t i = 0; i < n; ++i)
      out.items.push_back(f(a.items[a.is_list ? i : 0], b.items[b.is_list ? i : 0]));
    return out;
  }

  AttrKind numeric_kind(const AttrValue& a, const AttrValue& b, const std::string& fn) {
    for (const AttrValue* v : {&a, &b})
      if (v->kind == AttrKind::kDType)
        throw Unsupported("'" + fn + "' on a " + std::string(kind_name(v->kind)) + " value");
    return a.kind == AttrKind::kFloat || b.kind == AttrKind::kFloat ? AttrKind::kFloat : AttrKind::kInt;
  }

  AttrValue arith2(const std::string& fn, const AttrValue& a0, const AttrValue& b0) {
    AttrKind k = numeric_kind(a0, b0, fn);
    AttrValue a = convert(s_, a0, k), b = convert(s_, b0, k);
    if (k == AttrKind::kFloat) {
      if (fn == "floordiv" || fn == "mod") throw Unsupported("'" + fn + "' on floats");
      return zip(a, b, k, [&](const z3::expr& x, const z3::expr& y) { return s_.values.arith(fn, x, y); });
    }
    return zip(a, b, k, [&](const z3::expr& x, const z3::expr& y) -> z3::expr {
      if (fn == "+") return x + y;
      if (fn == "-") return x - y;
      if (fn == "*") return s_.arith.mul(x, y);
      if (fn == "min") return z3::ite(x <= y, x, y);
      if (fn == "max") return z3::ite(x >= y, x, y);
      if (fn == "floordiv") return s_.arith.floordiv(x, y, defined_);
      return s_.arith.mod(x, y, defined_);
    });
  }

  AttrValue compare(const std::string& fn, const AttrValue& a0, const AttrValue& b0) {
    AttrValue out{AttrKind::kBool, false, {}};
    if (a0.is_list && b0.is_list && a0.items.size() != b0.items.size()) {
      out.items.push_back(ctx_.bool_val(false));
      return out;
    }
    bool ordered = fn != "=" && fn != "!=";
    AttrKind k;
    if (a0.kind == b0.kind && (a0.kind == AttrKind::kBool || a0.kind == AttrKind::kDType)) {
      if (ordered) throw Unsupported("'" + fn + "' on " + std::string(kind_name(a0.kind)) + " values");
      k = a0.kind;
    } else {
      k = numeric_kind(a0, b0, fn);
    }
    AttrValue a = convert(s_, a0, k), b = convert(s_, b0, k);
    AttrValue each = zip(a, b, AttrKind::kBool, [&](const z3::expr& x, const z3::expr& y) -> z3::expr {
      if (k == AttrKind::kFloat) {
        if (fn == "=") return s_.values.compare("=", x, y);
        if (fn == "!=") return !s_.values.compare("=", x, y);
        if (fn == "<") return s_.values.compare("<", x, y);
        if (fn == "<=") return s_.values.compare("<=", x, y);
        if (fn == ">") return s_.values.compare("<", y, x);
        return s_.values.compare("<=", y, x);
      }
      if (fn == "=") return x == y;
      if (fn == "!=") return x != y;
      if (fn == "<") return x < y;
      if (fn == "<=") return x <= y;
      if (fn == ">") return x > y;
      return x >= y;
    });
    z3::expr all = ctx_.bool_val(true);
    for (const z3::expr& e : each.items) all = all && e;
    out.items.push_back(all);
    return out;
  }

  // (at L I) for a symbolic I: an ite over the positions.
  z3::expr select(const AttrValue& list, const z3::expr& index) {
    if (list.items.empty()) {
      defined_.push_back(ctx_.bool_val(false));
      return list.kind == AttrKind::kBool ? ctx_.bool_val(false) : ctx_.int_val(0);
    }
    if (auto i = IntArith::numeral(index)) {
      if (*i < 0 || *i >= static_cast<int64_t>(list.items.size())) {
        defined_.push_back(ctx_.bool_val(false));
        return list.items[0];
      }
      return list.items[static_cast<size_t>(*i)];
    }
    defined_.push_back(index >= 0 && index < static_cast<int>(list.items.size()));
    z3::expr out = list.items.back();
    for (size_t k = list.items.size() - 1; k-- > 0;)
      out = z3::ite(index == static_cast<int>(k), list.items[k], out);
    return out;
  }

  AttrValue as_list(const AttrValue& v) { return AttrValue{v.kind, true, v.items}; }

  const SymTensor& tensor(const Expr& var) {
    auto it = s_.tensors.find(var.name);
    if (it == s_.tensors.end()) throw Unsupported("tensor variable " + var.name + " has no value");
    return it->second;
  }

  const OpVarInfo& op_var(const Expr& var) {
    auto it = s_.op_vars.find(var.name);
    if (it == s_.op_vars.end()) throw Unsupported("op variable " + var.name + " is not known");
    return it->second;
  }

  AttrValue call(const Expr& e) {
    const std::string& fn = e.name;
    auto arg = [&](size_t i) { return eval(e.args[i]); };
    if (fn == "+" || fn == "*" || fn == "min" || fn == "max") {
      AttrValue acc = arg(0);
      for (size_t i = 1; i < e.args.size(); ++i) acc = arith2(fn, acc, arg(i));
      return acc;
    }
    if (fn == "-") {
      if (e.args.size() == 2) return arith2("-", arg(0), arg(1));
      AttrValue a = arg(0);
      if (a.kind == AttrKind::kFloat) return float_negate(a);
      return arith2("-", scalar(AttrKind::kInt, ctx_.int_val(0)), a);
    }
    if (fn == "floordiv" || fn == "mod") return arith2(fn, arg(0), arg(1));
    if (fn == "sign" || fn == "abs") {
      AttrValue a = arg(0);
      if (a.kind != AttrKind::kInt) throw Unsupported("'" + fn + "' on a non-integer");
      for (z3::expr& x : a.items)
        x = fn == "sign" ? z3::ite(x > 0, ctx_.int_val(1), z3::ite(x < 0, ctx_.int_val(-1), ctx_.int_val(0)))
                         : z3::ite(x >= 0, x, -x);
      return a;
    }
    if (fn == "=" || fn == "!=" || fn == "<" || fn == "<=" || fn == ">" || fn == ">=")
      return compare(fn, arg(0), arg(1));
    if (fn == "and" || fn == "or") {
      z3::expr acc = ctx_.bool_val(fn == "and");
      for (size_t i = 0; i < e.args.size(); ++i) {
        z3::expr b = one(arg(i), AttrKind::kBool, fn.c_str());
        acc = fn == "and" ? acc && b : acc || b;
      }
      return scalar(AttrKind::kBool, acc);
    }
    if (fn == "not") return scalar(AttrKind::kBool, !one(arg(0), AttrKind::kBool, "not"));
    if (fn == "list") return list_of(e.args);
    if (fn == "at") {
      AttrValue l = arg(0);
      return scalar(l.kind, select(as_list(l), one(arg(1), AttrKind::kInt, "at")));
    }
    if (fn == "set") {
      AttrValue l = as_list(arg(0));
      z3::expr i = one(arg(1), AttrKind::kInt, "set");
      AttrValue v = arg(2);
      if (v.is_list) throw Unsupported("(set L I V) with a list V");
      AttrKind k = l.items.empty() ? v.kind : l.kind;
      if (k == AttrKind::kInt && v.kind == AttrKind::kFloat) k = AttrKind::kFloat;
      l = convert(s_, l, k);
      z3::expr value = convert(s_, v, k).items[0];
      select(l, i);  // records that I must be in range
      for (size_t p = 0; p < l.items.size(); ++p)
        l.items[p] = z3::ite(i == static_cast<int>(p), value, l.items[p]);
      return l;
    }
    if (fn == "len") {
      AttrValue l = arg(0);
      if (!l.is_list) throw Unsupported("(len X) of a scalar");
      return scalar(AttrKind::kInt, ctx_.int_val(static_cast<int64_t>(l.items.size())));
    }
    if (fn == "fill" || fn == "range") {
      int64_t n = concrete(arg(0), fn == "fill" ? "the count of (fill N V)" : "the count of (range N)");
      AttrValue out{AttrKind::kInt, true, {}};
      if (n < 0) {
        defined_.push_back(ctx_.bool_val(false));
        return out;
      }
      if (n > kMaxListLength) throw Unsupported("a list of " + std::to_string(n) + " entries");
      AttrValue v = fn == "fill" ? arg(1) : scalar(AttrKind::kInt, ctx_.int_val(0));
      if (v.is_list) throw Unsupported("(fill N V) with a list V");
      out.kind = v.kind;
      for (int64_t i = 0; i < n; ++i) out.items.push_back(fn == "fill" ? v.items[0] : ctx_.int_val(i));
      return out;
    }
    if (fn == "take" || fn == "drop") {
      AttrValue l = as_list(arg(0));
      int64_t n = concrete(arg(1), "the count of (take L N) / (drop L N)");
      if (n < 0 || n > static_cast<int64_t>(l.items.size())) {
        defined_.push_back(ctx_.bool_val(false));
        return AttrValue{l.kind, true, {}};
      }
      auto mid = l.items.begin() + n;
      return AttrValue{l.kind, true,
                       fn == "take" ? std::vector<z3::expr>(l.items.begin(), mid)
                                    : std::vector<z3::expr>(mid, l.items.end())};
    }
    if (fn == "append") {
      AttrValue a = as_list(arg(0)), b = as_list(arg(1));
      AttrKind k = a.items.empty() ? b.kind : b.items.empty() ? a.kind : a.kind;
      if (!a.items.empty() && !b.items.empty() && a.kind != b.kind) k = numeric_kind(a, b, "append");
      a = convert(s_, a, k);
      b = convert(s_, b, k);
      a.items.insert(a.items.end(), b.items.begin(), b.items.end());
      return a;
    }
    if (fn == "product") {
      AttrValue l = as_list(arg(0));
      if (l.kind != AttrKind::kInt) throw Unsupported("(product L) of non-integers");
      return scalar(AttrKind::kInt, s_.arith.product(l.items));
    }
    if (fn == "sum-of-copies") {
      // The reference's sum of n copies of an element (ValueDomain::copies);
      // the dtype decides only where the rule engine has a value.
      const z3::expr v = one(convert(s_, arg(0), AttrKind::kFloat), AttrKind::kFloat, "sum-of-copies");
      const z3::expr n = one(arg(1), AttrKind::kInt, "sum-of-copies");
      one(arg(2), AttrKind::kDType, "sum-of-copies");
      return scalar(AttrKind::kFloat, s_.values.copies(v, n));
    }
    if (fn == "compose-perm") {
      AttrValue p = as_list(arg(0)), q = as_list(arg(1));
      AttrValue out{AttrKind::kInt, true, {}};
      for (const z3::expr& qk : q.items) out.items.push_back(select(p, qk));
      return out;
    }
    if (fn == "reduce-shape") {
      // Axes are structural (enumerated): concrete here, as keepdims.
      AttrValue shape = as_list(arg(0)), axes = as_list(arg(1));
      AttrValue keep = arg(2);
      if (keep.is_list || keep.kind != AttrKind::kBool) throw Unsupported("(reduce-shape L AXES K) with a non-bool K");
      const z3::expr kept = keep.items[0].simplify();
      if (!kept.is_true() && !kept.is_false()) throw Unsupported("(reduce-shape L AXES K) with a symbolic K");
      std::vector<bool> reduced(shape.items.size(), false);
      for (const z3::expr& axis : axes.items) {
        int64_t a = concrete(scalar(AttrKind::kInt, axis), "an axis of (reduce-shape L AXES K)");
        if (a < 0 || a >= static_cast<int64_t>(reduced.size()) || reduced[static_cast<size_t>(a)]) {
          defined_.push_back(ctx_.bool_val(false));
          return AttrValue{AttrKind::kInt, true, {}};
        }
        reduced[static_cast<size_t>(a)] = true;
      }
      AttrValue out{AttrKind::kInt, true, {}};
      for (size_t k = 0; k < reduced.size(); ++k)
        if (!reduced[k]) out.items.push_back(shape.items[k]);
        else if (kept.is_true()) out.items.push_back(ctx_.int_val(1));
      return out;
    }
    if (fn == "inverse-perm") {
      AttrValue p = as_list(arg(0));
      int n = static_cast<int>(p.items.size());
      AttrValue out{AttrKind::kInt, true, {}};
      for (int m = 0; m < n; ++m) {
        z3::expr inv = ctx_.int_val(0), hit = ctx_.bool_val(false);
        for (int k = n - 1; k >= 0; --k) {
          inv = z3::ite(p.items[k] == m, ctx_.int_val(k), inv);
          hit = hit || p.items[k] == m;
        }
        defined_.push_back(hit);  // every position is hit once: P is a permutation
        out.items.push_back(inv);
      }
      return out;
    }
    if (fn == "shape") return AttrValue{AttrKind::kInt, true, tensor(e.args[0]).shape};
    if (fn == "rank")
      return scalar(AttrKind::kInt, ctx_.int_val(static_cast<int64_t>(tensor(e.args[0]).shape.size())));
    if (fn == "dim") {
      AttrValue shape{AttrKind::kInt, true, tensor(e.args[0]).shape};
      return scalar(AttrKind::kInt, select(shape, one(arg(1), AttrKind::kInt, "dim")));
    }
    if (fn == "dtype") return scalar(AttrKind::kDType, tensor(e.args[0]).dtype);
    if (fn == "const") {
      tensor(e.args[0]);
      if (!s_.const_tensors.count(e.args[0].name))
        throw Unsupported("(const " + e.args[0].name + ") of a tensor that is not a left-side variable");
      return scalar(AttrKind::kFloat, const_value(s_, e.args[0].name));
    }
    if (fn == "elementwise" || fn == "unary" || fn == "binary") {
      const OpVarInfo& f = op_var(e.args[0]);
      bool holds = fn == "elementwise" || (fn == "unary" ? f.arity == 1 : f.arity == 2);
      return scalar(AttrKind::kBool, ctx_.bool_val(holds));
    }
    if (fn == "is-op") {
      const OpVarInfo& f = op_var(e.args[0]);
      ir::Op named = *ir::parse_op(e.args[1].name);
      if (f.op) return scalar(AttrKind::kBool, ctx_.bool_val(*f.op == named));
      // Which op an uninterpreted op variable is stays open.
      return scalar(AttrKind::kBool, op_var_is(ctx_, e.args[0].name, named));
    }
    if (fn == "apply") {
      const OpVarInfo& f = op_var(e.args[0]);
      std::vector<z3::expr> xs;
      for (size_t i = 1; i < e.args.size(); ++i) {
        AttrValue v = arg(i);
        if (v.is_list) throw Unsupported("(apply ?f ...) of a list");
        xs.push_back(convert(s_, v, AttrKind::kFloat).items[0]);
      }
      if (xs.size() != f.arity || f.dtypes.size() != f.arity) {
        defined_.push_back(ctx_.bool_val(false));
        return scalar(AttrKind::kFloat, s_.values.literal(0.0));
      }
      // The op on elements of its operands' dtypes, as where the left side matched it.
      for (size_t k = 0; k < xs.size(); ++k) xs[k] = s_.values.element(f.dtypes[k], xs[k]);
      // The result is an element already (of the op's result dtype).
      AttrValue out = scalar(AttrKind::kFloat, s_.values.literal(0.0));
      out.element = true;
      if (!f.op) {
        out.items[0] = s_.values.apply_var(e.args[0].name, f.dtypes, xs);
        return out;
      }
      if (*f.op == ir::Op::Cast) throw Unsupported("(apply ?f ...) of cast");
      z3::expr in = *f.op == ir::Op::Where ? f.dtypes[1] : f.dtypes[0];
      out.items[0] = s_.values.apply(*f.op, in, xs);
      return out;
    }
    throw Unsupported("function '" + fn + "'");
  }

  AttrValue float_negate(AttrValue a) {
    for (z3::expr& x : a.items) x = s_.values.negate(x);
    return a;
  }

  EncodingState& s_;
  z3::context& ctx_;
  z3::expr_vector& defined_;
};

}  // namespace

AttrValue convert(EncodingState& s, const AttrValue& v, AttrKind kind) {
  if (v.kind == kind) return v;
  // Bools count as 0 and 1 where numbers are expected, as in the rule engine.
  if (v.kind == AttrKind::kBool && (kind == AttrKind::kInt || kind == AttrKind::kFloat)) {
    AttrValue out{kind, v.is_list, {}};
    for (const z3::expr& x : v.items)
      out.items.push_back(kind == AttrKind::kInt ? z3::ite(x, s.ctx.int_val(1), s.ctx.int_val(0))
                                                 : z3::ite(x, s.values.literal(1), s.values.literal(0.0)));
    return out;
  }
  if (v.kind == AttrKind::kInt && kind == AttrKind::kFloat) {
    AttrValue out{kind, v.is_list, {}};
    for (const z3::expr& x : v.items) out.items.push_back(s.values.from_int(x));
    return out;
  }
  throw Unsupported("a " + std::string(kind_name(v.kind)) + " value where a " +
                    std::string(kind_name(kind)) + " is expected");
}

z3::expr values_equal(EncodingState& s, const AttrValue& a, const AttrValue& b) {
  if (a.is_list && b.is_list && a.items.size() != b.items.size()) return s.ctx.bool_val(false);
  AttrKind k = a.kind;
  if (a.kind != b.kind) k = AttrKind::kFloat;
  AttrValue x = convert(s, a, k), y = convert(s, b, k);
  z3::expr all = s.ctx.bool_val(true);
  size_t n = x.is_list ? x.items.size() : y.is_list ? y.items.size() : 1;
  for (size_t i = 0; i < n; ++i) {
    const z3::expr& p = x.items[x.is_list ? i : 0];
    const z3::expr& q = y.items[y.is_list ? i : 0];
    // Attribute values compare as doubles (IEEE) when they are floats.
    all = all && (k == AttrKind::kFloat ? s.values.compare("=", p, q) : p == q);
  }
  return all;
}

z3::expr const_value(EncodingState& s, const std::string& tensor_var) {
  return s.ctx.constant(("const " + tensor_var).c_str(), s.values.sort());
}

AttrValue eval_expr(EncodingState& s, const rules::Expr& e, z3::expr_vector& defined) {
  return Evaluator(s, defined).eval(e);
}

}  // namespace smelt::verify
