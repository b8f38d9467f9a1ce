#include "ir/host_tensor.h"

#include "error/memory_limit.h"
#include "ir/scalar.h"

#include <cmath>

namespace smelt::ir {

uint64_t host_tensor_bytes(const TensorType& type) {
  uint64_t bytes = sizeof(double);
  bool overflow = false;
  for (int64_t d : type.shape) {
    if (d <= 0) return 0;  // no elements, however large the other extents
    overflow = overflow || __builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes);
  }
  return overflow ? UINT64_MAX : bytes;
}

HostTensor HostTensor::zeros(TensorType type) {
  check_memory(host_tensor_bytes(type), "a host tensor " + type_str(type) + " (8 bytes per element)");
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
  Scalar converted = scalar_from_real(v, type.dtype);
  if (is_real()) reals[i] = converted.real;
  else ints[i] = converted.integer;
}

void HostTensor::set_int(int64_t i, int64_t v) {
  Scalar converted = scalar_from_int(v, type.dtype);
  if (is_real()) reals[i] = converted.real;
  else ints[i] = converted.integer;
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

}  // namespace smelt::ir
