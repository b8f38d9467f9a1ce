// The host JIT's elementwise, load and reduction semantics on the edge cases
// the reference interpreter defines (docs/ops.md, ir/scalar.cpp): each graph
// is run fused (one kernel where legal) and unfused, compared with the
// reference, and the defining values are also checked literally.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include "ir/builder.h"
#include "ir/interpreter.h"
#include "kernel/kernel_interpreter.h"
#include "fusion/kernelize.h"
#include "ir/tensor_compare.h"
#include "lower/lower.h"
#include "tests/lower/jit_runner.h"

namespace smelt {
namespace {

using ir::DType;
using ir::HostTensor;
using smelt::testing::run_on_host_jit;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

HostTensor tensor(DType dtype, ir::Shape shape, const std::vector<double>& values) {
  return HostTensor::from_values({dtype, std::move(shape)}, values);
}

// The fused program's outputs, after checking that both the fused and the
// unfused program match the reference.
std::vector<HostTensor> run_checked(const ir::Graph& g, const std::vector<HostTensor>& inputs) {
  const ir::Reference want = ir::interpret_with_error_scales(g, inputs);
  const kernel::KernelProgram fused = fusion::kernelize_program(g, std::vector<bool>(g.size(), false));
  const kernel::KernelProgram unfused = fusion::kernelize_program(g, fusion::materialize_everything(g));
  std::vector<HostTensor> got = run_on_host_jit(fused, inputs);
  EXPECT_EQ(ir::compare_outputs(want, got), "") << "fused\n" << kernel::print_program(fused);
  EXPECT_EQ(ir::compare_outputs(want, run_on_host_jit(unfused, inputs)), "") << "unfused";
  return got;
}

std::vector<double> values_of(const HostTensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.get(i));
  return v;
}

TEST(HostSemantics, IntegerDivisionByZeroAndMinByMinusOne) {
  for (DType dtype : {DType::I32, DType::I64}) {
    const double min = dtype == DType::I32 ? INT32_MIN : -9007199254740992.0;  // i64 literals stop at 2^53
    ir::Graph g("div");
    auto a = ir::input(g, "a", dtype, {6});
    auto b = ir::input(g, "b", dtype, {6});
    g.add_output(a / b);
    auto out = run_checked(g, {tensor(dtype, {6}, {7, -7, 5, min, min, 0}), tensor(dtype, {6}, {0, 2, -1, -1, 1, 3})});
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{0, -3, -5, dtype == DType::I32 ? min : -min, min, 0}));
  }
}

TEST(HostSemantics, IntegerArithmeticWraps) {
  ir::Graph g("wrap");
  auto a = ir::input(g, "a", DType::I32, {3});
  g.add_output(a + a);
  g.add_output(a * a);
  g.add_output(ir::abs(a));
  g.add_output(-a);
  auto out = run_checked(g, {tensor(DType::I32, {3}, {INT32_MAX, INT32_MIN, -3})});
  EXPECT_EQ(values_of(out[0]), (std::vector<double>{-2, 0, -6}));
  EXPECT_EQ(values_of(out[2]), (std::vector<double>{INT32_MAX, INT32_MIN, 3}));
  EXPECT_EQ(values_of(out[3]), (std::vector<double>{INT32_MIN + 1.0, INT32_MIN, 3}));
}

TEST(HostSemantics, MaxMinReluAndReduceMaxPropagateNaN) {
  ir::Graph g("nan");
  auto a = ir::input(g, "a", DType::F32, {2, 3});
  auto b = ir::input(g, "b", DType::F32, {2, 3});
  g.add_output(ir::max(a, b));
  g.add_output(ir::min(a, b));
  g.add_output(ir::relu(a));
  g.add_output(ir::reduce_max(a, {1}));
  auto out = run_checked(g, {tensor(DType::F32, {2, 3}, {kNaN, 1, -2, 3, -kInf, 0.5}),
                             tensor(DType::F32, {2, 3}, {1, kNaN, 5, -1, 2, 0.25})});
  EXPECT_TRUE(std::isnan(out[0].reals[0]) && std::isnan(out[0].reals[1]));
  EXPECT_EQ(out[0].reals[2], 5);
  EXPECT_TRUE(std::isnan(out[1].reals[0]) && std::isnan(out[1].reals[1]));
  EXPECT_TRUE(std::isnan(out[2].reals[0]));
  EXPECT_EQ(out[2].reals[2], 0);
  EXPECT_TRUE(std::isnan(out[3].reals[0]));
  EXPECT_EQ(out[3].reals[1], 3);
}

TEST(HostSemantics, FloatToIntCastsTruncateSaturateAndWrap) {
  ir::Graph g("cast");
  auto a = ir::input(g, "a", DType::F32, {7});
  g.add_output(ir::cast(a, DType::I32));
  g.add_output(ir::cast(a, DType::I64));
  g.add_output(ir::cast(a, DType::Bool));
  auto out = run_checked(g, {tensor(DType::F32, {7}, {3.9, -3.9, kNaN, 1e20, -1e20, 3e9, -0.0})});
  // 3e9 does not fit i32: truncated in int64, then wrapped.
  EXPECT_EQ(values_of(out[0]), (std::vector<double>{3, -3, 0, -1, 0, 3e9 - 4294967296.0, 0}));
  EXPECT_EQ(out[1].ints[3], INT64_MAX);
  EXPECT_EQ(out[1].ints[4], INT64_MIN);
  EXPECT_EQ(values_of(out[2]), (std::vector<double>{1, 1, 1, 1, 1, 1, 0}));
}

TEST(HostSemantics, IntegerAndBoolCasts) {
  ir::Graph g("icast");
  auto a = ir::input(g, "a", DType::I64, {4});
  g.add_output(ir::cast(a, DType::I32));
  g.add_output(ir::cast(a, DType::Bool));
  g.add_output(ir::cast(ir::cast(a, DType::Bool), DType::F32));
  g.add_output(ir::cast(a, DType::F16));
  auto out = run_checked(g, {tensor(DType::I64, {4}, {4294967297.0, 0, -5, 70000})});
  EXPECT_EQ(values_of(out[0]), (std::vector<double>{1, 0, -5, 70000}));
  EXPECT_EQ(values_of(out[1]), (std::vector<double>{1, 0, 1, 1}));
  EXPECT_EQ(values_of(out[2]), (std::vector<double>{1, 0, 1, 1}));
  EXPECT_EQ(out[3].reals[3], kInf);  // beyond f16's 65504
}

TEST(HostSemantics, HalfAndBfloatRoundToNearestEvenAfterEveryOp) {
  ir::Graph g("round");
  auto a = ir::input(g, "a", DType::F32, {6});
  auto h = ir::cast(a, DType::F16);
  auto bf = ir::cast(a, DType::BF16);
  g.add_output(h);
  g.add_output(bf);
  g.add_output(h + h + h);
  g.add_output(bf * bf);
  // 1 + 2^-11 is halfway between two f16 values: ties to even (1); 1 + 3·2^-11 rounds up.
  auto out = run_checked(g, {tensor(DType::F32, {6}, {1.00048828125, 1.00146484375, 65520, 1e-8, kNaN, 1.00390625})});
  EXPECT_EQ(out[0].reals[0], 1.0);
  EXPECT_EQ(out[0].reals[1], 1.001953125);
  EXPECT_EQ(out[0].reals[2], kInf);
  EXPECT_TRUE(std::isnan(out[0].reals[4]));
  EXPECT_EQ(out[1].reals[5], 1.0);  // 1 + 2^-8 is bf16's tie: to even
  EXPECT_TRUE(std::isnan(out[1].reals[4]));
}

TEST(HostSemantics, TranscendentalsInEveryFloatDtype) {
  for (DType dtype : {DType::F32, DType::F16, DType::BF16}) {
    ir::Graph g("math");
    auto a = ir::input(g, "a", dtype, {4, 33});
    auto b = ir::input(g, "b", dtype, {4, 33});
    auto positive = ir::abs(a) + ir::full(g, {4, 33}, 0.5, dtype);
    g.add_output(ir::exp(a) + ir::exp2(b) + ir::log(positive) + ir::log2(positive));
    g.add_output(ir::sin(a) * ir::cos(b) + ir::tanh(a) + ir::erf(b));
    g.add_output(ir::gelu(a) + ir::sigmoid(b) + ir::sqrt(positive) + ir::rsqrt(positive) + ir::recip(positive));
    g.add_output(ir::pow(positive, b) / positive - ir::neg(a));
    g.add_output(ir::pow(ir::full(g, {4, 33}, 2, dtype), b));  // lowered as exp2(b)
    std::mt19937_64 rng(3);
    run_checked(g, {ir::random_tensor({dtype, {4, 33}}, rng), ir::random_tensor({dtype, {4, 33}}, rng)});
  }
}

// gelu keeps its relative accuracy where it is tiny: 0.5·x·(1 + erf(x/√2))
// rounded to -0 below x ≈ -5.3 (found by compiled_properties: log(gelu(-6))
// gave -inf, the reference NaN). Within 1e-5 relative of the double form
// (the f32 square in exp(-x²/2) costs that much far out).
TEST(HostSemantics, GeluIsAccurateFarBelowZero) {
  const std::vector<double> xs = {-13, -10, -8, -6, -5.5, -3, -1, -0.25, -1e-6, 0, 1e-6, 0.25, 1, 3, 6, 30};
  ir::Graph g("gelu");
  auto x = ir::input(g, "x", DType::F32, {static_cast<int64_t>(xs.size())});
  g.add_output(ir::gelu(x));
  auto out = run_checked(g, {tensor(DType::F32, {static_cast<int64_t>(xs.size())}, xs)});
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = 0.5 * xs[i] * std::erfc(-xs[i] * 0.70710678118654752440);
    EXPECT_NEAR(out[0].reals[i], want, 1e-5 * std::abs(want) + 1e-44) << "gelu(" << xs[i] << ")";
    if (xs[i] < 0) {
      EXPECT_LT(out[0].reals[i], 0.0) << "gelu(" << xs[i] << ")";
    }
  }
}

// 2^y is computed as exp2(y): its special values are pow's.
TEST(HostSemantics, PowOfTwoIsExp2WithPowsSpecialValues) {
  ir::Graph g("pow2");
  auto y = ir::input(g, "y", DType::F32, {7});
  g.add_output(ir::pow(ir::full(g, {7}, 2), y));
  auto out = run_checked(g, {tensor(DType::F32, {7}, {-kInf, kInf, kNaN, 0, 10, -150, 0.5})});
  EXPECT_EQ(out[0].reals[0], 0.0);
  EXPECT_EQ(out[0].reals[1], kInf);
  EXPECT_TRUE(std::isnan(out[0].reals[2]));
  EXPECT_EQ(out[0].reals[3], 1.0);
  EXPECT_EQ(out[0].reals[4], 1024.0);
  EXPECT_NEAR(out[0].reals[6], std::sqrt(2.0), 1e-6);
}

// x^3 and x^4 are computed as products (the vector pow took its scalar path
// for negative bases: GELU's cube cost 6 of a product's 10 ms): pow's values
// for either sign, zeros, infinities, NaN and overflow; no pow call is left.
TEST(HostSemantics, PowOfThreeAndFourAreProductsWithPowsValues) {
  const std::vector<double> xs = {-kInf, -1e20, -2.5, -1, -0.0, 0, 1e-20, 0.75, 3, 1e13, kInf, kNaN};
  const int64_t n = static_cast<int64_t>(xs.size());
  ir::Graph g("cube");
  auto x = ir::input(g, "x", DType::F32, {n});
  g.add_output(ir::pow(x, ir::full(g, {n}, 3)));
  g.add_output(ir::pow(x, ir::full(g, {n}, 4)));
  auto out = run_checked(g, {tensor(DType::F32, {n}, xs)});
  for (size_t i = 0; i < xs.size(); ++i) {
    const float f = static_cast<float>(xs[i]);
    for (int e : {3, 4}) {
      const double want = static_cast<float>(std::pow(f, static_cast<float>(e)));
      const double got = out[static_cast<size_t>(e - 3)].reals[i];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << xs[i] << "^" << e;
      } else if (std::isinf(want)) {
        EXPECT_EQ(got, want) << xs[i] << "^" << e;
      } else {
        EXPECT_NEAR(got, want, 3e-7 * std::abs(want)) << xs[i] << "^" << e;
        EXPECT_EQ(std::signbit(got), std::signbit(want)) << xs[i] << "^" << e;
      }
    }
  }
  const std::string text = lower::emit_llvm_ir(fusion::kernelize_program(g, std::vector<bool>(g.size(), false)), {});
  EXPECT_EQ(text.find("pow"), std::string::npos) << text;
}

// exp2 is composed from exp and a power of two (lower/composed_math.h):
// within 1e-6 relative of the C library over the whole f32 range, denormal
// results included, inf above 128 and 0 at -150 and below.
TEST(HostSemantics, Exp2MatchesTheCLibraryOverItsRange) {
  const std::vector<double> xs = {-3.4e38, -300, -254.2, -253.5, -200, -160, -150, -149.5, -140.2, -126.3, -0.3, 0, 0.7, 1, 50.25, 127.9, 128.5, -1e-7};
  ir::Graph g("exp2");
  auto x = ir::input(g, "x", DType::F32, {static_cast<int64_t>(xs.size())});
  g.add_output(ir::exp2(x));
  auto out = run_checked(g, {tensor(DType::F32, {static_cast<int64_t>(xs.size())}, xs)});
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = std::exp2(static_cast<double>(static_cast<float>(xs[i])));
    const double got = out[0].reals[i];
    if (want > 3.4028234663852886e38) {
      EXPECT_EQ(got, kInf) << xs[i];
    } else if (want < 1.1754943508222875e-38) {  // a denormal result: within one denormal step
      EXPECT_NEAR(got, want, 1.5e-45) << xs[i];
    } else {
      EXPECT_NEAR(got / want, 1.0, 1e-6) << xs[i];
    }
  }
}

// exp, sin and cos are inline polynomials in the vectorized loops (exp from
// lower/composed_math.h; sin and cos, lower/host_vector_math.h: the fast formula
// up to |x| = 2^20, the C library beyond). Against the C library in double,
// rounded to f32: within 3 ulp everywhere, special values exact. 4096 values
// per row, so that the vector loop (not its scalar remainder) computes them;
// each row holds a few values beyond 2^20 among ordinary ones.
TEST(HostSemantics, ExpSinAndCosMatchTheCLibraryInUlps) {
  std::mt19937_64 rng(29);
  std::vector<double> xs;
  std::uniform_real_distribution<double> unit(-1, 1);
  for (double scale : {1e-30, 1e-3, 1.0, 3.2, 10.0, 104.0, 1e3, 1e5, 1048576.0})
    for (int i = 0; i < 400; ++i) xs.push_back(static_cast<float>(scale * unit(rng)));
  for (int k = -300; k <= 300; ++k) xs.push_back(static_cast<float>(k * 3.14159265358979323846 / 2));  // near zeros
  for (double v : {0.0, -0.0, kInf, -kInf, kNaN, 1048576.0, 1048577.0, -3e6, 1e10, 3.4e38, -88.7, 88.8, 89.0,
                   -87.4, -103.0, -103.97, -103.98, -104.5, -150.0, -175.9, -176.0, -176.3, -200.0, -3.4e38, 1e-45})
    xs.push_back(v);
  while (xs.size() % 4096 != 0) xs.push_back(unit(rng) * 7);
  for (double& v : xs) v = static_cast<float>(v);  // the inputs are f32: want f(x) at the f32 value
  const auto n = static_cast<int64_t>(xs.size());
  ir::Graph g("ulps");
  auto x = ir::input(g, "x", DType::F32, {n / 4096, 4096});
  g.add_output(ir::exp(x));
  g.add_output(ir::sin(x));
  g.add_output(ir::cos(x));
  const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_everything(g));
  const auto out = run_on_host_jit(program, {tensor(DType::F32, {n / 4096, 4096}, xs)});
  double (*reference[])(double) = {[](double v) { return std::exp(v); }, [](double v) { return std::sin(v); },
                                   [](double v) { return std::cos(v); }};
  const char* names[] = {"exp", "sin", "cos"};
  for (size_t f = 0; f < 3; ++f) {
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double want_double = reference[f](xs[static_cast<size_t>(i)]);
      const float want = static_cast<float>(want_double);
      const float got = static_cast<float>(out[f].get(i));
      if (std::isnan(want) || std::isinf(want) || want == 0) {
        EXPECT_TRUE(std::isnan(want) ? std::isnan(got) : got == want) << names[f] << "(" << xs[i] << ") = " << got;
        continue;
      }
      // ulps of f32 at the wanted value (denormals: the smallest step)
      const double ulp = std::max(std::abs(static_cast<double>(std::nextafter(want, std::numeric_limits<float>::infinity())) - want), 1.401298464324817e-45);
      worst = std::max(worst, std::abs(got - want_double) / ulp);
      EXPECT_LE(std::abs(got - want_double) / ulp, 3.0) << names[f] << "(" << xs[i] << ") = " << got << ", want " << want;
    }
    std::printf("%s: worst error %.2f ulp over %lld values\n", names[f], worst, static_cast<long long>(n));
  }
}

TEST(HostSemantics, ComparisonsWhereAndBools) {
  ir::Graph g("where");
  auto a = ir::input(g, "a", DType::F32, {5});
  auto zero = ir::full(g, {5}, 0);
  // The untaken branch (log of a negative: NaN) never leaks.
  g.add_output(ir::where(ir::lt(zero, a), ir::log(a), zero));
  g.add_output(ir::eq(ir::le(a, zero), ir::lt(a, zero)));
  auto i = ir::input(g, "i", DType::I32, {5});
  g.add_output(ir::where(ir::eq(i, ir::full(g, {5}, 0, DType::I32)), i, i / i));
  auto out = run_checked(g, {tensor(DType::F32, {5}, {-1, 0, kNaN, 1, -kInf}), tensor(DType::I32, {5}, {0, 1, -4, 0, 9})});
  EXPECT_EQ(values_of(out[0])[0], 0);
  EXPECT_EQ(values_of(out[0])[3], 0);
  EXPECT_EQ(values_of(out[1]), (std::vector<double>{1, 0, 1, 1, 1}));
  EXPECT_EQ(values_of(out[2]), (std::vector<double>{0, 1, 1, 0, 1}));
}

TEST(HostSemantics, PadsSlicesAndConcatsReadPadValues) {
  ir::Graph g("views");
  auto x = ir::input(g, "x", DType::F32, {3, 4});
  auto padded = ir::pad(ir::cos(ir::slice_axis(x, 1, 1, 4, 2)), {1, 0}, {0, 2}, -7);
  g.add_output(padded);
  g.add_output(ir::concat({x, ir::slice_axis(x, 1, 3, 0, -1)}, 1));
  g.add_output(ir::permute(ir::reshape(x, {2, 6}), {1, 0}));
  std::mt19937_64 rng(5);
  auto out = run_checked(g, {ir::random_tensor({DType::F32, {3, 4}}, rng)});
  EXPECT_EQ(out[0].reals[0], -7);  // row 0 is padding
}

// Rows long enough for the vectorized loop bodies (and their remainders):
// masked and strided loads become gathers / selects there.
TEST(HostSemantics, ViewsOverLongRows) {
  for (DType dtype : {DType::F32, DType::F16, DType::I32, DType::Bool}) {
    ir::Graph g("long_views");
    auto x = ir::input(g, "x", dtype, {6, 70});
    auto y = ir::input(g, "y", dtype, {70, 6});
    g.add_output(ir::pad(ir::slice_axis(x, 1, 3, 70, 2), {1, 5}, {2, 9}, 1));
    g.add_output(ir::concat({x, ir::slice_axis(x, 1, 69, 0, -1), ir::permute(y, {1, 0})}, 1));
    g.add_output(ir::reshape(ir::permute(ir::reshape(x, {6, 7, 10}), {0, 2, 1}), {60, 7}));
    g.add_output(ir::broadcast(ir::slice_axis(x, 0, 2, 3), {4, 6, 70}));
    if (dtype != DType::Bool) g.add_output(ir::reduce_sum(ir::pad(x, {0, 3}, {0, 0}, 1), {1}));
    std::mt19937_64 rng(19);
    run_checked(g, {ir::random_tensor({dtype, {6, 70}}, rng), ir::random_tensor({dtype, {70, 6}}, rng)});
  }
}

// A load whose index lies far outside its buffer wherever its mask is false:
// reading there would fault; the pad value must come back instead.
TEST(HostSemantics, MaskedLoadsNeverTouchMemoryOutsideTheMask) {
  kernel::KernelProgram p;
  p.buffers.push_back({"x", {DType::F32, {4}}, kernel::BufferKind::kInput, 0, {}});
  p.buffers.push_back({"y", {DType::F32, {64}}, kernel::BufferKind::kOutput, 0, {}});
  kernel::Kernel k;
  k.name = "masked";
  k.space = {64};
  kernel::IndexRef i = k.indices.var(0);
  kernel::IndexRef inside = k.indices.lt(i, k.indices.constant(4));
  kernel::IndexRef far = k.indices.mul(k.indices.logical_not(inside), k.indices.constant(int64_t{1} << 40));
  k.exprs.push_back(kernel::make_load(0, {k.indices.add(i, far)}, DType::F32, inside, 2.5));
  k.outputs.push_back({1, 0});
  p.kernels.push_back(k);
  const HostTensor x = tensor(DType::F32, {4}, {1, 2, 3, 4});
  const auto got = run_on_host_jit(p, {x});
  EXPECT_EQ(ir::compare_outputs(kernel::run_kernels(p, {x}), got), "");
  EXPECT_EQ(got[0].reals[3], 4);
  EXPECT_EQ(got[0].reals[63], 2.5);
}

TEST(HostSemantics, FloorDivisionAndModOfNegativeIndices) {
  // y[i] = x[(i - 5) floordiv 3 + 2] * 10 + ((i - 5) mod 3): exercises negative numerators.
  kernel::KernelProgram p;
  p.buffers.push_back({"x", {DType::I64, {5}}, kernel::BufferKind::kInput, 0, {}});
  p.buffers.push_back({"y", {DType::I64, {12}}, kernel::BufferKind::kOutput, 0, {}});
  kernel::Kernel k;
  k.name = "floor";
  k.space = {12};
  kernel::IndexPool& ix = k.indices;
  kernel::IndexRef shifted = ix.sub(ix.var(0), ix.constant(5));
  kernel::IndexRef q = ix.add(ix.floor_div(shifted, ix.constant(3)), ix.constant(2));
  k.exprs.push_back(kernel::make_load(0, {q}, DType::I64));
  k.exprs.push_back(kernel::make_constant(10, DType::I64));
  k.exprs.push_back(kernel::make_elementwise(ir::Op::Mul, {0, 1}, DType::I64));
  k.exprs.push_back(kernel::make_index_value(ix.mod(shifted, ix.constant(3)), DType::I64));
  k.exprs.push_back(kernel::make_elementwise(ir::Op::Add, {2, 3}, DType::I64));
  k.outputs.push_back({1, 4});
  p.kernels.push_back(k);
  const HostTensor x = tensor(DType::I64, {5}, {100, 200, 300, 400, 500});
  EXPECT_EQ(ir::compare_outputs(kernel::run_kernels(p, {x}), run_on_host_jit(p, {x})), "");
}

TEST(HostSemantics, EmptyReductionDomainGivesTheIdentity) {
  ir::Graph g("empty_reduce");
  auto a = ir::input(g, "a", DType::F32, {3, 0});
  auto n = ir::input(g, "n", DType::I32, {2, 0});
  g.add_output(ir::reduce_sum(a, {1}));
  g.add_output(ir::reduce_max(a, {1}));
  g.add_output(ir::reduce_max(n, {1}));
  g.add_output(ir::exp(ir::reduce_sum(a, {1})));
  auto out = run_checked(g, {tensor(DType::F32, {3, 0}, {}), tensor(DType::I32, {2, 0}, {})});
  EXPECT_EQ(values_of(out[0]), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(out[1].reals[0], -kInf);
  EXPECT_EQ(out[2].ints[0], INT32_MIN);
}

TEST(HostSemantics, RankZeroAndZeroSizeTensors) {
  ir::Graph g("shapes");
  auto s = ir::input(g, "s", DType::F32, {});
  auto m = ir::input(g, "m", DType::F32, {4, 5});
  auto z = ir::input(g, "z", DType::F32, {0, 5});
  auto z1 = ir::input(g, "z1", DType::I32, {0});
  g.add_output(ir::exp(s));
  g.add_output(ir::reduce_sum(m, {0, 1}));
  g.add_output(ir::relu(z));
  g.add_output(z1 + z1);
  g.add_output(ir::broadcast(s, {3, 2}));
  std::mt19937_64 rng(11);
  auto out = run_checked(g, {ir::random_tensor({DType::F32, {}}, rng), ir::random_tensor({DType::F32, {4, 5}}, rng),
                             tensor(DType::F32, {0, 5}, {}), tensor(DType::I32, {0}, {})});
  EXPECT_EQ(out[2].numel(), 0);
  EXPECT_EQ(out[3].numel(), 0);
}

TEST(HostSemantics, ReductionsWithPrologueAndEpilogue) {
  ir::Graph g("softmax");
  auto x = ir::input(g, "x", DType::F32, {5, 37});
  auto m = ir::reduce_max(x, {1}, true);
  auto e = ir::exp(x - ir::broadcast(m, {5, 37}));
  auto s = ir::reduce_sum(e, {1}, true);
  g.add_output(e / ir::broadcast(s, {5, 37}));
  g.add_output(ir::reduce_sum(ir::cast(x, DType::BF16), {0}));
  auto i = ir::input(g, "i", DType::I64, {3, 4, 5});
  g.add_output(ir::reduce_sum(i * i, {0, 2}));
  std::mt19937_64 rng(13);
  run_checked(g, {ir::random_tensor({DType::F32, {5, 37}}, rng), ir::random_tensor({DType::I64, {3, 4, 5}}, rng)});
}

// A float sum's error does not grow with its length (KernelEmitter::
// sums_in_blocks): an f32 accumulator stops growing at 2^24 times its
// increment, so these gave 2^30 for every count of ones above it, and
// one value broadcast to [8192, 8192] summed 8.8e-3 off. The addends are
// index maps of a tiny constant (no memory), so the exact sums are known, up
// to 2^32 addends.
TEST(HostSemantics, LongSumsStayExactWhateverTheirLength) {
  auto sum_of = [](const ir::Graph& g) {
    const kernel::KernelProgram fused = fusion::kernelize_program(g, std::vector<bool>(g.size(), false));
    EXPECT_EQ(fused.kernels.size(), 1u);
    return run_on_host_jit(fused, {}).at(0).get(0);
  };
  const double tenth = static_cast<float>(0.1);
  for (const ir::Shape& shape : {ir::Shape{8192, 8192}, ir::Shape{65536, 65536}, ir::Shape{5, 3, 4099}, ir::Shape{3000, 7, 3}}) {
    ir::Graph g("broadcast_sum");
    std::vector<int64_t> axes(shape.size());
    for (size_t axis = 0; axis < shape.size(); ++axis) axes[axis] = static_cast<int64_t>(axis);
    g.add_output(ir::reduce_sum(ir::broadcast(ir::constant(g, 0.1), shape), axes));
    const double want = static_cast<double>(ir::numel(shape)) * tenth;
    EXPECT_NEAR(sum_of(g), want, 1e-5 * want) << ir::numel(shape) << " addends";
    if (ir::numel(shape) <= (int64_t{1} << 20)) {
      // The references sum in double: exact here (k · 0.1f needs at most 44 bits).
      const double rounded = static_cast<float>(want);
      EXPECT_EQ(ir::interpret(g, {}).at(0).get(0), rounded);
      EXPECT_EQ(kernel::run_kernels(fusion::kernelize_program(g, std::vector<bool>(g.size(), false)), {}).at(0).get(0), rounded);
    }
  }
  // N ones after four zeros: exactly N, rounded to f32 once.
  for (const int64_t ones : {int64_t{1} << 30, (int64_t{1} << 30) + 4096, int64_t{3} << 30, (int64_t{1} << 32) - 4}) {
    ir::Graph g("pad_sum");
    const ir::Tensor zeros = ir::constant(g, {0, 0, 0, 0}, DType::F32, {4});
    g.add_output(ir::reduce_sum(ir::pad(zeros, {ones}, {0}, 1), {0}));
    EXPECT_EQ(sum_of(g), static_cast<double>(static_cast<float>(ones))) << ones << " ones";
  }
}

// Sums longer than a block against the reference on random addends: rows not
// a multiple of the block, bf16, columns, and a domain whose blocks span
// whole inner dims (chunks of an outer dim).
TEST(HostSemantics, BlockedSumsMatchTheReferenceOnEveryShape) {
  ir::Graph g("long_sums");
  auto x = ir::input(g, "x", DType::F32, {3, 3 * 4096 + 17});
  g.add_output(ir::reduce_sum(x, {1}));
  g.add_output(ir::reduce_sum(ir::exp(x), {0, 1}));
  g.add_output(ir::reduce_sum(ir::cast(x, DType::BF16), {1}));
  auto columns = ir::input(g, "columns", DType::F32, {9000, 2});
  g.add_output(ir::reduce_sum(columns, {0}));
  auto boxes = ir::input(g, "boxes", DType::F32, {700, 3, 5});
  g.add_output(ir::reduce_sum(boxes, {0, 1, 2}));
  std::mt19937_64 rng(17);
  run_checked(g, {ir::random_tensor({DType::F32, {3, 3 * 4096 + 17}}, rng),
                  ir::random_tensor({DType::F32, {9000, 2}}, rng), ir::random_tensor({DType::F32, {700, 3, 5}}, rng)});
}

TEST(HostSemantics, MatmulWithPrologueAndEpilogue) {
  ir::Graph g("mm");
  auto a = ir::input(g, "a", DType::F16, {2, 7, 9});
  auto b = ir::input(g, "b", DType::F16, {9, 5});
  auto bias = ir::input(g, "bias", DType::F16, {5});
  auto y = ir::matmul(ir::exp(a), b) + ir::broadcast(bias, {2, 7, 5});
  g.add_output(y * ir::sigmoid(y));
  auto ai = ir::input(g, "ai", DType::I32, {3, 4});
  g.add_output(ir::matmul(ai, ai.type().shape == ir::Shape{3, 4} ? ir::permute(ai, {1, 0}) : ai));
  std::mt19937_64 rng(17);
  run_checked(g, {ir::random_tensor({DType::F16, {2, 7, 9}}, rng), ir::random_tensor({DType::F16, {9, 5}}, rng),
                  ir::random_tensor({DType::F16, {5}}, rng), ir::random_tensor({DType::I32, {3, 4}}, rng)});
}

// Per-region branches (kernel/kernel_branches.h): versions of a row loop, of a
// batched gemm's packing and epilogue, and of a reduction, each computing only
// its side of a concat or pad along an outer axis.
TEST(HostSemantics, VersionsPerRowAndPerBatchElementComputeTheTakenSide) {
  ir::Graph g("versions");
  auto a = ir::input(g, "a", DType::F32, {2, 40}), b = ir::input(g, "b", DType::F32, {3, 40});
  g.add_output(ir::concat({ir::exp(a), ir::sigmoid(b)}, 0));
  g.add_output(ir::pad(ir::cos(a), {1, 0}, {2, 0}, -3));  // computed value padded along rows
  g.add_output(ir::reduce_sum(ir::concat({ir::exp(a), ir::tanh(b)}, 0), {1}));
  // Two towers on the batch axis: prologue and B side stacked, epilogue per tower.
  auto x0 = ir::input(g, "x0", DType::F32, {1, 5, 8}), x1 = ir::input(g, "x1", DType::F32, {1, 5, 8});
  auto w0 = ir::input(g, "w0", DType::F32, {1, 8, 6}), w1 = ir::input(g, "w1", DType::F32, {1, 8, 6});
  auto y = ir::matmul(ir::concat({ir::sigmoid(x0), ir::exp(x1)}, 0), ir::concat({w0, w1}, 0));
  g.add_output(ir::concat({ir::neg(ir::slice_axis(y, 0, 0, 1, 1)), ir::relu(ir::slice_axis(y, 0, 1, 2, 1))}, 0));
  std::mt19937_64 rng(23);
  std::vector<HostTensor> inputs;
  for (const ir::ValueId v : g.inputs()) inputs.push_back(ir::random_tensor(g.type(v), rng));
  auto out = run_checked(g, inputs);
  EXPECT_EQ(out[1].reals[0], -3);  // row 0 is padding
  EXPECT_EQ(out[1].reals[40 * 3], -3);
}

TEST(HostSemantics, IotaValues) {
  ir::Graph g("iota");
  g.add_output(ir::cast(ir::iota(g, {3, 5}, 1, DType::I64), DType::F32) * ir::full(g, {3, 5}, 0.5));
  g.add_output(ir::iota(g, {2, 3}, 0, DType::BF16));
  auto out = run_checked(g, {});
  EXPECT_EQ(out[0].reals[4], 2.0);
  EXPECT_EQ(out[1].reals[5], 1.0);
}

// gather (docs/ops.md): an index counts from the end when negative and reads 0
// out of range, in the reference, the kernel interpreter and compiled code.
TEST(HostSemantics, GatherCountsFromTheEndAndReadsZeroOutOfRange) {
  for (DType index_type : {DType::I32, DType::I64}) {
    ir::Graph g("gather");
    auto table = ir::input(g, "table", DType::F32, {4, 3});
    auto ids = ir::input(g, "ids", index_type, {6});
    auto at = ir::broadcast(ir::reshape(ids, {6, 1}), {6, 3});
    // The table broadcast to the ids' rows, read at each id along its own rows.
    auto rows = ir::gather(ir::broadcast(ir::reshape(table, {1, 4, 3}), {6, 4, 3}),
                           ir::reshape(at, {6, 1, 3}), 1);
    g.add_output(ir::reshape(rows, {6, 3}));
    const HostTensor t = tensor(DType::F32, {4, 3}, {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32});
    const HostTensor i = tensor(index_type, {6}, {0, 3, -1, -4, 4, -5});
    auto out = run_checked(g, {t, i});
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{0, 1, 2, 30, 31, 32, 30, 31, 32, 0, 1, 2, 0, 0, 0, 0, 0, 0}));
    const kernel::KernelProgram fused = fusion::kernelize_program(g, std::vector<bool>(g.size(), false));
    EXPECT_EQ(ir::compare_outputs(ir::interpret(g, {t, i}), kernel::run_kernels(fused, {t, i})), "");
  }
}

// The shapes a gather takes in kernels: indices that vary along the row (a
// GatherElements along the last axis), a gather inside a reduction's body (its
// index loaded per reduction step), of a computed table (masked after it is
// computed), of integer and bool data, and as a matmul's A side.
TEST(HostSemantics, GathersFuseAsLoadsEverywhereAKernelReads) {
  ir::Graph g("gathers");
  auto x = ir::input(g, "x", DType::F32, {5, 9});
  auto along_row = ir::input(g, "along_row", DType::I64, {5, 7});
  g.add_output(ir::gather(ir::slice_axis(x, 1, 0, 9), along_row, 1));  // [5, 7] from [5, 9] along axis 1
  auto per_step = ir::input(g, "per_step", DType::I32, {5, 6});
  auto steps = ir::broadcast(ir::reshape(per_step, {5, 6, 1}), {5, 6, 9});
  auto summed = ir::reduce_sum(ir::gather(ir::broadcast(ir::reshape(ir::exp(x), {5, 1, 9}), {5, 6, 9}),
                                          ir::permute(ir::broadcast(ir::reshape(per_step, {5, 1, 6}), {5, 9, 6}), {0, 2, 1}),
                                          1),
                               {1});
  g.add_output(summed + ir::reduce_sum(ir::cast(steps, DType::F32), {1}));
  auto flags = ir::input(g, "flags", DType::Bool, {5, 9});
  auto counts = ir::input(g, "counts", DType::I64, {5, 9});
  g.add_output(ir::gather(flags, along_row, 1));
  g.add_output(ir::gather(counts, along_row, 1));
  auto w = ir::input(g, "w", DType::F32, {9, 8});
  auto ids = ir::input(g, "ids", DType::I64, {4});
  auto embedded = ir::gather(ir::broadcast(ir::reshape(x, {1, 5, 9}), {4, 5, 9}),
                             ir::broadcast(ir::reshape(ids, {4, 1, 1}), {4, 1, 9}), 1);
  g.add_output(ir::matmul(ir::reshape(embedded, {4, 9}), w));
  std::mt19937_64 rng(29);
  std::vector<HostTensor> inputs;
  for (const ir::ValueId v : g.inputs()) inputs.push_back(ir::random_tensor(g.type(v), rng));
  run_checked(g, inputs);
  const kernel::KernelProgram fused = fusion::kernelize_program(g, std::vector<bool>(g.size(), false));
  EXPECT_EQ(ir::compare_outputs(ir::interpret_with_error_scales(g, inputs), kernel::run_kernels(fused, inputs)), "");
}

// scatter (docs/ops.md): the updates are written in order, so of two at one
// position the last wins and combining ones meet in order; an index counts
// from the end when negative and writes nothing out of range.
TEST(HostSemantics, ScattersWriteInOrderFromTheEndAndNothingOutOfRange) {
  const std::vector<std::pair<ir::Op, std::vector<double>>> expected = {
      {ir::Op::Scatter, {60, 2, 3, 4, 30}},      {ir::Op::ScatterAdd, {71, 2, 3, 4, 55}},
      {ir::Op::ScatterMul, {600, 2, 3, 4, 3000}}, {ir::Op::ScatterMax, {60, 2, 3, 4, 30}},
      {ir::Op::ScatterMin, {1, 2, 3, 4, 5}},
  };
  for (DType index_type : {DType::I32, DType::I64})
    for (const auto& [op, want] : expected) {
      ir::Graph g("scatter");
      auto data = ir::input(g, "data", DType::F32, {5});
      auto ids = ir::input(g, "ids", index_type, {6});
      auto updates = ir::input(g, "updates", DType::F32, {6});
      g.add_output(ir::scatter(data, ids, updates, 0, op));
      const HostTensor d = tensor(DType::F32, {5}, {1, 2, 3, 4, 5});
      const HostTensor i = tensor(index_type, {6}, {0, 4, -1, 5, -6, 0});
      const HostTensor u = tensor(DType::F32, {6}, {10, 20, 30, 40, 50, 60});
      auto out = run_checked(g, {d, i, u});
      EXPECT_EQ(values_of(out[0]), want) << ir::op_name(op);
      const kernel::KernelProgram fused = fusion::kernelize_program(g, std::vector<bool>(g.size(), false));
      EXPECT_EQ(values_of(kernel::run_kernels(fused, {d, i, u})[0]), want) << ir::op_name(op);
    }
}

// The shapes a scatter takes in programs: computed updates and indices (an
// exp, a gather) evaluated inside its kernel, a reduction feeding it (stored
// first), a scatter of a scatter (a cache written twice), integer sums that
// wrap, bools, f16 sums rounded per step, no updates at all (a copy), one
// value stored as two outputs, and a consumer reading the result in place.
TEST(HostSemantics, ScattersTakeComputedOperandsAndFeedTheirReaders) {
  ir::Graph g("scatters");
  auto cache = ir::input(g, "cache", DType::F32, {3, 8, 4});
  auto k = ir::input(g, "k", DType::F32, {3, 2, 4});
  auto pos = ir::input(g, "pos", DType::I64, {2});
  auto at = ir::broadcast(ir::reshape(pos, {1, 2, 1}), {3, 2, 4});
  auto which = ir::input(g, "which", DType::I64, {3, 2, 4});
  auto once = ir::scatter(cache, at, ir::exp(k), 1);
  auto twice = ir::scatter(once, ir::gather(at, which, 1), k, 1, ir::Op::ScatterAdd);
  g.add_output(ir::reduce_sum(twice, {2}));
  g.add_output(twice);
  g.add_output(twice);
  auto rows = ir::reduce_sum(k, {2}, true);  // [3, 2, 1]: an anchor, stored before the scatter
  g.add_output(ir::scatter(ir::slice_axis(cache, 2, 0, 1), ir::slice_axis(at, 2, 0, 1), rows, 1, ir::Op::ScatterMax));
  auto counts = ir::input(g, "counts", DType::I32, {5});
  auto ids = ir::input(g, "ids", DType::I32, {7});
  auto big = ir::input(g, "big", DType::I32, {7});
  g.add_output(ir::scatter(counts, ids, big, 0, ir::Op::ScatterAdd));
  auto flags = ir::input(g, "flags", DType::Bool, {5});
  auto set = ir::input(g, "set", DType::Bool, {7});
  g.add_output(ir::scatter(flags, ids, set, 0));
  auto h = ir::input(g, "h", DType::F16, {5});
  auto hu = ir::input(g, "hu", DType::F16, {7});
  g.add_output(ir::scatter(h, ids, hu, 0, ir::Op::ScatterAdd));
  auto none = ir::input(g, "none", DType::I64, {0, 4});
  g.add_output(ir::scatter(cache, ir::reshape(none, {1, 0, 4}), ir::reshape(ir::cast(none, DType::F32), {1, 0, 4}), 1) +
               cache);
  std::mt19937_64 rng(31);
  std::vector<HostTensor> inputs;
  for (const ir::ValueId v : g.inputs()) inputs.push_back(ir::random_tensor(g.type(v), rng));
  inputs[6].ints = {2147483647, 2147483647, 5, -3, 1, 0, 4};  // big: sums that wrap
  inputs[5].ints = {1, 1, -4, 9, 1, 0, -1};                    // ids: repeats, from the end, out of range
  run_checked(g, inputs);
  const kernel::KernelProgram fused = fusion::kernelize_program(g, std::vector<bool>(g.size(), false));
  EXPECT_EQ(ir::compare_outputs(ir::interpret_with_error_scales(g, inputs), kernel::run_kernels(fused, inputs)), "");
}

}  // namespace
}  // namespace smelt
