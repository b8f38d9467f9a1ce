// Math hooks of the GPU targets; the choices and accuracies are in gpu_math.h.
#include "lower/gpu_math.h"

#include <limits>

#include <llvm/IR/Intrinsics.h>

#include "lower/composed_math.h"
#include "lower/gpu_backend.h"

namespace smelt::lower {
namespace {

llvm::Value* call_library(llvm::IRBuilder<>& b, const std::string& name, std::initializer_list<llvm::Value*> args) {
  llvm::Module* module = b.GetInsertBlock()->getModule();
  std::vector<llvm::Type*> types(args.size(), b.getFloatTy());
  llvm::FunctionCallee fn = module->getOrInsertFunction(name, llvm::FunctionType::get(b.getFloatTy(), types, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
    f->setDoesNotThrow();
    f->setDoesNotAccessMemory();
  }
  return b.CreateCall(fn, args);
}

llvm::Value* intrinsic(llvm::IRBuilder<>& b, llvm::Intrinsic::ID id, llvm::Value* x) {
  return b.CreateUnaryIntrinsic(id, x);
}

llvm::Value* constant(llvm::IRBuilder<>& b, double v) { return f32_constant(b, v); }

class NvptxMath : public MathHooks {
 public:
  llvm::Value* unary(llvm::IRBuilder<>& b, ir::Op op, llvm::Value* x) const override {
    switch (op) {
      case ir::Op::Exp: return call_library(b, "__nv_expf", {x});
      case ir::Op::Exp2: return call_library(b, "__nv_exp2f", {x});
      case ir::Op::Log: return call_library(b, "__nv_logf", {x});
      case ir::Op::Log2: return call_library(b, "__nv_log2f", {x});
      case ir::Op::Sin: return call_library(b, "__nv_sinf", {x});
      case ir::Op::Cos: return call_library(b, "__nv_cosf", {x});
      case ir::Op::Tanh: return call_library(b, "__nv_tanhf", {x});
      case ir::Op::Erf: return call_library(b, "__nv_erff", {x});
      case ir::Op::Sqrt: return intrinsic(b, llvm::Intrinsic::sqrt, x);
      default: throw LowerError("cuda: no math function for " + std::string(ir::op_info(op).name));
    }
  }
  bool native_bf16_rounding() const override { return true; }  // sm_80 and sm_90, the archs smelt emits
  llvm::Value* pow(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y) const override {
    return call_library(b, "__nv_powf", {x, y});
  }
};

class OcmlMath : public MathHooks {
 public:
  llvm::Value* unary(llvm::IRBuilder<>& b, ir::Op op, llvm::Value* x) const override {
    switch (op) {
      case ir::Op::Exp: return call_library(b, "__ocml_exp_f32", {x});
      case ir::Op::Exp2: return call_library(b, "__ocml_exp2_f32", {x});
      case ir::Op::Log: return call_library(b, "__ocml_log_f32", {x});
      case ir::Op::Log2: return call_library(b, "__ocml_log2_f32", {x});
      case ir::Op::Sin: return call_library(b, "__ocml_sin_f32", {x});
      case ir::Op::Cos: return call_library(b, "__ocml_cos_f32", {x});
      case ir::Op::Tanh: return call_library(b, "__ocml_tanh_f32", {x});
      case ir::Op::Erf: return call_library(b, "__ocml_erf_f32", {x});
      case ir::Op::Sqrt: return call_library(b, "__ocml_sqrt_f32", {x});
      default: throw LowerError("hip: no math function for " + std::string(ir::op_info(op).name));
    }
  }
  llvm::Value* pow(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y) const override {
    return call_library(b, "__ocml_pow_f32", {x, y});
  }
};

// Without rocm-device-libs: what the AMDGPU backend lowers by itself, composed
// (accuracy in gpu_math.h).
class AmdgpuIntrinsicMath : public MathHooks {
 public:
  llvm::Value* unary(llvm::IRBuilder<>& b, ir::Op op, llvm::Value* x) const override {
    switch (op) {
      case ir::Op::Exp: return intrinsic(b, llvm::Intrinsic::exp, x);
      case ir::Op::Exp2: return intrinsic(b, llvm::Intrinsic::exp2, x);
      case ir::Op::Log: return intrinsic(b, llvm::Intrinsic::log, x);
      case ir::Op::Log2: return intrinsic(b, llvm::Intrinsic::log2, x);
      case ir::Op::Sin: return intrinsic(b, llvm::Intrinsic::sin, x);
      case ir::Op::Cos: return intrinsic(b, llvm::Intrinsic::cos, x);
      case ir::Op::Sqrt: return intrinsic(b, llvm::Intrinsic::sqrt, x);
      case ir::Op::Tanh: return composed_tanh(b, x);
      case ir::Op::Erf: return composed_erf(b, x);
      default: throw LowerError("hip: no math function for " + std::string(ir::op_info(op).name));
    }
  }

  llvm::Value* pow(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y) const override {
    llvm::Value* ax = intrinsic(b, llvm::Intrinsic::fabs, x);
    llvm::Value* magnitude =
        intrinsic(b, llvm::Intrinsic::exp2, b.CreateFMul(y, intrinsic(b, llvm::Intrinsic::log2, ax)));
    // y integral (±inf counts as an even integer, as in C) and odd.
    llvm::Value* integral = b.CreateFCmpOEQ(intrinsic(b, llvm::Intrinsic::floor, y), y);
    llvm::Value* half = b.CreateFMul(y, constant(b, 0.5));
    llvm::Value* odd = b.CreateAnd(integral, b.CreateFCmpUNE(intrinsic(b, llvm::Intrinsic::floor, half), half));
    // The result is negative when x's sign bit is set (−0 included) and y is an odd integer.
    llvm::Value* sign_bit = b.CreateICmpSLT(b.CreateBitCast(x, b.getInt32Ty()), b.getInt32(0));
    llvm::Value* result = b.CreateSelect(b.CreateAnd(sign_bit, odd), b.CreateFNeg(magnitude), magnitude);
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // A finite negative x to a non-integral power has no real value (−inf's powers do).
    llvm::Value* no_real_value = b.CreateAnd(
        b.CreateAnd(b.CreateFCmpOLT(x, constant(b, 0.0)), b.CreateFCmpONE(x, constant(b, -inf))), b.CreateNot(integral));
    result = b.CreateSelect(no_real_value, constant(b, nan), result);
    // |x| = 1 with y = ±inf gives 1 (log2 1 · inf would be NaN); so do y = 0 and x = 1.
    llvm::Value* unit_inf = b.CreateAnd(b.CreateFCmpOEQ(ax, constant(b, 1.0)),
                                        b.CreateFCmpOEQ(intrinsic(b, llvm::Intrinsic::fabs, y), constant(b, inf)));
    llvm::Value* one = b.CreateOr(b.CreateOr(b.CreateFCmpOEQ(y, constant(b, 0.0)), b.CreateFCmpOEQ(x, constant(b, 1.0))),
                                  unit_inf);
    return b.CreateSelect(one, constant(b, 1.0), result);
  }

};

}  // namespace

std::unique_ptr<MathHooks> gpu_math_hooks(Target target, const std::string& arch) {
  if (target == Target::kCuda) return std::make_unique<NvptxMath>();
  if (target == Target::kHip) {
    if (!amdgpu_device_libs_dir(arch).empty()) return std::make_unique<OcmlMath>();
    return amdgpu_fallback_math_hooks();
  }
  throw LowerError("gpu_math_hooks: the host is not a GPU target");
}

std::unique_ptr<MathHooks> amdgpu_fallback_math_hooks() { return std::make_unique<AmdgpuIntrinsicMath>(); }

}  // namespace smelt::lower
