#include "lower/composed_math.h"

#include <vector>

#include <llvm/IR/Intrinsics.h>

namespace lower {

llvm::Value* f32_constant(llvm::IRBuilder<>& b, double v) { return llvm::ConstantFP::get(b.getFloatTy(), v); }

llvm::Value* f32_polynomial(llvm::IRBuilder<>& b, llvm::Value* t, std::initializer_list<double> coefficients) {
  std::vector<double> c(coefficients);
  llvm::Value* acc = f32_constant(b, c.back());
  for (size_t i = c.size() - 1; i-- > 0;) acc = b.CreateFAdd(b.CreateFMul(acc, t), f32_constant(b, c[i]));
  return acc;
}

llvm::Value* composed_tanh(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  // tanh(9) rounds to 1 in f32; capping the argument keeps exp out of its
  // underflow path, which the vector math library runs a lane at a time (10x
  // slower). A NaN fails the compare and stays NaN.
  llvm::Value* capped = b.CreateSelect(b.CreateFCmpOGT(ax, f32_constant(b, 9.0)), f32_constant(b, 9.0), ax);
  llvm::Value* e = b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, b.CreateFMul(capped, f32_constant(b, -2.0)));
  llvm::Value* large = b.CreateFDiv(b.CreateFSub(f32_constant(b, 1.0), e), b.CreateFAdd(f32_constant(b, 1.0), e));
  // x·(1 − x²/3 + 2x⁴/15 − 17x⁶/315) near 0, where 1 − e cancels.
  llvm::Value* x2 = b.CreateFMul(ax, ax);
  llvm::Value* small = b.CreateFMul(ax, f32_polynomial(b, x2, {1.0, -1.0 / 3, 2.0 / 15, -17.0 / 315}));
  llvm::Value* magnitude = b.CreateSelect(b.CreateFCmpOLT(ax, f32_constant(b, 0.125)), small, large);
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, x);  // NaN stays NaN
}

llvm::Value* composed_erf(llvm::IRBuilder<>& b, llvm::Value* x) {
  // erf(4) rounds to 1 in f32: capped there, exp(−x²) never underflows (see tanh).
  llvm::Value* abs_x = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value* ax = b.CreateSelect(b.CreateFCmpOGT(abs_x, f32_constant(b, 4.0)), f32_constant(b, 4.0), abs_x);
  // Abramowitz & Stegun 7.1.26: 1 − (a1 t + … + a5 t⁵)·e^(−x²), t = 1/(1 + p x).
  llvm::Value* t = b.CreateFDiv(f32_constant(b, 1.0),
                                b.CreateFAdd(f32_constant(b, 1.0), b.CreateFMul(ax, f32_constant(b, 0.3275911))));
  llvm::Value* poly =
      b.CreateFMul(t, f32_polynomial(b, t, {0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429}));
  llvm::Value* gauss = b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, b.CreateFNeg(b.CreateFMul(ax, ax)));
  llvm::Value* large = b.CreateFSub(f32_constant(b, 1.0), b.CreateFMul(poly, gauss));
  // 2/√π · (x − x³/3 + x⁵/10 − x⁷/42 + x⁹/216 − x¹¹/1320) below 1/2.
  llvm::Value* x2 = b.CreateFMul(ax, ax);
  llvm::Value* series = f32_polynomial(b, x2, {1.0, -1.0 / 3, 1.0 / 10, -1.0 / 42, 1.0 / 216, -1.0 / 1320});
  llvm::Value* small = b.CreateFMul(b.CreateFMul(ax, series), f32_constant(b, 1.1283791670955126));
  llvm::Value* magnitude = b.CreateSelect(b.CreateFCmpOLT(ax, f32_constant(b, 0.5)), small, large);
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, x);
}

llvm::Value* composed_exp2(llvm::IRBuilder<>& b, llvm::Value* x) {
  // 2^x = 2^n · e^(f·ln 2), n = x rounded, f = x − n in [−½, ½] (exact): one
  // vector exp and a power of two built from exponent bits, in two factors
  // 2^(n/2) · 2^(n − n/2) so that n down to −150 (denormal results) stays exact.
  // x clamped to [−150, 128] first (below: 0, above: inf, as exp2 rounds); a
  // NaN is returned as it is (the clamp would make it a number).
  llvm::Value* clamped = b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, x, f32_constant(b, 128.0));
  clamped = b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, clamped, f32_constant(b, -150.0));
  llvm::Value* n = b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, clamped);
  llvm::Value* f = b.CreateFSub(clamped, n);
  llvm::Value* e = b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, b.CreateFMul(f, f32_constant(b, 0.69314718055994530942)));
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Value* ni = b.CreateFPToSI(n, i32);
  llvm::Value* half = b.CreateAShr(ni, 1);
  llvm::Value* rest = b.CreateSub(ni, half);
  auto power = [&](llvm::Value* k) {  // 2^k for k in [−75, 64]: a normal float's exponent bits
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(k, b.getInt32(127)), 23), b.getFloatTy());
  };
  llvm::Value* result = b.CreateFMul(b.CreateFMul(e, power(half)), power(rest));
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, result);
}

}  // namespace lower
