#include "ir/host_tensor.h"

#include <cmath>

namespace ir {

HostTensor HostTensor::zeros(TensorType type) {
  HostTensor t{std::move(type), {}, {}};
  if (t.is_real()) t.reals.assign(t.numel(), 0.0);
  else t.ints.assign(t.numel(), 0);
  return t;
}

HostTensor HostTensor::from_values(TensorType type, const std::vector<double>& values) {
  HostTensor t = zeros(std::move(type));
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, values.at(i));
  return t;
}

void HostTensor::set(int64_t i, double v) {
  if (is_real()) {
    reals[i] = round_to_float_dtype(v, type.dtype);
    return;
  }
  if (type.dtype == DType::Bool) {
    ints[i] = v != 0;
    return;
  }
  // Float → integer conversion truncates toward zero; NaN becomes 0 and values
  // beyond the int64 range saturate (before wrapping to the dtype).
  int64_t n = 0;
  if (std::isnan(v)) n = 0;
  else if (v >= 9223372036854775807.0) n = INT64_MAX;
  else if (v <= -9223372036854775808.0) n = INT64_MIN;
  else n = static_cast<int64_t>(v);
  ints[i] = wrap_to_int_dtype(n, type.dtype);
}

void HostTensor::set_int(int64_t i, int64_t v) {
  if (is_real()) reals[i] = round_to_float_dtype(static_cast<double>(v), type.dtype);
  else ints[i] = wrap_to_int_dtype(v, type.dtype);
}

HostTensor random_tensor(const TensorType& type, std::mt19937_64& rng) {
  HostTensor t = HostTensor::zeros(type);
  if (t.is_real()) {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (auto& v : t.reals) v = round_to_float_dtype(dist(rng), type.dtype);
  } else if (type.dtype == DType::Bool) {
    std::bernoulli_distribution coin(0.5);
    for (auto& v : t.ints) v = coin(rng);
  } else {
    std::uniform_int_distribution<int64_t> dist(-8, 8);
    for (auto& v : t.ints) v = dist(rng);
  }
  return t;
}

double checksum(const HostTensor& t) {
  double sum = 0;
  for (int64_t i = 0; i < t.numel(); ++i) sum += t.get(i);
  return sum;
}

}  // namespace ir
