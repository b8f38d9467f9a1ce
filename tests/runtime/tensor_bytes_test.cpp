#include "runtime/tensor_bytes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "ir/dtype.h"

namespace smelt {
namespace {

using ir::DType;
using ir::HostTensor;
using ir::TensorType;

template <typename T>
T element(const std::vector<uint8_t>& bytes, size_t i) {
  T v;
  std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}

TEST(TensorBytes, SizesFollowTheDtype) {
  EXPECT_EQ(runtime::storage_bytes({DType::F32, {2, 3}}), 24u);
  EXPECT_EQ(runtime::storage_bytes({DType::F16, {5}}), 10u);
  EXPECT_EQ(runtime::storage_bytes({DType::BF16, {5}}), 10u);
  EXPECT_EQ(runtime::storage_bytes({DType::I64, {}}), 8u);
  EXPECT_EQ(runtime::storage_bytes({DType::Bool, {7}}), 7u);
  EXPECT_EQ(runtime::storage_bytes({DType::I32, {0, 4}}), 0u);
}

TEST(TensorBytes, F32IsRowMajorFloats) {
  HostTensor t = HostTensor::from_values({DType::F32, {2, 2}}, {1.5, -2, 0.25, 3e38});
  auto bytes = runtime::to_bytes(t);
  ASSERT_EQ(bytes.size(), 16u);
  EXPECT_EQ(element<float>(bytes, 0), 1.5f);
  EXPECT_EQ(element<float>(bytes, 1), -2.0f);
  EXPECT_EQ(element<float>(bytes, 2), 0.25f);
  EXPECT_EQ(element<float>(bytes, 3), 3e38f);
}

TEST(TensorBytes, HalfTypesAreTheBitsIrRoundsTo) {
  // Values that need rounding: the tensor holds them rounded already, the bytes
  // must be exactly ir's bits for that value.
  const std::vector<double> values = {0.1, -1.0 / 3, 65504, 1e-7, 3.14159, -0.0, 1e5};
  for (DType t : {DType::F16, DType::BF16}) {
    HostTensor h = HostTensor::from_values({t, {7}}, values);
    auto bytes = runtime::to_bytes(h);
    for (size_t i = 0; i < values.size(); ++i) {
      const float rounded = static_cast<float>(h.reals[i]);
      const uint16_t want = t == DType::F16 ? ir::f32_to_f16_bits(rounded) : ir::f32_to_bf16_bits(rounded);
      EXPECT_EQ(element<uint16_t>(bytes, i), want) << ir::dtype_name(t) << " " << values[i];
    }
    EXPECT_EQ(element<uint16_t>(bytes, 0), t == DType::F16 ? 0x2e66 : 0x3dcd);  // 0.1, round to nearest even
  }
}

TEST(TensorBytes, RawDoublesRoundToNearestEvenOnce) {
  // A HostTensor whose values were set directly (not rounded): writing rounds
  // as ir does, double → dtype in one rounding (no double rounding via f32).
  HostTensor t = HostTensor::zeros({DType::F16, {2}});
  t.reals = {1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40),  // just above the tie: rounds up
             1.0 + std::ldexp(1.0, -11)};                          // the tie: rounds to even (1.0)
  auto bytes = runtime::to_bytes(t);
  EXPECT_EQ(element<uint16_t>(bytes, 0), 0x3c01);
  EXPECT_EQ(element<uint16_t>(bytes, 1), 0x3c00);
}

TEST(TensorBytes, IntegersAndBools) {
  HostTensor i32 = HostTensor::from_values({DType::I32, {3}}, {-1, 2147483647, -2147483648.0});
  auto b32 = runtime::to_bytes(i32);
  EXPECT_EQ(element<int32_t>(b32, 0), -1);
  EXPECT_EQ(element<int32_t>(b32, 1), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(element<int32_t>(b32, 2), std::numeric_limits<int32_t>::min());
  HostTensor i64 = HostTensor::zeros({DType::I64, {1}});
  i64.set_int(0, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(element<int64_t>(runtime::to_bytes(i64), 0), std::numeric_limits<int64_t>::min());
  HostTensor b = HostTensor::from_values({DType::Bool, {3}}, {1, 0, 1});
  auto bb = runtime::to_bytes(b);
  EXPECT_EQ(bb, (std::vector<uint8_t>{1, 0, 1}));
}

TEST(TensorBytes, RoundTripsEveryDtype) {
  std::mt19937_64 rng(3);
  for (DType t : ir::kAllDTypes) {
    TensorType type{t, {3, 5}};
    HostTensor a = ir::random_tensor(type, rng);
    HostTensor b = runtime::from_bytes(type, runtime::to_bytes(a));
    EXPECT_EQ(a.type, b.type);
    EXPECT_EQ(a.reals, b.reals) << ir::dtype_name(t);
    EXPECT_EQ(a.ints, b.ints) << ir::dtype_name(t);
  }
}

TEST(TensorBytes, ReadsSpecialValues) {
  std::vector<uint8_t> f16 = {0x00, 0x7c, 0x00, 0xfe, 0x01, 0x00};  // +inf, NaN, smallest subnormal
  HostTensor t = runtime::from_bytes({DType::F16, {3}}, f16);
  EXPECT_TRUE(std::isinf(t.reals[0]) && t.reals[0] > 0);
  EXPECT_TRUE(std::isnan(t.reals[1]));
  EXPECT_EQ(t.reals[2], std::ldexp(1.0, -24));
  HostTensor b = runtime::from_bytes({DType::Bool, {2}}, std::vector<uint8_t>{0, 7});
  EXPECT_EQ(b.ints, (std::vector<int64_t>{0, 1}));
}

TEST(TensorBytes, WrongSizeIsAClearError) {
  try {
    runtime::from_bytes({DType::F32, {4}}, std::vector<uint8_t>(12));
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "f32[4] takes 16 bytes, got 12");
  }
}

}  // namespace
}  // namespace smelt
