#pragma once
// lower-private (LLVM types): exp, exp2, tanh and erf built from arithmetic, with
// no branches and no library calls, so loops containing them still vectorize
// (the host) and targets without a math library can use them (AMDGPU without
// rocm-device-libs). Accuracy for f32, checked against the C library by
// tests/lower_gpu/gpu_math_test.cpp:
//  tanh: odd Taylor polynomial below |x| < 1/8, else (1 − e)/(1 + e) with
//    e = exp(−2|x|): relative error below ~2e-6;
//  erf: odd Taylor series below |x| < 1/2, else Abramowitz & Stegun 7.1.26:
//    absolute error below ~3e-7.
#include <initializer_list>

#include <llvm/IR/IRBuilder.h>

namespace smelt::lower {

llvm::Value* f32_constant(llvm::IRBuilder<>& b, double v);
// Horner evaluation of c[0] + c[1]·t + c[2]·t² + ... in f32.
llvm::Value* f32_polynomial(llvm::IRBuilder<>& b, llvm::Value* t, std::initializer_list<double> coefficients);
// e^x: llvm.exp (a library call on the host, native on GPUs) or composed below.
using ExpFunction = llvm::Value* (*)(llvm::IRBuilder<>&, llvm::Value*);
llvm::Value* intrinsic_exp(llvm::IRBuilder<>& b, llvm::Value* x);
// e^x from a degree-7 polynomial and exponent bits, no call and no branch: inline
// in the host's vectorized loops (no spills around a libmvec call, and as wide as
// the target's vectors: 16 lanes with AVX-512, where libmvec's were 8).
// Within 2 ulp of the C library over the f32 range; 0 below −104, inf above 89.
llvm::Value* composed_exp(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* composed_tanh(llvm::IRBuilder<>& b, llvm::Value* x, ExpFunction exp = intrinsic_exp);
llvm::Value* composed_erf(llvm::IRBuilder<>& b, llvm::Value* x, ExpFunction exp = intrinsic_exp);
// exp2 as the same polynomial at the fraction times an exact power of two
// (libm's exp2f has no vector variant the loop vectorizer knows: the host called
// it a lane at a time). Within 2 ulp of the C library.
llvm::Value* composed_exp2(llvm::IRBuilder<>& b, llvm::Value* x);

}  // namespace smelt::lower
