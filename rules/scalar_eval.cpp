#include "rules/scalar_eval.h"

#include <stdexcept>
#include <vector>

#include "ir/scalar.h"

namespace smelt::rules {

double round_to_dtype(double v, ir::DType t) { return ir::scalar_as_real(ir::scalar_from_real(v, t), t); }

bool fits_literal(double v, ir::DType t) {
  ir::Attrs attrs;
  attrs.result = {t, {}};
  attrs.values = {v};
  return ir::op_info(ir::Op::Full).infer({}, attrs).error.empty();
}

std::optional<ScalarResult> eval_scalar(ir::Op op, const ir::Attrs& attrs, std::span<const ir::DType> dtypes,
                                        std::span<const double> values) {
  if (ir::op_class(op) != ir::OpClass::Elementwise || dtypes.size() != values.size()) return std::nullopt;
  // Type-check as the op table would on rank-0 operands; the result's dtype comes from it.
  std::vector<ir::TensorType> types;
  for (ir::DType t : dtypes) types.push_back({t, {}});
  ir::Attrs canonical = attrs;
  const ir::Inferred inferred = ir::op_info(op).infer(types, canonical);
  if (!inferred.error.empty()) return std::nullopt;
  // The interpreter's own element semantics (ir/scalar.h): operands converted
  // to their dtypes, the result rounded / wrapped to its dtype.
  std::vector<ir::Scalar> operands;
  for (size_t k = 0; k < values.size(); ++k) operands.push_back(ir::scalar_from_real(values[k], dtypes[k]));
  ir::Scalar result;
  try {
    result = ir::eval_elementwise(op, inferred.type.dtype, dtypes, operands);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  const ScalarResult r{ir::scalar_as_real(result, inferred.type.dtype), inferred.type.dtype};
  if (!fits_literal(r.value, r.dtype)) return std::nullopt;
  return r;
}

}  // namespace smelt::rules
