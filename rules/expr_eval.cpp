#include "rules/expr_eval.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "rules/scalar_eval.h"

namespace smelt::rules {

VarIndex::Slot VarIndex::declare(const std::string& name, Kind kind) {
  auto it = slots.find(name);
  if (it != slots.end()) {
    if (it->second.kind != kind) throw std::logic_error(name + " is used as two kinds of variable");
    return it->second;
  }
  int& counter = kind == Kind::kTensor ? tensors : kind == Kind::kOp ? ops : attrs;
  Slot slot{kind, counter++};
  slots.emplace(name, slot);
  return slot;
}

std::optional<VarIndex::Slot> VarIndex::find(const std::string& name) const {
  auto it = slots.find(name);
  if (it == slots.end()) return std::nullopt;
  return it->second;
}

namespace {

bool takes_tensor(Fn fn) { return fn >= Fn::kShape && fn <= Fn::kConst; }
bool takes_op(Fn fn) { return fn >= Fn::kElementwise && fn <= Fn::kApply; }

// Lists longer than this are not attribute values of any real graph.
constexpr int64_t kMaxListLength = int64_t{1} << 20;

int slot_of(const Expr& e, const VarIndex& vars, VarIndex::Kind kind, const std::string& fn) {
  auto slot = e.kind == Expr::Kind::kVar ? vars.find(e.name) : std::nullopt;
  if (!slot || slot->kind != kind)
    throw std::logic_error("(" + fn + " ...) expects " +
                           (kind == VarIndex::Kind::kTensor ? "a tensor variable" : "an op variable") +
                           (e.name.empty() ? std::string() : ", got " + e.name));
  return slot->index;
}

// ---- arithmetic ----------------------------------------------------------

bool int_like(const Value& v) { return v.kind == Value::Kind::kInt || v.kind == Value::Kind::kBool; }

// Applies a scalar function elementwise, broadcasting a scalar against a list.
template <class F>
Value lift(const Value& a, const Value& b, F&& scalar) {
  if (!a.is_list() && !b.is_list()) return scalar(a, b);
  if (a.is_list() && b.is_list() && a.items.size() != b.items.size()) throw Undefined{};
  const size_t n = a.is_list() ? a.items.size() : b.items.size();
  std::vector<Value> out;
  out.reserve(n);
  for (size_t k = 0; k < n; ++k)
    out.push_back(lift(a.is_list() ? a.items[k] : a, b.is_list() ? b.items[k] : b, scalar));
  return Value::list(std::move(out));
}

template <class F>
Value lift1(const Value& a, F&& scalar) {
  if (!a.is_list()) return scalar(a);
  std::vector<Value> out;
  out.reserve(a.items.size());
  for (const Value& item : a.items) out.push_back(lift1(item, scalar));
  return Value::list(std::move(out));
}

Value arith(Fn fn, const Value& a, const Value& b) {
  return lift(a, b, [fn](const Value& x, const Value& y) {
    if (int_like(x) && int_like(y)) {
      const int64_t p = as_int(x), q = as_int(y);
      int64_t r = 0;
      bool overflow = false;
      switch (fn) {
        case Fn::kAdd:
          overflow = __builtin_add_overflow(p, q, &r);
          break;
        case Fn::kSub:
          overflow = __builtin_sub_overflow(p, q, &r);
          break;
        case Fn::kMul:
          overflow = __builtin_mul_overflow(p, q, &r);
          break;
        case Fn::kMin:
          r = std::min(p, q);
          break;
        case Fn::kMax:
          r = std::max(p, q);
          break;
        case Fn::kFloorDiv:
        case Fn::kMod: {
          if (q == 0 || (p == std::numeric_limits<int64_t>::min() && q == -1)) throw Undefined{};
          int64_t quotient = p / q;
          if ((p % q != 0) && ((p < 0) != (q < 0))) --quotient;  // round toward -inf
          r = fn == Fn::kFloorDiv ? quotient : p - quotient * q;
          break;
        }
        default:
          throw std::logic_error("arith: not an arithmetic function");
      }
      if (overflow) throw Undefined{};
      return Value::integer(r);
    }
    if (fn == Fn::kFloorDiv || fn == Fn::kMod)
      throw ExprTypeError("floordiv and mod take integers, got " + to_string(x) + " and " + to_string(y));
    const double p = as_double(x), q = as_double(y);
    switch (fn) {
      case Fn::kAdd:
        return Value::real(p + q);
      case Fn::kSub:
        return Value::real(p - q);
      case Fn::kMul:
        return Value::real(p * q);
      case Fn::kMin:
        return Value::real(std::isnan(p) || std::isnan(q) ? NAN : std::min(p, q));
      case Fn::kMax:
        return Value::real(std::isnan(p) || std::isnan(q) ? NAN : std::max(p, q));
      default:
        throw std::logic_error("arith: not an arithmetic function");
    }
  });
}

Value fold(Fn fn, const std::vector<Value>& values) {
  Value acc = values.at(0);
  for (size_t k = 1; k < values.size(); ++k) acc = arith(fn, acc, values[k]);
  return acc;
}

// A comparison, true when it holds for every element (lists broadcast); false
// for lists of different lengths.
bool compare(Fn fn, const Value& a, const Value& b) {
  if (a.is_list() && b.is_list() && a.items.size() != b.items.size()) return false;
  const Value all = lift(a, b, [fn](const Value& x, const Value& y) {
    if (fn == Fn::kEq) return Value::boolean(identical(x, y));
    if (fn == Fn::kNe) return Value::boolean(!identical(x, y));
    const double p = as_double(x), q = as_double(y);
    switch (fn) {
      case Fn::kLt:
        return Value::boolean(p < q);
      case Fn::kLe:
        return Value::boolean(p <= q);
      case Fn::kGt:
        return Value::boolean(p > q);
      case Fn::kGe:
        return Value::boolean(p >= q);
      default:
        throw std::logic_error("compare: not a comparison");
    }
  });
  if (!all.is_list()) return all.b;
  return std::all_of(all.items.begin(), all.items.end(), [](const Value& v) { return v.b; });
}

const std::vector<Value>& list_of(const Value& v) {
  if (!v.is_list()) throw ExprTypeError("expected a list, got " + kind_name(v.kind) + " " + to_string(v));
  return v.items;
}

size_t index_into(const Value& list, const Value& index) {
  const int64_t i = as_int(index);
  if (i < 0 || static_cast<size_t>(i) >= list_of(list).size()) throw Undefined{};
  return static_cast<size_t>(i);
}

size_t count_of(const Value& n, size_t most) {
  const int64_t k = as_int(n);
  if (k < 0 || static_cast<uint64_t>(k) > most) throw Undefined{};
  return static_cast<size_t>(k);
}

Value number_of(double v, ir::DType dtype) {
  if (ir::is_float(dtype)) return Value::real(v);
  if (dtype == ir::DType::Bool) return Value::boolean(v != 0);
  return Value::integer(static_cast<int64_t>(v));
}

}  // namespace

CExpr compile_expr(const Expr& e, const VarIndex& vars) {
  CExpr c;
  switch (e.kind) {
    case Expr::Kind::kInt:
      c.literal = Value::integer(e.int_value);
      return c;
    case Expr::Kind::kFloat:
      c.literal = Value::real(e.float_value);
      return c;
    case Expr::Kind::kBool:
      c.literal = Value::boolean(e.bool_value);
      return c;
    case Expr::Kind::kDType:
      c.literal = Value::of_dtype(e.dtype);
      return c;
    case Expr::Kind::kList:
      c.fn = Fn::kList;
      for (const Expr& a : e.args) c.args.push_back(compile_expr(a, vars));
      return c;
    case Expr::Kind::kVar: {
      auto slot = vars.find(e.name);
      if (!slot || slot->kind != VarIndex::Kind::kAttr)
        throw std::logic_error(e.name +
                               " is not an attribute variable (tensors are read with shape, dim, const, ...)");
      c.fn = Fn::kAttrVar;
      c.var = slot->index;
      return c;
    }
    case Expr::Kind::kSymbol:
      throw std::logic_error("op name " + e.name + " outside (is-op ...)");
    case Expr::Kind::kCall:
      break;
  }
  const ExprFunction* found = find_expr_function(e.name);
  if (!found) throw std::logic_error("unknown function " + e.name);
  c.fn = found->fn;
  size_t first_value = 0;
  if (takes_tensor(c.fn) || takes_op(c.fn)) {
    c.var = slot_of(e.args.at(0), vars, takes_tensor(c.fn) ? VarIndex::Kind::kTensor : VarIndex::Kind::kOp, e.name);
    first_value = 1;
  }
  if (c.fn == Fn::kIsOp) {
    auto op = ir::parse_op(e.args.at(1).name);
    if (!op) throw std::logic_error("(is-op ...) names an unknown op " + e.args.at(1).name);
    c.op = *op;
    return c;
  }
  for (size_t k = first_value; k < e.args.size(); ++k) c.args.push_back(compile_expr(e.args[k], vars));
  return c;
}

void collect_vars(const CExpr& e, std::vector<VarIndex::Slot>& out) {
  if (e.fn == Fn::kAttrVar) out.push_back({VarIndex::Kind::kAttr, e.var});
  if (takes_tensor(e.fn)) out.push_back({VarIndex::Kind::kTensor, e.var});
  if (takes_op(e.fn)) out.push_back({VarIndex::Kind::kOp, e.var});
  for (const CExpr& a : e.args) collect_vars(a, out);
}

Value eval(const CExpr& e, const ExprEnv& env) {
  auto arg = [&](size_t k) { return eval(e.args.at(k), env); };
  switch (e.fn) {
    case Fn::kLiteral:
      return e.literal;
    case Fn::kAttrVar:
      return env.attr_var(e.var);
    case Fn::kAdd:
    case Fn::kMul:
    case Fn::kMin:
    case Fn::kMax: {
      std::vector<Value> values;
      for (size_t k = 0; k < e.args.size(); ++k) values.push_back(arg(k));
      return fold(e.fn, values);
    }
    case Fn::kSub:
      if (e.args.size() == 1) return arith(Fn::kSub, Value::integer(0), arg(0));
      return arith(Fn::kSub, arg(0), arg(1));
    case Fn::kFloorDiv:
    case Fn::kMod:
      return arith(e.fn, arg(0), arg(1));
    case Fn::kSign:
      return lift1(arg(0), [](const Value& v) {
        if (int_like(v)) return Value::integer((as_int(v) > 0) - (as_int(v) < 0));
        const double x = as_double(v);
        if (std::isnan(x)) throw Undefined{};
        return Value::real((x > 0) - (x < 0));
      });
    case Fn::kAbs:
      return lift1(arg(0), [](const Value& v) {
        if (int_like(v)) {
          if (as_int(v) == std::numeric_limits<int64_t>::min()) throw Undefined{};
          return Value::integer(std::abs(as_int(v)));
        }
        return Value::real(std::fabs(as_double(v)));
      });
    case Fn::kEq:
    case Fn::kNe:
    case Fn::kLt:
    case Fn::kLe:
    case Fn::kGt:
    case Fn::kGe:
      return Value::boolean(compare(e.fn, arg(0), arg(1)));
    case Fn::kAnd:
      for (size_t k = 0; k < e.args.size(); ++k)
        if (!as_bool(arg(k))) return Value::boolean(false);
      return Value::boolean(true);
    case Fn::kOr:
      for (size_t k = 0; k < e.args.size(); ++k)
        if (as_bool(arg(k))) return Value::boolean(true);
      return Value::boolean(false);
    case Fn::kNot:
      return Value::boolean(!as_bool(arg(0)));
    case Fn::kList: {
      std::vector<Value> items;
      for (size_t k = 0; k < e.args.size(); ++k) items.push_back(arg(k));
      return Value::list(std::move(items));
    }
    case Fn::kAt: {
      const Value list = arg(0);
      return list_of(list)[index_into(list, arg(1))];
    }
    case Fn::kSet: {
      Value list = arg(0);
      const size_t i = index_into(list, arg(1));
      list.items[i] = arg(2);
      return list;
    }
    case Fn::kLen:
      return Value::integer(static_cast<int64_t>(list_of(arg(0)).size()));
    case Fn::kFill:
      return Value::list(std::vector<Value>(count_of(arg(0), kMaxListLength), arg(1)));
    case Fn::kRange: {
      std::vector<Value> items(count_of(arg(0), kMaxListLength));
      for (size_t k = 0; k < items.size(); ++k) items[k] = Value::integer(static_cast<int64_t>(k));
      return Value::list(std::move(items));
    }
    case Fn::kTake:
    case Fn::kDrop: {
      const Value list = arg(0);
      const std::vector<Value>& items = list_of(list);
      const size_t n = count_of(arg(1), items.size());
      return e.fn == Fn::kTake ? Value::list({items.begin(), items.begin() + static_cast<std::ptrdiff_t>(n)})
                               : Value::list({items.begin() + static_cast<std::ptrdiff_t>(n), items.end()});
    }
    case Fn::kAppend: {
      Value list = arg(0);
      const Value tail = arg(1);
      list_of(list);
      list.items.insert(list.items.end(), list_of(tail).begin(), list_of(tail).end());
      return list;
    }
    case Fn::kProduct: {
      int64_t r = 1;
      const Value list = arg(0);
      for (const Value& v : list_of(list))
        if (__builtin_mul_overflow(r, as_int(v), &r)) throw Undefined{};
      return Value::integer(r);
    }
    case Fn::kComposePerm: {
      // r[k] = P[Q[k]]: the perm of permute(permute(x, P), Q), and for a
      // shape P the shape of permute(x, Q).
      const Value p = arg(0), q = arg(1);
      std::vector<Value> items;
      for (const Value& index : list_of(q)) items.push_back(list_of(p)[index_into(p, index)]);
      return Value::list(std::move(items));
    }
    case Fn::kSumOfCopies: {
      // What the reference's reduce_sum gives for n copies of the element v
      // makes in dtype t: float sums accumulate in double from +0.0 and round
      // at the end (docs/ops.md), so while every partial sum k·v is a double
      // (n times v's odd integer mantissa below 2^53) the sum is n·v exactly.
      // Beyond that, and for integer dtypes, no value: the rule does not fire.
      const Value t = arg(2);
      if (t.kind != Value::Kind::kDType) throw ExprTypeError("sum-of-copies: the third argument is a dtype");
      if (!ir::is_float(t.dtype)) throw Undefined{};
      const double v = ir::round_to_float_dtype(as_double(arg(0)), t.dtype);
      const int64_t n = as_int(arg(1));
      if (n < 0) throw Undefined{};
      if (n == 0 || v == 0) return Value::real(0.0);  // copies of -0.0 sum to +0.0
      if (!std::isfinite(v)) return Value::real(v);
      int exponent = 0;
      int64_t mantissa = static_cast<int64_t>(std::ldexp(std::frexp(std::fabs(v), &exponent), 53));
      while ((mantissa & 1) == 0) mantissa >>= 1;
      int64_t bits = 0;
      if (__builtin_mul_overflow(n, mantissa, &bits) || bits >= (int64_t{1} << 53)) throw Undefined{};
      return Value::real(static_cast<double>(n) * v);
    }
    case Fn::kReduceShape: {
      // The shape of a reduction of shape L over AXES (distinct axes of L),
      // as ir's reduction ops infer it: reduced entries dropped, or 1 with keepdims.
      const Value shape = arg(0), axes = arg(1);
      const bool keepdims = as_bool(arg(2));
      std::vector<bool> reduced(list_of(shape).size(), false);
      for (const Value& axis : list_of(axes)) {
        const size_t a = index_into(shape, axis);
        if (reduced[a]) throw Undefined{};
        reduced[a] = true;
      }
      std::vector<Value> items;
      for (size_t k = 0; k < reduced.size(); ++k)
        if (!reduced[k]) items.push_back(list_of(shape)[k]);
        else if (keepdims) items.push_back(Value::integer(1));
      return Value::list(std::move(items));
    }
    case Fn::kInversePerm: {
      const std::vector<int64_t> p = as_ints(arg(0));
      std::vector<Value> inverse(p.size());
      std::vector<bool> seen(p.size(), false);
      for (size_t k = 0; k < p.size(); ++k) {
        if (p[k] < 0 || static_cast<size_t>(p[k]) >= p.size() || seen[p[k]]) throw Undefined{};
        seen[p[k]] = true;
        inverse[p[k]] = Value::integer(static_cast<int64_t>(k));
      }
      return Value::list(std::move(inverse));
    }
    case Fn::kShape:
      return Value::ints(env.tensor_var(e.var).type.shape);
    case Fn::kRank:
      return Value::integer(static_cast<int64_t>(env.tensor_var(e.var).type.shape.size()));
    case Fn::kDim: {
      const ir::Shape shape = env.tensor_var(e.var).type.shape;
      const int64_t i = as_int(arg(0));
      if (i < 0 || static_cast<size_t>(i) >= shape.size()) throw Undefined{};
      return Value::integer(shape[static_cast<size_t>(i)]);
    }
    case Fn::kDType:
      return Value::of_dtype(env.tensor_var(e.var).type.dtype);
    case Fn::kConst: {
      const TensorFacts facts = env.tensor_var(e.var);
      if (!facts.splat) throw Undefined{};
      return number_of(*facts.splat, facts.type.dtype);
    }
    case Fn::kElementwise:
      return Value::boolean(ir::op_class(env.op_var(e.var).op) == ir::OpClass::Elementwise);
    case Fn::kUnary:
    case Fn::kBinary: {
      const OpFacts f = env.op_var(e.var);
      return Value::boolean(ir::op_class(f.op) == ir::OpClass::Elementwise &&
                            f.operand_dtypes.size() == (e.fn == Fn::kUnary ? 1u : 2u));
    }
    case Fn::kIsOp:
      return Value::boolean(env.op_var(e.var).op == e.op);
    case Fn::kApply: {
      const OpFacts f = env.op_var(e.var);
      if (e.args.size() != f.operand_dtypes.size())
        throw ExprTypeError("(apply ...) gives " + std::to_string(e.args.size()) + " values to an op of " +
                            std::to_string(f.operand_dtypes.size()) + " operands");
      std::vector<double> values;
      for (size_t k = 0; k < e.args.size(); ++k) values.push_back(as_double(arg(k)));
      auto r = eval_scalar(f.op, *f.attrs, f.operand_dtypes, values);
      if (!r) throw Undefined{};
      return number_of(r->value, r->dtype);
    }
  }
  throw std::logic_error("eval: unknown function");
}

bool holds(const CExpr& e, const ExprEnv& env) {
  try {
    return as_bool(eval(e, env));
  } catch (const Undefined&) {
    return false;
  }
}

}  // namespace smelt::rules
