#pragma once
// One element of a tensor, widened (double for float dtypes, int64 for integer
// and bool dtypes), and the reference semantics of elementwise ops on it. The
// reference interpreter, the kernel interpreter and the tests all use these.
#include <cstdint>
#include <span>

#include "ir/ops.h"

namespace smelt::ir {

struct Scalar {
  double real = 0;      // when the dtype is a float dtype
  int64_t integer = 0;  // otherwise
};

// A real value converted to `t`: rounded to float dtypes; for integer dtypes
// truncated toward zero (NaN → 0, beyond int64 saturating) then wrapped; bool: != 0.
Scalar scalar_from_real(double v, DType t);
// An integer value converted to `t`: wrapped, or rounded to float dtypes.
Scalar scalar_from_int(int64_t v, DType t);
double scalar_as_real(const Scalar& s, DType t);

// Applies elementwise `op` (cast: to `result`) to operands of dtypes
// `operand_types`. The domain is real when the value-carrying operands are
// floats (for where: the branches), else integer; the result is converted to
// `result`. Throws std::invalid_argument for an op / domain without semantics.
Scalar eval_elementwise(Op op, DType result, std::span<const DType> operand_types,
                        std::span<const Scalar> operands);

}  // namespace smelt::ir
