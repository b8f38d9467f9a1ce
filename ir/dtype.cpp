#include "ir/dtype.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace smelt::ir {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::F32: return "f32";
    case DType::F16: return "f16";
    case DType::BF16: return "bf16";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
    case DType::Bool: return "bool";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType t : kAllDTypes)
    if (dtype_name(t) == name) return t;
  return std::nullopt;
}

int dtype_bytes(DType t) {
  switch (t) {
    case DType::F32: case DType::I32: return 4;
    case DType::F16: case DType::BF16: return 2;
    case DType::I64: return 8;
    case DType::Bool: return 1;
  }
  return 0;
}

uint16_t f32_to_f16_bits(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x47800000u)  // |f| >= 65536: inf, or nan kept quiet
    return static_cast<uint16_t>(sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (abs < 0x38800000u) {  // result is subnormal or zero in f16
    // Scale into the subnormal range; adding 0.5 (as float) performs the rounding.
    float scaled = std::bit_cast<float>(abs) + 0.5f;
    return static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(scaled) - 0x3f000000u));
  }
  uint32_t mant_odd = (abs >> 13) & 1u;
  abs += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
  return static_cast<uint16_t>(sign | (abs >> 13));
}

float f16_bits_to_f32(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t f32_to_bf16_bits(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet nan
  uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

float bf16_bits_to_f32(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

namespace {
// double → f32 rounding to odd: an inexact result keeps its lowest bit set, so the
// second rounding to f16 / bf16 (13+ bits narrower) equals one direct rounding.
float to_f32_round_to_odd(double v) {
  float f = static_cast<float>(v);
  if (std::isnan(v) || static_cast<double>(f) == v) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);  // truncate
  return std::bit_cast<float>(std::bit_cast<uint32_t>(f) | 1u);
}
}  // namespace

double round_to_float_dtype(double v, DType t) {
  switch (t) {
    case DType::F32: return static_cast<float>(v);
    case DType::F16: return f16_bits_to_f32(f32_to_f16_bits(to_f32_round_to_odd(v)));
    case DType::BF16: return bf16_bits_to_f32(f32_to_bf16_bits(to_f32_round_to_odd(v)));
    default: return v;
  }
}

int64_t wrap_to_int_dtype(int64_t v, DType t) {
  switch (t) {
    case DType::I32: return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
    case DType::Bool: return v != 0;
    default: return v;
  }
}

}  // namespace smelt::ir
