#include "rules/attr_values.h"

#include <stdexcept>
#include <string>

namespace smelt::rules {
namespace {

bool has_result_type(ir::Op op) {
  const ir::OpClass c = ir::op_class(op);
  return c == ir::OpClass::Source || c == ir::OpClass::Factory;
}

bool takes(ir::Op op, ir::AttrKey key) { return (ir::op_info(op).attrs & key) != 0; }

// The attribute keys `op` takes, as AttrKey, or nullopt for "shape"/"dtype" of
// factories (their result type) and unknown keys.
std::optional<ir::AttrKey> table_key(ir::Op op, std::string_view key) {
  auto k = ir::parse_attr_key(key);
  if (k && takes(op, *k)) return k;
  return std::nullopt;
}

}  // namespace

std::optional<Value> attr_value(ir::Op op, const ir::Attrs& a, std::string_view key) {
  if (has_result_type(op) && key == "shape") return Value::ints(a.result.shape);
  if (has_result_type(op) && key == "dtype") return Value::of_dtype(a.result.dtype);
  auto k = table_key(op, key);
  if (!k) return std::nullopt;
  switch (*k) {
    case ir::kAttrShape:
      return Value::ints(a.shape);
    case ir::kAttrTo:
      return Value::of_dtype(a.to);
    case ir::kAttrValue:
      if (op == ir::Op::Constant && !a.result.shape.empty()) return Value::reals(a.values);
      if (a.values.empty()) return std::nullopt;
      return Value::real(a.values[0]);
    case ir::kAttrAxis:
      return Value::integer(a.axis);
    case ir::kAttrPerm:
      return Value::ints(a.perm);
    case ir::kAttrAxes:
      return Value::ints(a.axes);
    case ir::kAttrKeepdims:
      return Value::boolean(a.keepdims);
    case ir::kAttrStart:
      return Value::ints(a.start);
    case ir::kAttrStop:
      return Value::ints(a.stop);
    case ir::kAttrStep:
      return Value::ints(a.step);
    case ir::kAttrLo:
      return Value::ints(a.lo);
    case ir::kAttrHi:
      return Value::ints(a.hi);
    case ir::kAttrStrides:
      return Value::ints(a.strides);
    case ir::kAttrDilations:
      return Value::ints(a.dilations);
    case ir::kAttrGroups:
      return Value::integer(a.groups);
  }
  return std::nullopt;
}

void set_attr(ir::Op op, ir::Attrs& a, std::string_view key, const Value& v) {
  if (has_result_type(op) && key == "shape") {
    a.result.shape = as_ints(v);
    return;
  }
  if (has_result_type(op) && key == "dtype") {
    if (v.kind != Value::Kind::kDType) throw ExprTypeError("expected a dtype, got " + to_string(v));
    a.result.dtype = v.dtype;
    return;
  }
  auto k = table_key(op, key);
  if (!k) throw std::invalid_argument(std::string(ir::op_name(op)) + " has no attribute :" + std::string(key));
  switch (*k) {
    case ir::kAttrShape:
      a.shape = as_ints(v);
      return;
    case ir::kAttrTo:
      if (v.kind != Value::Kind::kDType) throw ExprTypeError("expected a dtype, got " + to_string(v));
      a.to = v.dtype;
      return;
    case ir::kAttrValue:
      if (v.is_list()) {
        std::vector<double> values;
        for (const Value& item : v.items) values.push_back(as_double(item));
        a.values = std::move(values);
      } else {
        a.values = {as_double(v)};
      }
      return;
    case ir::kAttrAxis:
      a.axis = as_int(v);
      return;
    case ir::kAttrPerm:
      a.perm = as_ints(v);
      return;
    case ir::kAttrAxes:
      a.axes = as_ints(v);
      return;
    case ir::kAttrKeepdims:
      a.keepdims = as_bool(v);
      return;
    case ir::kAttrStart:
      a.start = as_ints(v);
      return;
    case ir::kAttrStop:
      a.stop = as_ints(v);
      return;
    case ir::kAttrStep:
      a.step = as_ints(v);
      return;
    case ir::kAttrLo:
      a.lo = as_ints(v);
      return;
    case ir::kAttrHi:
      a.hi = as_ints(v);
      return;
    case ir::kAttrStrides:
      a.strides = as_ints(v);
      return;
    case ir::kAttrDilations:
      a.dilations = as_ints(v);
      return;
    case ir::kAttrGroups:
      a.groups = as_int(v);
      return;
  }
}

ir::Attrs relevant_attrs(ir::Op op, const ir::Attrs& a) {
  ir::Attrs r;
  if (has_result_type(op)) r.result = a.result;
  if (takes(op, ir::kAttrShape)) r.shape = a.shape;
  if (takes(op, ir::kAttrTo)) r.to = a.to;
  if (takes(op, ir::kAttrValue)) r.values = a.values;
  if (takes(op, ir::kAttrAxis)) r.axis = a.axis;
  if (takes(op, ir::kAttrPerm)) r.perm = a.perm;
  if (takes(op, ir::kAttrAxes)) r.axes = a.axes;
  if (takes(op, ir::kAttrKeepdims)) r.keepdims = a.keepdims;
  if (takes(op, ir::kAttrStart)) r.start = a.start;
  if (takes(op, ir::kAttrStop)) r.stop = a.stop;
  if (takes(op, ir::kAttrStep)) r.step = a.step;
  if (takes(op, ir::kAttrLo)) r.lo = a.lo;
  if (takes(op, ir::kAttrHi)) r.hi = a.hi;
  if (takes(op, ir::kAttrStrides)) r.strides = a.strides;
  if (takes(op, ir::kAttrDilations)) r.dilations = a.dilations;
  if (takes(op, ir::kAttrGroups)) r.groups = a.groups;
  return r;
}

}  // namespace smelt::rules
