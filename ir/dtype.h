#pragma once
// Element types of smelt tensors and conversions between their storage forms.
#include <cstdint>
#include <optional>
#include <string_view>

namespace smelt::ir {

enum class DType : uint8_t { F32, F16, BF16, I32, I64, Bool };

inline constexpr DType kAllDTypes[] = {DType::F32, DType::F16, DType::BF16,
                                       DType::I32, DType::I64, DType::Bool};

std::string_view dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view name);
int dtype_bytes(DType t);

inline bool is_float(DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16; }
inline bool is_integer(DType t) { return t == DType::I32 || t == DType::I64; }
// Numeric types support arithmetic (everything but bool).
inline bool is_numeric(DType t) { return t != DType::Bool; }

// IEEE binary16 and bfloat16 conversions, round-to-nearest-even.
uint16_t f32_to_f16_bits(float f);
float f16_bits_to_f32(uint16_t h);
uint16_t f32_to_bf16_bits(float f);
float bf16_bits_to_f32(uint16_t b);

// Rounds a real value to the nearest value representable in a float dtype.
double round_to_float_dtype(double v, DType t);
// Wraps an integer to the range of an integer dtype (two's complement); bool → 0/1.
int64_t wrap_to_int_dtype(int64_t v, DType t);

}  // namespace smelt::ir
