// GPU kernel shapes: grid-stride elementwise loops and block reductions (the
// tiled matmul is gpu_matmul.cpp); see gpu_kernel.h.
#include "lower/gpu_kernel.h"

#include <algorithm>

#include <llvm/IR/IntrinsicsAMDGPU.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "ir/shape.h"
#include "lower/gpu_backend.h"

namespace smelt::lower {
namespace {

constexpr unsigned kSharedAddressSpace = 3;  // NVPTX .shared and AMDGPU LDS alike
constexpr unsigned kGlobalAddressSpace = 1;  // NVPTX .global and AMDGPU global alike
// What the GPU runtime guarantees of every buffer: cuMemAlloc / hipMalloc give
// 256 bytes, the arena's slots runtime::kBufferAlignment = 64. 16 is what the
// widest access (16 bytes, kernel::kGpuRunBytes) needs.
constexpr uint64_t kGpuBufferAlignment = 16;


}  // namespace

LaunchConfig gpu_launch_config(const GpuPlan& plan) {
  LaunchConfig config{};
  // An empty kernel still launches one block (a zero grid is a launch error); its loop does nothing.
  config.grid[0] = kernel::gpu_grid_blocks(plan);
  config.grid[1] = config.grid[2] = 1;
  config.block[0] = plan.block_threads;
  config.block[1] = config.block[2] = 1;
  config.shared_bytes = 0;
  return config;
}

kernel::GpuMatrixUnits gpu_matrix_units(Target target) {
  return target == Target::kHip ? kernel::GpuMatrixUnits::kNone : kernel::GpuMatrixUnits::kNvidiaMma;
}

// ---- GpuBuilder ------------------------------------------------------------------

// Host emulation (Target::kHost, gpu_lower.h): the same values from the emulator.
llvm::Value* GpuBuilder::emulator_call(const char* name, llvm::Type* result) {
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  return b.CreateCall(module.getOrInsertFunction(name, llvm::FunctionType::get(result, false)));
}

llvm::Value* GpuBuilder::thread_index() {
  llvm::Value* id = target_ == Target::kCuda  ? b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {}, {})
                    : target_ == Target::kHip ? b.CreateIntrinsic(llvm::Intrinsic::amdgcn_workitem_id_x, {}, {})
                                              : emulator_call("smelt_gpu_emu_thread_index", b.getInt32Ty());
  return b.CreateZExt(id, b.getInt64Ty(), "tid");
}

llvm::Value* GpuBuilder::block_index() {
  llvm::Value* id = target_ == Target::kCuda  ? b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, {}, {})
                    : target_ == Target::kHip ? b.CreateIntrinsic(llvm::Intrinsic::amdgcn_workgroup_id_x, {}, {})
                                              : emulator_call("smelt_gpu_emu_block_index", b.getInt32Ty());
  return b.CreateZExt(id, b.getInt64Ty(), "block");
}

llvm::Value* GpuBuilder::grid_blocks() {
  if (target_ == Target::kHost)
    return b.CreateZExt(emulator_call("smelt_gpu_emu_grid_blocks", b.getInt32Ty()), b.getInt64Ty(), "blocks");
  if (target_ == Target::kCuda)
    return b.CreateZExt(b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x, {}, {}), b.getInt64Ty(),
                        "blocks");
  // HSA dispatch packet: grid_size_x (work-items) at byte 12; our block size is fixed.
  llvm::Value* packet = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_dispatch_ptr, {}, {});
  llvm::Value* grid_size = b.CreateLoad(b.getInt32Ty(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), packet, 12));
  return b.CreateUDiv(b.CreateZExt(grid_size, b.getInt64Ty()), b.getInt64(block_threads_), "blocks");
}

void GpuBuilder::barrier() {
  if (target_ == Target::kHost) {
    emulator_call("smelt_gpu_emu_barrier", b.getVoidTy());
    return;
  }
  if (target_ == Target::kCuda) {
    b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
    return;
  }
  // __syncthreads() as HIP spells it: workgroup release fence, s_barrier, acquire fence.
  llvm::SyncScope::ID workgroup = b.getContext().getOrInsertSyncScopeID("workgroup");
  b.CreateFence(llvm::AtomicOrdering::Release, workgroup);
  b.CreateIntrinsic(llvm::Intrinsic::amdgcn_s_barrier, {}, {});
  b.CreateFence(llvm::AtomicOrdering::Acquire, workgroup);
}

void GpuBuilder::strided_loop(llvm::Value* begin, llvm::Value* end, llvm::Value* step,
                              const std::function<void(llvm::Value*)>& body, const char* name) {
  llvm::Function* function = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& context = b.getContext();
  llvm::BasicBlock* preheader = b.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(context, std::string(name) + ".header", function);
  auto* body_block = llvm::BasicBlock::Create(context, std::string(name) + ".body", function);
  auto* exit = llvm::BasicBlock::Create(context, std::string(name) + ".exit", function);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, name);
  i->addIncoming(begin, preheader);
  b.CreateCondBr(b.CreateICmpSLT(i, end), body_block, exit);
  b.SetInsertPoint(body_block);
  body(i);
  i->addIncoming(b.CreateAdd(i, step, "", /*HasNUW=*/true, /*HasNSW=*/true), b.GetInsertBlock());
  b.CreateBr(header);
  b.SetInsertPoint(exit);
}

void GpuBuilder::if_then(llvm::Value* condition, const std::function<void()>& then, const char* name) {
  llvm::Function* function = b.GetInsertBlock()->getParent();
  auto* then_block = llvm::BasicBlock::Create(b.getContext(), std::string(name) + ".then", function);
  auto* done = llvm::BasicBlock::Create(b.getContext(), std::string(name) + ".done", function);
  b.CreateCondBr(condition, then_block, done);
  b.SetInsertPoint(then_block);
  then();
  b.CreateBr(done);
  b.SetInsertPoint(done);
}

std::vector<llvm::Value*> GpuBuilder::delinearize(llvm::Value* linear, const std::vector<int64_t>& shape) {
  std::vector<llvm::Value*> coordinates(shape.size(), nullptr);
  // Below 2^32 elements in 32 bits: a GPU divides a 64-bit integer by a
  // constant with a 64-bit multiply-high, several 32-bit instructions each.
  uint64_t elements = 1;
  for (int64_t extent : shape) elements *= static_cast<uint64_t>(extent);
  const bool narrow = elements <= UINT32_MAX;
  llvm::Type* type = narrow ? b.getInt32Ty() : b.getInt64Ty();
  if (narrow) linear = b.CreateTrunc(linear, type);
  for (size_t axis = shape.size(); axis-- > 0;) {
    llvm::Value* extent = llvm::ConstantInt::get(type, static_cast<uint64_t>(shape[axis]));
    coordinates[axis] = axis == 0 ? linear : b.CreateURem(linear, extent);
    if (axis > 0) linear = b.CreateUDiv(linear, extent);
    if (narrow) coordinates[axis] = b.CreateZExt(coordinates[axis], b.getInt64Ty());
  }
  return coordinates;
}

llvm::GlobalVariable* GpuBuilder::shared_array(llvm::Type* element, uint64_t count, const std::string& name) {
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  auto* type = llvm::ArrayType::get(element, count);
  // Emulated, it is an ordinary global the emulator's barrier call may touch (an
  // internal one that never escapes would let LLVM move accesses across it).
  const bool emulated = target_ == Target::kHost;
  auto* array = new llvm::GlobalVariable(
      module, type, false, emulated ? llvm::GlobalValue::ExternalLinkage : llvm::GlobalValue::InternalLinkage,
      emulated ? llvm::Constant::getNullValue(type) : llvm::UndefValue::get(type), name, nullptr,
      llvm::GlobalValue::NotThreadLocal, emulated ? 0 : kSharedAddressSpace);
  array->setAlignment(llvm::Align(16));
  return array;
}

llvm::Value* GpuBuilder::shared_element(llvm::GlobalVariable* array, llvm::Value* index) {
  return b.CreateInBoundsGEP(array->getValueType(), array, {b.getInt64(0), index});
}

llvm::AllocaInst* GpuBuilder::local(llvm::Type* type, const char* name) {
  llvm::Function* function = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&function->getEntryBlock(), function->getEntryBlock().begin());
  const llvm::DataLayout& layout = function->getParent()->getDataLayout();
  return entry.CreateAlloca(type, layout.getAllocaAddrSpace(), nullptr, name);
}

// ---- the shapes -----------------------------------------------------------------

namespace {

void emit_elementwise(GpuBuilder& gpu, KernelEmitter& emitter, int64_t run) {
  const kernel::Kernel& kernel = emitter.kernel();
  llvm::IRBuilder<>& b = gpu.b;
  llvm::Value* threads = b.getInt64(gpu.block_threads());
  llvm::Value* first = b.CreateAdd(b.CreateMul(gpu.block_index(), threads), gpu.thread_index());
  llvm::Value* stride = b.CreateMul(gpu.grid_blocks(), threads);
  // One element per thread: the versions decided at the element.
  auto element = [&](const std::vector<llvm::Value*>& space_vars, llvm::Value* linear) {
    std::vector<llvm::Value*> vars = space_vars;
    vars.resize(static_cast<size_t>(kernel.num_vars()), nullptr);
    emitter.emit_versions(NodeValues(kernel, vars), [&](const kernel::BranchPlan::Leaf& version) {
      NodeValues at(kernel, vars);
      at.assume(version);
      emitter.store_outputs(at, linear);
    });
  };
  if (run == 1) {
    gpu.strided_loop(first, b.getInt64(static_cast<uint64_t>(ir::numel(kernel.space))), stride, [&](llvm::Value* linear) {
      element(gpu.delinearize(linear, kernel.space), linear);
    }, "element");
    return;
  }
  // Runs of `run` elements along the innermost axis (kernel/gpu_plan.h): the
  // elements of a run share the outer coordinates and the innermost one's
  // multiple of `run`, so their accesses are consecutive and 16-byte aligned
  // (buffers are at least 64-byte aligned, runtime/buffer_plan.h), which
  // LLVM's load/store vectorizer turns into one access. Where the run agrees
  // on the versions' conditions (concat and pad boundaries at multiples of the
  // run) one version computes all of it; else each element decides its own.
  ir::Shape runs = kernel.space;
  runs.back() /= run;
  const size_t inner = runs.size() - 1;
  gpu.strided_loop(first, b.getInt64(static_cast<uint64_t>(ir::numel(runs))), stride, [&](llvm::Value* index) {
    std::vector<llvm::Value*> base = gpu.delinearize(index, runs);
    base[inner] = b.CreateMul(base[inner], b.getInt64(static_cast<uint64_t>(run)), "run.first", true, true);
    llvm::Value* linear = b.CreateMul(index, b.getInt64(static_cast<uint64_t>(run)), "run.linear", true, true);
    std::vector<std::vector<llvm::Value*>> vars(static_cast<size_t>(run), base);
    for (int64_t j = 0; j < run; ++j) {
      vars[j][inner] = b.CreateAdd(base[inner], b.getInt64(static_cast<uint64_t>(j)), "", true, true);
      vars[j].resize(static_cast<size_t>(kernel.num_vars()), nullptr);
    }
    auto each = [&](const std::function<void(int64_t)>& body) {
      for (int64_t j = 0; j < run; ++j) body(j);
    };
    // Node by node across the run: the run's loads of one node lie side by
    // side in the code, and where every version starts with the same loads,
    // LLVM hoists them together above the versions' branch (element by
    // element it hoisted the first element's alone, and the rest no longer
    // formed an aligned 16-byte access).
    auto whole_run = [&] {
      emitter.emit_versions(NodeValues(kernel, vars[0]), [&](const kernel::BranchPlan::Leaf& version) {
        std::vector<NodeValues> at;
        for (int64_t j = 0; j < run; ++j) {
          at.emplace_back(kernel, vars[j]);
          at.back().assume(version);
        }
        for (size_t node = 0; node < kernel.exprs.size(); ++node)
          if (version.live[node])
            each([&](int64_t j) { emitter.emit_node(static_cast<int>(node), at[j]); });
        each([&](int64_t j) {
          emitter.store_outputs(at[j], b.CreateAdd(linear, b.getInt64(static_cast<uint64_t>(j)), "", true, true));
        });
      });
    };
    if (!emitter.versions().versioned()) {
      whole_run();
      return;
    }
    std::vector<NodeValues> points;
    for (int64_t j = 0; j < run; ++j) points.emplace_back(kernel, vars[j]);
    std::vector<const NodeValues*> point_refs;
    for (const NodeValues& p : points) point_refs.push_back(&p);
    llvm::Function* function = b.GetInsertBlock()->getParent();
    auto* agreed = llvm::BasicBlock::Create(b.getContext(), "run.agreed", function);
    auto* split = llvm::BasicBlock::Create(b.getContext(), "run.split", function);
    auto* done = llvm::BasicBlock::Create(b.getContext(), "run.done", function);
    b.CreateCondBr(emitter.versions_agree(point_refs), agreed, split);
    b.SetInsertPoint(agreed);
    whole_run();
    b.CreateBr(done);
    // A run across a boundary: element by element, in a loop (not `run` copies).
    b.SetInsertPoint(split);
    emit_loop(b, b.getInt64(0), b.getInt64(static_cast<uint64_t>(run)), [&](llvm::Value* j) {
      std::vector<llvm::Value*> at = base;
      at[inner] = b.CreateAdd(base[inner], j, "", true, true);
      element(at, b.CreateAdd(linear, j, "", true, true));
    }, "run.element");
    b.CreateBr(done);
    b.SetInsertPoint(done);
  }, "run");
}

void emit_block_reduce(GpuBuilder& gpu, KernelEmitter& emitter) {
  const uint32_t block_threads = gpu.block_threads();
  const kernel::Kernel& kernel = emitter.kernel();
  llvm::IRBuilder<>& b = gpu.b;
  std::vector<int> reduces;
  for (size_t i = 0; i < kernel.exprs.size(); ++i)
    if (kernel.exprs[i].kind == kernel::KernelExpr::Kind::kReduce) reduces.push_back(static_cast<int>(i));

  // Each thread takes every block_threads-th step. Where a float sum would add
  // more than kSerialSumBlock values into one thread's accumulator, the steps
  // go in rounds of block_threads · kSerialSumBlock: the thread's f32 sum of a
  // round is added into its f64 total (KernelEmitter::sums_in_blocks), and the
  // block's partials of such sums are f64.
  const int64_t steps = ir::numel(kernel.reduction);
  const int64_t per_thread = (steps + block_threads - 1) / block_threads;
  std::vector<bool> blocked;
  for (int r : reduces) blocked.push_back(emitter.sums_in_blocks(r, per_thread, KernelEmitter::kSerialSumBlock));
  const bool rounds = std::find(blocked.begin(), blocked.end(), true) != blocked.end();
  const int64_t round_steps = static_cast<int64_t>(block_threads) * KernelEmitter::kSerialSumBlock;

  // Per reduce: the thread's accumulator (for a blocked sum: its round's f32
  // sum and its f64 total) and the block's partials in shared memory.
  std::vector<llvm::AllocaInst*> accumulators, totals;
  std::vector<llvm::GlobalVariable*> partials;
  for (size_t j = 0; j < reduces.size(); ++j) {
    llvm::Type* type = emitter.reduce_identity(reduces[j])->getType();
    accumulators.push_back(gpu.local(type, "acc"));
    totals.push_back(blocked[j] ? gpu.local(b.getDoubleTy(), "sum.total") : nullptr);
    partials.push_back(gpu.shared_array(blocked[j] ? b.getDoubleTy() : type, block_threads,
                                        "smelt_partials_" + std::to_string(reduces[j])));
  }

  llvm::Value* tid = gpu.thread_index();
  llvm::Value* threads = b.getInt64(block_threads);
  const int64_t outputs = ir::numel(kernel.space);
  gpu.strided_loop(gpu.block_index(), b.getInt64(static_cast<uint64_t>(outputs)), gpu.grid_blocks(), [&](llvm::Value* out) {
    std::vector<llvm::Value*> space_vars = gpu.delinearize(out, kernel.space);
    for (size_t j = 0; j < reduces.size(); ++j) {
      if (blocked[j]) b.CreateStore(emitter.block_total_identity(), totals[j]);
      else b.CreateStore(emitter.reduce_identity(reduces[j]), accumulators[j]);
    }
    // The thread's steps in [begin, end).
    auto accumulate = [&](llvm::Value* begin, llvm::Value* end) {
      gpu.strided_loop(begin, end, threads, [&](llvm::Value* step) {
        std::vector<llvm::Value*> vars = space_vars;
        for (llvm::Value* r : gpu.delinearize(step, kernel.reduction)) vars.push_back(r);
        // Versions are decided by space variables: the same for the whole block.
        emitter.emit_versions(NodeValues(kernel, vars), [&](const kernel::BranchPlan::Leaf& version) {
          NodeValues at(kernel, vars);
          at.assume(version);
          for (size_t j = 0; j < reduces.size(); ++j) {
            const kernel::KernelExpr& e = kernel.exprs[reduces[j]];
            llvm::Value* v = emitter.emit_node(e.operands[0], at);
            const ir::DType from = kernel.exprs[e.operands[0]].dtype;
            if (ir::is_float(from) != ir::is_float(e.dtype)) v = emitter.convert(v, from, e.dtype);
            llvm::Type* type = accumulators[j]->getAllocatedType();
            b.CreateStore(emitter.reduce_combine(reduces[j], b.CreateLoad(type, accumulators[j]), v), accumulators[j]);
          }
        });
      }, "step");
    };
    if (!rounds) {
      accumulate(tid, b.getInt64(static_cast<uint64_t>(steps)));
    } else {
      const uint64_t count = static_cast<uint64_t>((steps + round_steps - 1) / round_steps);
      emit_loop(b, b.getInt64(0), b.getInt64(count), [&](llvm::Value* round) {
        llvm::Value* base = b.CreateMul(round, b.getInt64(static_cast<uint64_t>(round_steps)));
        llvm::Value* end = b.CreateBinaryIntrinsic(
            llvm::Intrinsic::smin, b.CreateAdd(base, b.getInt64(static_cast<uint64_t>(round_steps))),
            b.getInt64(static_cast<uint64_t>(steps)));
        for (size_t j = 0; j < reduces.size(); ++j)
          if (blocked[j]) b.CreateStore(emitter.reduce_identity(reduces[j]), accumulators[j]);
        accumulate(b.CreateAdd(base, tid), end);
        for (size_t j = 0; j < reduces.size(); ++j) {
          if (!blocked[j]) continue;
          llvm::Value* round_sum = b.CreateLoad(accumulators[j]->getAllocatedType(), accumulators[j]);
          b.CreateStore(emitter.block_total_add(b.CreateLoad(b.getDoubleTy(), totals[j]), round_sum), totals[j]);
        }
      }, "round");
    }
    for (size_t j = 0; j < reduces.size(); ++j) {
      llvm::AllocaInst* mine = blocked[j] ? totals[j] : accumulators[j];
      b.CreateStore(b.CreateLoad(mine->getAllocatedType(), mine), gpu.shared_element(partials[j], tid));
    }
    // Tree over shared memory: half the live threads fold the other half in.
    for (uint32_t live = block_threads / 2; live >= 1; live /= 2) {
      gpu.barrier();
      gpu.if_then(b.CreateICmpULT(tid, b.getInt64(live)), [&] {
        for (size_t j = 0; j < reduces.size(); ++j) {
          llvm::Type* type = partials[j]->getValueType()->getArrayElementType();
          llvm::Value* mine = gpu.shared_element(partials[j], tid);
          llvm::Value* other = gpu.shared_element(partials[j], b.CreateAdd(tid, b.getInt64(live)));
          llvm::Value* folded = blocked[j] ? emitter.block_total_add(b.CreateLoad(type, mine), b.CreateLoad(type, other))
                                           : emitter.reduce_combine(reduces[j], b.CreateLoad(type, mine), b.CreateLoad(type, other));
          b.CreateStore(folded, mine);
        }
      }, "fold");
    }
    gpu.barrier();
    gpu.if_then(b.CreateICmpEQ(tid, b.getInt64(0)), [&] {
      std::vector<llvm::Value*> vars = space_vars;
      vars.resize(static_cast<size_t>(kernel.num_vars()), nullptr);
      emitter.emit_versions(NodeValues(kernel, vars), [&](const kernel::BranchPlan::Leaf& version) {
        NodeValues at(kernel, vars);
        at.assume(version);
        for (size_t j = 0; j < reduces.size(); ++j) {
          llvm::Type* type = partials[j]->getValueType()->getArrayElementType();
          llvm::Value* total = b.CreateLoad(type, gpu.shared_element(partials[j], b.getInt64(0)));
          at.set(reduces[j], blocked[j] ? emitter.block_total_finish(reduces[j], total)
                                        : emitter.reduce_finish(reduces[j], total));
        }
        emitter.store_outputs(at, out);
      });
    }, "epilogue");
    // The next output's partials overwrite these: every thread waits for thread 0's reads.
    gpu.barrier();
  }, "output");
}

}  // namespace

llvm::Function* emit_gpu_kernel(llvm::Module& module, const kernel::KernelProgram& program, size_t kernel_index,
                                Target target, const MathHooks& math) {
  const kernel::Kernel& kernel = program.kernels.at(kernel_index);
  const GpuPlan plan = plan_gpu_kernel(kernel, gpu_matrix_units(target));
  llvm::LLVMContext& context = module.getContext();
  // The buffer array and the buffers are global memory (address space 1 on
  // both targets): NVPTX then emits ld.global / st.global, not generic
  // accesses that resolve their space at run time. The host emulation: 0.
  const unsigned space = target == Target::kHost ? 0 : kGlobalAddressSpace;
  llvm::Type* pointer = llvm::PointerType::get(context, space);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), {pointer}, false);
  llvm::Function* function =
      llvm::Function::Create(type, llvm::Function::ExternalLinkage, kernel_symbol(program, kernel_index), module);
  mark_gpu_kernel(*function, target, plan.block_threads);
  function->addParamAttr(0, llvm::Attribute::NoAlias);
  function->addParamAttr(0, llvm::Attribute::ReadOnly);
  function->addParamAttr(0, llvm::Attribute::NoCapture);
  llvm::Argument* buffer_array = function->getArg(0);
  buffer_array->setName("buffers");

  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "entry", function));
  KernelEmitter emitter(builder, program, kernel_index, math,
                        load_kernel_buffers(builder, program, kernel_index, buffer_array,
                                            target == Target::kHost ? 1 : kGpuBufferAlignment));
  emitter.set_versions(kernel::gpu_branch_plan(kernel, plan));
  GpuBuilder gpu(builder, target, plan.block_threads);
  if (kernel::is_scatter_kernel(kernel)) {  // one thread of one block (kernel/gpu_plan.h)
    gpu.if_then(builder.CreateICmpEQ(builder.CreateOr(gpu.thread_index(), gpu.block_index()), builder.getInt64(0)),
                [&] { emitter.emit_scatter(); }, "serial");
  } else if (ir::numel(kernel.space) > 0) {
    switch (plan.shape) {
      case GpuShape::kElementwise: emit_elementwise(gpu, emitter, plan.elements_per_thread); break;
      case GpuShape::kBlockReduce: emit_block_reduce(gpu, emitter); break;
      case GpuShape::kTiledMatmul: emit_tiled_matmul(gpu, emitter); break;
      case GpuShape::kTensorCoreMatmul: emit_tensor_core_matmul(gpu, emitter); break;
    }
  }
  builder.CreateRetVoid();
  return function;
}

}  // namespace smelt::lower
