#pragma once
// Row-major index arithmetic: multi-index <-> flat index, kept linear by IntArith.
#include <vector>

#include "verify/encoding_state.h"

namespace smelt::verify {

z3::expr linearize(IntArith& arith, const std::vector<z3::expr>& index, const std::vector<z3::expr>& shape);
std::vector<z3::expr> delinearize(IntArith& arith, const z3::expr& flat, const std::vector<z3::expr>& shape);
// The element at a flat index: flat_at where known, else at(delinearize(flat)).
z3::expr element_at_flat(IntArith& arith, const SymTensor& t, const z3::expr& flat);

}  // namespace smelt::verify
