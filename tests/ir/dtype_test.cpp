// dtypes: names, sizes, f16/bf16 conversions and integer wrapping.
#include "ir/dtype.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace smelt::ir {
namespace {

constexpr float kInfF = std::numeric_limits<float>::infinity();

bool is_f16_nan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }
bool is_bf16_nan(uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0; }

// The value of an f16 bit pattern from the IEEE definition, computed independently.
double f16_value(uint16_t h) {
  int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double magnitude =
      exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
  return sign ? -magnitude : magnitude;
}

TEST(DType, NamesAndSizes) {
  for (DType t : kAllDTypes) EXPECT_EQ(parse_dtype(dtype_name(t)), t);
  EXPECT_EQ(dtype_name(DType::BF16), "bf16");
  EXPECT_EQ(parse_dtype("f64"), std::nullopt);
  EXPECT_EQ(parse_dtype("F32"), std::nullopt);
  EXPECT_EQ(dtype_bytes(DType::F32), 4);
  EXPECT_EQ(dtype_bytes(DType::F16), 2);
  EXPECT_EQ(dtype_bytes(DType::BF16), 2);
  EXPECT_EQ(dtype_bytes(DType::I32), 4);
  EXPECT_EQ(dtype_bytes(DType::I64), 8);
  EXPECT_EQ(dtype_bytes(DType::Bool), 1);
}

TEST(DType, Classes) {
  EXPECT_TRUE(is_float(DType::BF16));
  EXPECT_FALSE(is_float(DType::I32));
  EXPECT_TRUE(is_integer(DType::I64));
  EXPECT_FALSE(is_integer(DType::Bool));
  EXPECT_FALSE(is_numeric(DType::Bool));
  EXPECT_TRUE(is_numeric(DType::F16));
}

TEST(F16, DecodesEveryPatternPerIeee) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    auto bits = static_cast<uint16_t>(h);
    float f = f16_bits_to_f32(bits);
    int exponent = (h >> 10) & 0x1f;
    if (exponent == 31) {
      if (h & 0x3ff)
        EXPECT_TRUE(std::isnan(f)) << std::hex << h;
      else
        EXPECT_EQ(f, (h & 0x8000) ? -kInfF : kInfF) << std::hex << h;
    } else {
      EXPECT_EQ(f, f16_value(bits)) << std::hex << h;
      EXPECT_EQ(std::signbit(f), (h & 0x8000) != 0) << std::hex << h;
    }
  }
}

TEST(F16, EncodeDecodeRoundTripsEveryPattern) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    auto bits = static_cast<uint16_t>(h);
    uint16_t again = f32_to_f16_bits(f16_bits_to_f32(bits));
    if (is_f16_nan(bits)) {
      EXPECT_TRUE(is_f16_nan(again)) << std::hex << h;
      EXPECT_EQ(again & 0x8000, bits & 0x8000) << std::hex << h;
    } else {
      EXPECT_EQ(again, bits) << std::hex << h;
    }
  }
}

TEST(F16, RoundsToNearestEvenBetweenEveryPairOfNeighbours) {
  // Every midpoint of two adjacent positive f16 values (subnormal and normal) is exact
  // in f32; it must go to the even pattern, and a hair off it to the nearer side.
  for (uint16_t h = 0; h < 0x7bff; ++h) {
    auto lower = static_cast<float>(f16_value(h));
    auto upper = static_cast<float>(f16_value(static_cast<uint16_t>(h + 1)));
    float mid = (lower + upper) / 2;
    uint16_t even = (h & 1) ? static_cast<uint16_t>(h + 1) : h;
    EXPECT_EQ(f32_to_f16_bits(mid), even) << std::hex << h;
    EXPECT_EQ(f32_to_f16_bits(std::nextafter(mid, 0.0f)), h) << std::hex << h;
    EXPECT_EQ(f32_to_f16_bits(std::nextafter(mid, kInfF)), h + 1) << std::hex << h;
    EXPECT_EQ(f32_to_f16_bits(-mid), even | 0x8000) << std::hex << h;
  }
}

TEST(F16, NotableValues) {
  EXPECT_EQ(f32_to_f16_bits(1.0f), 0x3c00);
  EXPECT_EQ(f32_to_f16_bits(-2.0f), 0xc000);
  EXPECT_EQ(f32_to_f16_bits(0.0f), 0x0000);
  EXPECT_EQ(f32_to_f16_bits(-0.0f), 0x8000);
  EXPECT_EQ(f32_to_f16_bits(65504.0f), 0x7bff);  // largest finite
  EXPECT_EQ(f32_to_f16_bits(0.1f), 0x2e66);
  // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: the even mantissa (1) wins.
  EXPECT_EQ(f32_to_f16_bits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(f32_to_f16_bits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
}

TEST(F16, Subnormals) {
  EXPECT_EQ(f32_to_f16_bits(std::ldexp(1.0f, -14)), 0x0400);     // smallest normal
  EXPECT_EQ(f32_to_f16_bits(std::ldexp(1023.0f, -24)), 0x03ff);  // largest subnormal
  EXPECT_EQ(f32_to_f16_bits(std::ldexp(1.0f, -24)), 0x0001);     // smallest subnormal
  EXPECT_EQ(f32_to_f16_bits(std::ldexp(1.0f, -25)), 0x0000);     // tie to even: zero
  EXPECT_EQ(f32_to_f16_bits(std::ldexp(3.0f, -26)), 0x0001);     // above the tie
  EXPECT_EQ(f32_to_f16_bits(std::ldexp(3.0f, -25)), 0x0002);     // 1.5 ulp: tie to even (2)
  EXPECT_EQ(f32_to_f16_bits(std::ldexp(1.0f, -30)), 0x0000);
  EXPECT_EQ(f32_to_f16_bits(-std::ldexp(1.0f, -30)), 0x8000);  // underflow keeps the sign
  EXPECT_EQ(f32_to_f16_bits(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(f16_bits_to_f32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16_bits_to_f32(0x8200), -std::ldexp(1.0f, -15));
}

TEST(F16, OverflowGoesToInfinity) {
  EXPECT_EQ(f32_to_f16_bits(65519.0f), 0x7bff);  // below the tie with 65536
  EXPECT_EQ(f32_to_f16_bits(65520.0f), 0x7c00);  // the tie rounds to even: inf
  EXPECT_EQ(f32_to_f16_bits(65536.0f), 0x7c00);
  EXPECT_EQ(f32_to_f16_bits(-1e10f), 0xfc00);
  EXPECT_EQ(f32_to_f16_bits(std::numeric_limits<float>::max()), 0x7c00);
  EXPECT_EQ(f32_to_f16_bits(kInfF), 0x7c00);
  EXPECT_EQ(f32_to_f16_bits(-kInfF), 0xfc00);
}

TEST(F16, NaNStaysNaN) {
  EXPECT_TRUE(is_f16_nan(f32_to_f16_bits(std::numeric_limits<float>::quiet_NaN())));
  // A NaN whose payload lives only in the low f32 bits must not become inf.
  EXPECT_TRUE(is_f16_nan(f32_to_f16_bits(std::bit_cast<float>(0x7f800001u))));
  EXPECT_TRUE(is_f16_nan(f32_to_f16_bits(std::bit_cast<float>(0xff800001u))));
  EXPECT_TRUE(std::isnan(f16_bits_to_f32(0x7e00)));
  EXPECT_TRUE(std::isnan(f16_bits_to_f32(0xfc01)));
}

TEST(BF16, EncodeDecodeRoundTripsEveryPattern) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    auto bits = static_cast<uint16_t>(b);
    float f = bf16_bits_to_f32(bits);
    EXPECT_EQ(std::bit_cast<uint32_t>(f), b << 16) << std::hex << b;  // decoding is exact
    uint16_t again = f32_to_bf16_bits(f);
    if (is_bf16_nan(bits))
      EXPECT_TRUE(is_bf16_nan(again)) << std::hex << b;
    else
      EXPECT_EQ(again, bits) << std::hex << b;
  }
}

TEST(BF16, RoundsToNearestEvenBetweenEveryPairOfNeighbours) {
  for (uint16_t b = 0; b < 0x7f7f; ++b) {
    float lower = bf16_bits_to_f32(b), upper = bf16_bits_to_f32(static_cast<uint16_t>(b + 1));
    float mid = std::bit_cast<float>((static_cast<uint32_t>(b) << 16) | 0x8000u);
    ASSERT_EQ(static_cast<double>(mid), (static_cast<double>(lower) + upper) / 2) << std::hex << b;
    uint16_t even = (b & 1) ? static_cast<uint16_t>(b + 1) : b;
    EXPECT_EQ(f32_to_bf16_bits(mid), even) << std::hex << b;
    EXPECT_EQ(f32_to_bf16_bits(std::nextafter(mid, 0.0f)), b) << std::hex << b;
    EXPECT_EQ(f32_to_bf16_bits(std::nextafter(mid, kInfF)), b + 1) << std::hex << b;
  }
}

TEST(BF16, NotableValues) {
  EXPECT_EQ(f32_to_bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(f32_to_bf16_bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);      // tie → even
  EXPECT_EQ(f32_to_bf16_bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);  // tie → even
  EXPECT_EQ(f32_to_bf16_bits(-0.0f), 0x8000);
  EXPECT_EQ(f32_to_bf16_bits(std::bit_cast<float>(0x00010000u)), 0x0001);  // subnormal
  EXPECT_EQ(f32_to_bf16_bits(std::bit_cast<float>(0x00008000u)), 0x0000);  // subnormal tie
  EXPECT_EQ(f32_to_bf16_bits(std::numeric_limits<float>::max()), 0x7f80);  // rounds up to inf
  EXPECT_EQ(f32_to_bf16_bits(std::bit_cast<float>(0x7f7f7fffu)), 0x7f7f);  // largest finite
  EXPECT_EQ(f32_to_bf16_bits(-kInfF), 0xff80);
  EXPECT_TRUE(is_bf16_nan(f32_to_bf16_bits(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(is_bf16_nan(f32_to_bf16_bits(std::bit_cast<float>(0x7f800001u))));  // not inf
}

TEST(RoundToFloatDtype, EachFloatDtype) {
  EXPECT_EQ(round_to_float_dtype(0.1, DType::F32), static_cast<double>(0.1f));
  EXPECT_EQ(round_to_float_dtype(1 + std::ldexp(1.0, -30), DType::F32), 1.0);
  EXPECT_EQ(round_to_float_dtype(1e39, DType::F32), std::numeric_limits<double>::infinity());
  EXPECT_EQ(round_to_float_dtype(0.1, DType::F16), 0.0999755859375);
  EXPECT_EQ(round_to_float_dtype(65504, DType::F16), 65504);
  EXPECT_EQ(round_to_float_dtype(-1e6, DType::F16), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(round_to_float_dtype(2049, DType::F16), 2048);
  EXPECT_EQ(round_to_float_dtype(257, DType::BF16), 256);
  EXPECT_EQ(round_to_float_dtype(259, DType::BF16), 260);
  EXPECT_TRUE(std::isnan(round_to_float_dtype(std::nan(""), DType::BF16)));
  EXPECT_TRUE(std::isnan(round_to_float_dtype(std::nan(""), DType::F16)));
}

TEST(WrapToIntDtype, TwosComplementAndBool) {
  EXPECT_EQ(wrap_to_int_dtype(int64_t{1} << 31, DType::I32), INT32_MIN);
  EXPECT_EQ(wrap_to_int_dtype(-(int64_t{1} << 31) - 1, DType::I32), INT32_MAX);
  EXPECT_EQ(wrap_to_int_dtype((int64_t{1} << 32) + 5, DType::I32), 5);
  EXPECT_EQ(wrap_to_int_dtype(-1, DType::I32), -1);
  EXPECT_EQ(wrap_to_int_dtype(INT64_MAX, DType::I32), -1);
  EXPECT_EQ(wrap_to_int_dtype(INT64_MIN, DType::I32), 0);
  EXPECT_EQ(wrap_to_int_dtype(INT64_MIN, DType::I64), INT64_MIN);
  EXPECT_EQ(wrap_to_int_dtype(INT64_MAX, DType::I64), INT64_MAX);
  EXPECT_EQ(wrap_to_int_dtype(2, DType::Bool), 1);
  EXPECT_EQ(wrap_to_int_dtype(-1, DType::Bool), 1);
  EXPECT_EQ(wrap_to_int_dtype(0, DType::Bool), 0);
  // Bool is "non-zero", not "low bit": 2^32 is true.
  EXPECT_EQ(wrap_to_int_dtype(int64_t{1} << 32, DType::Bool), 1);
}

}  // namespace
}  // namespace smelt::ir
