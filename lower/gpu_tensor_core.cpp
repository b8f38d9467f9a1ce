// The tensor-core matmul (gpu_kernel.h, kTensorCoreMatmul): one contraction
// of two f16 / bf16 sides, mma.sync.m16n8k16 with f32 accumulators.
//
// A block of 256 threads (8 warps, 2 x 4) owns a 128 x 128 output tile; each
// warp a 64 x 32 part of it, 4 x 4 mma tiles of 16 x 8, 64 f32 accumulators
// per thread. K goes in steps of 32 through shared memory, double-buffered:
// while the tensor cores multiply step s, the threads' loads of step s + 1 are
// in flight (their values in registers, stored to the other buffer after the
// multiply), so one barrier per step.
//
// Shared memory holds each side the way its runs (below) go: lines of K (A's
// rows, B's columns; 32 halves of K each, padded to 40) for runs along K, or
// K-major (per K offset a row of 128 lines, padded to 136) for runs along the
// lines, so that every run is one 16-byte store. ldmatrix.x4 reads the mma
// fragments from either, .trans for the K-major one (the PTX ISA's fragment
// layouts of mma.m16n8k16, .row.col): B [K, N] stored per column, a run
// scattered over 8 lines, took 40 % of a 4096³ gemm on an H200.
//
// Filling: each thread evaluates 2 runs of 8 consecutive elements per side and
// step, along K or along the lines, whichever the side's loads read
// contiguously; a run entirely inside M / N / K is emitted node by node across
// its 8 elements (LLVM merges the loads into one 16-byte access, as in the
// elementwise runs), a run at an edge element by element with zeros outside.
// Any prologue the side has is evaluated there, through the emitter.
//
// The host emulation (Target::kHost) cannot run mma.sync or ldmatrix: there
// the lanes exchange what the instruction moves between them (fragments, row
// addresses) through shared memory between two barriers, and each lane
// computes its part by the PTX ISA's layouts, so the emulated kernels test
// the layouts and addresses the PTX uses.
#include <array>
#include <functional>
#include <tuple>

#include <llvm/IR/IntrinsicsNVPTX.h>

#include "lower/gpu_kernel.h"

namespace smelt::lower {
namespace {

using kernel::ceil_div;

constexpr int64_t kBlockM = kernel::kGpuMmaTileM, kBlockN = kernel::kGpuMmaTileN, kStepK = kernel::kGpuMmaTileK;
static_assert(kBlockM == kBlockN, "A and B tiles share one geometry");
constexpr int64_t kLines = kBlockM;            // lines of K per side tile: A's rows, B's columns
constexpr int64_t kLineStride = kStepK + 8;    // halves per line in shared memory (80 bytes)
constexpr int64_t kSideHalves = kLines * kLineStride;
// A side whose runs go along the lines is stored K-major instead: a row of 128
// lines per K offset, padded to 136 halves (272 bytes: the 8 rows one
// ldmatrix reads, and the 8 16-byte stores of a phase, fall on distinct banks).
constexpr int64_t kKRowStride = kLines + 8;
static_assert(kStepK * kKRowStride <= kSideHalves);
constexpr int64_t kRun = 8;                    // halves per run: 16 bytes
constexpr int64_t kThreads = kernel::kGpuMmaThreads;
constexpr int64_t kRunsPerThread = kLines * kStepK / kRun / kThreads;  // per side and step: 2
constexpr int64_t kWarpsN = 4, kWarpM = 64, kWarpN = 32;
constexpr int64_t kTilesM = kWarpM / 16, kTilesN = kWarpN / 8;  // mma tiles per warp: 4 x 4
constexpr int64_t kAccumulators = kTilesM * kTilesN * 4;
static_assert(kRunsPerThread * kThreads * kRun == kLines * kStepK);
static_assert((kBlockM / kWarpM) * kWarpsN * 32 == kThreads && kWarpsN * kWarpN == kBlockN);

class TensorCoreMatmul {
 public:
  TensorCoreMatmul(GpuBuilder& gpu, KernelEmitter& emitter, const kernel::ContractionGroup& plan, ir::DType dtype)
      : gpu_(gpu), b_(gpu.b), emitter_(emitter), kernel_(emitter.kernel()), plan_(plan), dtype_(dtype) {}

  void emit() {
    llvm::Type* f32 = b_.getFloatTy();
    tiles_ = gpu_.shared_array(b_.getInt16Ty(), 2 * 2 * kSideHalves, "smelt_mma_tiles");
    if (gpu_.target() == Target::kHost)
    {
      scratch_ = gpu_.shared_array(b_.getInt32Ty(), kThreads * 6, "smelt_mma_exchange");
      row_exchange_ = gpu_.shared_array(b_.getInt64Ty(), kThreads, "smelt_ldmatrix_exchange");
    }
    accumulators_ = gpu_.local(llvm::ArrayType::get(f32, kAccumulators), "acc");
    tid_ = gpu_.thread_index();
    llvm::Value* warp = b_.CreateUDiv(tid_, i64(32));
    lane_ = b_.CreateURem(tid_, i64(32));
    group_ = b_.CreateUDiv(lane_, i64(4));
    in_group_ = b_.CreateURem(lane_, i64(4));
    warp_row_ = b_.CreateMul(b_.CreateUDiv(warp, i64(kWarpsN)), i64(kWarpM));
    warp_col_ = b_.CreateMul(b_.CreateURem(warp, i64(kWarpsN)), i64(kWarpN));
    sides_[0] = {plan_.a_sides.at(0), reads_along_k(plan_.a_sides.at(0), static_cast<int>(plan_.batch.size()))};
    sides_[1] = {plan_.b_sides.at(0), reads_along_k(plan_.b_sides.at(0), static_cast<int>(kernel_.space.size()) - 1)};

    for_each_contraction_tile(gpu_, plan_, kBlockM, kBlockN, [&](const ContractionTile& tile) {
      tile_ = &tile;
      for (int64_t e = 0; e < kAccumulators; ++e) b_.CreateStore(llvm::ConstantFP::get(f32, 0.0), accumulator(e));
      store_step(load_step(i64(0)), i64(0));
      stage(load_step(i64(kStepK)));
      gpu_.barrier();
      // Two steps ahead (zeros past K): a step's loads have its own multiply
      // and the next one's to arrive (one step ahead took 1.1 us per step on
      // an H200 where the multiply takes about 0.25: each waited on memory).
      // Steps go in pairs, so the registers of the loads in flight alternate
      // between two sets instead of being copied (a copy waits on its load).
      const int64_t steps = ceil_div(plan_.k, kStepK);
      gpu_.strided_loop(i64(0), i64(steps / 2 * 2 * kStepK), i64(2 * kStepK), [&](llvm::Value* k0) {
        const StepValues odd = load_step(b_.CreateAdd(k0, i64(2 * kStepK)));
        multiply(i64(0));
        store_step(staged(), i64(1));
        gpu_.barrier();
        const StepValues even = load_step(b_.CreateAdd(k0, i64(3 * kStepK)));
        multiply(i64(1));
        store_step(odd, i64(0));
        stage(even);
        gpu_.barrier();
      }, "kpair");
      if (steps % 2 == 1) multiply(i64(0));  // the last step; what was staged lies past K
      epilogue();
    });
  }

 private:
  struct Side {
    int expr = -1;
    bool along_k = true;  // runs go along K (else along the lines: rows of A, columns of B)
  };
  // A run's kRun half bit patterns (i16), and where they are still to be
  // replaced by zeros (an i1; null: they are final).
  struct RunValues {
    std::array<llvm::Value*, kRun> bits{};
    llvm::Value* vector = nullptr;  // instead of `bits`: the run as one <8 x i16> (a 16-byte load)
    llvm::Value* inside = nullptr;
  };
  // Per side, per run of the thread.
  using StepValues = std::array<std::array<RunValues, kRunsPerThread>, 2>;

  llvm::Value* i64(int64_t v) { return b_.getInt64(static_cast<uint64_t>(v)); }
  llvm::Value* accumulator(int64_t e) {
    return b_.CreateConstInBoundsGEP2_64(accumulators_->getAllocatedType(), accumulators_, 0, static_cast<uint64_t>(e));
  }

  // Whether the side's loads read consecutive elements along K (the variable
  // after the space's) rather than along `line_var` (A's row, B's last column
  // axis): by the variables of each load's innermost index. A choice of speed
  // only: every element is evaluated at its own variables either way.
  bool reads_along_k(int side, int line_var) const {
    const uint64_t k_bit = uint64_t{1} << kernel_.space.size();
    const uint64_t line_bit = uint64_t{1} << line_var;
    int along_k = 0, along_line = 0;
    std::vector<int> stack = {side};
    std::vector<bool> seen(kernel_.exprs.size(), false);
    while (!stack.empty()) {
      const int node = stack.back();
      stack.pop_back();
      if (seen[static_cast<size_t>(node)]) continue;
      seen[static_cast<size_t>(node)] = true;
      const kernel::KernelExpr& e = kernel_.exprs[static_cast<size_t>(node)];
      if (e.kind == kernel::KernelExpr::Kind::kLoad && !e.index.empty()) {
        const uint64_t used = kernel_.indices.vars_used(e.index.back());
        along_k += (used & k_bit) != 0;
        along_line += (used & line_bit) != 0 && (used & k_bit) == 0;
      }
      for (int operand : e.operands) stack.push_back(operand);
    }
    return along_k >= along_line;
  }

  // Kernel variables for an element of side `s` on tile line `line` (a row of
  // A, a column of B) at K position `k`; the other side's variable is 0.
  std::vector<llvm::Value*> side_vars(int s, llvm::Value* line, llvm::Value* k) {
    return contraction_vars(gpu_, plan_, *tile_, s == 0 ? line : i64(0), s == 1 ? line : i64(0), k);
  }

  // The half's bits of a register value of the side's dtype (an f32 already rounded to it).
  llvm::Value* to_bits(llvm::Value* v) {
    if (dtype_ == ir::DType::BF16)
      return b_.CreateTrunc(b_.CreateLShr(b_.CreateBitCast(v, b_.getInt32Ty()), 16), b_.getInt16Ty());
    return b_.CreateBitCast(b_.CreateFPTrunc(v, b_.getHalfTy()), b_.getInt16Ty());
  }
  llvm::Value* from_bits(llvm::Value* bits) {
    if (dtype_ == ir::DType::BF16)
      return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(bits, b_.getInt32Ty()), 16), b_.getFloatTy());
    return b_.CreateFPExt(b_.CreateBitCast(bits, b_.getHalfTy()), b_.getFloatTy());
  }

  // Run `r` of the thread: its first element's tile line and K offset in the step.
  // Along K: 4 threads per line, 16 bytes each (a warp reads 8 lines of 64
  // bytes). Along the lines: a warp's threads take 16 K offsets x 2 line
  // chunks, so a warp reads 32 bytes of each of 16 rows (whole sectors) and
  // the 8 stores of a phase go to 8 K rows, 272 bytes apart: distinct banks.
  std::pair<llvm::Value*, llvm::Value*> run_start(const Side& side, int64_t r) {
    llvm::Value* run = b_.CreateAdd(tid_, i64(r * kThreads));
    if (side.along_k)
      return {b_.CreateUDiv(run, i64(kStepK / kRun)), b_.CreateMul(b_.CreateURem(run, i64(kStepK / kRun)), i64(kRun))};
    static_assert(kStepK == 2 * 16 && kRunsPerThread == 2 && kLines / kRun == 16);
    llvm::Value* chunk = b_.CreateURem(b_.CreateUDiv(tid_, i64(16)), i64(16));
    return {b_.CreateMul(chunk, i64(kRun)), b_.CreateAdd(b_.CreateURem(tid_, i64(16)), i64(16 * r))};
  }

  // Whether side `s`'s runs are wholly inside or wholly outside M / N and K
  // (the extents they step along are multiples of kRun, at least one run):
  // then a run loads at clamped coordinates with no branch, and its zeros are
  // chosen where it is stored. No branch between the loads and the multiply
  // lets the loads of step s + 1 fly while step s multiplies (a branch per
  // run made each wait for the last: 3.4 us per step on an H200, 40 TFLOP/s).
  bool runs_clamp(int s) const {
    const int64_t lines = s == 0 ? plan_.m : plan_.n;
    if (emitter_.versions().versioned()) return false;
    return sides_[s].along_k ? plan_.k >= kRun && plan_.k % kRun == 0 && lines >= 1
                             : lines >= kRun && lines % kRun == 0 && plan_.k >= 1;
  }

  // The values of the step after the one being multiplied, carried across
  // the K loop's iterations in stack slots (registers once LLVM promotes them).
  void stage(const StepValues& values) {
    if (!staged_bits_) {
      staged_bits_ = gpu_.local(llvm::ArrayType::get(b_.getInt16Ty(), 2 * kRunsPerThread * kRun), "staged.bits");
      staged_inside_ = gpu_.local(llvm::ArrayType::get(b_.getInt1Ty(), 2 * kRunsPerThread), "staged.inside");
      staged_vectors_ = gpu_.local(llvm::ArrayType::get(half_vector(), 2 * kRunsPerThread), "staged.vectors");
    }
    for (int s = 0; s < 2; ++s)
      for (int64_t r = 0; r < kRunsPerThread; ++r) {
        const uint64_t run = static_cast<uint64_t>(s * kRunsPerThread + r);
        if (values[s][r].vector)
          b_.CreateStore(values[s][r].vector,
                         b_.CreateConstInBoundsGEP2_64(staged_vectors_->getAllocatedType(), staged_vectors_, 0, run));
        for (int64_t j = 0; j < kRun && !values[s][r].vector; ++j)
          b_.CreateStore(values[s][r].bits[j], b_.CreateConstInBoundsGEP2_64(staged_bits_->getAllocatedType(), staged_bits_, 0,
                                                                             run * kRun + static_cast<uint64_t>(j)));
        b_.CreateStore(values[s][r].inside ? values[s][r].inside : b_.getTrue(),
                       b_.CreateConstInBoundsGEP2_64(staged_inside_->getAllocatedType(), staged_inside_, 0, run));
      }
  }
  StepValues staged() {
    StepValues values{};
    for (int s = 0; s < 2; ++s)
      for (int64_t r = 0; r < kRunsPerThread; ++r) {
        const uint64_t run = static_cast<uint64_t>(s * kRunsPerThread + r);
        if (runs_clamp(s) && loads_whole_runs(s))
          values[s][r].vector = b_.CreateLoad(
              half_vector(), b_.CreateConstInBoundsGEP2_64(staged_vectors_->getAllocatedType(), staged_vectors_, 0, run));
        for (int64_t j = 0; j < kRun && !values[s][r].vector; ++j)
          values[s][r].bits[j] = b_.CreateLoad(
              b_.getInt16Ty(), b_.CreateConstInBoundsGEP2_64(staged_bits_->getAllocatedType(), staged_bits_, 0,
                                                             run * kRun + static_cast<uint64_t>(j)));
        values[s][r].inside =
            b_.CreateLoad(b_.getInt1Ty(), b_.CreateConstInBoundsGEP2_64(staged_inside_->getAllocatedType(), staged_inside_, 0, run));
      }
    return values;
  }

  llvm::Type* half_vector() { return llvm::FixedVectorType::get(b_.getInt16Ty(), kRun); }

  // Whether side `s` is a plain load (no prologue, no mask) whose run of 8
  // elements is 16 aligned consecutive bytes at every clamped run start: its
  // innermost index is the run's variable plus a multiple of 8, no other index
  // reads that variable, and its rows are multiples of 8 elements. Then a run
  // is one explicit vector load, kept whole until it is stored after the
  // multiply (8 scalar loads that LLVM merges come back as 8 halves unpacked
  // right after the load, each waiting on it).
  bool loads_whole_runs(int s) const {
    const kernel::KernelExpr& e = kernel_.exprs.at(static_cast<size_t>(sides_[s].expr));
    if (e.kind != kernel::KernelExpr::Kind::kLoad || e.valid != kernel::kNoIndex || e.index.empty() ||
        !e.operands.empty())  // a gather: not a strided run
      return false;
    const kernel::Buffer& buffer = emitter_.program().buffers.at(static_cast<size_t>(e.buffer));
    if (buffer.type.dtype != dtype_ || buffer.type.shape.back() % kRun != 0) return false;
    const int run_var = sides_[s].along_k ? static_cast<int>(kernel_.space.size())
                        : s == 0       ? static_cast<int>(plan_.batch.size())
                                       : static_cast<int>(kernel_.space.size()) - 1;
    if (s == 1 && !sides_[s].along_k && plan_.columns.size() > 1) return false;  // convolution columns wrap
    const uint64_t run_bit = uint64_t{1} << run_var;
    for (size_t axis = 0; axis + 1 < e.index.size(); ++axis)
      if (kernel_.indices.vars_used(e.index[axis]) & run_bit) return false;
    const auto [base, offset] = kernel_.indices.base_and_offset(e.index.back());
    const kernel::IndexPool::Node& node = kernel_.indices.node(base);
    return node.kind == kernel::IndexPool::Kind::kVar && node.value == run_var && offset % kRun == 0;
  }

  // The thread's runs of both sides at K offset k0, as half bits.
  StepValues load_step(llvm::Value* k0) {
    StepValues values{};
    for (int s = 0; s < 2; ++s)
      for (int64_t r = 0; r < kRunsPerThread; ++r) values[s][r] = load_run(s, r, k0);
    return values;
  }

  RunValues load_run(int s, int64_t r, llvm::Value* k0) {
    const Side& side = sides_[s];
    auto [line, kk] = run_start(side, r);
    llvm::Value* first = b_.CreateAdd(s == 0 ? tile_->row0 : tile_->col0, line);  // the run's first row / column
    llvm::Value* k = b_.CreateAdd(k0, kk);
    const int64_t lines = s == 0 ? plan_.m : plan_.n;
    if (runs_clamp(s)) {
      RunValues run;
      run.inside = b_.CreateAnd(b_.CreateICmpSLT(first, i64(lines)), b_.CreateICmpSLT(k, i64(plan_.k)));
      auto clamp = [&](llvm::Value* v, int64_t most) {
        return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, v, i64(most));
      };
      llvm::Value* first_at = clamp(first, side.along_k ? lines - 1 : lines - kRun);
      llvm::Value* k_at = clamp(k, side.along_k ? plan_.k - kRun : plan_.k - 1);
      if (loads_whole_runs(s)) {
        NodeValues at(kernel_, side_vars(s, first_at, k_at));
        run.vector = b_.CreateAlignedLoad(half_vector(), emitter_.load_address(side.expr, at), llvm::Align(16));
        return run;
      }
      run.bits = emit_run(s, first_at, k_at);
      return run;
    }
    llvm::Value* inside =
        side.along_k ? b_.CreateAnd(b_.CreateICmpSLT(first, i64(lines)), b_.CreateICmpSLE(k, i64(plan_.k - kRun)))
                     : b_.CreateAnd(b_.CreateICmpSLE(first, i64(lines - kRun)), b_.CreateICmpSLT(k, i64(plan_.k)));
    llvm::Function* function = b_.GetInsertBlock()->getParent();
    auto* whole = llvm::BasicBlock::Create(b_.getContext(), "run.whole", function);
    auto* edge = llvm::BasicBlock::Create(b_.getContext(), "run.edge", function);
    auto* done = llvm::BasicBlock::Create(b_.getContext(), "run.done", function);
    // A kernel with versions decides them per element: every run takes the edge path.
    b_.CreateCondBr(emitter_.versions().versioned() ? b_.getFalse() : inside, whole, edge);

    std::array<llvm::Value*, kRun> from_whole{}, from_edge{};
    b_.SetInsertPoint(whole);
    from_whole = emit_run(s, first, k);
    llvm::BasicBlock* whole_end = b_.GetInsertBlock();
    b_.CreateBr(done);

    // At an edge, element by element in a loop (not kRun copies: LLVM would
    // sink the copies' last load and the whole run's into one, splitting its
    // 16-byte access), zeros outside M / N / K.
    b_.SetInsertPoint(edge);
    llvm::AllocaInst* edge_bits = gpu_.local(llvm::ArrayType::get(b_.getInt16Ty(), kRun), "run.edge.bits");
    emit_loop(b_, i64(0), i64(kRun), [&](llvm::Value* j) {
      llvm::Value* line_j = side.along_k ? first : b_.CreateAdd(first, j);
      llvm::Value* k_j = side.along_k ? b_.CreateAdd(k, j) : k;
      llvm::Value* in = b_.CreateAnd(b_.CreateICmpSLT(line_j, i64(lines)), b_.CreateICmpSLT(k_j, i64(plan_.k)));
      llvm::Value* slot = b_.CreateInBoundsGEP(edge_bits->getAllocatedType(), edge_bits, {i64(0), j});
      b_.CreateStore(b_.getInt16(0), slot);
      gpu_.if_then(in, [&] {
        b_.CreateStore(to_bits(emitter_.emit_node_versioned(side.expr, side_vars(s, line_j, k_j))), slot);
      }, "edge.element");
    }, "edge", LoopHint::kNoUnroll);
    for (int64_t j = 0; j < kRun; ++j)
      from_edge[j] = b_.CreateLoad(b_.getInt16Ty(), b_.CreateConstInBoundsGEP2_64(edge_bits->getAllocatedType(), edge_bits, 0,
                                                                                static_cast<uint64_t>(j)));
    llvm::BasicBlock* edge_end = b_.GetInsertBlock();
    b_.CreateBr(done);

    b_.SetInsertPoint(done);
    RunValues result;
    for (int64_t j = 0; j < kRun; ++j) {
      llvm::PHINode* phi = b_.CreatePHI(b_.getInt16Ty(), 2);
      phi->addIncoming(from_whole[j], whole_end);
      phi->addIncoming(from_edge[j], edge_end);
      result.bits[j] = phi;
    }
    return result;
  }

  // Side `s`'s run of kRun elements from line `first`, K offset `k` (along K or
  // along the lines), as half bits, emitted node by node across the run: the
  // run's loads of one node lie side by side, and LLVM merges them.
  std::array<llvm::Value*, kRun> emit_run(int s, llvm::Value* first, llvm::Value* k) {
    const Side& side = sides_[s];
    std::vector<NodeValues> at;
    for (int64_t j = 0; j < kRun; ++j)
      at.emplace_back(kernel_, side.along_k ? side_vars(s, first, b_.CreateAdd(k, i64(j), "", true, true))
                                            : side_vars(s, b_.CreateAdd(first, i64(j), "", true, true), k));
    for (int node = 0; node <= side.expr; ++node)
      if (feeds(node, side.expr))
        for (int64_t j = 0; j < kRun; ++j) emitter_.emit_node(node, at[static_cast<size_t>(j)]);
    std::array<llvm::Value*, kRun> bits{};
    for (int64_t j = 0; j < kRun; ++j) bits[j] = to_bits(at[static_cast<size_t>(j)].get(side.expr));
    return bits;
  }

  // Whether node `node` is in the subtree of `root` (memoized per root).
  bool feeds(int node, int root) {
    std::vector<bool>& in = subtree_[root];
    if (in.empty()) {
      in.assign(kernel_.exprs.size(), false);
      in[static_cast<size_t>(root)] = true;
      for (int i = root; i >= 0; --i)
        if (in[static_cast<size_t>(i)])
          for (int operand : kernel_.exprs[static_cast<size_t>(i)].operands) in[static_cast<size_t>(operand)] = true;
    }
    return in[static_cast<size_t>(node)];
  }

  // Half index in shared memory of side `s`'s tile line `line`, K offset `kk`,
  // in `buffer`: lines of K (runs along K), or K-major (runs along the lines).
  llvm::Value* tile_index(llvm::Value* buffer, int s, llvm::Value* line, llvm::Value* kk) {
    llvm::Value* side_base = b_.CreateMul(b_.CreateAdd(b_.CreateMul(buffer, i64(2)), i64(s)), i64(kSideHalves));
    if (!sides_[s].along_k) return b_.CreateAdd(side_base, b_.CreateAdd(b_.CreateMul(kk, i64(kKRowStride)), line));
    return b_.CreateAdd(side_base, b_.CreateAdd(b_.CreateMul(line, i64(kLineStride)), kk));
  }

  void store_step(const StepValues& values, llvm::Value* buffer) {
    for (int s = 0; s < 2; ++s)
      for (int64_t r = 0; r < kRunsPerThread; ++r) {
        auto [line, kk] = run_start(sides_[s], r);
        std::array<llvm::Value*, kRun> bits = values[s][r].bits;
        llvm::Value* vector = values[s][r].vector;
        if (vector) {
          if (values[s][r].inside)
            vector = b_.CreateSelect(values[s][r].inside, vector, llvm::Constant::getNullValue(half_vector()));
        } else if (values[s][r].inside) {
          for (llvm::Value*& v : bits) v = b_.CreateSelect(values[s][r].inside, v, b_.getInt16(0));
        }
        // A run is 16 consecutive bytes of its side's layout: one vector store.
        if (!vector) {
          vector = llvm::PoisonValue::get(half_vector());
          for (int64_t j = 0; j < kRun; ++j) vector = b_.CreateInsertElement(vector, bits[j], static_cast<uint64_t>(j));
        }
        b_.CreateAlignedStore(vector, gpu_.shared_element(tiles_, tile_index(buffer, s, line, kk)), llvm::Align(16));
      }
  }

  // ldmatrix.x4: four 8x8 matrices of halves from shared memory, lane l
  // giving the address of row l % 8 of matrix l / 8 (`row`: the half index of
  // its first element). Each lane receives, of matrix i, in register i: row
  // group, halves 2·in_group and +1; `transposed` (.trans, the matrices stored
  // K-major): rows 2·in_group and +1, column group. Either is the mma fragment
  // layout. One instruction where 32-bit loads took four. Emulated: the lanes
  // exchange their row addresses between two barriers and each loads its
  // halves itself.
  std::array<llvm::Value*, 4> load_matrices(llvm::Value* row, bool transposed) {
    std::array<llvm::Value*, 4> regs{};
    if (gpu_.target() != Target::kHost) {
      llvm::Value* address = gpu_.shared_element(tiles_, row);  // overloaded on its pointer: .p3
      llvm::Value* d = b_.CreateIntrinsic(transposed ? llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_trans_b16
                                                     : llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16,
                                          {address->getType()}, {address});
      for (unsigned i = 0; i < 4; ++i) regs[i] = b_.CreateExtractValue(d, {i});
      return regs;
    }
    llvm::Value* d = b_.CreateCall(
        emulation_function(transposed ? "smelt_emu_ldmatrix_trans" : "smelt_emu_ldmatrix",
                           [&](std::vector<llvm::Value*> in) { return emulated_load_matrices(in[0], transposed); }, 0, 0, 4,
                           /*row argument=*/true),
        {row, tid_});
    for (unsigned i = 0; i < 4; ++i) regs[i] = b_.CreateExtractValue(d, {i});
    return regs;
  }

  // An emulated warp instruction as an internal function of the module (made
  // once): its arguments are `words` i32, `floats` f32, an i64 row index if
  // `row_argument`, then the thread index; it returns `results` values (i32
  // for ldmatrix, f32 for mma) built by `body` from its arguments, with the
  // thread's lane, group and in_group recomputed inside.
  llvm::Function* emulation_function(const std::string& name,
                                     const std::function<std::vector<llvm::Value*>(std::vector<llvm::Value*>)>& body,
                                     int words, int floats, int results, bool row_argument = false) {
    llvm::Module& module = *b_.GetInsertBlock()->getModule();
    if (llvm::Function* existing = module.getFunction(name)) return existing;
    std::vector<llvm::Type*> params(static_cast<size_t>(words), b_.getInt32Ty());
    params.insert(params.end(), static_cast<size_t>(floats), b_.getFloatTy());
    if (row_argument) params.push_back(b_.getInt64Ty());
    params.push_back(b_.getInt64Ty());
    llvm::Type* element = floats > 0 ? b_.getFloatTy() : b_.getInt32Ty();
    llvm::Type* result = llvm::StructType::get(b_.getContext(), std::vector<llvm::Type*>(static_cast<size_t>(results), element));
    auto* function = llvm::Function::Create(llvm::FunctionType::get(result, params, false),
                                            llvm::GlobalValue::InternalLinkage, name, module);
    function->addFnAttr(llvm::Attribute::NoInline);
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    const auto saved = std::make_tuple(tid_, lane_, group_, in_group_);
    b_.SetInsertPoint(llvm::BasicBlock::Create(b_.getContext(), "entry", function));
    std::vector<llvm::Value*> in;
    for (llvm::Argument& arg : function->args()) in.push_back(&arg);
    tid_ = in.back();
    in.pop_back();
    lane_ = b_.CreateURem(tid_, i64(32));
    group_ = b_.CreateUDiv(lane_, i64(4));
    in_group_ = b_.CreateURem(lane_, i64(4));
    llvm::Value* out = llvm::PoisonValue::get(result);
    const std::vector<llvm::Value*> values = body(in);
    for (unsigned i = 0; i < values.size(); ++i) out = b_.CreateInsertValue(out, values[i], {i});
    b_.CreateRet(out);
    std::tie(tid_, lane_, group_, in_group_) = saved;
    return function;
  }

  // ldmatrix emulated (load_matrices): `row` is this lane's row index.
  std::vector<llvm::Value*> emulated_load_matrices(llvm::Value* row, bool transposed) {
    std::array<llvm::Value*, 4> regs{};
    b_.CreateStore(row, gpu_.shared_element(row_exchange_, tid_));
    gpu_.barrier();
    llvm::Value* warp_first = b_.CreateSub(tid_, lane_);
    auto row_start = [&](llvm::Value* giver_lane) {
      return b_.CreateLoad(b_.getInt64Ty(), gpu_.shared_element(row_exchange_, b_.CreateAdd(warp_first, giver_lane)));
    };
    auto half_at = [&](llvm::Value* index) {
      return b_.CreateZExt(b_.CreateLoad(b_.getInt16Ty(), gpu_.shared_element(tiles_, index)), b_.getInt32Ty());
    };
    for (int64_t i = 0; i < 4; ++i) {
      if (!transposed) {
        llvm::Value* half = b_.CreateAdd(row_start(b_.CreateAdd(group_, i64(i * 8))), b_.CreateMul(in_group_, i64(2)));
        regs[i] = b_.CreateAlignedLoad(b_.getInt32Ty(), gpu_.shared_element(tiles_, half), llvm::Align(4));
      } else {
        llvm::Value* first_row = b_.CreateAdd(b_.CreateMul(in_group_, i64(2)), i64(i * 8));
        llvm::Value* low = half_at(b_.CreateAdd(row_start(first_row), group_));
        llvm::Value* high = half_at(b_.CreateAdd(row_start(b_.CreateAdd(first_row, i64(1))), group_));
        regs[i] = b_.CreateOr(low, b_.CreateShl(high, 16));
      }
    }
    gpu_.barrier();  // the exchange is reused by the next load
    return {regs.begin(), regs.end()};
  }

  // The half index lane `lane` gives ldmatrix for matrix `matrix` (its row
  // matrix_row) of side `s`, whose matrix starts at line `line0`, K offset `k0`.
  llvm::Value* matrix_row_index(llvm::Value* buffer, int s, llvm::Value* line0, llvm::Value* k0, llvm::Value* matrix_row) {
    if (sides_[s].along_k) return tile_index(buffer, s, b_.CreateAdd(line0, matrix_row), k0);
    return tile_index(buffer, s, line0, b_.CreateAdd(k0, matrix_row));
  }

  void multiply(llvm::Value* buffer) {
    llvm::Value* matrix = b_.CreateUDiv(lane_, i64(8));  // the matrix this lane addresses a row of
    llvm::Value* matrix_row = b_.CreateURem(lane_, i64(8));
    llvm::Value* low_bit = b_.CreateURem(matrix, i64(2));
    llvm::Value* high_bit = b_.CreateUDiv(matrix, i64(2));
    for (int64_t ks = 0; ks < kStepK; ks += 16) {
      std::array<std::array<llvm::Value*, 4>, kTilesM> a{};
      std::array<std::array<llvm::Value*, 2>, kTilesN> bf{};
      // A: matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15) = a0..a3.
      for (int64_t mt = 0; mt < kTilesM; ++mt) {
        llvm::Value* line0 = b_.CreateAdd(b_.CreateAdd(warp_row_, i64(mt * 16)), b_.CreateMul(low_bit, i64(8)));
        llvm::Value* k0 = b_.CreateAdd(i64(ks), b_.CreateMul(high_bit, i64(8)));
        a[mt] = load_matrices(matrix_row_index(buffer, 0, line0, k0, matrix_row), !sides_[0].along_k);
      }
      // B, two n tiles at once: (tile nt, k 0-7), (nt, k 8-15), (nt + 1, k 0-7), (nt + 1, k 8-15).
      for (int64_t nt = 0; nt < kTilesN; nt += 2) {
        llvm::Value* line0 = b_.CreateAdd(b_.CreateAdd(warp_col_, i64(nt * 8)), b_.CreateMul(high_bit, i64(8)));
        llvm::Value* k0 = b_.CreateAdd(i64(ks), b_.CreateMul(low_bit, i64(8)));
        const std::array<llvm::Value*, 4> regs =
            load_matrices(matrix_row_index(buffer, 1, line0, k0, matrix_row), !sides_[1].along_k);
        bf[nt] = {regs[0], regs[1]};
        bf[nt + 1] = {regs[2], regs[3]};
      }
      for (int64_t mt = 0; mt < kTilesM; ++mt)
        for (int64_t nt = 0; nt < kTilesN; ++nt) {
          std::array<llvm::Value*, 4> c{};
          const int64_t first = (mt * kTilesN + nt) * 4;
          for (int64_t i = 0; i < 4; ++i) c[i] = b_.CreateLoad(b_.getFloatTy(), accumulator(first + i));
          const std::array<llvm::Value*, 4> d = mma(a[mt], bf[nt], c);
          for (int64_t i = 0; i < 4; ++i) b_.CreateStore(d[i], accumulator(first + i));
        }
    }
  }

  std::array<llvm::Value*, 4> mma(const std::array<llvm::Value*, 4>& a, const std::array<llvm::Value*, 2>& bf,
                                  const std::array<llvm::Value*, 4>& c) {
    if (gpu_.target() == Target::kHost) {
      // Out of line: inlined, the 64 mmas of a step pair made the emulation's JIT compile the slowest part of its tests.
      std::vector<llvm::Value*> args(a.begin(), a.end());
      args.insert(args.end(), bf.begin(), bf.end());
      args.insert(args.end(), c.begin(), c.end());
      args.push_back(tid_);
      llvm::Value* d = b_.CreateCall(emulation_function("smelt_emu_mma", [&](std::vector<llvm::Value*> in) {
        const std::array<llvm::Value*, 4> out = emulated_mma({in[0], in[1], in[2], in[3]}, {in[4], in[5]},
                                                             {in[6], in[7], in[8], in[9]});
        return std::vector<llvm::Value*>(out.begin(), out.end());
      }, 6, 4, 4), args);
      std::array<llvm::Value*, 4> result{};
      for (unsigned i = 0; i < 4; ++i) result[i] = b_.CreateExtractValue(d, {i});
      return result;
    }
    std::vector<llvm::Value*> args;
    llvm::Intrinsic::ID id = llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16;
    llvm::Type* halves = llvm::FixedVectorType::get(b_.getHalfTy(), 2);
    auto fragment = [&](llvm::Value* reg) { return dtype_ == ir::DType::BF16 ? reg : b_.CreateBitCast(reg, halves); };
    if (dtype_ == ir::DType::F16) id = llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32;
    for (llvm::Value* v : a) args.push_back(fragment(v));
    for (llvm::Value* v : bf) args.push_back(fragment(v));
    for (llvm::Value* v : c) args.push_back(v);
    llvm::Value* d = b_.CreateIntrinsic(id, {}, args);
    std::array<llvm::Value*, 4> result{};
    for (unsigned i = 0; i < 4; ++i) result[i] = b_.CreateExtractValue(d, {i});
    return result;
  }

  // The mma of one warp, emulated: each lane writes its fragments (4 A and 2 B
  // registers) to the exchange, and after a barrier computes its accumulators
  // c0..c3 (rows group, group + 8; columns 2·in_group + 0, 1) from the lanes
  // that hold the rows and columns it needs:
  //   A[row][k] is in lane (row % 8)·4 + (k % 8) / 2, register row / 8 + 2·(k / 8), half k % 2;
  //   B[k][col] is in lane col·4 + (k % 8) / 2, register 4 + k / 8, half k % 2.
  std::array<llvm::Value*, 4> emulated_mma(const std::array<llvm::Value*, 4>& a, const std::array<llvm::Value*, 2>& bf,
                                           const std::array<llvm::Value*, 4>& c) {
    llvm::Value* warp_base = b_.CreateMul(b_.CreateSub(tid_, lane_), i64(6));
    auto slot = [&](llvm::Value* lane, llvm::Value* reg) {
      return gpu_.shared_element(scratch_, b_.CreateAdd(warp_base, b_.CreateAdd(b_.CreateMul(lane, i64(6)), reg)));
    };
    for (int64_t i = 0; i < 4; ++i) b_.CreateStore(a[i], slot(lane_, i64(i)));
    for (int64_t i = 0; i < 2; ++i) b_.CreateStore(bf[i], slot(lane_, i64(4 + i)));
    gpu_.barrier();
    auto half = [&](llvm::Value* lane, llvm::Value* reg, llvm::Value* k) {
      llvm::Value* word = b_.CreateLoad(b_.getInt32Ty(), slot(lane, reg));
      llvm::Value* shift = b_.CreateTrunc(b_.CreateMul(b_.CreateURem(k, i64(2)), i64(16)), b_.getInt32Ty());
      return from_bits(b_.CreateTrunc(b_.CreateLShr(word, shift), b_.getInt16Ty()));
    };
    std::array<llvm::Value*, 4> d{};
    llvm::AllocaInst* sum = gpu_.local(b_.getFloatTy(), "emu.sum");
    for (int64_t i = 0; i < 4; ++i) {
      llvm::Value* row = b_.CreateAdd(group_, i64(i >= 2 ? 8 : 0));
      llvm::Value* col = b_.CreateAdd(b_.CreateMul(in_group_, i64(2)), i64(i & 1));
      b_.CreateStore(c[i], sum);
      emit_loop(b_, i64(0), i64(16), [&](llvm::Value* k) {
        llvm::Value* pair = b_.CreateUDiv(b_.CreateURem(k, i64(8)), i64(2));
        llvm::Value* k_half = b_.CreateUDiv(k, i64(8));
        llvm::Value* av = half(b_.CreateAdd(b_.CreateMul(b_.CreateURem(row, i64(8)), i64(4)), pair),
                               b_.CreateAdd(b_.CreateUDiv(row, i64(8)), b_.CreateMul(k_half, i64(2))), k);
        llvm::Value* bv = half(b_.CreateAdd(b_.CreateMul(col, i64(4)), pair), b_.CreateAdd(k_half, i64(4)), k);
        b_.CreateStore(b_.CreateIntrinsic(llvm::Intrinsic::fmuladd, {b_.getFloatTy()}, {av, bv, b_.CreateLoad(b_.getFloatTy(), sum)}),
                       sum);
      }, "emu.k");
      d[i] = b_.CreateLoad(b_.getFloatTy(), sum);
    }
    gpu_.barrier();  // the exchange is reused by the next mma
    return d;
  }

  void epilogue() {
    for (int64_t mt = 0; mt < kTilesM; ++mt)
      for (int64_t nt = 0; nt < kTilesN; ++nt)
        for (int64_t i = 0; i < 4; ++i) {
          llvm::Value* row =
              b_.CreateAdd(b_.CreateAdd(tile_->row0, warp_row_), b_.CreateAdd(group_, i64(mt * 16 + (i >= 2 ? 8 : 0))));
          llvm::Value* col = b_.CreateAdd(b_.CreateAdd(tile_->col0, warp_col_),
                                          b_.CreateAdd(b_.CreateMul(in_group_, i64(2)), i64(nt * 8 + (i & 1))));
          store_contraction_element(gpu_, emitter_, plan_, *tile_, row, col, [&](size_t) {
            return b_.CreateLoad(b_.getFloatTy(), accumulator((mt * kTilesN + nt) * 4 + i));
          });
        }
  }

  GpuBuilder& gpu_;
  llvm::IRBuilder<>& b_;
  KernelEmitter& emitter_;
  const kernel::Kernel& kernel_;
  const kernel::ContractionGroup& plan_;
  const ir::DType dtype_;
  Side sides_[2];
  std::unordered_map<int, std::vector<bool>> subtree_;
  llvm::GlobalVariable* tiles_ = nullptr;
  llvm::GlobalVariable* scratch_ = nullptr;       // emulation: the warps' fragments
  llvm::GlobalVariable* row_exchange_ = nullptr;  // emulation: the lanes' ldmatrix row addresses
  llvm::AllocaInst* accumulators_ = nullptr;
  llvm::AllocaInst* staged_bits_ = nullptr;
  llvm::AllocaInst* staged_inside_ = nullptr;
  llvm::AllocaInst* staged_vectors_ = nullptr;
  llvm::Value* tid_ = nullptr;
  llvm::Value* lane_ = nullptr;
  llvm::Value* group_ = nullptr;     // lane / 4: the fragment's row (A, C) or column (B)
  llvm::Value* in_group_ = nullptr;  // lane % 4: which pair of K (A, B) or columns (C)
  llvm::Value* warp_row_ = nullptr;
  llvm::Value* warp_col_ = nullptr;
  const ContractionTile* tile_ = nullptr;  // the tile being emitted
};

}  // namespace

void emit_tensor_core_matmul(GpuBuilder& gpu, KernelEmitter& emitter) {
  const std::optional<kernel::ContractionGroup> plan = kernel::match_contraction_group(emitter.kernel());
  const std::optional<ir::DType> dtype = kernel::tensor_core_dtype(emitter.kernel());
  if (!plan || !dtype) throw LowerError("kernel " + emitter.kernel().name + ": not a tensor-core contraction (internal)");
  TensorCoreMatmul(gpu, emitter, *plan, *dtype).emit();
}

}  // namespace smelt::lower
