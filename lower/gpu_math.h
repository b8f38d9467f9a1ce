#pragma once
// lower-private (LLVM types): the math functions of the two GPU targets, as
// the kernel emitter's MathHooks (lower/kernel_emitter.h).
//
//  cuda: libdevice's __nv_expf, __nv_exp2f, __nv_logf, __nv_log2f, __nv_sinf,
//    __nv_cosf, __nv_tanhf, __nv_erff, __nv_powf (the accurate versions,
//    flush-to-zero off: __CUDA_FTZ = 0); sqrt is llvm.sqrt.f32, which NVPTX
//    lowers to the correctly rounded sqrt.rn.f32. (Plain llvm.exp / llvm.sin
//    do not lower on NVPTX.)
//  hip, with rocm-device-libs installed: ocml's __ocml_*_f32 (HIP's own
//    math).
//  hip, without it (the fallback, documented accuracy for f32):
//    exp, exp2, log, log2, sqrt: llvm intrinsics, which LLVM 19's AMDGPU
//      backend lowers itself (exp/log within ~1 ulp, sqrt correctly rounded);
//    sin, cos: llvm.sin / llvm.cos → v_sin_f32 / v_cos_f32 after scaling by
//      1/2π: absolute error ~1e-6 for |x| up to a few hundred, growing with
//      |x| (the hardware reduces the argument in f32);
//    tanh: odd Taylor polynomial below |x| < 1/8, else (1 − e)/(1 + e) with
//      e = exp(−2|x|): relative error below ~2e-6;
//    erf: odd Taylor series below |x| < 1/2, else Abramowitz & Stegun 7.1.26:
//      absolute error below ~3e-7;
//    pow: exp2(y·log2|x|) with C's special cases (x < 0 with integral y,
//      zeros, infinities, x = 1, y = 0): relative error ~|y·log2 x|·1e-7.
//  Every fallback is within smelt::ir::compare_outputs' f32 tolerance (1e-4).
#include <memory>
#include <string>

#include "lower/kernel_emitter.h"
#include "lower/lower.h"

namespace smelt::lower {

// The hooks for `target` (cuda or hip) at `arch`; for hip they use ocml only
// when amdgpu_device_libs_dir(arch) finds it.
std::unique_ptr<MathHooks> gpu_math_hooks(Target target, const std::string& arch);
// hip's fallback alone (for its accuracy test, which runs it on the host: every
// intrinsic it uses lowers on x86 too).
std::unique_ptr<MathHooks> amdgpu_fallback_math_hooks();

}  // namespace smelt::lower
