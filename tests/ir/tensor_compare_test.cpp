// The one comparison rule (ir/tensor_compare.h) and the error scales the
// reference interpreter reports for it: a 1 % error in a small element of a
// large tensor fails; honest reassociation of long sums, cancelling ones
// included, passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "ir/builder.h"
#include "ir/interpreter.h"
#include "ir/tensor_compare.h"

namespace smelt::ir {
namespace {

// An f32 op's own error in units of rtol: 2 units of f32's last place (64 for
// an approximated op: exp, sigmoid, ...).
const double kOwn = 2 * std::ldexp(1.0, -24) / 1e-4;
const double kOwnApproximated = 64 * std::ldexp(1.0, -24) / 1e-4;

HostTensor f32_tensor(const Shape& shape, const std::vector<double>& values) {
  return HostTensor::from_values({DType::F32, shape}, values);
}

TEST(CompareOutput, AOnePercentErrorInASmallElementOfALargeTensorFails) {
  std::vector<double> want(4096, 500.0);
  want[17] = 0.02;  // small beside the rest
  std::vector<double> got = want;
  got[17] *= 1.01;
  const OutputDifference d = compare_output(f32_tensor({4096}, want), f32_tensor({4096}, got));
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.worst, 17);
  EXPECT_EQ(d.failed, 1);
  // The old rule (max error over the tensor's largest element) took it: 2e-4 / 500.
  EXPECT_LT(d.max_abs / 500.0, default_tolerance(DType::F32));
}

TEST(CompareOutput, EveryElementWithinItsBoundPasses) {
  const OutputDifference d = compare_output(f32_tensor({3}, {1000, 0.02, -3}), f32_tensor({3}, {1000.05, 0.020001, -3.0002}));
  EXPECT_TRUE(d.ok) << d.worst;
  EXPECT_EQ(d.failed, 0);
}

TEST(CompareOutput, NonFiniteElementsMustMatchExactly) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  EXPECT_TRUE(compare_output(f32_tensor({3}, {nan, inf, -inf}), f32_tensor({3}, {nan, inf, -inf})).ok);
  EXPECT_FALSE(compare_output(f32_tensor({1}, {nan}), f32_tensor({1}, {0})).ok);
  EXPECT_FALSE(compare_output(f32_tensor({1}, {1}), f32_tensor({1}, {nan})).ok);
  EXPECT_FALSE(compare_output(f32_tensor({1}, {inf}), f32_tensor({1}, {-inf})).ok);
  EXPECT_FALSE(compare_output(f32_tensor({1}, {inf}), f32_tensor({1}, {1e38})).ok);
}

TEST(CompareOutput, IntegersAreExactAndTypesMustAgree) {
  const HostTensor a = HostTensor::from_values({DType::I32, {2}}, {3, 4});
  EXPECT_TRUE(compare_output(a, a).ok);
  EXPECT_FALSE(compare_output(a, HostTensor::from_values({DType::I32, {2}}, {3, 5})).ok);
  EXPECT_FALSE(compare_output(f32_tensor({2}, {3, 4}), a).ok);
}

TEST(CompareOutput, ReportsTheWorstElementByItsIndex) {
  std::vector<double> want(24, 1.0), got(24, 1.0);
  got[1 * 12 + 2 * 4 + 3] = 1.5;
  const HostTensor w = f32_tensor({2, 3, 4}, want), g = f32_tensor({2, 3, 4}, got);
  const std::string text = compare_outputs(std::vector<HostTensor>{w}, {g});
  EXPECT_NE(text.find("element [1,2,3]"), std::string::npos) << text;
  EXPECT_NE(text.find("1 of 24 elements outside"), std::string::npos) << text;
}

// [1, K] x [K, 1]: f32 sums of K products in another order than the
// reference's double sum, as a compiled kernel computes them.
struct LongSum {
  Reference reference;
  std::vector<double> a, b;
};

LongSum long_sum(int64_t k, bool cancelling, uint64_t seed) {
  Graph g("dot");
  Tensor x = input(g, "x", DType::F32, {1, k}), y = input(g, "y", DType::F32, {k, 1});
  g.add_output(matmul(x, y));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  std::vector<double> a(static_cast<size_t>(k)), b(static_cast<size_t>(k));
  for (int64_t i = 0; i < k; ++i) {
    a[i] = static_cast<float>(u(rng) * 100);
    b[i] = static_cast<float>(u(rng));
  }
  if (cancelling)  // the second half cancels the first to within a few units
    for (int64_t i = k / 2; i < k; ++i) {
      a[i] = -a[i - k / 2];
      b[i] = static_cast<float>(b[i - k / 2] * (1 + 1e-5 * u(rng)));
    }
  LongSum s{interpret_with_error_scales(g, {f32_tensor({1, k}, a), f32_tensor({k, 1}, b)}), a, b};
  return s;
}

// The f32 sum of the products in reverse order, in blocks of 8 (as a vectorized loop).
double reassociated_f32(const LongSum& s) {
  std::vector<float> lanes(8, 0.0f);
  for (size_t i = s.a.size(); i-- > 0;) lanes[i % 8] += static_cast<float>(s.a[i]) * static_cast<float>(s.b[i]);
  float sum = 0;
  for (float lane : lanes) sum += lane;
  return sum;
}

TEST(ErrorScale, HonestReassociationOfLongSumsPasses) {
  for (const bool cancelling : {false, true})
    for (const int64_t k : {16, 4096, 65536}) {
      const LongSum s = long_sum(k, cancelling, 7 + k);
      const HostTensor got = f32_tensor({1, 1}, {reassociated_f32(s)});
      const OutputDifference d = compare_output(s.reference.values[0], got, &s.reference.error_scales[0]);
      EXPECT_TRUE(d.ok) << "k " << k << (cancelling ? " cancelling" : "") << ": want " << s.reference.values[0].get(0)
                        << " got " << got.get(0) << " scale " << s.reference.error_scales[0].get(0);
      if (cancelling && k >= 4096) {
        // Without the error scale the cancelling element fails: it is judged by its own size.
        EXPECT_FALSE(compare_output(s.reference.values[0], got).ok) << k;
      }
    }
}

TEST(ErrorScale, ASumCarriesTheSizeOfItsTermsAndAnExactCopyNone) {
  Graph g("sum");
  Tensor x = input(g, "x", DType::F32, {4});
  g.add_output(reduce_sum(x, {0}));
  g.add_output(reshape(x, {2, 2}));
  const Reference r = interpret_with_error_scales(g, {f32_tensor({4}, {100, -100, 3, -2})});
  EXPECT_DOUBLE_EQ(r.values[0].get(0), 1);
  // Its own error (2 f32 units of the last place of |1|), plus what an f32 sum
  // of 4 terms may lose: the larger of 4 2^-24 of the terms' size 205 and
  // 4 sqrt(4) 2^-24 of its value 1, in units of f32's rtol 1e-4.
  const double u = std::ldexp(1.0, -24) / 1e-4;
  EXPECT_NEAR(r.error_scales[0].get(0), kOwn + 4 * u * 205, 1e-5);
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(r.error_scales[1].get(i), 0) << "a view of an input is exact";
}

TEST(ErrorScale, ASlopeCarriesTheOperandsScale) {
  Graph g("exp_of_sum");
  Tensor x = input(g, "x", DType::F32, {2});
  Tensor s = reduce_sum(x, {0});
  g.add_output(exp(s));
  const Reference r = interpret_with_error_scales(g, {f32_tensor({2}, {1.5, -0.5})});
  // exp(1) = e: its own error, plus slope e times the sum's scale (its own and
  // the share of its terms' size 2 an f32 sum of 2 terms may lose).
  const double u = std::ldexp(1.0, -24) / 1e-4;
  const double sum_scale = kOwn + 4 * u * 2;
  EXPECT_NEAR(r.error_scales[0].get(0), std::exp(1.0) * (kOwnApproximated + sum_scale), 1e-4);  // a secant
}

TEST(ErrorScale, AComparisonOfNearlyEqualValuesIsUnchecked) {
  Graph g("tie");
  Tensor x = input(g, "x", DType::F32, {3}), y = input(g, "y", DType::F32, {3});
  Tensor sx = mul(x, full(g, {3}, 1.0)), sy = add(y, full(g, {3}, 0.0));
  g.add_output(where(lt(sx, sy), full(g, {3}, 1.0), full(g, {3}, -1.0)));
  const Reference r = interpret_with_error_scales(g, {f32_tensor({3}, {1, 2, 3}), f32_tensor({3}, {1.0000001, 5, 0})});
  EXPECT_TRUE(std::isinf(r.error_scales[0].get(0))) << "1 < 1.0000001 (one unit of the last place above) may flip under f32 rounding";
  EXPECT_FLOAT_EQ(r.error_scales[0].get(1), kOwn);  // where's own error on |1|
  EXPECT_FLOAT_EQ(r.error_scales[0].get(2), kOwn);
  const OutputDifference d = compare_output(r.values[0], f32_tensor({3}, {-1, 1, -1}), &r.error_scales[0]);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.unchecked, 1);
}

// The mutation: an MLP's last SiLU computed as x * sigmoid(1.05 x).
// Largest output ~ 100, many outputs far smaller: the old rule (1e-4 of the
// largest) let it pass; per element it fails.
TEST(ErrorScale, ASiluWithA5PercentSlopeErrorFails) {
  auto mlp = [](double slope) {
    Graph g("mlp");
    Tensor x = input(g, "x", DType::F32, {8, 64}), w = input(g, "w", DType::F32, {64, 32});
    Tensor h = matmul(x, w);
    Tensor hs = slope == 1 ? h : mul(h, full(g, {8, 32}, slope));
    g.add_output(mul(h, sigmoid(hs)));
    return g;
  };
  std::mt19937_64 rng(3);
  const Graph good = mlp(1), bad = mlp(1.05);
  std::vector<HostTensor> inputs;
  for (ValueId v : good.inputs()) inputs.push_back(random_tensor(good.type(v), rng));
  for (double& v : inputs[1].reals) v *= 4;  // outputs up to ~ tens
  const Reference want = interpret_with_error_scales(good, inputs);
  const std::vector<HostTensor> got = interpret(bad, inputs);
  EXPECT_NE(compare_outputs(want, got), "");
  EXPECT_EQ(compare_outputs(want, interpret(good, inputs)), "");
}

}  // namespace
}  // namespace smelt::ir
