#include "lower/host_vector_math.h"

#include <string>
#include <vector>

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include "lower/lower.h"

namespace smelt::lower {
namespace {

constexpr unsigned kLanes[] = {4, 8, 16};
constexpr double kLargestFast = 1048576.0;  // 2^20: beyond, the reduction by π loses bits

const char* libm_name(ir::Op op) { return op == ir::Op::Sin ? "sinf" : "cosf"; }
std::string scalar_name(ir::Op op) { return std::string("smelt_") + libm_name(op); }
std::string variant_name(ir::Op op, unsigned lanes) { return scalar_name(op) + "_v" + std::to_string(lanes); }

llvm::Value* splat(llvm::Type* type, double v) { return llvm::ConstantFP::get(type, v); }

// sin / cos of x (f32 or a vector of f32) for |x| ≤ 2^20, no branch and no call:
// |x| = r + nπ with r in [−π/2, π/2] (n integral for sin; for cos n = m − ½,
// cos |x| = (−1)^m sin r), π in three f32 parts with fma (each product exact),
// sin r as r + r³·P(r²) (minimax on [0, π/2 + 0.09]: the rounded quotient may
// put r a little past π/2). The parity of m comes from the bits of m + 1.5·2^23.
llvm::Value* sin_cos_fast(llvm::IRBuilder<>& b, ir::Op op, llvm::Value* x) {
  llvm::Type* type = x->getType();
  llvm::Type* bits_type = type->isVectorTy()
                              ? static_cast<llvm::Type*>(llvm::VectorType::get(
                                    b.getInt32Ty(), llvm::cast<llvm::VectorType>(type)->getElementCount()))
                              : b.getInt32Ty();
  auto fma = [&](llvm::Value* a, llvm::Value* m, llvm::Value* c) {
    return b.CreateIntrinsic(llvm::Intrinsic::fma, {type}, {a, m, c});
  };
  const bool is_cos = op == ir::Op::Cos;
  llvm::Value* ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value* q = b.CreateFMul(ax, splat(type, 0.31830988618379067154));
  if (is_cos) q = b.CreateFAdd(q, splat(type, 0.5));
  const double shift = 12582912.0;  // 1.5·2^23: adding it rounds q (< 2^22) to an integer, ties to even
  llvm::Value* shifted = b.CreateFAdd(q, splat(type, shift));
  llvm::Value* odd = b.CreateShl(b.CreateBitCast(shifted, bits_type), 31);
  llvm::Value* n = b.CreateFSub(shifted, splat(type, shift));
  if (is_cos) n = b.CreateFSub(n, splat(type, 0.5));
  llvm::Value* r = fma(n, splat(type, -3.14159274101257324), ax);
  r = fma(n, splat(type, 8.74227800037248316e-8), r);
  r = fma(n, splat(type, 3.43774182859482964e-15), r);
  llvm::Value* r2 = b.CreateFMul(r, r);
  llvm::Value* p = splat(type, 2.5882145208537544e-06);
  for (double c : {-0.00019801638881124153, 0.00833295827016562, -0.16666655431335267}) p = fma(p, r2, splat(type, c));
  llvm::Value* sine = fma(b.CreateFMul(r, r2), p, r);
  llvm::Value* sign = odd;
  if (!is_cos) sign = b.CreateXor(sign, b.CreateAnd(b.CreateBitCast(x, bits_type), llvm::ConstantInt::get(bits_type, 0x80000000u)));
  return b.CreateBitCast(b.CreateXor(b.CreateBitCast(sine, bits_type), sign), type);
}

llvm::FunctionCallee libm(llvm::Module& module, ir::Op op) {
  llvm::Type* f32 = llvm::Type::getFloatTy(module.getContext());
  return module.getOrInsertFunction(libm_name(op), llvm::FunctionType::get(f32, {f32}, false));
}

// <lanes x float> variant: the fast formula, or (some lane beyond 2^20) the C library lane by lane.
void define_variant(llvm::Module& module, ir::Op op, unsigned lanes) {
  llvm::LLVMContext& context = module.getContext();
  auto* type = llvm::FixedVectorType::get(llvm::Type::getFloatTy(context), lanes);
  auto* f = llvm::Function::Create(llvm::FunctionType::get(type, {type}, false), llvm::Function::InternalLinkage,
                                   variant_name(op, lanes), module);
  f->setDoesNotThrow();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", f));
  llvm::Value* x = f->getArg(0);
  auto* fast = llvm::BasicBlock::Create(context, "fast", f);
  auto* slow = llvm::BasicBlock::Create(context, "slow", f);
  llvm::Value* beyond = b.CreateFCmpOGT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x), splat(type, kLargestFast));
  b.CreateCondBr(b.CreateOrReduce(beyond), slow, fast, llvm::MDBuilder(context).createBranchWeights(1, 1000));
  b.SetInsertPoint(fast);
  b.CreateRet(sin_cos_fast(b, op, x));
  b.SetInsertPoint(slow);
  llvm::Value* result = llvm::PoisonValue::get(type);
  for (unsigned lane = 0; lane < lanes; ++lane)
    result = b.CreateInsertElement(result, b.CreateCall(libm(module, op), {b.CreateExtractElement(x, lane)}), lane);
  b.CreateRet(result);
  llvm::appendToCompilerUsed(module, {f});  // kept until the vectorizer has called it
}

llvm::Function* scalar_function(llvm::Module& module, ir::Op op) {
  if (llvm::Function* f = module.getFunction(scalar_name(op))) return f;
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* f32 = llvm::Type::getFloatTy(context);
  auto* f = llvm::Function::Create(llvm::FunctionType::get(f32, {f32}, false), llvm::Function::InternalLinkage,
                                   scalar_name(op), module);
  f->setDoesNotThrow();
  f->setDoesNotAccessMemory();  // errno is not observed
  f->setWillReturn();
  f->addFnAttr(llvm::Attribute::NoInline);  // the call must reach the vectorizer with its variants
  std::string variants;
  for (unsigned lanes : kLanes) {
    define_variant(module, op, lanes);
    if (!variants.empty()) variants += ",";
    variants += "_ZGV_LLVM_N" + std::to_string(lanes) + "v_" + scalar_name(op) + "(" + variant_name(op, lanes) + ")";
  }
  f->addFnAttr("vector-function-abi-variant", variants);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", f));
  b.CreateRet(b.CreateCall(libm(module, op), {f->getArg(0)}));
  return f;
}

}  // namespace

llvm::Value* host_range_reduced_math(llvm::IRBuilder<>& builder, ir::Op op, llvm::Value* x) {
  if (op != ir::Op::Sin && op != ir::Op::Cos)
    throw LowerError("no range-reduced host function for " + std::string(ir::op_name(op)));
  llvm::Module& module = *builder.GetInsertBlock()->getModule();
  return builder.CreateCall(scalar_function(module, op), {x});
}

void inline_host_math(llvm::Module& module) {
  std::vector<llvm::Function*> variants;
  for (ir::Op op : {ir::Op::Sin, ir::Op::Cos})
    for (unsigned lanes : kLanes)
      if (llvm::Function* f = module.getFunction(variant_name(op, lanes))) variants.push_back(f);
  if (variants.empty()) return;
  llvm::removeFromUsedLists(module, [&](llvm::Constant* c) {
    for (llvm::Function* f : variants)
      if (c->stripPointerCasts() == f) return true;
    return false;
  });
  for (llvm::Function* f : variants) {
    std::vector<llvm::CallBase*> calls;
    for (llvm::User* user : f->users())
      if (auto* call = llvm::dyn_cast<llvm::CallBase>(user)) calls.push_back(call);
    for (llvm::CallBase* call : calls) {
      llvm::InlineFunctionInfo info;
      if (!llvm::InlineFunction(*call, info).isSuccess())
        throw LowerError("internal error: cannot inline " + f->getName().str());
    }
    if (f->use_empty()) f->eraseFromParent();
  }
}

}  // namespace smelt::lower
