#pragma once
// Tensor values on the host, as the reference interpreter and the CLI use them.
// Elements are held widened — double for float dtypes, int64 for integer and
// bool dtypes — and always already rounded/wrapped to the tensor's dtype.
#include <cstdint>
#include <random>
#include <vector>

#include "ir/ops.h"

namespace smelt::ir {

// Bytes of a HostTensor of `type` (every element held widened, in 8 bytes);
// UINT64_MAX when the count overflows: what check_memory (error/memory_limit.h)
// is asked for before one is allocated.
uint64_t host_tensor_bytes(const TensorType& type);

struct HostTensor {
  TensorType type;
  std::vector<double> reals;  // float dtypes
  std::vector<int64_t> ints;  // integer and bool dtypes

  static HostTensor zeros(TensorType type);
  // Values are rounded / wrapped to `type.dtype`.
  static HostTensor from_values(TensorType type, const std::vector<double>& values);

  int64_t numel() const { return ir::numel(type.shape); }
  bool is_real() const { return is_float(type.dtype); }
  double get(int64_t i) const { return is_real() ? reals[i] : static_cast<double>(ints[i]); }
  // Stores v rounded / wrapped to the dtype.
  void set(int64_t i, double v);
  void set_int(int64_t i, int64_t v);
};

// Uniform values: floats in [-1, 1), integers in [-8, 8], bools fair coins.
HostTensor random_tensor(const TensorType& type, std::mt19937_64& rng);

// Sum of all elements, as a double: a quick fingerprint of a result.
double checksum(const HostTensor& t);

}  // namespace smelt::ir
