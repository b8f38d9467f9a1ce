#include "rules/value.h"

#include <bit>
#include <cmath>
#include <sstream>

namespace smelt::rules {

Value Value::integer(int64_t v) {
  Value r;
  r.kind = Kind::kInt;
  r.i = v;
  return r;
}

Value Value::real(double v) {
  Value r;
  r.kind = Kind::kFloat;
  r.f = v;
  return r;
}

Value Value::boolean(bool v) {
  Value r;
  r.kind = Kind::kBool;
  r.b = v;
  return r;
}

Value Value::of_dtype(ir::DType t) {
  Value r;
  r.kind = Kind::kDType;
  r.dtype = t;
  return r;
}

Value Value::list(std::vector<Value> items) {
  Value r;
  r.kind = Kind::kList;
  r.items = std::move(items);
  return r;
}

Value Value::ints(const std::vector<int64_t>& v) {
  std::vector<Value> items;
  items.reserve(v.size());
  for (int64_t x : v) items.push_back(integer(x));
  return list(std::move(items));
}

Value Value::reals(const std::vector<double>& v) {
  std::vector<Value> items;
  items.reserve(v.size());
  for (double x : v) items.push_back(real(x));
  return list(std::move(items));
}

std::string kind_name(Value::Kind k) {
  switch (k) {
    case Value::Kind::kInt:
      return "an integer";
    case Value::Kind::kFloat:
      return "a float";
    case Value::Kind::kBool:
      return "a bool";
    case Value::Kind::kDType:
      return "a dtype";
    case Value::Kind::kList:
      return "a list";
  }
  return "?";
}

std::string to_string(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kInt:
      return std::to_string(v.i);
    case Value::Kind::kFloat: {
      std::ostringstream out;
      out.precision(17);
      out << v.f;
      return out.str();
    }
    case Value::Kind::kBool:
      return v.b ? "true" : "false";
    case Value::Kind::kDType:
      return std::string(ir::dtype_name(v.dtype));
    case Value::Kind::kList: {
      std::string s = "[";
      for (size_t k = 0; k < v.items.size(); ++k) s += (k ? " " : "") + to_string(v.items[k]);
      return s + "]";
    }
  }
  return "?";
}

double as_double(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kInt:
      return static_cast<double>(v.i);
    case Value::Kind::kFloat:
      return v.f;
    case Value::Kind::kBool:
      return v.b ? 1 : 0;
    default:
      throw ExprTypeError("expected a number, got " + kind_name(v.kind) + " " + to_string(v));
  }
}

int64_t as_int(const Value& v) {
  if (v.kind == Value::Kind::kInt) return v.i;
  if (v.kind == Value::Kind::kBool) return v.b ? 1 : 0;
  if (v.kind == Value::Kind::kFloat && std::trunc(v.f) == v.f && std::fabs(v.f) <= 9007199254740992.0)
    return static_cast<int64_t>(v.f);
  throw ExprTypeError("expected an integer, got " + kind_name(v.kind) + " " + to_string(v));
}

bool as_bool(const Value& v) {
  if (v.kind != Value::Kind::kBool)
    throw ExprTypeError("expected a bool, got " + kind_name(v.kind) + " " + to_string(v));
  return v.b;
}

std::vector<int64_t> as_ints(const Value& v) {
  if (!v.is_list()) throw ExprTypeError("expected a list of integers, got " + kind_name(v.kind) + " " + to_string(v));
  std::vector<int64_t> out;
  out.reserve(v.items.size());
  for (const Value& item : v.items) out.push_back(as_int(item));
  return out;
}

bool identical(const Value& a, const Value& b) {
  if (a.is_list() || b.is_list()) {
    if (!a.is_list() || !b.is_list())
      throw ExprTypeError("cannot compare " + kind_name(a.kind) + " with " + kind_name(b.kind));
    if (a.items.size() != b.items.size()) return false;
    for (size_t k = 0; k < a.items.size(); ++k)
      if (!identical(a.items[k], b.items[k])) return false;
    return true;
  }
  if (a.kind == Value::Kind::kDType || b.kind == Value::Kind::kDType) {
    if (a.kind != b.kind) throw ExprTypeError("cannot compare " + kind_name(a.kind) + " with " + kind_name(b.kind));
    return a.dtype == b.dtype;
  }
  if (a.kind == Value::Kind::kInt && b.kind == Value::Kind::kInt) return a.i == b.i;
  const double x = as_double(a), y = as_double(b);
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  // Bit identity separates -0.0 from 0.0; for every other number it is ==.
  return std::bit_cast<uint64_t>(x) == std::bit_cast<uint64_t>(y);
}

}  // namespace smelt::rules
