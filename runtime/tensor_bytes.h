#pragma once
// smelt::ir::HostTensor ⇄ raw bytes in the memory layout every target shares
// (lower/lower.h): dense row-major; f32 float; f16 IEEE binary16 bits; bf16
// the upper 16 bits of an f32, rounded to nearest even; i32; i64; bool one
// byte 0/1.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ir/host_tensor.h"

namespace smelt::runtime {

// Bytes one tensor of `type` occupies.
size_t storage_bytes(const ir::TensorType& type);

// Writes `tensor` to `out`, which must hold storage_bytes(tensor.type).
void write_tensor(const ir::HostTensor& tensor, std::span<uint8_t> out);
std::vector<uint8_t> to_bytes(const ir::HostTensor& tensor);

// Reads a tensor of `type` from `bytes` (storage_bytes(type) of them).
// Throws std::invalid_argument on a size mismatch.
ir::HostTensor from_bytes(const ir::TensorType& type, std::span<const uint8_t> bytes);

}  // namespace smelt::runtime
