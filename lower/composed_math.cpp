#include "lower/composed_math.h"

#include <vector>

#include <llvm/IR/Intrinsics.h>

namespace smelt::lower {

llvm::Value* f32_constant(llvm::IRBuilder<>& b, double v) { return llvm::ConstantFP::get(b.getFloatTy(), v); }

llvm::Value* f32_polynomial(llvm::IRBuilder<>& b, llvm::Value* t, std::initializer_list<double> coefficients) {
  std::vector<double> c(coefficients);
  llvm::Value* acc = f32_constant(b, c.back());
  // fmuladd: one fma per coefficient where the target has it (the polynomials
  // are accurate either way; fused, they take half the instructions).
  for (size_t i = c.size() - 1; i-- > 0;)
    acc = b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {acc->getType()}, {acc, t, f32_constant(b, c[i])});
  return acc;
}

llvm::Value* composed_tanh(llvm::IRBuilder<>& b, llvm::Value* x, ExpFunction exp) {
  llvm::Value* ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  // tanh(9) rounds to 1 in f32; capping the argument keeps exp out of its
  // underflow path, which the vector math library runs a lane at a time (10x
  // slower). A NaN fails the compare and stays NaN.
  llvm::Value* capped = b.CreateSelect(b.CreateFCmpOGT(ax, f32_constant(b, 9.0)), f32_constant(b, 9.0), ax);
  llvm::Value* e = exp(b, b.CreateFMul(capped, f32_constant(b, -2.0)));
  llvm::Value* large = b.CreateFDiv(b.CreateFSub(f32_constant(b, 1.0), e), b.CreateFAdd(f32_constant(b, 1.0), e));
  // x·(1 − x²/3 + 2x⁴/15 − 17x⁶/315) near 0, where 1 − e cancels.
  llvm::Value* x2 = b.CreateFMul(ax, ax);
  llvm::Value* small = b.CreateFMul(ax, f32_polynomial(b, x2, {1.0, -1.0 / 3, 2.0 / 15, -17.0 / 315}));
  llvm::Value* magnitude = b.CreateSelect(b.CreateFCmpOLT(ax, f32_constant(b, 0.125)), small, large);
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, x);  // NaN stays NaN
}

llvm::Value* composed_erf(llvm::IRBuilder<>& b, llvm::Value* x, ExpFunction exp) {
  // erf(4) rounds to 1 in f32: capped there, exp(−x²) never underflows (see tanh).
  llvm::Value* abs_x = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value* ax = b.CreateSelect(b.CreateFCmpOGT(abs_x, f32_constant(b, 4.0)), f32_constant(b, 4.0), abs_x);
  // Abramowitz & Stegun 7.1.26: 1 − (a1 t + … + a5 t⁵)·e^(−x²), t = 1/(1 + p x).
  llvm::Value* t = b.CreateFDiv(f32_constant(b, 1.0),
                                b.CreateFAdd(f32_constant(b, 1.0), b.CreateFMul(ax, f32_constant(b, 0.3275911))));
  llvm::Value* poly =
      b.CreateFMul(t, f32_polynomial(b, t, {0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429}));
  llvm::Value* gauss = exp(b, b.CreateFNeg(b.CreateFMul(ax, ax)));
  llvm::Value* large = b.CreateFSub(f32_constant(b, 1.0), b.CreateFMul(poly, gauss));
  // 2/√π · (x − x³/3 + x⁵/10 − x⁷/42 + x⁹/216 − x¹¹/1320) below 1/2.
  llvm::Value* x2 = b.CreateFMul(ax, ax);
  llvm::Value* series = f32_polynomial(b, x2, {1.0, -1.0 / 3, 1.0 / 10, -1.0 / 42, 1.0 / 216, -1.0 / 1320});
  llvm::Value* small = b.CreateFMul(b.CreateFMul(ax, series), f32_constant(b, 1.1283791670955126));
  llvm::Value* magnitude = b.CreateSelect(b.CreateFCmpOLT(ax, f32_constant(b, 0.5)), small, large);
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, x);
}

namespace {
// e^r for |r| ≤ ½ ln 2: Cephes expf's minimax polynomial (about 1 ulp).
llvm::Value* exp_of_reduced(llvm::IRBuilder<>& b, llvm::Value* r) {
  llvm::Value* p = f32_polynomial(b, r, {5.0000001201e-1, 1.6666665459e-1, 4.1665795894e-2, 8.3334519073e-3,
                                         1.3981999507e-3, 1.9875691500e-4});
  llvm::Value* r2 = b.CreateFMul(r, r);
  return b.CreateFAdd(b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {r->getType()}, {p, r2, r}), f32_constant(b, 1.0));
}

// p · 2^n for an integral f32 n in [−254, 128], in two factors 2^(n/2) · 2^(n − n/2)
// (each a normal float's exponent bits, or +0 for −127), so that denormal
// results round once; n = −254 gives an exact +0 without a denormal product.
llvm::Value* times_power_of_two(llvm::IRBuilder<>& b, llvm::Value* p, llvm::Value* n) {
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Value* ni = b.CreateFPToSI(n, i32);
  llvm::Value* half = b.CreateAShr(ni, 1);
  llvm::Value* rest = b.CreateSub(ni, half);
  auto power = [&](llvm::Value* k) {  // 2^k for k in [−126, 64]; +0 for −127
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(k, b.getInt32(127)), 23), b.getFloatTy());
  };
  return b.CreateFMul(b.CreateFMul(p, power(half)), power(rest));
}

llvm::Value* clamp(llvm::IRBuilder<>& b, llvm::Value* x, double low, double high) {
  llvm::Value* c = b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, x, f32_constant(b, high));
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, c, f32_constant(b, low));
}
}  // namespace

llvm::Value* intrinsic_exp(llvm::IRBuilder<>& b, llvm::Value* x) { return b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x); }

llvm::Value* composed_exp(llvm::IRBuilder<>& b, llvm::Value* x) {
  // e^x = 2^n · e^r, n = round(x / ln 2), r = x − n ln 2 in two parts (Cody and
  // Waite: n · ln2_hi is exact for |n| < 2^15). x clamped to [−176, 89] first:
  // beyond, the result is 0 or inf either way; a NaN is returned as it is. At
  // −176, n = −254 and both factors of 2^n are +0 (times_power_of_two), so a
  // lane far below (a masked softmax's −FLT_MAX scores) never forms a denormal
  // product, which costs a microcode assist per vector on x86 (3x slower).
  llvm::Value* clamped = clamp(b, x, -176.0, 89.0);
  llvm::Value* n = b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, b.CreateFMul(clamped, f32_constant(b, 1.44269504088896341)));
  llvm::Value* r = b.CreateFSub(clamped, b.CreateFMul(n, f32_constant(b, 0.693359375)));
  r = b.CreateFSub(r, b.CreateFMul(n, f32_constant(b, -2.12194440e-4)));
  llvm::Value* result = times_power_of_two(b, exp_of_reduced(b, r), n);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, result);
}

llvm::Value* composed_exp2(llvm::IRBuilder<>& b, llvm::Value* x) {
  // 2^x = 2^n · e^(f·ln 2), n = x rounded, f = x − n in [−½, ½] (exact). x
  // clamped to [−254, 128] first (below −150: 0, above 128: inf, as exp2
  // rounds; −254 gives +0 without a denormal product, see composed_exp); a NaN
  // is returned as it is (the clamp would make it a number).
  llvm::Value* clamped = clamp(b, x, -254.0, 128.0);
  llvm::Value* n = b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, clamped);
  llvm::Value* f = b.CreateFSub(clamped, n);
  llvm::Value* e = exp_of_reduced(b, b.CreateFMul(f, f32_constant(b, 0.69314718055994530942)));
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, times_power_of_two(b, e, n));
}

}  // namespace smelt::lower
