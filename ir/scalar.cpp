#include "ir/scalar.h"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace smelt::ir {

Scalar scalar_from_real(double v, DType t) {
  if (is_float(t)) return {round_to_float_dtype(v, t), 0};
  if (t == DType::Bool) return {0, v != 0};
  int64_t n = 0;
  if (std::isnan(v)) n = 0;
  else if (v >= 9223372036854775807.0) n = INT64_MAX;
  else if (v <= -9223372036854775808.0) n = INT64_MIN;
  else n = static_cast<int64_t>(v);
  return {0, wrap_to_int_dtype(n, t)};
}

Scalar scalar_from_int(int64_t v, DType t) {
  if (is_float(t)) return {round_to_float_dtype(static_cast<double>(v), t), 0};
  return {0, wrap_to_int_dtype(v, t)};
}

double scalar_as_real(const Scalar& s, DType t) {
  return is_float(t) ? s.real : static_cast<double>(s.integer);
}

Scalar eval_elementwise(Op op, DType result, std::span<const DType> operand_types,
                        std::span<const Scalar> operands) {
  const OpInfo& info = op_info(op);
  constexpr size_t kMaxArity = 3;
  if (operands.empty() || operands.size() > kMaxArity || operand_types.size() != operands.size())
    throw std::invalid_argument(std::string(info.name) + ": unexpected operands");
  const size_t value_operand = op == Op::Where ? 1 : 0;
  if (is_float(operand_types[value_operand])) {
    if (!info.eval_real) throw std::invalid_argument(std::string(info.name) + " has no real-domain semantics");
    std::array<double, kMaxArity> x{};
    for (size_t k = 0; k < operands.size(); ++k) x[k] = scalar_as_real(operands[k], operand_types[k]);
    return scalar_from_real(info.eval_real(x.data()), result);
  }
  if (!info.eval_int) throw std::invalid_argument(std::string(info.name) + " has no integer-domain semantics");
  std::array<int64_t, kMaxArity> x{};
  for (size_t k = 0; k < operands.size(); ++k) x[k] = operands[k].integer;
  return scalar_from_int(info.eval_int(x.data()), result);
}

}  // namespace smelt::ir
