#pragma once
// Encodes a rule term as a SymTensor. Left-side tensor variables are created on
// first sight (rank chosen per case, symbolic extents and dtype, an
// uninterpreted element function, or one constant value for (const ?x)
// variables); on the right side variables and lets must already be encoded.
#include "verify/encoding_state.h"

namespace smelt::verify {

SymTensor encode_term(EncodingState& s, const rules::Term& t, Side side);

}  // namespace smelt::verify
