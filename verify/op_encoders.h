#pragma once
// One encoder per op class, each turning an op term (with its encoded
// operands) into a SymTensor and recording its typing facts with
// EncodingState::require (assumed on the left side, obligations on the right).
// The shape and attribute rules follow ir/ops.cpp; slice bounds are
// canonicalized exactly as infer_slice does.
#include <vector>

#include "verify/encoding_state.h"

namespace smelt::verify {

using Operands = std::vector<SymTensor>;

SymTensor encode_elementwise(EncodingState& s, const rules::Term& t, Side side, const Operands& x);
SymTensor encode_op_var(EncodingState& s, const rules::Term& t, Side side, const Operands& x);
SymTensor encode_factory(EncodingState& s, const rules::Term& t, Side side);

SymTensor encode_slice(EncodingState& s, const rules::Term& t, Side side, const SymTensor& x);
SymTensor encode_pad(EncodingState& s, const rules::Term& t, Side side, const SymTensor& x);
SymTensor encode_broadcast(EncodingState& s, const rules::Term& t, Side side, const SymTensor& x);
SymTensor encode_reshape(EncodingState& s, const rules::Term& t, Side side, const SymTensor& x);
SymTensor encode_permute(EncodingState& s, const rules::Term& t, Side side, const SymTensor& x);
SymTensor encode_concat(EncodingState& s, const rules::Term& t, Side side, const Operands& x);
SymTensor encode_gather(EncodingState& s, const rules::Term& t, Side side, const SymTensor& data,
                        const SymTensor& indices);

SymTensor encode_reduce(EncodingState& s, const rules::Term& t, Side side, const SymTensor& x);
SymTensor encode_conv(EncodingState& s, const rules::Term& t, Side side, const SymTensor& x, const SymTensor& w);
SymTensor encode_matmul(EncodingState& s, const rules::Term& t, Side side, const SymTensor& a,
                        const SymTensor& b);

// Equal ranks (decided) and equal extents (a fact of `side`).
void require_same_shape(EncodingState& s, Side side, const std::vector<z3::expr>& a,
                        const std::vector<z3::expr>& b, const std::string& what);

// Dtype codes are ir::DType values.
z3::expr is_float_dtype(const z3::expr& d);
z3::expr is_numeric_dtype(const z3::expr& d);
z3::expr bool_dtype(z3::context& ctx);

}  // namespace smelt::verify
