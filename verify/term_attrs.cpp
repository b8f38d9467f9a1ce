#include "verify/term_attrs.h"

#include "verify/z3_expr.h"

namespace smelt::verify {

std::string pos_text(const rules::SourcePos& p) {
  return std::to_string(p.line) + ":" + std::to_string(p.col);
}

std::string TermAttrs::where() const {
  std::string head = t_.kind == rules::Term::Kind::kOp ? std::string(ir::op_name(t_.op)) : t_.op_var;
  return head + " at " + pos_text(t_.pos);
}

const rules::Expr* TermAttrs::given(const std::string& key) const {
  for (const auto& [k, v] : t_.attrs)
    if (k == key) return &v;
  return nullptr;
}

namespace {

bool mentions_variable(const rules::Expr& e) {
  if (e.kind == rules::Expr::Kind::kVar) return true;
  for (const rules::Expr& a : e.args)
    if (mentions_variable(a)) return true;
  return false;
}

}  // namespace

std::optional<AttrValue> TermAttrs::lhs_literal(const std::string& key, AttrKind kind) {
  const rules::Expr* e = given(key);
  if (!e || mentions_variable(*e)) return std::nullopt;
  z3::expr_vector defined(s_.ctx);
  AttrValue v = convert(s_, eval_expr(s_, *e, defined), kind);
  for (const z3::expr& d : defined)
    if (!d.simplify().is_true()) throw Vacuous{};  // an undefined literal never matches
  return v;
}

std::string TermAttrs::site(const std::string& key) const {
  const rules::Expr* e = given(key);
  if (e && e->kind == rules::Expr::Kind::kVar) return e->name;
  return std::string(ir::op_name(t_.op)) + "@" + pos_text(t_.pos) + "." + key;
}

AttrValue TermAttrs::hidden(const std::string& key, AttrValue value) {
  const rules::Expr* e = given(key);
  if (e && e->kind == rules::Expr::Kind::kVar) s_.attrs.emplace(e->name, value);
  else if (e) s_.pending.emplace_back(value, e);
  return value;
}

AttrValue TermAttrs::make_list(const std::string& name, ParamKind kind, size_t length) {
  AttrValue v{AttrKind::kInt, true, {}};
  for (size_t i = 0; i < length; ++i)
    v.items.push_back(s_.params.get(name + "[" + std::to_string(i) + "]", kind, name, i));
  return v;
}

AttrValue TermAttrs::chosen_list(const std::string& name,
                                 const std::vector<std::vector<int64_t>>& options) {
  AttrValue v{AttrKind::kInt, true, {}};
  for (int64_t x : s_.params.choose(name, options)) v.items.push_back(s_.ctx.int_val(x));
  return v;
}

AttrValue TermAttrs::rhs_value(const std::string& key, AttrKind kind) {
  const rules::Expr* e = given(key);
  if (!e) throw Unsupported(where() + " has no :" + key);
  z3::expr_vector defined(s_.ctx);
  AttrValue v = convert(s_, eval_expr(s_, *e, defined), kind);
  for (const z3::expr& d : defined) s_.require(side_, d, where() + ": :" + key + " is defined");
  return v;
}

AttrValue TermAttrs::list(const std::string& key, ParamKind kind, size_t length) {
  std::string what = where() + ": :" + key + " has one entry per axis (" + std::to_string(length) + ")";
  if (side_ == Side::kRhs) {
    if (!given(key) && key == "step") {
      AttrValue ones{AttrKind::kInt, true, std::vector<z3::expr>(length, s_.ctx.int_val(1))};
      return ones;
    }
    AttrValue v = rhs_value(key, AttrKind::kInt);
    if (!v.is_list) v = AttrValue{v.kind, true, std::vector<z3::expr>(length, v.items[0])};
    s_.require_static(side_, v.items.size() == length, what);
    return v;
  }
  if (auto lit = lhs_literal(key, AttrKind::kInt)) {
    if (!lit->is_list) return AttrValue{lit->kind, true, std::vector<z3::expr>(length, lit->items[0])};
    s_.require_static(side_, lit->items.size() == length, what);
    return *lit;
  }
  std::string name = site(key);
  if (auto it = s_.attrs.find(name); it != s_.attrs.end()) {
    s_.require_static(side_, it->second.is_list && it->second.items.size() == length, what);
    return it->second;
  }
  return hidden(key, make_list(name, kind, length));
}

AttrValue TermAttrs::free_list(const std::string& key, ParamKind kind, int min_length, int max_length) {
  if (side_ == Side::kRhs) {
    AttrValue v = rhs_value(key, AttrKind::kInt);
    s_.require_static(side_, v.is_list, where() + ": :" + key + " is a list");
    return v;
  }
  if (auto lit = lhs_literal(key, AttrKind::kInt)) {
    int n = static_cast<int>(lit->items.size());
    s_.require_static(side_, lit->is_list && n >= min_length && n <= max_length, where());
    return *lit;
  }
  std::string name = site(key);
  if (auto it = s_.attrs.find(name); it != s_.attrs.end()) {
    int n = static_cast<int>(it->second.items.size());
    s_.require_static(side_, it->second.is_list && n >= min_length && n <= max_length, where());
    return it->second;
  }
  std::vector<std::vector<int64_t>> lengths;
  for (int n = min_length; n <= max_length; ++n) lengths.push_back({n});
  size_t length = static_cast<size_t>(s_.params.choose("len " + name, lengths)[0]);
  return hidden(key, make_list(name, kind, length));
}

z3::expr TermAttrs::scalar(const std::string& key, AttrKind kind) {
  if (side_ == Side::kRhs) {
    if (!given(key) && key == "value") return s_.values.literal(0.0);
    AttrValue v = rhs_value(key, kind);
    s_.require_static(side_, !v.is_list, where() + ": :" + key + " is a scalar");
    return v.items[0];
  }
  if (auto lit = lhs_literal(key, kind)) {
    s_.require_static(side_, !lit->is_list, where());
    return lit->items[0];
  }
  std::string name = site(key);
  if (auto it = s_.attrs.find(name); it != s_.attrs.end()) {
    if (it->second.is_list || it->second.kind != kind)
      throw Unsupported(name + " is bound to attributes of different kinds");
    return it->second.items[0];
  }
  AttrValue v{kind, false, {}};
  if (kind == AttrKind::kFloat) v.items.push_back(s_.ctx.constant(name.c_str(), s_.values.sort()));
  else v.items.push_back(s_.params.get(name, kind == AttrKind::kDType ? ParamKind::kDType : ParamKind::kInt));
  return hidden(key, v).items[0];
}

z3::expr TermAttrs::element(const std::string& key, const z3::expr& dtype) {
  if (side_ == Side::kRhs && given(key)) {
    AttrValue v = rhs_value(key, AttrKind::kFloat);
    s_.require_static(side_, !v.is_list, where() + ": :" + key + " is a scalar");
    return v.element ? v.items[0] : s_.values.element(dtype, v.items[0]);
  }
  return s_.values.element(dtype, scalar(key, AttrKind::kFloat));
}

int64_t TermAttrs::structural_int(const std::string& key, int64_t lo, int64_t hi) {
  if (side_ == Side::kRhs) {
    AttrValue v = rhs_value(key, AttrKind::kInt);
    auto n = v.is_list ? std::nullopt : IntArith::numeral(v.items[0]);
    if (!n) throw Unsupported(where() + ": :" + key + " must follow from the left side's structure");
    s_.require_static(side_, *n >= lo && *n <= hi, where() + ": :" + key + " in range");
    return *n;
  }
  if (auto lit = lhs_literal(key, AttrKind::kInt)) {
    auto n = lit->is_list ? std::nullopt : IntArith::numeral(lit->items[0]);
    if (!n || *n < lo || *n > hi) throw Vacuous{};  // never matches
    return *n;
  }
  std::string name = site(key);
  if (auto it = s_.attrs.find(name); it != s_.attrs.end()) {
    auto n = it->second.is_list ? std::nullopt : IntArith::numeral(it->second.items[0]);
    if (!n) throw Unsupported(name + " is used both as an axis and as a symbolic value");
    s_.require_static(side_, *n >= lo && *n <= hi, where());
    return *n;
  }
  std::vector<std::vector<int64_t>> options;
  for (int64_t v = lo; v <= hi; ++v) options.push_back({v});
  AttrValue v = chosen_list(name, options);
  v.is_list = false;
  return *IntArith::numeral(hidden(key, v).items[0]);
}

std::vector<int64_t> TermAttrs::structural_list(const std::string& key,
                                                const std::vector<std::vector<int64_t>>& options) {
  auto numerals = [&](const AttrValue& v) {
    std::vector<int64_t> out;
    for (const z3::expr& x : v.items) {
      auto n = IntArith::numeral(x);
      if (!n) throw Unsupported(where() + ": :" + key + " must follow from the left side's structure");
      out.push_back(*n);
    }
    return out;
  };
  if (side_ == Side::kRhs) {
    AttrValue v = rhs_value(key, AttrKind::kInt);
    s_.require_static(side_, v.is_list, where() + ": :" + key + " is a list");
    return numerals(v);
  }
  std::optional<AttrValue> existing = lhs_literal(key, AttrKind::kInt);
  std::string name = site(key);
  if (auto it = s_.attrs.find(name); !existing && it != s_.attrs.end()) existing = it->second;
  if (existing) {
    std::vector<int64_t> v = numerals(*existing);
    bool valid = false;
    for (const auto& o : options) valid = valid || o == v;
    s_.require_static(side_, valid, where());
    return v;
  }
  return numerals(hidden(key, chosen_list(name, options)));
}

bool TermAttrs::structural_bool(const std::string& key, bool default_value) {
  if (side_ == Side::kRhs) {
    if (!given(key)) return default_value;
    AttrValue v = rhs_value(key, AttrKind::kBool);
    z3::expr b = v.items.at(0).simplify();
    if (!b.is_true() && !b.is_false())
      throw Unsupported(where() + ": :" + key + " must follow from the left side's structure");
    return b.is_true();
  }
  std::optional<AttrValue> existing = lhs_literal(key, AttrKind::kBool);
  std::string name = site(key);
  if (auto it = s_.attrs.find(name); !existing && it != s_.attrs.end()) existing = it->second;
  if (existing) {
    z3::expr b = existing->items.at(0).simplify();
    if (existing->kind != AttrKind::kBool || (!b.is_true() && !b.is_false()))
      throw Unsupported(name + " is bound to attributes of different kinds");
    return b.is_true();
  }
  bool chosen = s_.params.choose(name, {{0}, {1}})[0] != 0;
  AttrValue v{AttrKind::kBool, false, {s_.ctx.bool_val(chosen)}};
  hidden(key, v);
  return chosen;
}

}  // namespace smelt::verify
