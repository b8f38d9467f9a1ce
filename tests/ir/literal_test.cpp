// ir::Literal: shared values, and the hash of their bits kept with them.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ir/literal.h"

namespace smelt::ir {
namespace {

TEST(Literal, EqualBitsInSeparateListsHashAlikeAndCompareAsTheSameBits) {
  const Literal a(std::vector<double>{1, 2, 3, 4}), b(std::vector<double>{1, 2, 3, 4});
  const Literal copy = a;  // shares a's list
  EXPECT_EQ(a.data(), copy.data());
  EXPECT_NE(a.data(), b.data());
  EXPECT_EQ(a.bits_hash(), b.bits_hash());
  EXPECT_EQ(a.bits_hash(), copy.bits_hash());  // the kept hash, read through a copy
  EXPECT_TRUE(same_bits(a, b));
  EXPECT_TRUE(same_bits(a, copy));
}

TEST(Literal, DifferentBitsHashApartAndAreNotTheSameBits) {
  const Literal a(std::vector<double>{1, 2, 3, 4}), b(std::vector<double>{1, 2, 3, 5});
  const Literal zero(std::vector<double>{0.0}), negative_zero(std::vector<double>{-0.0});
  const Literal shorter(std::vector<double>{1, 2, 3});
  EXPECT_NE(a.bits_hash(), b.bits_hash());
  EXPECT_FALSE(same_bits(a, b));
  EXPECT_FALSE(same_bits(a, shorter));
  // Bits, not values: 0.0 == -0.0, yet a weight of -0.0 is another constant.
  EXPECT_TRUE(zero == negative_zero);
  EXPECT_FALSE(same_bits(zero, negative_zero));
  EXPECT_NE(zero.bits_hash(), negative_zero.bits_hash());
  EXPECT_TRUE(same_bits(Literal(), Literal(std::vector<double>{})));
}

}  // namespace
}  // namespace smelt::ir
