#pragma once
// Attribute expressions and conditions of docs/rules.md, evaluated to Z3 terms.
#include "verify/encoding_state.h"

namespace smelt::verify {

// Evaluates `e`. A partial operation (a division by a value that may be 0, an
// index that may be out of range, a list length mismatch) adds the condition
// under which it is defined to `defined`.
AttrValue eval_expr(EncodingState& s, const rules::Expr& e, z3::expr_vector& defined);

// `v` as a value of `kind` (integers widen to floats); Unsupported otherwise.
AttrValue convert(EncodingState& s, const AttrValue& v, AttrKind kind);

// Elementwise equality, a scalar broadcast against a list; false on a length mismatch.
z3::expr values_equal(EncodingState& s, const AttrValue& a, const AttrValue& b);

// The element value every element of a (const ?x) tensor variable has.
z3::expr const_value(EncodingState& s, const std::string& tensor_var);

}  // namespace smelt::verify
