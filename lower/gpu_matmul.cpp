// The GPU tiled matmul of contraction groups (gpu_kernel.h, kTiledMatmul):
// 64×64 output tiles, 256 threads with 4×4 outputs each, K in steps of 16
// through shared memory; prologue while filling tiles, epilogue per output.
#include <llvm/IR/Intrinsics.h>

#include "lower/gpu_kernel.h"

namespace smelt::lower {
namespace {


constexpr int64_t kThreadRows = 4, kThreadCols = 4;
constexpr int64_t kThreadsPerRow = kTileN / kThreadCols;  // 16
constexpr int64_t kOutputsPerThread = kThreadRows * kThreadCols;
constexpr int64_t kTileElements = kTileK * kTileM;  // a K×64 slab of one side
static_assert(kTileM == kTileN && kTileElements % kMatmulThreads == 0);

class TiledMatmul {
 public:
  TiledMatmul(GpuBuilder& gpu, KernelEmitter& emitter, const kernel::ContractionGroup& plan)
      : gpu_(gpu), b_(gpu.b), emitter_(emitter), kernel_(emitter.kernel()), plan_(plan) {}

  void emit() {
    llvm::Type* f32 = b_.getFloatTy();
    const uint64_t slabs_a = plan_.a_sides.size(), slabs_b = plan_.b_sides.size();
    a_tiles_ = gpu_.shared_array(f32, slabs_a * kTileElements, "smelt_a_tiles");
    b_tiles_ = gpu_.shared_array(f32, slabs_b * kTileElements, "smelt_b_tiles");
    accumulators_ = gpu_.local(llvm::ArrayType::get(f32, plan_.terms.size() * kOutputsPerThread), "acc");
    tid_ = gpu_.thread_index();
    thread_col_ = b_.CreateURem(tid_, i64(kThreadsPerRow));
    thread_row_ = b_.CreateUDiv(tid_, i64(kThreadsPerRow));

    for_each_contraction_tile(gpu_, plan_, kTileM, kTileN, [&](const ContractionTile& tile) {
      tile_ = &tile;
      for (uint64_t e = 0; e < plan_.terms.size() * kOutputsPerThread; ++e)
        b_.CreateStore(llvm::ConstantFP::get(f32, 0.0), accumulator(e));
      gpu_.strided_loop(i64(0), i64(plan_.k), i64(kTileK), [&](llvm::Value* k0) {
        gpu_.barrier();  // the previous step's readers are done with the tiles
        fill_tiles(k0);
        gpu_.barrier();
        multiply_tiles();
      }, "kstep");
      epilogue();
    });
  }

 private:
  llvm::Value* i64(int64_t v) { return b_.getInt64(static_cast<uint64_t>(v)); }
  llvm::Value* accumulator(uint64_t e) {
    return b_.CreateConstInBoundsGEP2_64(accumulators_->getAllocatedType(), accumulators_, 0, e);
  }

  // Kernel variables for a side: batch, row, column, k (the unused one is 0).
  std::vector<llvm::Value*> side_vars(llvm::Value* row, llvm::Value* col, llvm::Value* k) {
    return contraction_vars(gpu_, plan_, *tile_, row, col, k);
  }

  // Subtree `side` at `vars` where `in_range`, else 0: out of range nothing is evaluated.
  llvm::Value* side_value(int side, const std::vector<llvm::Value*>& vars, llvm::Value* in_range) {
    llvm::Function* function = b_.GetInsertBlock()->getParent();
    llvm::BasicBlock* before = b_.GetInsertBlock();
    auto* evaluate = llvm::BasicBlock::Create(b_.getContext(), "side.eval", function);
    auto* merge = llvm::BasicBlock::Create(b_.getContext(), "side.done", function);
    b_.CreateCondBr(in_range, evaluate, merge);
    b_.SetInsertPoint(evaluate);
    llvm::Value* value = emitter_.emit_node_versioned(side, vars);
    llvm::BasicBlock* evaluated = b_.GetInsertBlock();
    b_.CreateBr(merge);
    b_.SetInsertPoint(merge);
    llvm::PHINode* result = b_.CreatePHI(b_.getFloatTy(), 2);
    result->addIncoming(llvm::ConstantFP::get(b_.getFloatTy(), 0.0), before);
    result->addIncoming(value, evaluated);
    return result;
  }

  // Each thread fills kTileElements / threads slots of every slab: slot e is
  // (kk = e / 64, i = e % 64), consecutive threads on consecutive i.
  void fill_tiles(llvm::Value* k0) {
    for (int64_t j = 0; j < kTileElements / kMatmulThreads; ++j) {
      llvm::Value* slot = b_.CreateAdd(tid_, i64(j * kMatmulThreads));
      llvm::Value* kk = b_.CreateUDiv(slot, i64(kTileM));
      llvm::Value* i = b_.CreateURem(slot, i64(kTileM));
      llvm::Value* k = b_.CreateAdd(k0, kk);
      llvm::Value* k_in = b_.CreateICmpSLT(k, i64(plan_.k));
      llvm::Value* row = b_.CreateAdd(tile_->row0, i);
      llvm::Value* col = b_.CreateAdd(tile_->col0, i);
      llvm::Value* row_in = b_.CreateAnd(k_in, b_.CreateICmpSLT(row, i64(plan_.m)));
      llvm::Value* col_in = b_.CreateAnd(k_in, b_.CreateICmpSLT(col, i64(plan_.n)));
      for (size_t a = 0; a < plan_.a_sides.size(); ++a) {
        llvm::Value* v = side_value(plan_.a_sides[a], side_vars(row, i64(0), k), row_in);
        b_.CreateStore(v, tile_slot(a_tiles_, a, kk, i));
      }
      for (size_t s = 0; s < plan_.b_sides.size(); ++s) {
        llvm::Value* v = side_value(plan_.b_sides[s], side_vars(i64(0), col, k), col_in);
        b_.CreateStore(v, tile_slot(b_tiles_, s, kk, i));
      }
    }
  }

  llvm::Value* tile_slot(llvm::GlobalVariable* tiles, size_t slab, llvm::Value* kk, llvm::Value* i) {
    llvm::Value* index = b_.CreateAdd(b_.CreateMul(b_.CreateAdd(i64(static_cast<int64_t>(slab) * kTileK), kk), i64(kTileM)), i);
    return gpu_.shared_element(tiles, index);
  }

  void multiply_tiles() {
    llvm::Type* f32 = b_.getFloatTy();
    llvm::Value* my_row = b_.CreateMul(thread_row_, i64(kThreadRows));
    llvm::Value* my_col = b_.CreateMul(thread_col_, i64(kThreadCols));
    for (int64_t kk = 0; kk < kTileK; ++kk) {
      for (size_t t = 0; t < plan_.terms.size(); ++t) {
        const kernel::ContractionTerm& term = plan_.terms[t];
        llvm::Value* a[kThreadRows];
        llvm::Value* bv[kThreadCols];
        for (int64_t r = 0; r < kThreadRows; ++r)
          a[r] = b_.CreateLoad(f32, tile_slot(a_tiles_, static_cast<size_t>(term.a_side), i64(kk), b_.CreateAdd(my_row, i64(r))));
        for (int64_t c = 0; c < kThreadCols; ++c)
          bv[c] = b_.CreateLoad(f32, tile_slot(b_tiles_, static_cast<size_t>(term.b_side), i64(kk), b_.CreateAdd(my_col, i64(c))));
        for (int64_t r = 0; r < kThreadRows; ++r)
          for (int64_t c = 0; c < kThreadCols; ++c) {
            llvm::Value* slot = accumulator(t * kOutputsPerThread + static_cast<uint64_t>(r * kThreadCols + c));
            llvm::Value* sum = b_.CreateIntrinsic(llvm::Intrinsic::fmuladd, {f32}, {a[r], bv[c], b_.CreateLoad(f32, slot)});
            b_.CreateStore(sum, slot);
          }
      }
    }
  }

  void epilogue() {
    for (int64_t r = 0; r < kThreadRows; ++r)
      for (int64_t c = 0; c < kThreadCols; ++c) {
        llvm::Value* row = b_.CreateAdd(tile_->row0, b_.CreateAdd(b_.CreateMul(thread_row_, i64(kThreadRows)), i64(r)));
        llvm::Value* col = b_.CreateAdd(tile_->col0, b_.CreateAdd(b_.CreateMul(thread_col_, i64(kThreadCols)), i64(c)));
        store_contraction_element(gpu_, emitter_, plan_, *tile_, row, col, [&](size_t t) {
          return b_.CreateLoad(b_.getFloatTy(),
                               accumulator(t * kOutputsPerThread + static_cast<uint64_t>(r * kThreadCols + c)));
        });
      }
  }

  GpuBuilder& gpu_;
  llvm::IRBuilder<>& b_;
  KernelEmitter& emitter_;
  const kernel::Kernel& kernel_;
  const kernel::ContractionGroup& plan_;
  llvm::GlobalVariable* a_tiles_ = nullptr;
  llvm::GlobalVariable* b_tiles_ = nullptr;
  llvm::AllocaInst* accumulators_ = nullptr;
  llvm::Value* tid_ = nullptr;
  llvm::Value* thread_row_ = nullptr;
  llvm::Value* thread_col_ = nullptr;
  const ContractionTile* tile_ = nullptr;  // the tile being emitted
};

}  // namespace

void emit_tiled_matmul(GpuBuilder& gpu, KernelEmitter& emitter) {
  const std::optional<kernel::ContractionGroup> plan = kernel::match_contraction_group(emitter.kernel());
  if (!plan) throw LowerError("kernel " + emitter.kernel().name + ": not a tiled contraction (internal)");
  TiledMatmul(gpu, emitter, *plan).emit();
}

}  // namespace smelt::lower
