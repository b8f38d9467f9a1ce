#pragma once
// Attributes of an op instance as values of the rule language, by .sg key
// ("start", "value", ...; factories also "shape" and "dtype" for their result
// type), and back.
#include <optional>
#include <string_view>

#include "ir/ops.h"
#include "rules/value.h"

namespace smelt::rules {

// The value of attribute `key` of `op`, or nullopt when the op has no such key.
// Lists (shape, perm, axes, start, stop, step, lo, hi) are integer lists;
// `value` is a float (a constant of rank > 0: its row-major list of floats).
std::optional<Value> attr_value(ir::Op op, const ir::Attrs& attrs, std::string_view key);

// Sets attribute `key` of `op`; ExprTypeError when the value has the wrong kind,
// std::invalid_argument for a key the op does not take.
void set_attr(ir::Op op, ir::Attrs& attrs, std::string_view key, const Value& value);

// Only the attributes `op` uses, so that equal instances have equal Attrs
// (fields an op ignores are reset to their defaults).
ir::Attrs relevant_attrs(ir::Op op, const ir::Attrs& attrs);

}  // namespace smelt::rules
