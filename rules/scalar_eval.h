#pragma once
// One element of an elementwise op on constant operands, exactly as the
// reference interpreter computes it (operands rounded to their dtypes, the
// result rounded to the result's dtype). Used to fold constants and by the
// rule language's (apply ?f ...).
#include <optional>
#include <span>

#include "ir/ops.h"

namespace smelt::rules {

struct ScalarResult {
  double value = 0;
  ir::DType dtype = ir::DType::F32;
};

// nullopt when the op does not type-check on these dtypes or the result cannot
// be written as a literal (an i64 beyond 2^53, see docs/ops.md).
std::optional<ScalarResult> eval_scalar(ir::Op op, const ir::Attrs& attrs, std::span<const ir::DType> dtypes,
                                        std::span<const double> values);

// `v` as an element of dtype `t` (rounded, truncated or wrapped as the
// interpreter stores it).
double round_to_dtype(double v, ir::DType t);

// True when `v` may be the value of a full/pad of dtype `t` (ir's literal rules).
bool fits_literal(double v, ir::DType t);

}  // namespace smelt::rules
