// The reference interpreter, op by op, against hand-computed values.
#include "ir/interpreter.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ir/builder.h"

namespace smelt::ir {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

HostTensor reals(DType dtype, Shape shape, const std::vector<double>& values) {
  return HostTensor::from_values({dtype, std::move(shape)}, values);
}

// Integers are set directly so values beyond 2^53 stay exact.
HostTensor ints(DType dtype, Shape shape, const std::vector<int64_t>& values) {
  HostTensor t = HostTensor::zeros({dtype, std::move(shape)});
  for (size_t i = 0; i < values.size(); ++i) t.set_int(static_cast<int64_t>(i), values[i]);
  return t;
}

std::vector<double> values_of(const HostTensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(t.get(i));
  return out;
}

std::vector<int64_t> ints_of(const HostTensor& t) {
  EXPECT_FALSE(t.is_real()) << type_str(t.type);
  return t.ints;
}

using Body = std::function<Tensor(const std::vector<Tensor>&)>;

// Makes each argument a graph input, builds `body` over them, interprets the
// graph and returns its one output (whose type must be the inferred one).
HostTensor run(const Body& body, const std::vector<HostTensor>& args) {
  Graph g("test");
  std::vector<Tensor> xs;
  for (size_t i = 0; i < args.size(); ++i)
    xs.push_back(input(g, "x" + std::to_string(i), args[i].type.dtype, args[i].type.shape));
  Tensor y = body(xs);
  g.add_output(y);
  std::vector<HostTensor> out = interpret(g, args);
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(out.at(0).type, y.type());
  return out.at(0);
}

// Interprets a graph without inputs whose one output is `y`.
HostTensor run_sources(Graph& g, Tensor y) {
  g.add_output(y);
  std::vector<HostTensor> out = interpret(g, {});
  EXPECT_EQ(out.at(0).type, y.type());
  return out.at(0);
}

HostTensor f32(Shape shape, const std::vector<double>& v) {
  return reals(DType::F32, std::move(shape), v);
}
HostTensor i32(Shape shape, const std::vector<int64_t>& v) {
  return ints(DType::I32, std::move(shape), v);
}
HostTensor i64(Shape shape, const std::vector<int64_t>& v) {
  return ints(DType::I64, std::move(shape), v);
}
HostTensor boolean(Shape shape, const std::vector<int64_t>& v) {
  return ints(DType::Bool, std::move(shape), v);
}

std::vector<double> iota_values(int64_t n) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<double>(i));
  return v;
}

// ---- sources -------------------------------------------------------------------

TEST(InterpreterSources, ConstantScalarAndLiteral) {
  Graph g;
  HostTensor scalar = run_sources(g, constant(g, 2.5));
  EXPECT_EQ(scalar.type, (TensorType{DType::F32, {}}));
  EXPECT_EQ(values_of(scalar), (std::vector<double>{2.5}));

  Graph g2;
  HostTensor lit = run_sources(g2, constant(g2, {1, -2, 3, 4, 5, 6}, DType::I32, {2, 3}));
  EXPECT_EQ(ints_of(lit), (std::vector<int64_t>{1, -2, 3, 4, 5, 6}));
}

TEST(InterpreterSources, ConstantIsRoundedToItsDtype) {
  Graph g;
  // 0.1 is not an f16 value; the nearest is 0x2e66 = 0.0999755859375.
  HostTensor t = run_sources(g, constant(g, {0.1, 70000}, DType::F16, {2}));
  EXPECT_EQ(t.reals[0], 0.0999755859375);
  EXPECT_EQ(t.reals[1], kInf);
}

TEST(InterpreterSources, Full) {
  Graph g;
  EXPECT_EQ(ints_of(run_sources(g, full(g, {2, 2}, -7, DType::I32))),
            (std::vector<int64_t>{-7, -7, -7, -7}));
  Graph g2;
  EXPECT_EQ(ints_of(run_sources(g2, full(g2, {3}, 1, DType::Bool))),
            (std::vector<int64_t>{1, 1, 1}));
  Graph g3;
  EXPECT_EQ(values_of(run_sources(g3, full(g3, {2}, 0.5, DType::BF16))),
            (std::vector<double>{0.5, 0.5}));
  Graph g4;
  EXPECT_EQ(run_sources(g4, full(g4, {0, 3}, 1.0)).numel(), 0);
}

TEST(InterpreterSources, IotaAlongEachAxis) {
  Graph g;
  EXPECT_EQ(ints_of(run_sources(g, iota(g, {2, 3}, 0))), (std::vector<int64_t>{0, 0, 0, 1, 1, 1}));
  Graph g2;
  EXPECT_EQ(ints_of(run_sources(g2, iota(g2, {2, 3}, 1, DType::I64))),
            (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  Graph g3;
  EXPECT_EQ(values_of(run_sources(g3, iota(g3, {2, 2, 2}, 1, DType::F32))),
            (std::vector<double>{0, 0, 1, 1, 0, 0, 1, 1}));
  // f16 holds every integer up to 2048, then only even ones: 2049 rounds to 2048 (even).
  Graph g4;
  HostTensor big = run_sources(g4, iota(g4, {2051}, 0, DType::F16));
  EXPECT_EQ(big.reals[2047], 2047);
  EXPECT_EQ(big.reals[2049], 2048);
  EXPECT_EQ(big.reals[2050], 2050);
}

TEST(InterpreterSources, InputsPassThrough) {
  HostTensor x = f32({2}, {1.5, -2});
  EXPECT_EQ(values_of(run([](auto& v) { return v[0]; }, {x})), (std::vector<double>{1.5, -2}));
}

TEST(InterpreterSources, InputCountMismatchThrows) {
  Graph g("two_inputs");
  Tensor a = input(g, "a", DType::F32, {2});
  Tensor b = input(g, "b", DType::F32, {2});
  g.add_output(add(a, b));
  try {
    interpret(g, {f32({2}, {1, 2})});
    FAIL() << "expected InterpretError";
  } catch (const InterpretError& e) {
    EXPECT_NE(std::string(e.what()).find("takes 2 input(s), got 1"), std::string::npos) << e.what();
  }
}

TEST(InterpreterSources, InputTypeMismatchNamesTheInput) {
  Graph g;
  Tensor a = input(g, "a", DType::F32, {2});
  Tensor b = input(g, "weights", DType::F32, {2, 3});
  g.add_output(a);
  g.add_output(b);
  try {
    interpret(g, {f32({2}, {1, 2}), reals(DType::F16, {2, 3}, {0, 0, 0, 0, 0, 0})});
    FAIL() << "expected InterpretError";
  } catch (const InterpretError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("'weights'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("f32[2,3]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("f16[2,3]"), std::string::npos) << msg;
  }
  // Same dtype, other shape.
  EXPECT_THROW(interpret(g, {f32({2}, {1, 2}), f32({3, 2}, {0, 0, 0, 0, 0, 0})}), InterpretError);
  // A tensor whose storage does not match its type.
  HostTensor broken = f32({2, 3}, {0, 0, 0, 0, 0, 0});
  broken.reals.pop_back();
  EXPECT_THROW(interpret(g, {f32({2}, {1, 2}), broken}), InterpretError);
}

// ---- elementwise: unary ------------------------------------------------------------

TEST(InterpreterUnary, FloatFunctionsAtExactPoints) {
  HostTensor x = f32({1}, {0});
  auto at0 = [&](Body f) { return run(f, {x}).reals.at(0); };
  EXPECT_EQ(at0([](auto& v) { return exp(v[0]); }), 1);
  EXPECT_EQ(at0([](auto& v) { return exp2(v[0]); }), 1);
  EXPECT_EQ(at0([](auto& v) { return log(v[0]); }), -kInf);
  EXPECT_EQ(at0([](auto& v) { return log2(v[0]); }), -kInf);
  EXPECT_EQ(at0([](auto& v) { return sin(v[0]); }), 0);
  EXPECT_EQ(at0([](auto& v) { return cos(v[0]); }), 1);
  EXPECT_EQ(at0([](auto& v) { return tanh(v[0]); }), 0);
  EXPECT_EQ(at0([](auto& v) { return sqrt(v[0]); }), 0);
  EXPECT_EQ(at0([](auto& v) { return rsqrt(v[0]); }), kInf);
  EXPECT_EQ(at0([](auto& v) { return recip(v[0]); }), kInf);
  EXPECT_EQ(at0([](auto& v) { return sigmoid(v[0]); }), 0.5);
  EXPECT_EQ(at0([](auto& v) { return gelu(v[0]); }), 0);
  EXPECT_EQ(at0([](auto& v) { return erf(v[0]); }), 0);
}

TEST(InterpreterUnary, FloatFunctionsAtOtherPoints) {
  HostTensor x = f32({3}, {4, 8, 1});
  EXPECT_EQ(values_of(run([](auto& v) { return exp2(v[0]); }, {x})),
            (std::vector<double>{16, 256, 2}));
  EXPECT_EQ(values_of(run([](auto& v) { return log2(v[0]); }, {x})),
            (std::vector<double>{2, 3, 0}));
  EXPECT_EQ(values_of(run([](auto& v) { return sqrt(v[0]); }, {x}))[0], 2);
  EXPECT_EQ(values_of(run([](auto& v) { return rsqrt(v[0]); }, {x}))[0], 0.5);
  EXPECT_EQ(values_of(run([](auto& v) { return recip(v[0]); }, {x})),
            (std::vector<double>{0.25, 0.125, 1}));
  // Results are rounded to f32.
  EXPECT_EQ(run([](auto& v) { return exp(v[0]); }, {x}).reals[2],
            static_cast<float>(2.718281828459045));
  EXPECT_EQ(run([](auto& v) { return log(v[0]); }, {x}).reals[0],
            static_cast<float>(1.3862943611198906));
  EXPECT_EQ(run([](auto& v) { return tanh(v[0]); }, {x}).reals[2],
            static_cast<float>(0.7615941559557649));
  EXPECT_EQ(run([](auto& v) { return sigmoid(v[0]); }, {x}).reals[2],
            static_cast<float>(0.7310585786300049));
  EXPECT_EQ(run([](auto& v) { return erf(v[0]); }, {x}).reals[2],
            static_cast<float>(0.8427007929497149));
  EXPECT_EQ(run([](auto& v) { return gelu(v[0]); }, {x}).reals[2],
            static_cast<float>(0.8413447460685429));
  EXPECT_EQ(run([](auto& v) { return sin(v[0]); }, {x}).reals[2],
            static_cast<float>(0.8414709848078965));
  EXPECT_EQ(run([](auto& v) { return cos(v[0]); }, {x}).reals[2],
            static_cast<float>(0.5403023058681398));
  // Outside the domain: NaN.
  HostTensor neg = f32({1}, {-1});
  EXPECT_TRUE(std::isnan(run([](auto& v) { return sqrt(v[0]); }, {neg}).reals[0]));
  EXPECT_TRUE(std::isnan(run([](auto& v) { return log(v[0]); }, {neg}).reals[0]));
}

TEST(InterpreterUnary, NegAbsReluOnFloats) {
  HostTensor x = f32({4}, {-2.5, 0, 3, kNaN});
  std::vector<double> negated = values_of(run([](auto& v) { return neg(v[0]); }, {x}));
  EXPECT_EQ(negated[0], 2.5);
  EXPECT_EQ(negated[2], -3);
  std::vector<double> absolute = values_of(run([](auto& v) { return abs(v[0]); }, {x}));
  EXPECT_EQ(absolute[0], 2.5);
  EXPECT_EQ(absolute[2], 3);
  EXPECT_TRUE(std::isnan(absolute[3]));
  std::vector<double> rectified = values_of(run([](auto& v) { return relu(v[0]); }, {x}));
  EXPECT_EQ(rectified[0], 0);
  EXPECT_EQ(rectified[1], 0);
  EXPECT_EQ(rectified[2], 3);
  EXPECT_TRUE(std::isnan(rectified[3]));  // relu propagates NaN like max
}

TEST(InterpreterUnary, NegAbsReluOnIntegersWrap) {
  HostTensor x = i32({4}, {-5, 0, 7, kI32Min});
  EXPECT_EQ(ints_of(run([](auto& v) { return neg(v[0]); }, {x})),
            (std::vector<int64_t>{5, 0, -7, kI32Min}));
  EXPECT_EQ(ints_of(run([](auto& v) { return abs(v[0]); }, {x})),
            (std::vector<int64_t>{5, 0, 7, kI32Min}));
  EXPECT_EQ(ints_of(run([](auto& v) { return relu(v[0]); }, {x})),
            (std::vector<int64_t>{0, 0, 7, 0}));
  HostTensor y = i64({2}, {kI64Min, -3});
  EXPECT_EQ(ints_of(run([](auto& v) { return neg(v[0]); }, {y})),
            (std::vector<int64_t>{kI64Min, 3}));
  EXPECT_EQ(ints_of(run([](auto& v) { return abs(v[0]); }, {y})),
            (std::vector<int64_t>{kI64Min, 3}));
}

// ---- elementwise: binary -----------------------------------------------------------

TEST(InterpreterBinary, FloatArithmetic) {
  HostTensor a = f32({4}, {1, -2, 0.5, 0});
  HostTensor b = f32({4}, {4, 3, 0, 0});
  EXPECT_EQ(values_of(run([](auto& v) { return v[0] + v[1]; }, {a, b})),
            (std::vector<double>{5, 1, 0.5, 0}));
  EXPECT_EQ(values_of(run([](auto& v) { return v[0] - v[1]; }, {a, b})),
            (std::vector<double>{-3, -5, 0.5, 0}));
  EXPECT_EQ(values_of(run([](auto& v) { return v[0] * v[1]; }, {a, b})),
            (std::vector<double>{4, -6, 0, 0}));
  std::vector<double> q = values_of(run([](auto& v) { return v[0] / v[1]; }, {a, b}));
  EXPECT_EQ(q[0], 0.25);
  EXPECT_EQ(q[1], static_cast<float>(-2.0 / 3.0));
  EXPECT_EQ(q[2], kInf);
  EXPECT_TRUE(std::isnan(q[3]));
}

TEST(InterpreterBinary, Pow) {
  HostTensor a = f32({4}, {2, 4, -8, 0});
  HostTensor b = f32({4}, {10, 0.5, 0.5, 0});
  std::vector<double> p = values_of(run([](auto& v) { return pow(v[0], v[1]); }, {a, b}));
  EXPECT_EQ(p[0], 1024);
  EXPECT_EQ(p[1], 2);
  EXPECT_TRUE(std::isnan(p[2]));
  EXPECT_EQ(p[3], 1);
}

TEST(InterpreterBinary, I32AddSubMulWrap) {
  HostTensor a = i32({4}, {kI32Max, kI32Min, 65536, 46341});
  HostTensor b = i32({4}, {1, 1, 65536, 46341});
  EXPECT_EQ(ints_of(run([](auto& v) { return v[0] + v[1]; }, {a, b})),
            (std::vector<int64_t>{kI32Min, kI32Min + 1, 131072, 92682}));
  EXPECT_EQ(ints_of(run([](auto& v) { return v[0] - v[1]; }, {a, b})),
            (std::vector<int64_t>{kI32Max - 1, kI32Max, 0, 0}));
  // 65536^2 = 2^32 wraps to 0; 46341^2 = 2147488281 wraps to 2147488281 - 2^32.
  EXPECT_EQ(ints_of(run([](auto& v) { return v[0] * v[1]; }, {a, b})),
            (std::vector<int64_t>{kI32Max, kI32Min, 0, -2147479015}));
}

TEST(InterpreterBinary, I64AddMulWrap) {
  HostTensor a = i64({2}, {kI64Max, int64_t{1} << 32});
  HostTensor b = i64({2}, {1, int64_t{1} << 32});
  EXPECT_EQ(ints_of(run([](auto& v) { return v[0] + v[1]; }, {a, b})),
            (std::vector<int64_t>{kI64Min, int64_t{1} << 33}));
  EXPECT_EQ(ints_of(run([](auto& v) { return v[0] * v[1]; }, {a, b})),
            (std::vector<int64_t>{kI64Max, 0}));
}

TEST(InterpreterBinary, IntegerDivision) {
  // Truncates toward zero; x / 0 = 0; MIN / -1 wraps to MIN.
  HostTensor a = i32({7}, {7, -7, 7, -7, 5, kI32Min, kI32Min});
  HostTensor b = i32({7}, {2, 2, -2, -2, 0, -1, 1});
  EXPECT_EQ(ints_of(run([](auto& v) { return v[0] / v[1]; }, {a, b})),
            (std::vector<int64_t>{3, -3, -3, 3, 0, kI32Min, kI32Min}));
  HostTensor c = i64({3}, {kI64Min, -9, 0});
  HostTensor d = i64({3}, {-1, 4, 0});
  EXPECT_EQ(ints_of(run([](auto& v) { return v[0] / v[1]; }, {c, d})),
            (std::vector<int64_t>{kI64Min, -2, 0}));
}

TEST(InterpreterBinary, MaxMinPropagateNaN) {
  HostTensor a = f32({4}, {1, kNaN, 3, kNaN});
  HostTensor b = f32({4}, {2, 1, kNaN, kNaN});
  std::vector<double> hi = values_of(run([](auto& v) { return max(v[0], v[1]); }, {a, b}));
  std::vector<double> lo = values_of(run([](auto& v) { return min(v[0], v[1]); }, {a, b}));
  EXPECT_EQ(hi[0], 2);
  EXPECT_EQ(lo[0], 1);
  for (int i = 1; i < 4; ++i) {
    EXPECT_TRUE(std::isnan(hi[i])) << i;
    EXPECT_TRUE(std::isnan(lo[i])) << i;
  }
  HostTensor c = i32({3}, {-5, 4, kI32Min});
  HostTensor d = i32({3}, {-6, 9, kI32Max});
  EXPECT_EQ(ints_of(run([](auto& v) { return max(v[0], v[1]); }, {c, d})),
            (std::vector<int64_t>{-5, 9, kI32Max}));
  EXPECT_EQ(ints_of(run([](auto& v) { return min(v[0], v[1]); }, {c, d})),
            (std::vector<int64_t>{-6, 4, kI32Min}));
}

TEST(InterpreterBinary, ComparisonsOnFloats) {
  HostTensor a = f32({4}, {1, 2, kNaN, 3});
  HostTensor b = f32({4}, {2, 2, 1, -kInf});
  HostTensor lt_result = run([](auto& v) { return lt(v[0], v[1]); }, {a, b});
  EXPECT_EQ(lt_result.type.dtype, DType::Bool);
  EXPECT_EQ(ints_of(lt_result), (std::vector<int64_t>{1, 0, 0, 0}));
  EXPECT_EQ(ints_of(run([](auto& v) { return le(v[0], v[1]); }, {a, b})),
            (std::vector<int64_t>{1, 1, 0, 0}));
  EXPECT_EQ(ints_of(run([](auto& v) { return eq(v[0], v[1]); }, {a, b})),
            (std::vector<int64_t>{0, 1, 0, 0}));
  HostTensor nan = f32({1}, {kNaN});
  EXPECT_EQ(ints_of(run([](auto& v) { return eq(v[0], v[0]); }, {nan})), (std::vector<int64_t>{0}));
}

TEST(InterpreterBinary, ComparisonsOnIntegersAndBools) {
  HostTensor a = i32({3}, {-1, 5, kI32Min});
  HostTensor b = i32({3}, {0, 5, kI32Max});
  EXPECT_EQ(ints_of(run([](auto& v) { return lt(v[0], v[1]); }, {a, b})),
            (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(ints_of(run([](auto& v) { return le(v[0], v[1]); }, {a, b})),
            (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(ints_of(run([](auto& v) { return eq(v[0], v[1]); }, {a, b})),
            (std::vector<int64_t>{0, 1, 0}));
  HostTensor p = boolean({4}, {1, 0, 1, 0});
  HostTensor q = boolean({4}, {1, 1, 0, 0});
  EXPECT_EQ(ints_of(run([](auto& v) { return eq(v[0], v[1]); }, {p, q})),
            (std::vector<int64_t>{1, 0, 0, 1}));
}

TEST(InterpreterBinary, WhereOnEveryBranchDomain) {
  HostTensor cond = boolean({3}, {1, 0, 1});
  EXPECT_EQ(values_of(run([](auto& v) { return where(v[0], v[1], v[2]); },
                          {cond, f32({3}, {1, 2, 3}), f32({3}, {-1, -2, -3})})),
            (std::vector<double>{1, -2, 3}));
  EXPECT_EQ(ints_of(run([](auto& v) { return where(v[0], v[1], v[2]); },
                        {cond, i64({3}, {kI64Max, 2, 3}), i64({3}, {-1, kI64Min, -3})})),
            (std::vector<int64_t>{kI64Max, kI64Min, 3}));
  EXPECT_EQ(ints_of(run([](auto& v) { return where(v[0], v[1], v[2]); },
                        {cond, boolean({3}, {0, 0, 0}), boolean({3}, {1, 1, 1})})),
            (std::vector<int64_t>{0, 1, 0}));
  // A NaN in the branch not taken does not leak.
  EXPECT_EQ(values_of(run([](auto& v) { return where(v[0], v[1], v[2]); },
                          {cond, reals(DType::F16, {3}, {1, 2, 3}),
                           reals(DType::F16, {3}, {kNaN, kNaN, kNaN})}))[0],
            1);
}

TEST(InterpreterBinary, HalfPrecisionRoundsEveryResult) {
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10 in f16: ties go to the even mantissa (1).
  HostTensor one = reals(DType::F16, {2}, {1, 1});
  HostTensor small = reals(DType::F16, {2}, {std::ldexp(1.0, -11), 3 * std::ldexp(1.0, -11)});
  EXPECT_EQ(values_of(run([](auto& v) { return v[0] + v[1]; }, {one, small})),
            (std::vector<double>{1, 1 + std::ldexp(1.0, -9)}));
  // f16 overflows to inf above 65504.
  HostTensor big = reals(DType::F16, {1}, {60000});
  EXPECT_EQ(run([](auto& v) { return v[0] + v[0]; }, {big}).reals[0], kInf);
  // bf16 has 8 significant bits: 1 + 2^-8 ties to 1, 1 + 3 * 2^-8 to 1 + 2^-6.
  HostTensor bone = reals(DType::BF16, {2}, {1, 1});
  HostTensor bsmall = reals(DType::BF16, {2}, {std::ldexp(1.0, -8), 3 * std::ldexp(1.0, -8)});
  EXPECT_EQ(values_of(run([](auto& v) { return v[0] + v[1]; }, {bone, bsmall})),
            (std::vector<double>{1, 1 + std::ldexp(1.0, -6)}));
  // f32: 1 + 2^-24 is a tie that rounds to 1.
  HostTensor fone = f32({1}, {1});
  HostTensor fsmall = f32({1}, {std::ldexp(1.0, -24)});
  EXPECT_EQ(run([](auto& v) { return v[0] + v[1]; }, {fone, fsmall}).reals[0], 1);
}

// ---- cast -------------------------------------------------------------------------

HostTensor cast_to(DType to, const HostTensor& x) {
  return run([to](auto& v) { return cast(v[0], to); }, {x});
}

TEST(InterpreterCast, FloatToIntTruncatesSaturatesThenWraps) {
  HostTensor x = f32({8}, {2.7, -2.7, 0.5, kNaN, 1e10, 1e30, -kInf, kInf});
  // 1e10 fits int64 and wraps to i32: 10000000000 - 2 * 2^32 = 1410065408. 1e30 and
  // inf saturate to INT64_MAX, whose low 32 bits are -1; -inf to INT64_MIN (low bits 0).
  EXPECT_EQ(ints_of(cast_to(DType::I32, x)),
            (std::vector<int64_t>{2, -2, 0, 0, 1410065408, -1, 0, -1}));
  // 1e10 is exactly 10000000000 in f32.
  EXPECT_EQ(ints_of(cast_to(DType::I64, x)),
            (std::vector<int64_t>{2, -2, 0, 0, 10000000000, kI64Max, kI64Min, kI64Max}));
}

TEST(InterpreterCast, ToBoolIsNonZero) {
  EXPECT_EQ(ints_of(cast_to(DType::Bool, f32({5}, {0.5, 0, -0.0, kNaN, -3}))),
            (std::vector<int64_t>{1, 0, 0, 1, 1}));
  EXPECT_EQ(ints_of(cast_to(DType::Bool, i32({3}, {0, -1, 256}))), (std::vector<int64_t>{0, 1, 1}));
}

TEST(InterpreterCast, IntToFloatRoundsToTheDtype) {
  EXPECT_EQ(values_of(cast_to(DType::F16, i32({3}, {2049, 2051, 100000}))),
            (std::vector<double>{2048, 2052, kInf}));
  EXPECT_EQ(values_of(cast_to(DType::F32, i32({2}, {16777217, -3}))),
            (std::vector<double>{16777216, -3}));
  EXPECT_EQ(values_of(cast_to(DType::BF16, i32({1}, {257}))), (std::vector<double>{256}));
  EXPECT_EQ(values_of(cast_to(DType::F32, boolean({2}, {1, 0}))), (std::vector<double>{1, 0}));
}

TEST(InterpreterCast, BetweenIntegerAndFloatTypes) {
  // i64 → i32 keeps the low 32 bits; i32 → i64 sign-extends; bool → i32 is 0/1.
  EXPECT_EQ(ints_of(cast_to(DType::I32, i64({3}, {(int64_t{1} << 32) + 5, -1, int64_t{1} << 31}))),
            (std::vector<int64_t>{5, -1, kI32Min}));
  EXPECT_EQ(ints_of(cast_to(DType::I64, i32({2}, {-1, kI32Min}))),
            (std::vector<int64_t>{-1, kI32Min}));
  EXPECT_EQ(ints_of(cast_to(DType::I32, boolean({2}, {1, 0}))), (std::vector<int64_t>{1, 0}));
  // f32 → f16 rounds (ties to even), f16 → f32 is exact, f32 → bf16 rounds.
  HostTensor x = f32({3}, {1 + std::ldexp(1.0, -11), 1 + 3 * std::ldexp(1.0, -11), 65520});
  EXPECT_EQ(values_of(cast_to(DType::F16, x)),
            (std::vector<double>{1, 1 + std::ldexp(1.0, -9), kInf}));
  HostTensor h = reals(DType::F16, {1}, {0.0999755859375});
  EXPECT_EQ(values_of(cast_to(DType::F32, h)), (std::vector<double>{0.0999755859375}));
  EXPECT_EQ(values_of(cast_to(DType::BF16, f32({1}, {1 + 3 * std::ldexp(1.0, -8)}))),
            (std::vector<double>{1 + std::ldexp(1.0, -6)}));
  EXPECT_EQ(values_of(cast_to(DType::F32, f32({1}, {-1.25}))), (std::vector<double>{-1.25}));
}

// ---- views --------------------------------------------------------------------------

TEST(InterpreterViews, ReshapeKeepsRowMajorOrder) {
  HostTensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor y = run([](auto& v) { return reshape(v[0], {3, -1}); }, {x});
  EXPECT_EQ(y.type.shape, (Shape{3, 2}));
  EXPECT_EQ(values_of(y), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  HostTensor s = run([](auto& v) { return reshape(v[0], {}); }, {i32({1, 1}, {9})});
  EXPECT_EQ(s.type.shape, Shape{});
  EXPECT_EQ(ints_of(s), (std::vector<int64_t>{9}));
}

TEST(InterpreterViews, PermuteTranspose) {
  HostTensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor y = run([](auto& v) { return permute(v[0], {1, 0}); }, {x});
  EXPECT_EQ(y.type.shape, (Shape{3, 2}));
  EXPECT_EQ(values_of(y), (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST(InterpreterViews, PermuteThreeAxes) {
  // x[a,b,c] = 12a + 4b + c; out axis k is in axis perm[k], so out[i,j,k] = x[j,k,i].
  HostTensor x = i32({2, 3, 4}, {});
  for (int64_t i = 0; i < 24; ++i) x.set_int(i, i);
  HostTensor y = run([](auto& v) { return permute(v[0], {2, 0, 1}); }, {x});
  EXPECT_EQ(y.type.shape, (Shape{4, 2, 3}));
  EXPECT_EQ(ints_of(y), (std::vector<int64_t>{0, 4, 8,  12, 16, 20, 1, 5, 9,  13, 17, 21,
                                              2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23}));
}

HostTensor slice1(const HostTensor& x, int64_t start, int64_t stop, int64_t step) {
  return run([=](auto& v) { return slice_axis(v[0], 0, start, stop, step); }, {x});
}

TEST(InterpreterViews, SlicePositiveSteps) {
  HostTensor x = f32({10}, iota_values(10));
  EXPECT_EQ(values_of(slice1(x, 1, 7, 2)), (std::vector<double>{1, 3, 5}));
  EXPECT_EQ(values_of(slice1(x, 2, 5, 1)), (std::vector<double>{2, 3, 4}));
  EXPECT_EQ(values_of(slice1(x, 0, 10, 4)), (std::vector<double>{0, 4, 8}));
  EXPECT_EQ(values_of(slice1(x, 9, 10, 5)), (std::vector<double>{9}));
}

TEST(InterpreterViews, SliceNegativeSteps) {
  HostTensor x = f32({10}, iota_values(10));
  EXPECT_EQ(values_of(slice1(x, 8, 2, -2)), (std::vector<double>{8, 6, 4}));
  // stop = -1 is "before index 0", not "the last element".
  EXPECT_EQ(values_of(slice1(x, 9, -1, -1)), (std::vector<double>{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(values_of(slice1(x, 3, 0, -1)), (std::vector<double>{3, 2, 1}));
}

TEST(InterpreterViews, SliceClampsOutOfRangeBounds) {
  HostTensor x = f32({10}, iota_values(10));
  // Positive steps clamp to [0, 10]; negative ones to [-1, 9].
  EXPECT_EQ(values_of(slice1(x, -5, 100, 3)), (std::vector<double>{0, 3, 6, 9}));
  EXPECT_EQ(values_of(slice1(x, 100, -100, -3)), (std::vector<double>{9, 6, 3, 0}));
  EXPECT_EQ(values_of(slice1(x, 7, 100, 1)), (std::vector<double>{7, 8, 9}));
}

TEST(InterpreterViews, EmptySlices) {
  HostTensor x = f32({10}, iota_values(10));
  for (auto [start, stop, step] : std::vector<std::array<int64_t, 3>>{
           {3, 3, 1}, {7, 2, 1}, {2, 7, -1}, {20, 30, 1}, {-5, -1, 1}, {-3, -8, -1}}) {
    HostTensor y = slice1(x, start, stop, step);
    EXPECT_EQ(y.type.shape, Shape{0}) << start << ":" << stop << ":" << step;
    EXPECT_EQ(y.numel(), 0);
  }
  // An empty slice of one axis empties the tensor; further ops still run.
  HostTensor m = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor e = run([](auto& v) { return exp(slice_axis(v[0], 1, 2, 2)); }, {m});
  EXPECT_EQ(e.type.shape, (Shape{2, 0}));
}

TEST(InterpreterViews, SliceTwoAxesAndOtherDtypes) {
  HostTensor x = i32({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  HostTensor y = run([](auto& v) { return slice(v[0], {2, 0}, {-10, 4}, {-1, 3}); }, {x});
  EXPECT_EQ(y.type.shape, (Shape{3, 2}));
  EXPECT_EQ(ints_of(y), (std::vector<int64_t>{8, 11, 4, 7, 0, 3}));
  HostTensor b = boolean({4}, {1, 0, 0, 1});
  EXPECT_EQ(ints_of(slice1(b, 1, 4, 2)), (std::vector<int64_t>{0, 1}));
}

HostTensor pad2(const HostTensor& x, std::vector<int64_t> lo, std::vector<int64_t> hi,
                double value) {
  return run([=](auto& v) { return pad(v[0], lo, hi, value); }, {x});
}

TEST(InterpreterViews, PadEachSideOfEachAxis) {
  HostTensor x = f32({2, 2}, {1, 2, 3, 4});
  HostTensor top = pad2(x, {1, 0}, {0, 0}, 9);
  EXPECT_EQ(top.type.shape, (Shape{3, 2}));
  EXPECT_EQ(values_of(top), (std::vector<double>{9, 9, 1, 2, 3, 4}));
  HostTensor bottom = pad2(x, {0, 0}, {1, 0}, 9);
  EXPECT_EQ(values_of(bottom), (std::vector<double>{1, 2, 3, 4, 9, 9}));
  HostTensor left = pad2(x, {0, 1}, {0, 0}, 9);
  EXPECT_EQ(left.type.shape, (Shape{2, 3}));
  EXPECT_EQ(values_of(left), (std::vector<double>{9, 1, 2, 9, 3, 4}));
  HostTensor right = pad2(x, {0, 0}, {0, 2}, 9);
  EXPECT_EQ(right.type.shape, (Shape{2, 4}));
  EXPECT_EQ(values_of(right), (std::vector<double>{1, 2, 9, 9, 3, 4, 9, 9}));
}

TEST(InterpreterViews, PadAllSidesAtOnce) {
  HostTensor x = f32({2, 2}, {1, 2, 3, 4});
  HostTensor y = pad2(x, {1, 2}, {2, 1}, -1);
  EXPECT_EQ(y.type.shape, (Shape{5, 5}));
  EXPECT_EQ(values_of(y), (std::vector<double>{-1, -1, -1, -1, -1,  //
                                               -1, -1, 1,  2,  -1,  //
                                               -1, -1, 3,  4,  -1,  //
                                               -1, -1, -1, -1, -1,  //
                                               -1, -1, -1, -1, -1}));
}

TEST(InterpreterViews, PadOtherDtypesAndEmptyOperand) {
  EXPECT_EQ(ints_of(pad2(i32({2}, {5, 6}), {1}, {2}, 7)), (std::vector<int64_t>{7, 5, 6, 7, 7}));
  EXPECT_EQ(ints_of(pad2(boolean({1}, {0}), {1}, {1}, 1)), (std::vector<int64_t>{1, 0, 1}));
  // The pad value is rounded to the dtype like any value.
  EXPECT_EQ(values_of(pad2(reals(DType::F16, {1}, {1}), {1}, {0}, 0.1)),
            (std::vector<double>{0.0999755859375, 1}));
  HostTensor empty = HostTensor::zeros({DType::F32, {0, 2}});
  HostTensor y = pad2(empty, {1, 0}, {0, 1}, 3);
  EXPECT_EQ(y.type.shape, (Shape{1, 3}));
  EXPECT_EQ(values_of(y), (std::vector<double>{3, 3, 3}));
}

TEST(InterpreterViews, PadOfCosOfSliceKeepsThePadValue) {
  // The luminal slice→cos→pad case: the padded element is the pad value, not cos(0).
  HostTensor x = f32({3}, {0, 5, 6});
  HostTensor y = run([](auto& v) { return pad(cos(slice_axis(v[0], 0, 0, 1)), {0}, {1}, 0.0); }, {x});
  EXPECT_EQ(values_of(y), (std::vector<double>{1, 0}));
}

TEST(InterpreterViews, BroadcastSizeOneDims) {
  HostTensor col = f32({2, 1}, {1, 2});
  EXPECT_EQ(values_of(run(
                [](auto& v) {
                  return broadcast(v[0], {2, 3});
                },
                {col})),
            (std::vector<double>{1, 1, 1, 2, 2, 2}));
  HostTensor row = i32({1, 3}, {1, 2, 3});
  EXPECT_EQ(ints_of(run(
                [](auto& v) {
                  return broadcast(v[0], {2, 3});
                },
                {row})),
            (std::vector<int64_t>{1, 2, 3, 1, 2, 3}));
  HostTensor one = f32({1}, {4});
  EXPECT_EQ(run([](auto& v) { return broadcast(v[0], {0}); }, {one}).numel(), 0);
}

TEST(InterpreterViews, BroadcastRaisesRank) {
  HostTensor vec = f32({3}, {1, 2, 3});
  EXPECT_EQ(values_of(run(
                [](auto& v) {
                  return broadcast(v[0], {2, 3});
                },
                {vec})),
            (std::vector<double>{1, 2, 3, 1, 2, 3}));
  HostTensor scalar = f32({}, {5});
  EXPECT_EQ(values_of(run(
                [](auto& v) {
                  return broadcast(v[0], {2, 2});
                },
                {scalar})),
            (std::vector<double>{5, 5, 5, 5}));
  // Right-aligned: [2,1] → [3,2,4] repeats each row value 4 times, the whole 3 times.
  HostTensor col = boolean({2, 1}, {1, 0});
  std::vector<int64_t> expected;
  for (int rep = 0; rep < 3; ++rep)
    for (int64_t value : {1, 0})
      for (int j = 0; j < 4; ++j) expected.push_back(value);
  EXPECT_EQ(ints_of(run([](auto& v) { return broadcast(v[0], {3, 2, 4}); }, {col})), expected);
}

TEST(InterpreterViews, ConcatOnEachAxis) {
  HostTensor a = f32({2, 2}, {1, 2, 3, 4});
  HostTensor b = f32({1, 2}, {5, 6});
  HostTensor c = f32({2, 1}, {7, 8});
  HostTensor rows = run([](auto& v) { return concat({v[0], v[1]}, 0); }, {a, b});
  EXPECT_EQ(rows.type.shape, (Shape{3, 2}));
  EXPECT_EQ(values_of(rows), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  HostTensor cols = run([](auto& v) { return concat({v[0], v[1], v[0]}, 1); }, {a, c});
  EXPECT_EQ(cols.type.shape, (Shape{2, 5}));
  EXPECT_EQ(values_of(cols), (std::vector<double>{1, 2, 7, 1, 2, 3, 4, 8, 3, 4}));
}

TEST(InterpreterViews, ConcatInnermostAxisOfThreeDAndEmptyOperands) {
  HostTensor a = i64({2, 1, 2}, {1, 2, 3, 4});
  HostTensor b = i64({2, 1, 1}, {5, 6});
  HostTensor empty = HostTensor::zeros({DType::I64, {2, 1, 0}});
  HostTensor y = run([](auto& v) { return concat({v[2], v[0], v[2], v[1]}, 2); }, {a, b, empty});
  EXPECT_EQ(y.type.shape, (Shape{2, 1, 3}));
  EXPECT_EQ(ints_of(y), (std::vector<int64_t>{1, 2, 5, 3, 4, 6}));
  HostTensor middle = run([](auto& v) { return concat({v[0], v[0]}, 1); }, {a});
  EXPECT_EQ(ints_of(middle), (std::vector<int64_t>{1, 2, 1, 2, 3, 4, 3, 4}));
}

// ---- reductions -------------------------------------------------------------------

// x[a,b,c] = 12a + 4b + c over f32[2,3,4].
HostTensor counting_2x3x4(DType dtype = DType::F32) {
  return reals(dtype, {2, 3, 4}, iota_values(24));
}

HostTensor sum_over(const HostTensor& x, std::vector<int64_t> axes, bool keepdims) {
  return run([=](auto& v) { return reduce_sum(v[0], axes, keepdims); }, {x});
}
HostTensor max_over(const HostTensor& x, std::vector<int64_t> axes, bool keepdims) {
  return run([=](auto& v) { return reduce_max(v[0], axes, keepdims); }, {x});
}

TEST(InterpreterReduce, SumOverOneAxis) {
  HostTensor x = counting_2x3x4();
  HostTensor last = sum_over(x, {2}, false);  // 4 (12a + 4b) + 6
  EXPECT_EQ(last.type.shape, (Shape{2, 3}));
  EXPECT_EQ(values_of(last), (std::vector<double>{6, 22, 38, 54, 70, 86}));
  HostTensor kept = sum_over(x, {2}, true);
  EXPECT_EQ(kept.type.shape, (Shape{2, 3, 1}));
  EXPECT_EQ(values_of(kept), values_of(last));
  HostTensor middle = sum_over(x, {1}, false);  // 36a + 3c + 12
  EXPECT_EQ(middle.type.shape, (Shape{2, 4}));
  EXPECT_EQ(values_of(middle), (std::vector<double>{12, 15, 18, 21, 48, 51, 54, 57}));
}

TEST(InterpreterReduce, SumOverSeveralAxes) {
  HostTensor x = counting_2x3x4(DType::BF16);
  HostTensor outer = sum_over(x, {0, 2}, false);  // 60 + 32b
  EXPECT_EQ(outer.type.shape, (Shape{3}));
  EXPECT_EQ(values_of(outer), (std::vector<double>{60, 92, 124}));
  HostTensor kept = sum_over(x, {2, 0}, true);  // axes in any order
  EXPECT_EQ(kept.type.shape, (Shape{1, 3, 1}));
  EXPECT_EQ(values_of(kept), (std::vector<double>{60, 92, 124}));
  HostTensor all = sum_over(counting_2x3x4(DType::F32), {0, 1, 2}, false);
  EXPECT_EQ(all.type.shape, Shape{});
  EXPECT_EQ(values_of(all), (std::vector<double>{276}));
  EXPECT_EQ(sum_over(counting_2x3x4(DType::F32), {0, 1, 2}, true).type.shape, (Shape{1, 1, 1}));
}

TEST(InterpreterReduce, SumAccumulatesFloatsInDoubleAndRoundsOnce) {
  // Summed in f16 step by step, 2048 + 1 + 1 would stay 2048 (each +1 is a tie to even).
  HostTensor x = reals(DType::F16, {3}, {2048, 1, 1});
  EXPECT_EQ(values_of(sum_over(x, {0}, false)), (std::vector<double>{2050}));
  // The once-rounded result is still an f16 value: 2048 + 1 ties to 2048.
  EXPECT_EQ(values_of(sum_over(reals(DType::F16, {2}, {2048, 1}), {0}, false)),
            (std::vector<double>{2048}));
}

TEST(InterpreterReduce, IntegerSumWraps) {
  EXPECT_EQ(ints_of(sum_over(i32({3}, {kI32Max, 1, 1}), {0}, false)),
            (std::vector<int64_t>{kI32Min + 1}));
  EXPECT_EQ(ints_of(sum_over(i64({2}, {kI64Max, 2}), {0}, false)),
            (std::vector<int64_t>{kI64Min + 1}));
  EXPECT_EQ(ints_of(sum_over(i32({2, 2}, {1, -2, 3, 4}), {1}, false)),
            (std::vector<int64_t>{-1, 7}));
}

TEST(InterpreterReduce, MaxOverAxes) {
  HostTensor x = counting_2x3x4();
  HostTensor middle = max_over(x, {1}, false);  // 12a + 8 + c
  EXPECT_EQ(values_of(middle), (std::vector<double>{8, 9, 10, 11, 20, 21, 22, 23}));
  HostTensor outer = max_over(x, {0, 2}, true);  // 12 + 4b + 3
  EXPECT_EQ(outer.type.shape, (Shape{1, 3, 1}));
  EXPECT_EQ(values_of(outer), (std::vector<double>{15, 19, 23}));
  EXPECT_EQ(ints_of(max_over(i32({3}, {-5, -3, -9}), {0}, false)), (std::vector<int64_t>{-3}));
  EXPECT_EQ(ints_of(max_over(i64({2}, {kI64Min, kI64Min + 1}), {0}, false)),
            (std::vector<int64_t>{kI64Min + 1}));
}

TEST(InterpreterReduce, MaxPropagatesNaN) {
  HostTensor x = f32({2, 3}, {1, kNaN, 3, 4, 5, -kInf});
  std::vector<double> rows = values_of(max_over(x, {1}, false));
  EXPECT_TRUE(std::isnan(rows[0]));
  EXPECT_EQ(rows[1], 5);
  std::vector<double> cols = values_of(max_over(x, {0}, false));
  EXPECT_EQ(cols[0], 4);
  EXPECT_TRUE(std::isnan(cols[1]));
  EXPECT_EQ(cols[2], 3);
  // A NaN first in the order is not lost either.
  EXPECT_TRUE(std::isnan(max_over(f32({2}, {kNaN, 1}), {0}, false).reals[0]));
}

TEST(InterpreterReduce, EmptyExtents) {
  // Sum over nothing is 0; max over nothing is the dtype's lowest value (-inf for floats).
  HostTensor x = HostTensor::zeros({DType::F32, {2, 0}});
  EXPECT_EQ(values_of(sum_over(x, {1}, false)), (std::vector<double>{0, 0}));
  EXPECT_EQ(values_of(max_over(x, {1}, true)), (std::vector<double>{-kInf, -kInf}));
  EXPECT_EQ(max_over(x, {0}, false).type.shape, Shape{0});
  EXPECT_EQ(ints_of(max_over(HostTensor::zeros({DType::I32, {0}}), {0}, false)),
            (std::vector<int64_t>{kI32Min}));
  EXPECT_EQ(ints_of(max_over(HostTensor::zeros({DType::I64, {0}}), {0}, false)),
            (std::vector<int64_t>{kI64Min}));
  EXPECT_EQ(ints_of(sum_over(HostTensor::zeros({DType::I64, {0, 3}}), {0}, false)),
            (std::vector<int64_t>{0, 0, 0}));
}

// ---- matmul -------------------------------------------------------------------------

TEST(InterpreterMatmul, TwoByThreeTimesThreeByTwo) {
  std::vector<double> a = {1, 2, 3, 4, 5, 6}, b = {7, 8, 9, 10, 11, 12};
  HostTensor y = run([](auto& v) { return matmul(v[0], v[1]); }, {f32({2, 3}, a), f32({3, 2}, b)});
  EXPECT_EQ(y.type.shape, (Shape{2, 2}));
  EXPECT_EQ(values_of(y), (std::vector<double>{58, 64, 139, 154}));
  HostTensor yi = run([](auto& v) { return matmul(v[0], v[1]); },
                      {i32({2, 3}, {1, 2, 3, 4, 5, 6}), i32({3, 2}, {7, 8, 9, 10, 11, 12})});
  EXPECT_EQ(ints_of(yi), (std::vector<int64_t>{58, 64, 139, 154}));
}

TEST(InterpreterMatmul, IntegerMatmulWraps) {
  // 65536 * 65536 + 65536 * 1 = 2^32 + 65536 → 65536 in i32.
  HostTensor y = run([](auto& v) { return matmul(v[0], v[1]); },
                     {i32({1, 2}, {65536, 65536}), i32({2, 1}, {65536, 1})});
  EXPECT_EQ(ints_of(y), (std::vector<int64_t>{65536}));
}

TEST(InterpreterMatmul, BroadcastBatchDims) {
  // a[p] = [[1, p], [0, 1]] over [2,1,2,2]; b[q] = [[q, 1], [2, q]] over [3,2,2];
  // out[p,q] = [[q + 2p, 1 + pq], [2, q]].
  HostTensor a = f32({2, 1, 2, 2}, {1, 0, 0, 1, 1, 1, 0, 1});
  HostTensor b = f32({3, 2, 2}, {0, 1, 2, 0, 1, 1, 2, 1, 2, 1, 2, 2});
  HostTensor y = run([](auto& v) { return matmul(v[0], v[1]); }, {a, b});
  EXPECT_EQ(y.type.shape, (Shape{2, 3, 2, 2}));
  EXPECT_EQ(values_of(y), (std::vector<double>{0, 1, 2, 0, 1, 1, 2, 1, 2, 1, 2, 2,  //
                                               2, 1, 2, 0, 3, 2, 2, 1, 4, 3, 2, 2}));
}

TEST(InterpreterMatmul, LowerRankOperandBroadcasts) {
  // [3,1,2] x [2,2]: the 2-D right operand is shared by every batch.
  HostTensor a = i64({3, 1, 2}, {1, 0, 0, 1, 1, 1});
  HostTensor b = i64({2, 2}, {1, 2, 3, 4});
  HostTensor y = run([](auto& v) { return matmul(v[0], v[1]); }, {a, b});
  EXPECT_EQ(y.type.shape, (Shape{3, 1, 2}));
  EXPECT_EQ(ints_of(y), (std::vector<int64_t>{1, 2, 3, 4, 4, 6}));
}

TEST(InterpreterMatmul, EmptyContractionIsZero) {
  HostTensor a = HostTensor::zeros({DType::F32, {2, 0}});
  HostTensor b = HostTensor::zeros({DType::F32, {0, 3}});
  HostTensor y = run([](auto& v) { return matmul(v[0], v[1]); }, {a, b});
  EXPECT_EQ(values_of(y), (std::vector<double>(6, 0.0)));
}

TEST(InterpreterMatmul, AccumulatesInDoubleAndPropagatesNaN) {
  HostTensor a = reals(DType::F16, {1, 3}, {2048, 1, 1});
  HostTensor b = reals(DType::F16, {3, 1}, {1, 1, 1});
  EXPECT_EQ(values_of(run([](auto& v) { return matmul(v[0], v[1]); }, {a, b})),
            (std::vector<double>{2050}));
  HostTensor c = f32({1, 2}, {0, 1});
  HostTensor d = f32({2, 1}, {kInf, 1});
  EXPECT_TRUE(
      std::isnan(run([](auto& v) { return matmul(v[0], v[1]); }, {c, d}).reals[0]));  // 0 * inf
}

// 64x1024x4096: the interpreter runs real shapes, the oracle of every
// compiled program. How fast is not checked here (a wall-clock bound fails
// on a busy machine; it was under 10 s): ctest's timeout stops a run that
// became unusably slow, and the speed itself is a benchmark's to watch.
TEST(InterpreterMatmul, LargeF32MatchesADirectDotProduct) {
  std::mt19937_64 rng(7);
  HostTensor a = random_tensor({DType::F32, {64, 1024}}, rng);
  HostTensor b = random_tensor({DType::F32, {1024, 4096}}, rng);
  HostTensor y = run([](auto& v) { return matmul(v[0], v[1]); }, {a, b});
  ASSERT_EQ(y.type.shape, (Shape{64, 4096}));
  // Spot-check one element against a direct dot product.
  double expected = 0;
  for (int64_t k = 0; k < 1024; ++k) expected += a.reals[5 * 1024 + k] * b.reals[k * 4096 + 77];
  EXPECT_FLOAT_EQ(static_cast<float>(y.reals[5 * 4096 + 77]), static_cast<float>(expected));
}

// ---- whole graphs --------------------------------------------------------------------

TEST(InterpreterGraph, SeveralOutputsAndSharedValues) {
  Graph g("multi");
  Tensor x = input(g, "x", DType::F32, {3});
  Tensor e = exp2(x);
  Tensor y = e + e;        // e is used twice
  Tensor z = relu(e - x);  // and again after y
  g.add_output(z);
  g.add_output(y);
  g.add_output(x);
  g.add_output(y);
  std::vector<HostTensor> out = interpret(g, {f32({3}, {0, 1, 3})});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(values_of(out[0]), (std::vector<double>{1, 1, 5}));
  EXPECT_EQ(values_of(out[1]), (std::vector<double>{2, 4, 16}));
  EXPECT_EQ(values_of(out[2]), (std::vector<double>{0, 1, 3}));
  EXPECT_EQ(values_of(out[3]), (std::vector<double>{2, 4, 16}));
}

TEST(InterpreterGraph, InterpretAllKeepsEveryValue) {
  Graph g;
  Tensor x = input(g, "x", DType::I32, {2});
  Tensor c = constant(g, {10, 20}, DType::I32, {2});
  Tensor s = x + c;
  g.add_output(s * s);
  std::vector<HostTensor> all = interpret_all(g, {i32({2}, {1, 2})});
  ASSERT_EQ(all.size(), g.size());
  EXPECT_EQ(ints_of(all[x.id]), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(ints_of(all[c.id]), (std::vector<int64_t>{10, 20}));
  EXPECT_EQ(ints_of(all[s.id]), (std::vector<int64_t>{11, 22}));
  EXPECT_EQ(ints_of(all.back()), (std::vector<int64_t>{121, 484}));
}

}  // namespace
}  // namespace smelt::ir
