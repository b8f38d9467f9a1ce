#include "runtime/tensor_bytes.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "ir/dtype.h"

namespace smelt::runtime {
namespace {

template <typename T>
void store(std::span<uint8_t> out, int64_t i, T value) {
  std::memcpy(out.data() + i * sizeof(T), &value, sizeof(T));
}

template <typename T>
T load(std::span<const uint8_t> bytes, int64_t i) {
  T value;
  std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
  return value;
}

void check_size(const ir::TensorType& type, size_t got) {
  if (got != storage_bytes(type))
    throw std::invalid_argument(ir::type_str(type) + " takes " + std::to_string(storage_bytes(type)) +
                                " bytes, got " + std::to_string(got));
}

// Rounds to the dtype first, so the f32 → half conversion below is exact for
// values the tensor already holds and correctly rounded for any other double.
float as_float(double v, ir::DType t) { return static_cast<float>(ir::round_to_float_dtype(v, t)); }

}  // namespace

size_t storage_bytes(const ir::TensorType& type) {
  return static_cast<size_t>(ir::numel(type.shape)) * static_cast<size_t>(ir::dtype_bytes(type.dtype));
}

void write_tensor(const ir::HostTensor& tensor, std::span<uint8_t> out) {
  check_size(tensor.type, out.size());
  const ir::DType t = tensor.type.dtype;
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    switch (t) {
      case ir::DType::F32: store<float>(out, i, as_float(tensor.reals[i], t)); break;
      case ir::DType::F16: store<uint16_t>(out, i, ir::f32_to_f16_bits(as_float(tensor.reals[i], t))); break;
      case ir::DType::BF16: store<uint16_t>(out, i, ir::f32_to_bf16_bits(as_float(tensor.reals[i], t))); break;
      case ir::DType::I32: store<int32_t>(out, i, static_cast<int32_t>(tensor.ints[i])); break;
      case ir::DType::I64: store<int64_t>(out, i, tensor.ints[i]); break;
      case ir::DType::Bool: store<uint8_t>(out, i, tensor.ints[i] != 0 ? 1 : 0); break;
    }
  }
}

std::vector<uint8_t> to_bytes(const ir::HostTensor& tensor) {
  std::vector<uint8_t> bytes(storage_bytes(tensor.type));
  write_tensor(tensor, bytes);
  return bytes;
}

ir::HostTensor from_bytes(const ir::TensorType& type, std::span<const uint8_t> bytes) {
  check_size(type, bytes.size());
  ir::HostTensor t = ir::HostTensor::zeros(type);
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (type.dtype) {
      case ir::DType::F32: t.reals[i] = load<float>(bytes, i); break;
      case ir::DType::F16: t.reals[i] = ir::f16_bits_to_f32(load<uint16_t>(bytes, i)); break;
      case ir::DType::BF16: t.reals[i] = ir::bf16_bits_to_f32(load<uint16_t>(bytes, i)); break;
      case ir::DType::I32: t.ints[i] = load<int32_t>(bytes, i); break;
      case ir::DType::I64: t.ints[i] = load<int64_t>(bytes, i); break;
      // Any nonzero byte reads as true, as the kernels treat it.
      case ir::DType::Bool: t.ints[i] = load<uint8_t>(bytes, i) != 0 ? 1 : 0; break;
    }
  }
  return t;
}

}  // namespace smelt::runtime
