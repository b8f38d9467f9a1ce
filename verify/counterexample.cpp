#include "verify/counterexample.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "verify/z3_expr.h"
#include "verify/int_arith.h"

namespace smelt::verify {

std::string dtype_text(int64_t code) {
  if (code < 0 || code > static_cast<int64_t>(ir::DType::Bool)) return std::to_string(code);
  return std::string(ir::dtype_name(static_cast<ir::DType>(code)));
}

namespace {

std::string infix(Z3_decl_kind k) {
  switch (k) {
    case Z3_OP_ADD: return " + ";
    case Z3_OP_SUB: return " - ";
    case Z3_OP_MUL: return " * ";
    case Z3_OP_DIV: return " / ";
    case Z3_OP_IDIV: return " div ";
    case Z3_OP_MOD: return " mod ";
    case Z3_OP_LT: return " < ";
    case Z3_OP_LE: return " <= ";
    case Z3_OP_GT: return " > ";
    case Z3_OP_GE: return " >= ";
    case Z3_OP_EQ: return " == ";
    case Z3_OP_AND: return " and ";
    case Z3_OP_OR: return " or ";
    default: return "";
  }
}

std::string pretty(const z3::expr& e, int depth) {
  if (e.is_numeral()) return e.get_decimal_string(6);
  if (e.is_var()) return "k" + std::to_string(Z3_get_index_value(e.ctx(), e));
  if (e.is_lambda()) {
    unsigned n = Z3_get_quantifier_num_bound(e.ctx(), e);
    std::string vars;
    for (unsigned i = 0; i < n; ++i) vars += (i ? "," : "") + std::string("k") + std::to_string(n - 1 - i);
    return "(" + vars + " -> " + pretty(e.body(), depth + 1) + ")";
  }
  if (!e.is_app()) return e.to_string();
  z3::func_decl d = e.decl();
  std::vector<std::string> args;
  for (unsigned i = 0; i < e.num_args(); ++i) args.push_back(pretty(e.arg(i), depth));
  auto join = [&](const std::string& sep) {
    std::string out;
    for (size_t i = 0; i < args.size(); ++i) out += (i ? sep : "") + args[i];
    return out;
  };
  Z3_decl_kind k = d.decl_kind();
  if (k == Z3_OP_TRUE) return "true";
  if (k == Z3_OP_FALSE) return "false";
  if (k == Z3_OP_NOT) return "not " + args[0];
  if (k == Z3_OP_UMINUS) return "-" + args[0];
  if (k == Z3_OP_TO_REAL) return args[0];
  if (k == Z3_OP_ITE) return "(if " + args[0] + " then " + args[1] + " else " + args[2] + ")";
  if (!infix(k).empty()) return "(" + join(infix(k)) + ")";
  std::string name = d.name().str();
  if (name.rfind("lit ", 0) == 0) return name.substr(4);  // a literal constant
  if (args.empty()) return name;
  if (!name.empty() && name[0] == '?') {
    // A tensor variable's element "?x[0,2]", or an op variable on (dtypes,
    // values): "?f:f32(?x[0])".
    size_t dtypes = 0;
    while (dtypes < args.size() && e.arg(static_cast<unsigned>(dtypes)).is_int()) ++dtypes;
    if (dtypes == args.size()) return name + "[" + join(",") + "]";
    std::string types;
    for (size_t i = 0; i < dtypes; ++i) {
      int64_t code = 0;
      types += (i ? "," : "") + (e.arg(static_cast<unsigned>(i)).is_numeral_i64(code) ? dtype_text(code) : args[i]);
    }
    args.erase(args.begin(), args.begin() + static_cast<long>(dtypes));
    return name + ":" + types + "(" + join(", ") + ")";
  }
  // Elementwise ops take the dtype they compute in first: "add:f32(a, b)".
  int64_t code = 0;
  if (ir::parse_op(name) && e.arg(0).is_numeral_i64(code)) {
    args.erase(args.begin());
    return name + ":" + dtype_text(code) + "(" + join(", ") + ")";
  }
  return name + "(" + join(", ") + ")";
}

// "?x.shape[1]" -> ("?x.shape", "1"); names without an index -> (name, "").
std::pair<std::string, std::string> split_index(const std::string& name) {
  if (name.empty() || name.back() != ']') return {name, ""};
  size_t open = name.rfind('[');
  if (open == std::string::npos) return {name, ""};
  return {name.substr(0, open), name.substr(open + 1, name.size() - open - 2)};
}

}  // namespace

std::string pretty_value(const z3::expr& e) { return pretty(e, 0); }

std::string describe_model(EncodingState& s, const z3::model& m,
                           const std::optional<ValueMismatch>& mismatch) {
  std::ostringstream out;
  auto int_value = [&](const z3::expr& e) {
    z3::expr v = m.eval(e, true);
    int64_t n = 0;
    return v.is_numeral_i64(n) ? std::to_string(n) : v.to_string();
  };
  // A float value: a number in the reals; in the IEEE model the literal it
  // is, where exactly one literal has its value (otherwise it is unnamed).
  auto float_value = [&](const z3::expr& e) {
    z3::expr v = m.eval(e, true);
    if (s.values.real()) return pretty_value(v);
    std::string named;
    for (const auto& [d, lit] : s.values.literals())
      if (z3::eq(m.eval(lit, true), v)) {
        if (!named.empty()) return std::string("an unnamed value");
        named = pretty_value(lit);
      }
    return named.empty() ? std::string("an unnamed value") : named;
  };

  std::string choices;
  for (const auto& [group, values] : s.params.current_case()) {
    if (group.rfind("len ", 0) == 0) continue;
    std::string text;
    for (int64_t v : values) text += (text.empty() ? "" : " ") + std::to_string(v);
    choices += (choices.empty() ? "" : ", ") + group + " = " + (values.size() == 1 ? text : "[" + text + "]");
  }
  if (!choices.empty()) out << "  case: " << choices << "\n";

  for (const auto& [name, t] : s.tensors) {
    bool is_let = std::any_of(s.rule.lets.begin(), s.rule.lets.end(), [&](const auto& l) { return l.first == name; });
    if (is_let) continue;
    std::string shape;
    for (const z3::expr& n : t.shape) shape += (shape.empty() ? "" : ",") + int_value(n);
    out << "  " << name << ": " << dtype_text(std::stoll(int_value(t.dtype))) << "[" << shape << "]";
    if (s.const_tensors.count(name)) out << ", every element " << float_value(const_value(s, name));
    out << "\n";
  }

  // Attribute values, one line per variable (hidden ones are named op@line:col.key).
  struct Printed {
    bool list = false;
    std::vector<std::string> items;
  };
  std::map<std::string, Printed> attrs;
  for (const auto& [name, x] : s.params.symbols()) {
    auto [base, index] = split_index(name);
    bool tensor_shape = base.size() > 6 && base.substr(base.size() - 6) == ".shape" &&
                        s.tensors.count(base.substr(0, base.size() - 6));
    bool tensor_dtype = name.size() > 6 && name.substr(name.size() - 6) == ".dtype";
    if (tensor_shape || tensor_dtype) continue;
    Printed& p = attrs[base];
    p.list = !index.empty();
    p.items.push_back(s.params.kind_of(name) == ParamKind::kDType ? dtype_text(std::stoll(int_value(x)))
                                                                   : int_value(x));
  }
  for (const auto& [name, v] : s.attrs)
    if (!v.is_list && v.kind == AttrKind::kFloat) attrs[name].items = {float_value(v.items[0])};
  for (const auto& [name, p] : attrs) {
    std::string text;
    for (const std::string& i : p.items) text += (text.empty() ? "" : ", ") + i;
    out << "  " << name << " = " << (p.list ? "[" + text + "]" : text) << "\n";
  }

  if (mismatch) {
    std::string index;
    z3::expr_vector from(s.ctx), to(s.ctx);
    for (const z3::expr& i : mismatch->index) index += (index.empty() ? "" : ",") + int_value(i);
    out << "  at index [" << index << "]\n";
    // Fill in every integer (extents, attributes, the index) and simplify, so
    // that the element expressions read like the rule.
    auto fill_in = [&](const z3::expr& e) {
      z3::expr_vector f(s.ctx), t(s.ctx);
      for (const z3::expr& c : free_int_constants(e)) {
        f.push_back(c);
        t.push_back(m.eval(c, true));
      }
      z3::expr copy = e;
      return pretty_value(copy.substitute(f, t).simplify());
    };
    auto value = [&](const z3::expr& e) { return s.values.real() ? "  = " + float_value(e) : std::string(); };
    out << "  left:  " << fill_in(mismatch->lhs) << value(mismatch->lhs) << "\n";
    out << "  right: " << fill_in(mismatch->rhs) << value(mismatch->rhs) << "\n";
  }
  return out.str();
}

}  // namespace smelt::verify
