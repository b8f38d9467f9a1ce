#include "lower/kernel_emitter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <llvm/IR/Intrinsics.h>

#include "ir/scalar.h"
#include "kernel/host_plan.h"
#include "lower/composed_math.h"
#include "lower/host_vector_math.h"
#include "lower/lower.h"

namespace smelt::lower {

using ir::DType;
using kernel::IndexPool;
using kernel::KernelExpr;
using ir::Op;

llvm::Type* register_type(llvm::LLVMContext& context, DType dtype) {
  switch (dtype) {
    case DType::F32: case DType::F16: case DType::BF16: return llvm::Type::getFloatTy(context);
    case DType::I32: return llvm::Type::getInt32Ty(context);
    case DType::I64: return llvm::Type::getInt64Ty(context);
    case DType::Bool: return llvm::Type::getInt1Ty(context);
  }
  throw LowerError("unknown dtype");
}

llvm::Type* memory_type(llvm::LLVMContext& context, DType dtype) {
  switch (dtype) {
    case DType::F32: return llvm::Type::getFloatTy(context);
    case DType::F16: case DType::BF16: return llvm::Type::getInt16Ty(context);
    case DType::I32: return llvm::Type::getInt32Ty(context);
    case DType::I64: return llvm::Type::getInt64Ty(context);
    case DType::Bool: return llvm::Type::getInt8Ty(context);
  }
  throw LowerError("unknown dtype");
}

// ---- host math ---------------------------------------------------------------

llvm::Value* HostMathHooks::unary(llvm::IRBuilder<>& builder, Op op, llvm::Value* x) const {
  auto intrinsic = [&](llvm::Intrinsic::ID id) { return builder.CreateUnaryIntrinsic(id, x); };
  switch (op) {
    case Op::Exp: return composed_exp(builder, x);
    case Op::Exp2: return composed_exp2(builder, x);
    case Op::Log: return intrinsic(llvm::Intrinsic::log);
    case Op::Log2: return intrinsic(llvm::Intrinsic::log2);
    case Op::Sin:
    case Op::Cos: return host_range_reduced_math(builder, op, x);
    case Op::Sqrt: return intrinsic(llvm::Intrinsic::sqrt);
    // Composed (no libm call): inline in the vectorized loops, exp, exp2 above too.
    case Op::Tanh: return composed_tanh(builder, x, composed_exp);
    case Op::Erf: return composed_erf(builder, x, composed_exp);
    default: throw LowerError("no host math function for " + std::string(ir::op_name(op)));
  }
}

llvm::Value* HostMathHooks::pow(llvm::IRBuilder<>& builder, llvm::Value* x, llvm::Value* y) const {
  return builder.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, y);
}

// ---- the inner-node split (kernel::reduction_loop_nodes, as the interpreter runs it) --

std::vector<bool> inner_nodes(const kernel::Kernel& k) {
  try {
    return kernel::reduction_loop_nodes(k);
  } catch (const std::invalid_argument& e) {
    throw LowerError(e.what());
  }
}

NodeValues::NodeValues(const kernel::Kernel& kernel, std::vector<llvm::Value*> vars)
    : vars_(std::move(vars)), values_(kernel.exprs.size(), nullptr) {
  vars_.resize(static_cast<size_t>(kernel.num_vars()), nullptr);
}

// ---- loops ---------------------------------------------------------------------

void emit_loop(llvm::IRBuilder<>& builder, llvm::Value* begin, llvm::Value* end,
               const std::function<void(llvm::Value*)>& body, const char* name, LoopHint hint) {
  llvm::Function* function = builder.GetInsertBlock()->getParent();
  llvm::LLVMContext& context = builder.getContext();
  llvm::BasicBlock* preheader = builder.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(context, std::string(name) + ".header", function);
  auto* body_block = llvm::BasicBlock::Create(context, std::string(name) + ".body", function);
  auto* exit = llvm::BasicBlock::Create(context, std::string(name) + ".exit", function);
  builder.CreateBr(header);
  builder.SetInsertPoint(header);
  llvm::PHINode* i = builder.CreatePHI(builder.getInt64Ty(), 2, name);
  i->addIncoming(begin, preheader);
  builder.CreateCondBr(builder.CreateICmpSLT(i, end), body_block, exit);
  builder.SetInsertPoint(body_block);
  body(i);
  llvm::Value* next = builder.CreateAdd(i, builder.getInt64(1), "", /*HasNUW=*/true, /*HasNSW=*/true);
  i->addIncoming(next, builder.GetInsertBlock());
  llvm::BranchInst* back = builder.CreateBr(header);
  if (hint != LoopHint::kNone) {
    auto flag = [&](const char* key) {
      llvm::Metadata* parts[] = {llvm::MDString::get(context, key), llvm::ConstantAsMetadata::get(builder.getTrue())};
      return llvm::MDNode::get(context, parts);
    };
    std::vector<llvm::Metadata*> parts = {nullptr};
    if (hint == LoopHint::kNoUnroll || hint == LoopHint::kStagedPass) {
      llvm::Metadata* no_unroll[] = {llvm::MDString::get(context, "llvm.loop.unroll.disable")};
      parts.push_back(llvm::MDNode::get(context, no_unroll));
      if (hint == LoopHint::kStagedPass) {
        llvm::Metadata* interleave[] = {llvm::MDString::get(context, "llvm.loop.interleave.count"),
                                        llvm::ConstantAsMetadata::get(builder.getInt32(4))};
        parts.push_back(llvm::MDNode::get(context, interleave));
      }
    } else {
      parts.push_back(flag("llvm.loop.vectorize.enable"));
      parts.push_back(flag("llvm.loop.vectorize.predicate.enable"));
    }
    llvm::MDNode* self = llvm::MDNode::getDistinct(context, parts);
    self->replaceOperandWith(0, self);
    back->setMetadata(llvm::LLVMContext::MD_loop, self);
  }
  builder.SetInsertPoint(exit);
}

std::vector<llvm::Value*> load_kernel_buffers(llvm::IRBuilder<>& builder, const kernel::KernelProgram& program,
                                              size_t kernel, llvm::Value* buffer_array, uint64_t alignment) {
  const kernel::Kernel& k = program.kernels.at(kernel);
  std::vector<bool> used(program.buffers.size(), false);
  for (int b : kernel::read_buffers(k)) used.at(static_cast<size_t>(b)) = true;
  for (const kernel::KernelOutput& out : k.outputs) used.at(static_cast<size_t>(out.buffer)) = true;
  llvm::Type* pointer = buffer_array->getType();
  std::vector<llvm::Value*> buffers(program.buffers.size(), nullptr);
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    if (!used[b]) continue;
    llvm::Value* slot = builder.CreateConstInBoundsGEP1_64(pointer, buffer_array, b);
    llvm::LoadInst* load = builder.CreateLoad(pointer, slot, program.buffers[b].name);
    if (alignment > 1) {
      llvm::LLVMContext& context = builder.getContext();
      load->setMetadata(llvm::LLVMContext::MD_align,
                        llvm::MDNode::get(context, llvm::ConstantAsMetadata::get(builder.getInt64(alignment))));
      load->setMetadata(llvm::LLVMContext::MD_noundef, llvm::MDNode::get(context, {}));
    }
    buffers[b] = load;
  }
  return buffers;
}

// ---- the emitter -----------------------------------------------------------------

KernelEmitter::KernelEmitter(llvm::IRBuilder<>& builder, const kernel::KernelProgram& program, size_t kernel,
                             const MathHooks& math, std::vector<llvm::Value*> buffers)
    : builder_(builder), program_(program), kernel_(program.kernels.at(kernel)), math_(math),
      buffers_(std::move(buffers)), inner_(inner_nodes(kernel_)), versions_(kernel::plan_branches(kernel_)) {
  // Every buffer the kernel touches its own alias scope: the loop vectorizer
  // then needs no runtime overlap checks between loads and stores (lower.h:
  // kernels' buffers are distinct). Only those: a list of every other buffer
  // of the program per access was quadratic (a 3,000-input concat, 16 GB).
  std::vector<bool> touched(program_.buffers.size(), false);
  for (int b : kernel::read_buffers(kernel_)) touched.at(static_cast<size_t>(b)) = true;
  for (const kernel::KernelOutput& out : kernel_.outputs) touched.at(static_cast<size_t>(out.buffer)) = true;
  llvm::MDBuilder md(builder_.getContext());
  llvm::MDNode* domain = md.createAnonymousAliasScopeDomain("smelt.buffers");
  std::vector<llvm::Metadata*> scopes(program_.buffers.size(), nullptr);
  for (size_t b = 0; b < program_.buffers.size(); ++b)
    if (touched[b]) scopes[b] = md.createAnonymousAliasScope(domain, program_.buffers[b].name);
  alias_scope_.assign(program_.buffers.size(), nullptr);
  no_alias_.assign(program_.buffers.size(), nullptr);
  for (size_t b = 0; b < program_.buffers.size(); ++b) {
    if (!touched[b]) continue;
    alias_scope_[b] = llvm::MDNode::get(builder_.getContext(), {scopes[b]});
    std::vector<llvm::Metadata*> others;
    for (size_t o = 0; o < scopes.size(); ++o)
      if (o != b && scopes[o]) others.push_back(scopes[o]);
    no_alias_[b] = llvm::MDNode::get(builder_.getContext(), others);
  }
}

void KernelEmitter::annotate_access(llvm::Instruction* access, int buffer) {
  access->setMetadata(llvm::LLVMContext::MD_alias_scope, alias_scope_[buffer]);
  access->setMetadata(llvm::LLVMContext::MD_noalias, no_alias_[buffer]);
}

std::optional<bool> NodeValues::decided(kernel::IndexRef condition) const {
  return version_ ? version_->decides(condition) : std::nullopt;
}

void KernelEmitter::emit_versions(const NodeValues& at, const std::function<void(const kernel::BranchPlan::Leaf&)>& body) {
  llvm::IRBuilder<>& b = builder_;
  if (!versions_.versioned()) {
    body(versions_.leaves.front());
    return;
  }
  llvm::Function* function = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* done = llvm::BasicBlock::Create(b.getContext(), "versions.end", function);
  std::function<void(int)> decide = [&](int at_node) {
    const kernel::BranchPlan::Decision& d = versions_.nodes.at(static_cast<size_t>(at_node));
    if (d.leaf >= 0) {
      body(versions_.leaves.at(static_cast<size_t>(d.leaf)));
      b.CreateBr(done);
      return;
    }
    llvm::BasicBlock* if_true = llvm::BasicBlock::Create(b.getContext(), "version.true", function);
    llvm::BasicBlock* if_false = llvm::BasicBlock::Create(b.getContext(), "version.false", function);
    NodeValues here(kernel_, at.vars());
    b.CreateCondBr(b.CreateICmpNE(index(d.condition, here), b.getInt64(0)), if_true, if_false);
    b.SetInsertPoint(if_true);
    decide(d.if_true);
    b.SetInsertPoint(if_false);
    decide(d.if_false);
  };
  decide(0);
  b.SetInsertPoint(done);
}

llvm::Value* KernelEmitter::versions_agree(const std::vector<const NodeValues*>& points) {
  llvm::IRBuilder<>& b = builder_;
  llvm::Value* agree = b.getTrue();
  if (!versions_.versioned() || points.size() < 2) return agree;
  for (const kernel::BranchPlan::Decision& d : versions_.nodes) {
    if (d.condition == kernel::kNoIndex) continue;
    llvm::Value* first = index(d.condition, *points.front());
    for (size_t p = 1; p < points.size(); ++p)
      agree = b.CreateAnd(agree, b.CreateICmpEQ(first, index(d.condition, *points[p])));
  }
  return agree;
}

llvm::Value* KernelEmitter::emit_node_versioned(int node, const std::vector<llvm::Value*>& vars) {
  if (!versions_.versioned()) {
    NodeValues at(kernel_, vars);
    return emit_node(node, at);
  }
  // Each version stores to a slot that SROA turns into a phi.
  llvm::Function* function = builder_.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&function->getEntryBlock(), function->getEntryBlock().begin());
  llvm::Type* type = register_type(builder_.getContext(), kernel_.exprs.at(static_cast<size_t>(node)).dtype);
  const llvm::DataLayout& layout = function->getParent()->getDataLayout();
  llvm::AllocaInst* slot = entry.CreateAlloca(type, layout.getAllocaAddrSpace(), nullptr, "version.value");
  emit_versions(NodeValues(kernel_, vars), [&](const kernel::BranchPlan::Leaf& version) {
    NodeValues at(kernel_, vars);
    at.assume(version);
    builder_.CreateStore(emit_node(node, at), slot);
  });
  return builder_.CreateLoad(type, slot);
}

llvm::Value* KernelEmitter::index(kernel::IndexRef ref, const NodeValues& at) {
  if (ref == kernel::kNoIndex) return builder_.getInt64(1);
  // Memoized per evaluation point: index DAGs share subexpressions heavily.
  if (auto it = at.index_cache_.find(ref); it != at.index_cache_.end()) return it->second;
  std::optional<bool> decided = at.decided(ref);
  if (!decided && assumed_true_ && std::find(assumed_true_->begin(), assumed_true_->end(), ref) != assumed_true_->end())
    decided = true;
  llvm::Value* v = decided ? builder_.getInt64(*decided ? 1 : 0) : emit_index(ref, at);
  at.index_cache_.emplace(ref, v);
  return v;
}

llvm::Value* KernelEmitter::emit_index(kernel::IndexRef ref, const NodeValues& at) {
  llvm::IRBuilder<>& b = builder_;
  const IndexPool::Node& n = kernel_.indices.node(ref);
  auto bool_value = [&](llvm::Value* v) { return b.CreateZExt(v, b.getInt64Ty()); };
  auto truth = [&](kernel::IndexRef r) { return b.CreateICmpNE(index(r, at), b.getInt64(0)); };
  switch (n.kind) {
    case IndexPool::Kind::kConst: return b.getInt64(static_cast<uint64_t>(n.value));
    case IndexPool::Kind::kVar: {
      if (kernel::is_indirect_var(n.value)) {
        // A loaded index: the value of its node here (a load emits its
        // operands, the indirect nodes, first), widened to i64.
        const auto j = static_cast<size_t>(n.value - kernel::kIndirectVarBase);
        llvm::Value* loaded = j < kernel_.indirect.size() ? at.get(kernel_.indirect[j]) : nullptr;
        if (!loaded)
          throw LowerError("kernel " + kernel_.name + ": indirect variable g" + std::to_string(j) +
                           " has no value at this point");
        return b.CreateSExtOrTrunc(loaded, b.getInt64Ty());
      }
      llvm::Value* v = n.value < static_cast<int64_t>(at.vars().size()) ? at.var(static_cast<int>(n.value)) : nullptr;
      if (!v)
        throw LowerError("kernel " + kernel_.name + ": index variable v" + std::to_string(n.value) +
                         " has no value at this point");
      return v;
    }
    case IndexPool::Kind::kAdd: return b.CreateAdd(index(n.a, at), index(n.b, at));
    case IndexPool::Kind::kSub: return b.CreateSub(index(n.a, at), index(n.b, at));
    case IndexPool::Kind::kMul: return b.CreateMul(index(n.a, at), index(n.b, at));
    case IndexPool::Kind::kFloorDiv:
    case IndexPool::Kind::kMod: {
      llvm::Value* a = index(n.a, at);
      llvm::Value* d = index(n.b, at);
      const IndexPool::Node& divisor = kernel_.indices.node(n.b);
      const bool positive_constant = divisor.kind == IndexPool::Kind::kConst && divisor.value > 0;
      // Floor and truncation agree on a non-negative numerator: udiv / urem,
      // which LLVM folds where sdiv's floor correction hides the identity. A
      // flattened reshape's row-major offset, 112·(i / 112) + i % 112, is then
      // i, and a B side read through it packs as a contiguous row (EfficientNet-
      // B0's flattened 1x1 convolutions measured 2.2x their price, 2026-11-29).
      if (positive_constant && non_negative(n.a))
        return n.kind == IndexPool::Kind::kFloorDiv ? b.CreateUDiv(a, d) : b.CreateURem(a, d);
      // A divisor that may be 0 (never in valid kernels) is replaced by 1 rather than being UB.
      if (!positive_constant) d = b.CreateSelect(b.CreateICmpEQ(d, b.getInt64(0)), b.getInt64(1), d);
      llvm::Value* q = b.CreateSDiv(a, d);
      llvm::Value* r = b.CreateSRem(a, d);
      // Truncation rounds toward 0; floor differs when the remainder's sign is not the divisor's.
      llvm::Value* adjust = positive_constant
                                ? b.CreateICmpSLT(r, b.getInt64(0))
                                : b.CreateAnd(b.CreateICmpNE(r, b.getInt64(0)),
                                              b.CreateICmpNE(b.CreateICmpSLT(r, b.getInt64(0)),
                                                             b.CreateICmpSLT(d, b.getInt64(0))));
      if (n.kind == IndexPool::Kind::kFloorDiv) return b.CreateSub(q, bool_value(adjust));
      return b.CreateAdd(r, b.CreateSelect(adjust, d, b.getInt64(0)));
    }
    case IndexPool::Kind::kMin: return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, index(n.a, at), index(n.b, at));
    case IndexPool::Kind::kMax: return b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, index(n.a, at), index(n.b, at));
    case IndexPool::Kind::kSelect: return b.CreateSelect(truth(n.a), index(n.b, at), index(n.c, at));
    case IndexPool::Kind::kLt: return bool_value(b.CreateICmpSLT(index(n.a, at), index(n.b, at)));
    case IndexPool::Kind::kLe: return bool_value(b.CreateICmpSLE(index(n.a, at), index(n.b, at)));
    case IndexPool::Kind::kEq: return bool_value(b.CreateICmpEQ(index(n.a, at), index(n.b, at)));
    case IndexPool::Kind::kAnd: return bool_value(b.CreateAnd(truth(n.a), truth(n.b)));
    case IndexPool::Kind::kOr: return bool_value(b.CreateOr(truth(n.a), truth(n.b)));
    case IndexPool::Kind::kNot: return bool_value(b.CreateNot(truth(n.a)));
  }
  throw LowerError("kernel " + kernel_.name + ": unknown index node");
}

bool KernelEmitter::non_negative(kernel::IndexRef ref) {
  if (auto it = non_negative_.find(ref); it != non_negative_.end()) return it->second;
  const IndexPool::Node& n = kernel_.indices.node(ref);
  auto positive_constant = [&](kernel::IndexRef r) {
    const IndexPool::Node& d = kernel_.indices.node(r);
    return d.kind == IndexPool::Kind::kConst && d.value > 0;
  };
  bool result = false;
  switch (n.kind) {
    case IndexPool::Kind::kConst: result = n.value >= 0; break;
    case IndexPool::Kind::kVar: result = !kernel::is_indirect_var(n.value); break;
    case IndexPool::Kind::kAdd:
    case IndexPool::Kind::kMul:
    case IndexPool::Kind::kMin: result = non_negative(n.a) && non_negative(n.b); break;
    case IndexPool::Kind::kMax: result = non_negative(n.a) || non_negative(n.b); break;
    case IndexPool::Kind::kFloorDiv: result = positive_constant(n.b) && non_negative(n.a); break;
    case IndexPool::Kind::kMod: result = positive_constant(n.b); break;  // in [0, b) for b > 0
    case IndexPool::Kind::kSelect: result = non_negative(n.b) && non_negative(n.c); break;
    case IndexPool::Kind::kLt:
    case IndexPool::Kind::kLe:
    case IndexPool::Kind::kEq:
    case IndexPool::Kind::kAnd:
    case IndexPool::Kind::kOr:
    case IndexPool::Kind::kNot: result = true; break;  // 0 or 1
    case IndexPool::Kind::kSub: result = false; break;
  }
  non_negative_.emplace(ref, result);
  return result;
}

namespace {
// A constant of `dtype` holding `value` converted as the reference does.
llvm::Value* constant_of(llvm::IRBuilder<>& b, double value, DType dtype) {
  ir::Scalar s = ir::scalar_from_real(value, dtype);
  if (ir::is_float(dtype)) return llvm::ConstantFP::get(b.getFloatTy(), static_cast<float>(s.real));
  if (dtype == DType::Bool) return b.getInt1(s.integer != 0);
  return llvm::ConstantInt::get(register_type(b.getContext(), dtype), static_cast<uint64_t>(s.integer), true);
}
}  // namespace

llvm::Value* KernelEmitter::round_float(llvm::Value* v, DType dtype) {
  llvm::IRBuilder<>& b = builder_;
  if (dtype == DType::F16) return b.CreateFPExt(b.CreateFPTrunc(v, b.getHalfTy()), b.getFloatTy());
  if (dtype != DType::BF16) return v;
  if (math_.native_bf16_rounding()) return b.CreateFPExt(b.CreateFPTrunc(v, b.getBFloatTy()), b.getFloatTy());
  // Round to nearest even on the bits (ir/dtype.cpp f32_to_bf16_bits), NaN kept quiet.
  llvm::Value* bits = b.CreateBitCast(v, b.getInt32Ty());
  llvm::Value* lsb = b.CreateAnd(b.CreateLShr(bits, 16), b.getInt32(1));
  llvm::Value* rounded = b.CreateAdd(bits, b.CreateAdd(b.getInt32(0x7fff), lsb));
  llvm::Value* is_nan = b.CreateICmpUGT(b.CreateAnd(bits, b.getInt32(0x7fffffff)), b.getInt32(0x7f800000));
  llvm::Value* quiet = b.CreateOr(bits, b.getInt32(0x00400000));
  llvm::Value* result = b.CreateAnd(b.CreateSelect(is_nan, quiet, rounded), b.getInt32(0xffff0000u));
  return b.CreateBitCast(result, b.getFloatTy());
}

llvm::Value* KernelEmitter::convert(llvm::Value* v, DType from, DType to) {
  llvm::IRBuilder<>& b = builder_;
  if (from == to) return v;
  llvm::Type* target = register_type(b.getContext(), to);
  if (ir::is_float(from)) {
    if (ir::is_float(to)) return round_float(v, to);
    if (to == DType::Bool) return b.CreateFCmpUNE(v, llvm::ConstantFP::get(b.getFloatTy(), 0.0));
    // Truncate toward 0, NaN → 0, saturate to int64, then wrap (ir/scalar.cpp).
    llvm::Value* wide = b.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {b.getInt64Ty(), b.getFloatTy()}, {v});
    return b.CreateTrunc(wide, target);
  }
  if (from == DType::Bool) {
    if (ir::is_float(to)) return b.CreateUIToFP(v, target);
    return b.CreateZExt(v, target);
  }
  if (ir::is_float(to)) return round_float(b.CreateSIToFP(v, b.getFloatTy()), to);
  if (to == DType::Bool) return b.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  return b.CreateSExtOrTrunc(v, target);
}

llvm::Value* KernelEmitter::load_element(int buffer, llvm::Value* offset) {
  return load_element_at(buffer, element_address(buffer, offset, 0));
}

llvm::Value* KernelEmitter::load_address(int node, const NodeValues& at) {
  const KernelExpr& e = kernel_.exprs.at(static_cast<size_t>(node));
  if (e.kind != KernelExpr::Kind::kLoad || e.valid != kernel::kNoIndex)
    throw LowerError("kernel " + kernel_.name + ": node " + std::to_string(node) + " is not an unmasked load");
  int64_t constant_offset = 0;
  llvm::Value* offset = load_offset(e, at, constant_offset);
  return element_address(e.buffer, offset, constant_offset);
}

llvm::Value* KernelEmitter::element_address(int buffer, llvm::Value* offset, int64_t constant_offset) {
  llvm::IRBuilder<>& b = builder_;
  llvm::Value* base = buffers_.at(buffer);
  if (!base) throw LowerError("kernel " + kernel_.name + ": buffer " + std::to_string(buffer) + " has no pointer");
  llvm::Type* stored = memory_type(b.getContext(), program_.buffers.at(buffer).type.dtype);
  llvm::Value* address = b.CreateInBoundsGEP(stored, base, offset);
  if (constant_offset != 0) address = b.CreateInBoundsGEP(stored, address, b.getInt64(static_cast<uint64_t>(constant_offset)));
  return address;
}

llvm::Value* KernelEmitter::load_element_at(int buffer, llvm::Value* address) {
  llvm::IRBuilder<>& b = builder_;
  const DType dtype = program_.buffers.at(buffer).type.dtype;
  llvm::Type* stored = memory_type(b.getContext(), dtype);
  auto* load = b.CreateLoad(stored, address);
  annotate_access(load, buffer);
  switch (dtype) {
    case DType::F16: return b.CreateFPExt(b.CreateBitCast(load, b.getHalfTy()), b.getFloatTy());
    case DType::BF16:
      return b.CreateBitCast(b.CreateShl(b.CreateZExt(load, b.getInt32Ty()), 16), b.getFloatTy());
    case DType::Bool: return b.CreateICmpNE(load, b.getInt8(0));
    default: return load;
  }
}

void KernelEmitter::store_element(int buffer, llvm::Value* offset, llvm::Value* value) {
  llvm::IRBuilder<>& b = builder_;
  const DType dtype = program_.buffers.at(buffer).type.dtype;
  llvm::Value* base = buffers_.at(buffer);
  if (!base) throw LowerError("kernel " + kernel_.name + ": buffer " + std::to_string(buffer) + " has no pointer");
  llvm::Type* stored = memory_type(b.getContext(), dtype);
  llvm::Value* bits = value;
  switch (dtype) {
    case DType::F16: bits = b.CreateBitCast(b.CreateFPTrunc(value, b.getHalfTy()), b.getInt16Ty()); break;
    case DType::BF16:
      bits = b.CreateTrunc(b.CreateLShr(b.CreateBitCast(round_float(value, DType::BF16), b.getInt32Ty()), 16),
                           b.getInt16Ty());
      break;
    case DType::Bool: bits = b.CreateZExt(value, b.getInt8Ty()); break;
    default: break;
  }
  auto* store = b.CreateStore(bits, b.CreateInBoundsGEP(stored, base, offset));
  annotate_access(store, buffer);
}

namespace {
// An index expression as (terms whose sum it is) + a constant, peeling the
// constants off its additions: `i + 64` is ({i}, 64).
void split_constant(const IndexPool& pool, kernel::IndexRef r, int64_t sign, std::vector<std::pair<kernel::IndexRef, int64_t>>& terms,
                    int64_t& constant) {
  const IndexPool::Node& n = pool.node(r);
  if (n.kind == IndexPool::Kind::kConst) {
    constant += sign * n.value;
  } else if (n.kind == IndexPool::Kind::kAdd) {
    split_constant(pool, n.a, sign, terms, constant);
    split_constant(pool, n.b, sign, terms, constant);
  } else if (n.kind == IndexPool::Kind::kSub) {
    split_constant(pool, n.a, sign, terms, constant);
    split_constant(pool, n.b, -sign, terms, constant);
  } else {
    terms.emplace_back(r, sign);
  }
}
}  // namespace

// The row-major offset as a variable part plus a constant, the constant in a
// GEP of its own: LLVM rewrites `row + (column + 64)` into an `or` that the
// loop vectorizer does not see as consecutive (gathers instead of vector loads).
llvm::Value* KernelEmitter::load_offset(const KernelExpr& e, const NodeValues& at, int64_t& constant_offset) {
  llvm::IRBuilder<>& b = builder_;
  const ir::Shape& shape = program_.buffers.at(e.buffer).type.shape;
  llvm::Value* offset = nullptr;
  int64_t stride = 1;
  constant_offset = 0;
  for (size_t axis = shape.size(); axis-- > 0;) {
    std::vector<std::pair<kernel::IndexRef, int64_t>> terms;
    int64_t constant = 0;
    split_constant(kernel_.indices, e.index[axis], 1, terms, constant);
    constant_offset += constant * stride;
    for (auto [term, sign] : terms) {
      llvm::Value* v = b.CreateMul(index(term, at), b.getInt64(static_cast<uint64_t>(sign * stride)));
      offset = offset ? b.CreateAdd(offset, v) : v;
    }
    stride *= shape[axis];
  }
  return offset ? offset : b.getInt64(0);
}

void KernelEmitter::prefetch_row(const NodeValues& at, int64_t row_length) {
  llvm::IRBuilder<>& b = builder_;
  const size_t rank = kernel_.space.size();
  if (rank < 2) return;
  const int innermost = static_cast<int>(rank) - 1;
  const uint64_t space_vars = rank >= 64 ? ~uint64_t{0} : (uint64_t{1} << rank) - 1;
  for (const KernelExpr& e : kernel_.exprs) {
    if (e.kind != KernelExpr::Kind::kLoad || e.valid != kernel::kNoIndex || e.index.empty()) continue;
    const kernel::Buffer& buffer = program_.buffers.at(e.buffer);
    const kernel::IndexPool::Node& last = kernel_.indices.node(e.index.back());
    if (last.kind != IndexPool::Kind::kVar || last.value != innermost) continue;  // not contiguous along the row
    // The kernel's own rows (every outer axis its own variable; the last one
    // the column, maybe shifted: rotate_half's x[..., j ± 64]) are the stream
    // the hardware prefetcher follows.
    bool own_rows = buffer.type.shape.size() == rank, other_axes_fixed = true;
    for (size_t axis = 0; axis < e.index.size(); ++axis) {
      const uint64_t used = kernel_.indices.vars_used(e.index[axis]);
      if (used & ~space_vars) other_axes_fixed = false;  // a reduction variable: not one row
      if (axis + 1 < e.index.size() && (used >> innermost & 1)) other_axes_fixed = false;
      const kernel::IndexPool::Node& n = kernel_.indices.node(e.index[axis]);
      if (axis + 1 < e.index.size()) {
        // A buffer of higher rank than the space has axes the space lacks.
        const bool own_axis = axis < rank &&
                              ((n.kind == IndexPool::Kind::kVar && n.value == static_cast<int64_t>(axis)) ||
                               (n.kind == IndexPool::Kind::kConst && n.value == 0 && kernel_.space[axis] == 1));
        own_rows = own_rows && own_axis && buffer.type.shape[axis] == kernel_.space[axis];
      } else {
        own_rows = own_rows && used == (uint64_t{1} << innermost);
      }
    }
    if (own_rows || !other_axes_fixed) continue;
    // A buffer the caches hold (RoPE's cos / sin tables, 1 MiB each) needs no
    // prefetch: there the prefetches only took issue slots (RoPE 0.85 -> 1.0 ms).
    const int64_t buffer_bytes = ir::numel(buffer.type.shape) * static_cast<int64_t>(ir::dtype_bytes(buffer.type.dtype));
    if (buffer_bytes < kPrefetchMinBufferBytes) continue;
    const int64_t bytes = row_length * static_cast<int64_t>(ir::dtype_bytes(buffer.type.dtype));
    if (bytes > kPrefetchRowBytes) continue;  // long rows: the hardware prefetcher ramps up within the row
    int64_t constant_offset = 0;
    llvm::Value* offset = load_offset(e, at, constant_offset);
    llvm::Type* stored = memory_type(b.getContext(), buffer.type.dtype);
    // Not inbounds: the row ahead may lie past the buffer (a prefetch never faults).
    llvm::Value* row = b.CreateGEP(stored, buffers_.at(e.buffer), b.CreateAdd(offset, b.getInt64(static_cast<uint64_t>(constant_offset))));
    for (int64_t line = 0; line < bytes; line += 64) {
      llvm::Value* address = b.CreateGEP(b.getInt8Ty(), row, b.getInt64(static_cast<uint64_t>(line)));
      b.CreateIntrinsic(llvm::Intrinsic::prefetch, {address->getType()},
                        {address, b.getInt32(0), b.getInt32(3), b.getInt32(1)});
    }
  }
}

llvm::Value* KernelEmitter::emit_load(const KernelExpr& e, const NodeValues& at) {
  llvm::IRBuilder<>& b = builder_;
  const kernel::Buffer& buffer = program_.buffers.at(e.buffer);
  llvm::Value* pad = constant_of(b, e.value, e.dtype);
  // An empty buffer has nothing to read: a well-formed kernel masks every such load.
  if (ir::numel(buffer.type.shape) == 0) return pad;
  llvm::Value* mask = e.valid == kernel::kNoIndex ? nullptr : b.CreateICmpNE(index(e.valid, at), b.getInt64(0));
  int64_t constant_offset = 0;
  llvm::Value* offset = load_offset(e, at, constant_offset);
  if (mask && masked_loads_as_branches_ && ir::dtype_bytes(buffer.type.dtype) >= 4) {
    // if (mask) v = x[offset]: the loop vectorizer turns the branch into a
    // masked vector load of consecutive elements (masked-off lanes are never
    // touched); the select form below made it a gather. The address is formed
    // inside the branch, where it lies in the buffer (inbounds: the vectorizer
    // then sees consecutive addresses).
    llvm::BasicBlock* before = b.GetInsertBlock();
    llvm::Function* function = before->getParent();
    auto* inside = llvm::BasicBlock::Create(b.getContext(), "masked.load", function);
    auto* merged = llvm::BasicBlock::Create(b.getContext(), "masked.done", function);
    b.CreateCondBr(mask, inside, merged);
    b.SetInsertPoint(inside);
    llvm::Value* address = element_address(e.buffer, offset, constant_offset);
    llvm::Value* v = convert(load_element_at(e.buffer, address), buffer.type.dtype, e.dtype);
    llvm::BasicBlock* inside_end = b.GetInsertBlock();
    b.CreateBr(merged);
    b.SetInsertPoint(merged);
    llvm::PHINode* phi = b.CreatePHI(v->getType(), 2);
    phi->addIncoming(v, inside_end);
    phi->addIncoming(pad, before);
    return phi;
  }
  llvm::Value* address = element_address(e.buffer, offset, constant_offset);
  // Outside the mask the address is element 0, which exists: the load never
  // leaves the buffer, and its value is discarded for the pad.
  if (mask) address = b.CreateSelect(mask, address, element_address(e.buffer, b.getInt64(0), 0));
  llvm::Value* v = convert(load_element_at(e.buffer, address), buffer.type.dtype, e.dtype);
  return mask ? b.CreateSelect(mask, v, pad) : v;
}

llvm::Value* KernelEmitter::emit_elementwise(const KernelExpr& e, NodeValues& at) {
  llvm::IRBuilder<>& b = builder_;
  if (e.op == Op::Where) {
    // A condition this version decides: only the taken side exists here.
    if (auto* decided = llvm::dyn_cast<llvm::ConstantInt>(emit_node(e.operands.at(0), at)))
      return emit_node(e.operands.at(decided->isZero() ? 2 : 1), at);
  }
  std::vector<llvm::Value*> x;
  for (int operand : e.operands) x.push_back(emit_node(operand, at));
  const DType operand_type = kernel_.exprs.at(e.operands.at(e.op == Op::Where ? 1 : 0)).dtype;
  if (e.op == Op::Cast) return convert(x[0], operand_type, e.dtype);
  if (e.op == Op::Where) return b.CreateSelect(x[0], x[1], x[2]);
  auto arity = [&](size_t n) {
    if (x.size() != n)
      throw LowerError("kernel " + kernel_.name + ": " + std::string(ir::op_name(e.op)) + " with " +
                       std::to_string(x.size()) + " operands");
  };
  arity(ir::op_info(e.op).arity);
  if (ir::is_float(operand_type)) {
    auto f = [&](double c) { return llvm::ConstantFP::get(b.getFloatTy(), c); };
    llvm::Value* r = nullptr;
    switch (e.op) {
      case Op::Neg: r = b.CreateFNeg(x[0]); break;
      case Op::Exp: case Op::Exp2: case Op::Log: case Op::Log2: case Op::Sin: case Op::Cos: case Op::Tanh:
      case Op::Sqrt: case Op::Erf: r = math_.unary(b, e.op, x[0]); break;
      case Op::Rsqrt: r = b.CreateFDiv(f(1), math_.unary(b, Op::Sqrt, x[0])); break;
      case Op::Recip: r = b.CreateFDiv(f(1), x[0]); break;
      case Op::Abs: r = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x[0]); break;
      // x > 0 or NaN keeps x: "unordered or greater than".
      case Op::Relu: r = b.CreateSelect(b.CreateFCmpUGT(x[0], f(0)), x[0], f(0)); break;
      case Op::Sigmoid: {
        // −x kept in [−80, 88]: exp never overflows or underflows, paths the
        // vector math library runs a lane at a time; sigmoid(80) is 1 and
        // sigmoid(−88) 6.1e-39, below f32's smallest normal number (1.2e-38),
        // so a clamped tail is as far from the exact value (0 in f32 below
        // −104) as flushing to zero is. (At −80 the tail was 1.8e-35: x·sigmoid(x)
        // = −2.4e-33 where the exact product is −0.) NaN stays NaN.
        llvm::Value* minus_x = b.CreateFNeg(x[0]);
        minus_x = b.CreateSelect(b.CreateFCmpOGT(minus_x, f(88)), f(88), minus_x);
        minus_x = b.CreateSelect(b.CreateFCmpOLT(minus_x, f(-80)), f(-80), minus_x);
        r = b.CreateFDiv(f(1), b.CreateFAdd(f(1), math_.unary(b, Op::Exp, minus_x)));
        break;
      }
      case Op::Gelu: {
        // 0.5·x·erfc(−x/√2), erfc by Numerical Recipes' erfcc (relative error
        // below 1.2e-7 for every argument): 0.5·x·(1 + erf(x/√2)) rounded to
        // −0 in f32 below x ≈ −5.3 (1 + erf cancels), where gelu is −6e-9 at −6.
        llvm::Value* w = b.CreateFMul(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x[0]), f(0.70710678118654752440));
        llvm::Value* t = b.CreateFDiv(f(1), b.CreateFAdd(f(1), b.CreateFMul(f(0.5), w)));
        llvm::Value* series = f32_polynomial(b, t, {-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806,
                                                    0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277});
        llvm::Value* erfc_w =
            b.CreateFMul(t, math_.unary(b, Op::Exp, b.CreateFSub(series, b.CreateFMul(w, w))));  // erfc(|x|/√2)
        llvm::Value* phi2 = b.CreateSelect(b.CreateFCmpOLT(x[0], f(0)), erfc_w, b.CreateFSub(f(2), erfc_w));
        r = b.CreateFMul(b.CreateFMul(f(0.5), x[0]), phi2);
        break;
      }
      case Op::Add: r = b.CreateFAdd(x[0], x[1]); break;
      case Op::Sub: r = b.CreateFSub(x[0], x[1]); break;
      case Op::Mul: r = b.CreateFMul(x[0], x[1]); break;
      case Op::Div: r = b.CreateFDiv(x[0], x[1]); break;
      case Op::Max: r = b.CreateBinaryIntrinsic(llvm::Intrinsic::maximum, x[0], x[1]); break;
      case Op::Min: r = b.CreateBinaryIntrinsic(llvm::Intrinsic::minimum, x[0], x[1]); break;
      case Op::Pow: {
        // 2^y is exp2(y): one vector exp2, not a vector pow (torch exports exp2 as Pow(2, y)).
        const KernelExpr& base = kernel_.exprs.at(e.operands.at(0));
        const KernelExpr& exponent = kernel_.exprs.at(e.operands.at(1));
        if (base.kind == KernelExpr::Kind::kConstant && base.value == 2) {
          r = math_.unary(b, Op::Exp2, x[1]);
        } else if (exponent.kind == KernelExpr::Kind::kConstant && (exponent.value == 3 || exponent.value == 4)) {
          // x³ and x⁴ as products, as ONNX Runtime and PyTorch compute them:
          // the vector pow takes its scalar path for a negative base, and GELU's
          // tanh form cubes activations of either sign (GPT-2's fused MLP
          // product: 10.2 ms, of which 6 ms were powf; 2026-11-29). Within an
          // ulp or two of the rounded pow (two roundings, not one).
          llvm::Value* square = b.CreateFMul(x[0], x[0]);
          r = exponent.value == 3 ? b.CreateFMul(square, x[0]) : b.CreateFMul(square, square);
        } else {
          r = math_.pow(b, x[0], x[1]);
        }
        break;
      }
      case Op::Lt: return b.CreateFCmpOLT(x[0], x[1]);
      case Op::Le: return b.CreateFCmpOLE(x[0], x[1]);
      case Op::Eq: return b.CreateFCmpOEQ(x[0], x[1]);
      default: throw LowerError("kernel " + kernel_.name + ": " + std::string(ir::op_name(e.op)) + " is not elementwise");
    }
    return convert(r, DType::F32, e.dtype);  // rounds to f16 / bf16 like the reference
  }
  // Integer domain (i32, i64; bool for eq): two's complement wrapping.
  llvm::Type* type = x[0]->getType();
  auto c = [&](int64_t v) { return llvm::ConstantInt::get(type, static_cast<uint64_t>(v), true); };
  llvm::Value* r = nullptr;
  switch (e.op) {
    case Op::Neg: r = b.CreateNeg(x[0]); break;
    case Op::Abs: r = b.CreateSelect(b.CreateICmpSLT(x[0], c(0)), b.CreateNeg(x[0]), x[0]); break;
    case Op::Relu: r = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x[0], c(0)); break;
    case Op::Add: r = b.CreateAdd(x[0], x[1]); break;
    case Op::Sub: r = b.CreateSub(x[0], x[1]); break;
    case Op::Mul: r = b.CreateMul(x[0], x[1]); break;
    case Op::Div: {
      // x / 0 = 0; x / -1 = -x (wraps: MIN / -1 = MIN); neither reaches sdiv.
      llvm::Value* zero = b.CreateICmpEQ(x[1], c(0));
      llvm::Value* minus_one = b.CreateICmpEQ(x[1], c(-1));
      llvm::Value* safe = b.CreateSelect(b.CreateOr(zero, minus_one), c(1), x[1]);
      llvm::Value* q = b.CreateSDiv(x[0], safe);
      r = b.CreateSelect(zero, c(0), b.CreateSelect(minus_one, b.CreateNeg(x[0]), q));
      break;
    }
    case Op::Max: r = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x[0], x[1]); break;
    case Op::Min: r = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x[0], x[1]); break;
    case Op::Lt: return b.CreateICmpSLT(x[0], x[1]);
    case Op::Le: return b.CreateICmpSLE(x[0], x[1]);
    case Op::Eq: return b.CreateICmpEQ(x[0], x[1]);
    default:
      throw LowerError("kernel " + kernel_.name + ": " + std::string(ir::op_name(e.op)) +
                       " has no integer semantics");
  }
  return convert(r, operand_type, e.dtype);
}

void KernelEmitter::emit_operands_first(int node, NodeValues& at) {
  std::vector<std::pair<int, size_t>> stack{{node, 0}};  // a node and its next operand
  while (!stack.empty()) {
    auto& [n, next] = stack.back();
    const KernelExpr& e = kernel_.exprs.at(static_cast<size_t>(n));
    // A load's or index value's operands are the indirect nodes its index reads.
    const bool has_operands = e.kind != KernelExpr::Kind::kReduce;
    if (has_operands && next < e.operands.size()) {
      int operand = e.operands[next++];
      // As emit_elementwise: a `where` this point decides has only its taken side.
      if (e.kind == KernelExpr::Kind::kElementwise && e.op == Op::Where && next == 2)
        if (auto* decided = llvm::dyn_cast_or_null<llvm::ConstantInt>(at.get(e.operands[0]))) {
          operand = e.operands[decided->isZero() ? 2 : 1];
          next = e.operands.size();
        }
      if (!at.get(operand)) stack.emplace_back(operand, 0);
      continue;
    }
    if (n != node) emit_node(n, at);
    stack.pop_back();
  }
}

llvm::Value* KernelEmitter::emit_node(int node, NodeValues& at) {
  if (llvm::Value* known = at.get(node)) return known;
  const KernelExpr& e = kernel_.exprs.at(static_cast<size_t>(node));
  if (e.kind != KernelExpr::Kind::kReduce && !e.operands.empty()) emit_operands_first(node, at);
  llvm::Value* v = nullptr;
  switch (e.kind) {
    case KernelExpr::Kind::kLoad: v = emit_load(e, at); break;
    case KernelExpr::Kind::kConstant: v = constant_of(builder_, e.value, e.dtype); break;
    case KernelExpr::Kind::kIndex: v = convert(index(e.index.at(0), at), DType::I64, e.dtype); break;
    case KernelExpr::Kind::kElementwise: v = emit_elementwise(e, at); break;
    case KernelExpr::Kind::kReduce: v = emit_reduce_loop(node, at); break;
  }
  at.set(node, v);
  return v;
}

void KernelEmitter::store_outputs(NodeValues& at, llvm::Value* linear) {
  for (const kernel::KernelOutput& out : kernel_.outputs) {
    llvm::Value* v = emit_node(out.expr, at);
    v = convert(v, kernel_.exprs[out.expr].dtype, program_.buffers[out.buffer].type.dtype);
    if (!out.is_scatter()) {
      store_element(out.buffer, linear, v);
      continue;
    }
    // Negative (an index out of range): nothing written; the unsigned
    // comparison also keeps a position past the end from writing.
    llvm::Value* position = emit_node(out.scatter_at, at);
    const int64_t elements = ir::numel(program_.buffers[out.buffer].type.shape);
    llvm::Function* function = builder_.GetInsertBlock()->getParent();
    auto* write = llvm::BasicBlock::Create(builder_.getContext(), "scatter.write", function);
    auto* done = llvm::BasicBlock::Create(builder_.getContext(), "scatter.done", function);
    builder_.CreateCondBr(builder_.CreateICmpULT(position, builder_.getInt64(static_cast<uint64_t>(elements))), write, done);
    builder_.SetInsertPoint(write);
    store_element(out.buffer, position, v);
    builder_.CreateBr(done);
    builder_.SetInsertPoint(done);
  }
}

void KernelEmitter::emit_scatter() {
  llvm::IRBuilder<>& b = builder_;
  for (const kernel::KernelOutput& out : kernel_.outputs) {
    const int64_t elements = ir::numel(program_.buffers[out.buffer].type.shape);
    emit_loop(b, b.getInt64(0), b.getInt64(static_cast<uint64_t>(elements)), [&](llvm::Value* i) {
      store_element(out.buffer, i, load_element(out.scatter_initial, i));
    }, "copy");
  }
  std::vector<llvm::Value*> vars(kernel_.space.size(), nullptr);
  // One loop per axis, so no element's variables need a division.
  std::function<void(size_t)> nest = [&](size_t axis) {
    if (axis == vars.size()) {
      NodeValues at(kernel_, vars);
      store_outputs(at, nullptr);
      return;
    }
    emit_loop(b, b.getInt64(0), b.getInt64(static_cast<uint64_t>(kernel_.space[axis])), [&](llvm::Value* i) {
      vars[axis] = i;
      nest(axis + 1);
    }, "scatter", LoopHint::kNoUnroll);
  };
  nest(0);
}

// ---- reductions --------------------------------------------------------------------

llvm::Value* KernelEmitter::reduce_identity(int reduce) {
  const KernelExpr& e = kernel_.exprs.at(reduce);
  const bool is_sum = e.op == Op::ReduceSum;
  llvm::IRBuilder<>& b = builder_;
  if (ir::is_float(e.dtype))
    return llvm::ConstantFP::get(b.getFloatTy(), is_sum ? 0.0 : -std::numeric_limits<double>::infinity());
  if (e.dtype == DType::I32) return b.getInt32(is_sum ? 0 : static_cast<uint32_t>(INT32_MIN));
  if (e.dtype == DType::I64) return b.getInt64(is_sum ? 0 : static_cast<uint64_t>(INT64_MIN));
  throw LowerError("kernel " + kernel_.name + ": reduce over " + std::string(ir::dtype_name(e.dtype)));
}

llvm::Value* KernelEmitter::reduce_combine(int reduce, llvm::Value* accumulator, llvm::Value* value) {
  const KernelExpr& e = kernel_.exprs.at(reduce);
  llvm::IRBuilder<>& b = builder_;
  if (ir::is_float(e.dtype)) {
    if (e.op == Op::ReduceMax) return b.CreateBinaryIntrinsic(llvm::Intrinsic::maximum, accumulator, value);
    // Reassociation lets LLVM keep several partial sums (vectorized); the
    // reference sums in double, f32 partial sums stay within its tolerance.
    auto* sum = llvm::cast<llvm::Instruction>(b.CreateFAdd(accumulator, value));
    sum->setHasAllowReassoc(true);
    return sum;
  }
  if (e.op == Op::ReduceMax) return b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, accumulator, value);
  return b.CreateAdd(accumulator, value);
}

llvm::Value* KernelEmitter::reduce_finish(int reduce, llvm::Value* accumulator) {
  const KernelExpr& e = kernel_.exprs.at(reduce);
  return ir::is_float(e.dtype) ? round_float(accumulator, e.dtype) : accumulator;
}

bool KernelEmitter::sums_in_blocks(int reduce, int64_t values, int64_t block) const {
  const KernelExpr& e = kernel_.exprs.at(reduce);
  return e.op == Op::ReduceSum && ir::is_float(e.dtype) && values > block;
}

llvm::Value* KernelEmitter::block_total_identity() { return llvm::ConstantFP::get(builder_.getDoubleTy(), 0.0); }

llvm::Value* KernelEmitter::block_total_add(llvm::Value* total, llvm::Value* block) {
  llvm::IRBuilder<>& b = builder_;
  if (block->getType()->isFloatTy()) block = b.CreateFPExt(block, b.getDoubleTy());
  return b.CreateFAdd(total, block);
}

llvm::Value* KernelEmitter::block_total_finish(int reduce, llvm::Value* total) {
  return reduce_finish(reduce, builder_.CreateFPTrunc(total, builder_.getFloatTy()));
}

llvm::Value* KernelEmitter::reduce_value(int reduce, NodeValues& at) {
  const KernelExpr& e = kernel_.exprs.at(reduce);
  const int operand = e.operands.at(0);
  llvm::Value* v = emit_node(operand, at);
  const DType from = kernel_.exprs[operand].dtype;
  return ir::is_float(from) != ir::is_float(e.dtype) ? convert(v, from, e.dtype) : v;
}

llvm::Value* KernelEmitter::emit_reduce_loop(int node, NodeValues& at) {
  llvm::IRBuilder<>& b = builder_;
  const KernelExpr& e = kernel_.exprs.at(node);
  const int operand = e.operands.at(0);
  // The reduce body's cone; its outer (per-element) nodes are emitted here,
  // before the loop, like the reference does.
  std::vector<bool> cone(kernel_.exprs.size(), false);
  cone[operand] = true;
  for (int j = operand; j >= 0; --j) {
    if (!cone[j]) continue;
    if (kernel_.exprs[j].kind == KernelExpr::Kind::kReduce)
      throw LowerError("kernel " + kernel_.name + ": a reduce inside another reduce's body");
    if (!inner_[j]) continue;
    const kernel::IndexRef condition = kernel::where_index_condition(kernel_, j);
    const KernelExpr& ej = kernel_.exprs[j];
    if (const std::optional<bool> decided = at.decided(condition)) {
      cone[ej.operands[*decided ? 1 : 2]] = true;
      continue;
    }
    for (int o : ej.operands) cone[o] = true;
  }
  for (int j = 0; j <= operand; ++j)
    if (cone[j] && !inner_[j] && at.live(j)) emit_node(j, at);

  // The accumulators live in entry-block slots that SROA promotes to registers.
  llvm::Function* function = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&function->getEntryBlock(), function->getEntryBlock().begin());
  llvm::Value* identity = reduce_identity(node);
  const llvm::DataLayout& layout = function->getParent()->getDataLayout();
  llvm::AllocaInst* slot = entry.CreateAlloca(identity->getType(), layout.getAllocaAddrSpace(), nullptr, "acc");

  // A blocked sum (sums_in_blocks): the reduction dims after `split` span at
  // most kSumBlock values; dim `split` is walked in chunks of `chunk`
  // iterations, each chunk one f32 block, added into the f64 `total`.
  const std::vector<int64_t>& dims = kernel_.reduction;
  const bool blocked = sums_in_blocks(node, ir::numel(dims), kSumBlock);
  size_t split = dims.size();
  int64_t chunk = 0;
  llvm::AllocaInst* total = nullptr;
  if (blocked) {
    int64_t inner = 1;
    while (split > 0 && dims[split - 1] <= kSumBlock / inner) inner *= dims[--split];
    --split;  // the first dim (from the end) that takes the block past kSumBlock
    chunk = std::max<int64_t>(1, kSumBlock / inner);
    total = entry.CreateAlloca(b.getDoubleTy(), layout.getAllocaAddrSpace(), nullptr, "sum.total");
    b.CreateStore(block_total_identity(), total);
  } else {
    b.CreateStore(identity, slot);
  }

  const size_t first = kernel_.space.size();
  std::vector<llvm::Value*> vars = at.vars();
  std::function<void(size_t)> nest = [&](size_t dim) {
    if (dim == dims.size()) {
      NodeValues step(kernel_, vars);
      step.version_ = at.version_;
      step.index_cache_ = at.index_cache_;  // values from before the loop dominate its body
      for (auto it = step.index_cache_.begin(); it != step.index_cache_.end();)
        it = kernel::uses_var_at_least(kernel_.indices, it->first, static_cast<int>(first)) ? step.index_cache_.erase(it) : std::next(it);
      for (size_t j = 0; j < kernel_.exprs.size(); ++j)
        if (!inner_[j] && at.get(static_cast<int>(j))) step.set(static_cast<int>(j), at.get(static_cast<int>(j)));
      b.CreateStore(reduce_combine(node, b.CreateLoad(identity->getType(), slot), reduce_value(node, step)), slot);
      return;
    }
    auto body = [&](llvm::Value* r) {
      vars[first + dim] = r;
      nest(dim + 1);
    };
    const uint64_t extent = static_cast<uint64_t>(dims[dim]);
    if (!blocked || dim != split) {
      // A long innermost loop stays a loop (kernel::kHostUnrolledReduction).
      const bool keep_loop = dim + 1 == dims.size() && dims[dim] > kernel::kHostUnrolledReduction;
      emit_loop(b, b.getInt64(0), b.getInt64(extent), body, "r", keep_loop ? LoopHint::kNoUnroll : LoopHint::kNone);
      return;
    }
    const uint64_t chunks = (extent + static_cast<uint64_t>(chunk) - 1) / static_cast<uint64_t>(chunk);
    emit_loop(b, b.getInt64(0), b.getInt64(chunks), [&](llvm::Value* c) {
      llvm::Value* begin = b.CreateMul(c, b.getInt64(static_cast<uint64_t>(chunk)));
      llvm::Value* end = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin,
                                                 b.CreateAdd(begin, b.getInt64(static_cast<uint64_t>(chunk))),
                                                 b.getInt64(extent));
      b.CreateStore(identity, slot);
      emit_loop(b, begin, end, body, "r");
      b.CreateStore(block_total_add(b.CreateLoad(b.getDoubleTy(), total), b.CreateLoad(identity->getType(), slot)),
                    total);
    }, "block");
  };
  nest(0);
  if (blocked) return block_total_finish(node, b.CreateLoad(b.getDoubleTy(), total));
  return reduce_finish(node, b.CreateLoad(identity->getType(), slot));
}

}  // namespace smelt::lower
