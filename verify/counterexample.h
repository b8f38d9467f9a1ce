#pragma once
// Turns a Z3 model of a failed obligation into text a rule author can act on:
// the case (ranks, structural choices), every tensor variable's dtype and
// shape, every attribute value, and (for a value mismatch) the index and the
// two element expressions with the indices and extents filled in.
#include <optional>
#include <string>
#include <vector>

#include <z3++.h>

#include "verify/encoding_state.h"

namespace smelt::verify {

// A dtype encoded as its ir::DType number, by name ("f32"); other numbers as digits.
std::string dtype_text(int64_t code);

struct ValueMismatch {
  std::vector<z3::expr> index;
  z3::expr lhs, rhs;
};

std::string describe_model(EncodingState& s, const z3::model& m,
                           const std::optional<ValueMismatch>& mismatch);

// An element expression, readable: "cos(?x[0,2])", "reduce_sum1(k0 -> ...)".
std::string pretty_value(const z3::expr& e);

}  // namespace smelt::verify
