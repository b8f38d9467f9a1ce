// What the GPU's two matmul shapes share (gpu_kernel.h): the output tiles a
// block strides over, a contraction's kernel variables, and the epilogue of
// one output element.
#include "lower/gpu_kernel.h"

namespace smelt::lower {

void for_each_contraction_tile(GpuBuilder& gpu, const kernel::ContractionGroup& plan, int64_t tile_m, int64_t tile_n,
                               const std::function<void(const ContractionTile&)>& body) {
  llvm::IRBuilder<>& b = gpu.b;
  auto c = [&](int64_t v) { return b.getInt64(static_cast<uint64_t>(v)); };
  const int64_t tiles_m = kernel::ceil_div(plan.m, tile_m), tiles_n = kernel::ceil_div(plan.n, tile_n);
  int64_t batch = 1;
  for (int64_t extent : plan.batch) batch *= extent;
  gpu.strided_loop(gpu.block_index(), c(batch * tiles_m * tiles_n), gpu.grid_blocks(), [&](llvm::Value* index) {
    ContractionTile tile;
    llvm::Value* rest = b.CreateUDiv(index, c(tiles_n));
    tile.col0 = b.CreateMul(b.CreateURem(index, c(tiles_n)), c(tile_n));
    tile.row0 = b.CreateMul(b.CreateURem(rest, c(tiles_m)), c(tile_m));
    tile.batch_index = b.CreateUDiv(rest, c(tiles_m));
    tile.batch_vars = gpu.delinearize(tile.batch_index, plan.batch);
    body(tile);
  }, "tile");
}

std::vector<llvm::Value*> contraction_vars(GpuBuilder& gpu, const kernel::ContractionGroup& plan,
                                           const ContractionTile& tile, llvm::Value* row, llvm::Value* col,
                                           llvm::Value* k) {
  std::vector<llvm::Value*> vars = tile.batch_vars;
  vars.push_back(row);
  if (plan.columns.size() > 1) {  // a convolution's output positions, row-major
    for (llvm::Value* v : gpu.delinearize(col, plan.columns)) vars.push_back(v);
  } else {
    vars.push_back(col);
  }
  vars.push_back(k);
  return vars;
}

void store_contraction_element(GpuBuilder& gpu, KernelEmitter& emitter, const kernel::ContractionGroup& plan,
                               const ContractionTile& tile, llvm::Value* row, llvm::Value* col,
                               const std::function<llvm::Value*(size_t term)>& sum) {
  llvm::IRBuilder<>& b = gpu.b;
  auto c = [&](int64_t v) { return b.getInt64(static_cast<uint64_t>(v)); };
  const kernel::Kernel& kernel = emitter.kernel();
  llvm::Value* inside = b.CreateAnd(b.CreateICmpSLT(row, c(plan.m)), b.CreateICmpSLT(col, c(plan.n)));
  gpu.if_then(inside, [&] {
    const std::vector<llvm::Value*> vars = contraction_vars(gpu, plan, tile, row, col, nullptr);
    llvm::Value* linear = b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(tile.batch_index, c(plan.m)), row), c(plan.n)), col);
    emitter.emit_versions(NodeValues(kernel, vars), [&](const kernel::BranchPlan::Leaf& version) {
      NodeValues at(kernel, vars);
      at.assume(version);
      for (size_t t = 0; t < plan.terms.size(); ++t)
        at.set(plan.terms[t].reduce, emitter.reduce_finish(plan.terms[t].reduce, sum(t)));
      emitter.store_outputs(at, linear);
    });
  }, "store");
}

}  // namespace smelt::lower
