// hip's fallback math (no rocm-device-libs: tanh, erf and pow composed from
// intrinsics, lower/gpu_math.h) run on the host through ORC, against the C
// library in double. Uses lower-private headers and LLVM, like lower/ itself.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/Support/TargetSelect.h>

#include "lower/gpu_math.h"

namespace {

using MathFn = float (*)(float, float);

// float f(float x, float y) { return op == Pow ? pow(x, y) : op(x); } with the fallback hooks, JIT-compiled.
class FallbackMath {
 public:
  explicit FallbackMath(smelt::ir::Op op) {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto context = std::make_unique<llvm::LLVMContext>();
    auto module = std::make_unique<llvm::Module>("fallback_math", *context);
    llvm::IRBuilder<> b(*context);
    auto* type = llvm::FunctionType::get(b.getFloatTy(), {b.getFloatTy(), b.getFloatTy()}, false);
    llvm::Function* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "f", *module);
    b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", fn));
    const std::unique_ptr<smelt::lower::MathHooks> math = smelt::lower::amdgpu_fallback_math_hooks();
    b.CreateRet(op == smelt::ir::Op::Pow ? math->pow(b, fn->getArg(0), fn->getArg(1)) : math->unary(b, op, fn->getArg(0)));

    jit_ = cantFail(llvm::orc::LLJITBuilder().create());
    // The host lowers llvm.exp / llvm.sin / ... to libm calls: resolve them in this process.
    jit_->getMainJITDylib().addGenerator(cantFail(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        jit_->getDataLayout().getGlobalPrefix())));
    cantFail(jit_->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))));
    fn_ = cantFail(jit_->lookup("f")).toPtr<MathFn>();
  }
  float operator()(float x, float y = 0) const { return fn_(x, y); }

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  MathFn fn_ = nullptr;
};

// want (double, rounded to f32) and got agree: NaN with NaN, infinities and
// zeros with their signs, finite values within `tolerance` relative to max(1, |want|).
::testing::AssertionResult close(double want_double, float got, double tolerance) {
  const float want = static_cast<float>(want_double);
  if (std::isnan(want) || std::isnan(got)) {
    if (std::isnan(want) && std::isnan(got)) return ::testing::AssertionSuccess();
  } else if (std::isinf(want) || want == 0) {
    if (want == got && std::signbit(want) == std::signbit(got)) return ::testing::AssertionSuccess();
    if (want == 0 && std::abs(got) <= tolerance && !std::isinf(got)) return ::testing::AssertionSuccess();
  } else if (std::abs(static_cast<double>(got) - want_double) <= tolerance * std::max(1.0, std::abs(want_double))) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "want " << want << ", got " << got;
}

std::vector<float> arguments() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> xs = {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-5f, 0.1249f, 0.125f, 0.1251f, 0.4999f, 0.5f,
                           0.5001f, 9.0f, 20.0f, 1e10f, inf, -inf, std::numeric_limits<float>::quiet_NaN()};
  for (float x = -6.0f; x <= 6.0f; x += 0.0137f) xs.push_back(x);
  return xs;
}

// smelt::ir::compare_outputs allows 1e-4 for f32; the fallback stays well inside.
constexpr double kTolerance = 2e-6;  // tanh; erf and pow below

TEST(GpuFallbackMath, TanhMatchesTheCLibrary) {
  const FallbackMath tanh_fallback(smelt::ir::Op::Tanh);
  for (float x : arguments()) EXPECT_TRUE(close(std::tanh(double{x}), tanh_fallback(x), kTolerance)) << "tanh(" << x << ")";
}

TEST(GpuFallbackMath, ErfMatchesTheCLibrary) {
  const FallbackMath erf_fallback(smelt::ir::Op::Erf);
  for (float x : arguments()) EXPECT_TRUE(close(std::erf(double{x}), erf_fallback(x), 5e-7)) << "erf(" << x << ")";
}

TEST(GpuFallbackMath, PowMatchesTheCLibraryIncludingSpecialCases) {
  const FallbackMath pow_fallback(smelt::ir::Op::Pow);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> xs = {-3.0f, -2.5f, -1.0f, -0.5f, -0.0f, 0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 7.25f, inf, -inf, nan};
  const std::vector<float> ys = {-3.0f, -2.0f, -1.5f, -1.0f, -0.5f, -0.0f, 0.0f, 0.5f, 1.0f, 2.0f,
                                 2.5f, 3.0f, 10.0f, 1e9f, inf, -inf, nan};
  for (float x : xs)
    for (float y : ys)
      EXPECT_TRUE(close(std::pow(double{x}, double{y}), pow_fallback(x, y), 1e-5)) << "pow(" << x << ", " << y << ")";
}

}  // namespace
