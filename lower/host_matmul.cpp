#include "lower/host_matmul.h"

#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/TargetParser/Triple.h>

#include "kernel/host_plan.h"
#include "lower/lower.h"

namespace smelt::lower {
namespace {

using llvm::BasicBlock;
using llvm::Value;

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

// The register budget: the target's vector registers (t.registers.count of
// t.registers.floats lanes; a <16 x float> takes 16 / lanes of them), of which
// the accumulators take terms·mr·nv vectors, the B vectors of one k step
// b_sides·nv and one A broadcast. Of the widths that fit, the one with the
// most FMAs per load (B vectors and A broadcasts) of a k step: with AVX-512's
// 32 zmm a plain product takes 12 x 32 (24 FMAs for 14 loads); with AVX2's 16
// ymm 6 x 16 (12 ymm FMAs for 8 loads), where the 12 x 32 meant for AVX-512
// spilled its 48 ymm accumulators: a dot-slice group of two [8, 512] @
// [512, 256] ran 290 us against 213 as a product and an epilogue on an AMD
// EPYC (Zen 3, 2026-11-30, one thread).
ContractionTiles clamp_tiles(ContractionTiles t, const ContractionPlan& p) {
  const int terms = std::max(1, static_cast<int>(p.terms.size()));
  const int per_vector = std::max(1, 16 / std::max(1, t.registers.floats));  // native registers per <16 x float>
  const int64_t rows = p.rows_per_b();
  const int widest = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(std::max(t.nr, 16), round_up(p.n, 16)) / 16));
  // A pass of `pass_terms` terms reading `pass_b` B sides.
  struct Choice {
    int nv = 1, mr = 1, terms_per_pass = 0;
    double ratio = -1;
  };
  auto best_for = [&](int pass_terms, int pass_b, int terms_per_pass, Choice best) {
    auto rows_that_fit = [&](int nv) {
      return (t.registers.count - 1 - pass_b * nv * per_vector) / (pass_terms * nv * per_vector);
    };
    for (int nv = widest; nv >= 1; --nv) {
      const int fit = rows_that_fit(nv);
      if (fit < 1 && nv > 1) continue;
      const int mr = static_cast<int>(std::clamp<int64_t>(std::min<int64_t>(t.mr, fit), 1, std::max<int64_t>(1, rows)));
      const double ratio = static_cast<double>(pass_terms * mr * nv * per_vector) /
                           static_cast<double>(pass_b * nv * per_vector + mr);
      if (ratio > best.ratio) best = {nv, mr, terms_per_pass, ratio};  // ties: the wider, the fewer passes
    }
    return best;
  };
  // Every term in one pass; or, where that fits worse, a term per pass (the k
  // loop once per term over the same packed A): AVX2's 16 ymm hold a group
  // of two products sharing A as 2 x 16 tiles (8 ymm accumulators, 8 FMAs
  // per 6 loads), one product at a time as 6 x 16 (12 FMAs per 8 loads). A group of two
  // [64, 1024] @ [1024, 2048] products of constant weights ran 1.58x the two
  // apart in 2 x 16 tiles (AMD EPYC, one thread, 2026-11-30).
  Choice chosen = best_for(terms, static_cast<int>(p.b_sides.size()), 0, {});
  if (terms > 1) chosen = best_for(1, 1, 1, chosen);
  t.nr = 16 * chosen.nv;
  t.terms_per_pass = chosen.terms_per_pass;
  // Rows across batch elements share a micro-tile when they share B (flat rows).
  t.mr = chosen.mr;
  t.kc = static_cast<int>(std::clamp<int64_t>(t.kc, 1, p.k));
  t.mc = static_cast<int>(round_up(std::clamp<int64_t>(t.mc, 1, rows), t.mr));
  t.nc = static_cast<int>(round_up(std::clamp<int64_t>(t.nc, 1, p.n), t.nr));
  t.unroll = std::max(1, t.unroll);
  t.rows_per_chunk = static_cast<int>(round_up(std::max(t.rows_per_chunk, t.mc), t.mc));
  return t;
}

// How a loop is vectorized: left to LLVM's cost model, 16 wide with a scalar
// remainder, or 16 wide with the remainder as one masked iteration.
enum class Vectorize { kNo, kYes, kMaskedTail };

class TiledContraction {
 public:
  TiledContraction(KernelEmitter& emitter, const ContractionPlan& plan)
      : em_(emitter), b_(emitter.builder()), p_(plan), t_(plan.tiles), k_(emitter.kernel()),
        ctx_(b_.getContext()), i64_(b_.getInt64Ty()), f32_(b_.getFloatTy()),
        v16_(llvm::FixedVectorType::get(f32_, 16)), fn_(b_.GetInsertBlock()->getParent()),
        rank_(k_.space.size()) {}

  void emit(Value* begin, Value* end) {
    fn_->addFnAttr("min-legal-vector-width", "512");
    fn_->addFnAttr("prefer-vector-width", "512");
    llvm::Module& module = *fn_->getParent();
    llvm::Type* ptr = b_.getPtrTy();
    auto alloc_fn = module.getOrInsertFunction("aligned_alloc", ptr, i64_, i64_);
    auto free_fn = module.getOrInsertFunction("free", b_.getVoidTy(), ptr);

    // The epilogue's tile of accumulators, spilled once per micro-tile.
    {
      llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
      tile_ = entry.CreateAlloca(llvm::ArrayType::get(f32_, static_cast<uint64_t>(terms() * t_.mr * t_.nr)), nullptr,
                                 "epilogue_tile");
      tile_->setAlignment(llvm::Align(64));
    }

    BasicBlock* work = block("work");
    BasicBlock* done = block("done");
    b_.CreateCondBr(b_.CreateICmpSLT(begin, end), work, done);
    b_.SetInsertPoint(work);

    auto allocate = [&](Value* floats) {
      Value* bytes = b_.CreateMul(floats, c(4));
      bytes = b_.CreateAnd(b_.CreateAdd(bytes, c(63)), c(~int64_t{63}));  // aligned_alloc wants a multiple
      return b_.CreateCall(alloc_fn, {c(64), bytes});
    };
    if (!a_in_place()) a_pack_ = allocate(c(static_cast<int64_t>(p_.a_sides.size()) * t_.mc * t_.kc));
    if (packs_b_by_lines()) line_rows_ = allocate(c(kLineRows * t_.nc));
    if (b_is_constant()) {
      packed_b_ = ensure_packed_b();
    } else {
      b_pack_ = allocate(c(static_cast<int64_t>(p_.b_sides.size()) * t_.kc * t_.nc));
    }
    if (k_blocked()) scratch_ = allocate(c(scratch_rows() * terms() * t_.nc));

    n_begin_ = c(0);
    n_end_ = c(p_.n);
    if (kernel::host_column_blocks(k_) > 1) {
      emit_column_blocks(begin, end);
    } else if (flat_rows()) {
      emit_range(Range{}, begin, end);
    } else {
      emit_batch_ranges(begin, end);
    }
    if (a_pack_) b_.CreateCall(free_fn, {a_pack_});
    if (b_pack_) b_.CreateCall(free_fn, {b_pack_});
    if (scratch_) b_.CreateCall(free_fn, {scratch_});
    if (line_rows_) b_.CreateCall(free_fn, {line_rows_});
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
  }

 private:
  // The rows of one range: of one batch element (its index and variables), or
  // flat rows = parallel units across batch elements (no B side reads a batch
  // variable, so one packed B serves them all).
  struct Range {
    Value* batch_index = nullptr;
    std::vector<Value*> batch_vars;
  };
  // A row of a range: its batch variables, m, and its linear unit (batch·M + m).
  struct Row {
    std::vector<Value*> batch_vars;
    Value* m;
    Value* linear;
  };

  // Versions (per-region branches, decided per batch element) need ranges of one batch element.
  bool flat_rows() const { return !p_.b_sides_read_batch && !em_.versions().versioned(); }
  int64_t scratch_rows() const { return t_.rows_per_chunk + t_.mr; }

  std::vector<Value*> batch_variables(Value* batch_index) {
    std::vector<Value*> vars(p_.batch.size());
    Value* rest = batch_index;
    for (size_t a = p_.batch.size(); a-- > 0;) {
      vars[a] = b_.CreateURem(rest, c(p_.batch[a]));
      rest = b_.CreateUDiv(rest, c(p_.batch[a]));
    }
    return vars;
  }

  Row row(const Range& range, Value* r) {
    if (p_.batch.empty()) return {{}, r, r};
    if (range.batch_index) return {range.batch_vars, r, b_.CreateAdd(b_.CreateMul(range.batch_index, c(p_.m)), r)};
    return {batch_variables(b_.CreateUDiv(r, c(p_.m))), b_.CreateURem(r, c(p_.m)), r};
  }

  // The units [begin, end) in ranges of rows [m0, m1) of one M-row block each
  // (m0 = unit mod M): body(unit, m0, m1) per range, at its first unit.
  void emit_unit_ranges(Value* begin, Value* end, const std::string& name,
                        const std::function<void(Value*, Value*, Value*)>& body) {
    BasicBlock* pre = b_.GetInsertBlock();
    BasicBlock* cond = block(name + ".cond");
    BasicBlock* range_body = block(name + ".body");
    BasicBlock* exit = block(name + ".end");
    b_.CreateBr(cond);
    b_.SetInsertPoint(cond);
    llvm::PHINode* unit = b_.CreatePHI(i64_, 2, "unit");
    unit->addIncoming(begin, pre);
    b_.CreateCondBr(b_.CreateICmpSLT(unit, end), range_body, exit);
    b_.SetInsertPoint(range_body);
    Value* m0 = b_.CreateURem(unit, c(p_.m));
    Value* m1 = min(c(p_.m), b_.CreateAdd(m0, b_.CreateSub(end, unit)));
    body(unit, m0, m1);
    unit->addIncoming(b_.CreateAdd(unit, b_.CreateSub(m1, m0)), b_.GetInsertBlock());
    b_.CreateBr(cond);
    b_.SetInsertPoint(exit);
  }

  // Consecutive units of one batch element form one range of rows [m0, m1).
  void emit_batch_ranges(Value* begin, Value* end) {
    emit_unit_ranges(begin, end, "range", [&](Value* unit, Value* m0, Value* m1) {
      Value* batch_index = b_.CreateUDiv(unit, c(p_.m));
      emit_range(Range{batch_index, batch_variables(batch_index)}, m0, m1);
    });
  }

  // Every B side reads only constant buffers (weights): B is packed once, on
  // the kernel's first call, into a global of the module (packed_b_blocks),
  // and every later call starts at its micro-kernels.
  bool b_is_constant() const {
    return kernel::host_packs_b_once(em_.program(), k_, p_, em_.versions(), static_cast<double>(packed_b_floats()));
  }
  // B packed once and too large for the caches to keep (16 MiB and more: a
  // SwiGLU's 32 MiB of weights) streams from memory, and with few rows (M ≤
  // 256) each panel serves few micro-tiles, the first of which waited for it:
  // each k step prefetches the same row of the next panel (SwiGLU M=64 3–7 %
  // faster; B packed per call, fresh in the caches, gained nothing and 512³
  // lost 2 %; with many rows the prefetches only cost issue slots).
  bool prefetch_next_b_panel() const {
    return packed_b_ && p_.rows_per_b() <= kernel::kHostFewRows && packed_b_floats() * 4 >= (int64_t{16} << 20);
  }
  int64_t n_blocks() const { return (p_.n + t_.nc - 1) / t_.nc; }
  int64_t k_blocks() const { return (p_.k + t_.kc - 1) / t_.kc; }
  // Every block of every B side, each kc × nc.
  int64_t packed_b_floats() const {
    return static_cast<int64_t>(p_.b_sides.size()) * n_blocks() * k_blocks() * t_.kc * t_.nc;
  }
  // The packed block of B for columns nc0… and K rows kc0… in the global.
  Value* packed_b_block(Value* nc0, Value* kc0) {
    Value* block = b_.CreateAdd(b_.CreateMul(b_.CreateUDiv(nc0, c(t_.nc)), c(k_blocks())), b_.CreateUDiv(kc0, c(t_.kc)));
    return at(packed_b_, b_.CreateMul(block, c(static_cast<int64_t>(p_.b_sides.size()) * t_.kc * t_.nc)));
  }

  // The global holding B packed, filled by the first call: a state word (0
  // empty, 1 packing, 2 ready); the thread that moves it from 0 to 1 packs,
  // the others wait for 2. It lives (and dies) with the compiled module.
  Value* ensure_packed_b() {
    llvm::Module& module = *fn_->getParent();
    auto* array = llvm::ArrayType::get(f32_, static_cast<uint64_t>(packed_b_floats()));
    auto* packed = new llvm::GlobalVariable(module, array, false, llvm::GlobalValue::InternalLinkage,
                                            llvm::ConstantAggregateZero::get(array), fn_->getName() + ".packed_b");
    packed->setAlignment(llvm::Align(64));
    auto* state = new llvm::GlobalVariable(module, b_.getInt32Ty(), false, llvm::GlobalValue::InternalLinkage,
                                           b_.getInt32(0), fn_->getName() + ".packed_b_state");
    state->setAlignment(llvm::Align(4));
    packed_b_ = packed;
    auto load_state = [&] {
      llvm::LoadInst* s = b_.CreateLoad(b_.getInt32Ty(), state);
      s->setAtomic(llvm::AtomicOrdering::Acquire);
      s->setAlignment(llvm::Align(4));
      return s;
    };
    BasicBlock* claim = block("packed_b.claim");
    BasicBlock* pack = block("packed_b.pack");
    BasicBlock* wait = block("packed_b.wait");
    BasicBlock* ready = block("packed_b.ready");
    b_.CreateCondBr(b_.CreateICmpEQ(load_state(), b_.getInt32(2)), ready, claim,
                    llvm::MDBuilder(ctx_).createBranchWeights(1000, 1));
    b_.SetInsertPoint(claim);
    auto* exchange = b_.CreateAtomicCmpXchg(state, b_.getInt32(0), b_.getInt32(1), llvm::MaybeAlign(4),
                                            llvm::AtomicOrdering::AcquireRelease, llvm::AtomicOrdering::Acquire);
    b_.CreateCondBr(b_.CreateExtractValue(exchange, 1), pack, wait);
    b_.SetInsertPoint(pack);
    loop(c(0), c(p_.n), t_.nc, [&](Value* nc0) {
      Value* nb = min(c(t_.nc), b_.CreateSub(c(p_.n), nc0));
      Value* n_panels = b_.CreateUDiv(b_.CreateAdd(nb, c(t_.nr - 1)), c(t_.nr));
      loop(c(0), c(p_.k), t_.kc, [&](Value* kc0) {
        Value* kb = min(c(t_.kc), b_.CreateSub(c(p_.k), kc0));
        pack_b(Range{}, packed_b_block(nc0, kc0), nc0, kb, kc0, n_panels);
      }, "prepack_kc");
    }, "prepack_nc");
    b_.CreateAlignedStore(b_.getInt32(2), state, llvm::Align(4))->setAtomic(llvm::AtomicOrdering::Release);
    b_.CreateBr(ready);
    b_.SetInsertPoint(wait);
    const llvm::Triple triple(module.getTargetTriple());
    if (triple.isX86()) b_.CreateIntrinsic(llvm::Intrinsic::x86_sse2_pause, {}, {});
    b_.CreateCondBr(b_.CreateICmpEQ(load_state(), b_.getInt32(2)), ready, wait);
    b_.SetInsertPoint(ready);
    return packed;
  }

  // Units of column blocks (kernel/host_plan.h: every batch extent is 1, unit u
  // is row u mod M of block u div M): per block, its rows over its columns.
  void emit_column_blocks(Value* begin, Value* end) {
    const int64_t block = kernel::host_column_block(k_);
    if (t_.nc != block)
      throw LowerError("internal error: column blocks of " + std::to_string(block) + " columns, but N blocks of " +
                       std::to_string(t_.nc));
    const Range range = flat_rows() ? Range{} : Range{c(0), batch_variables(c(0))};
    emit_unit_ranges(begin, end, "column_block", [&](Value* unit, Value* m0, Value* m1) {
      n_begin_ = b_.CreateMul(b_.CreateUDiv(unit, c(p_.m)), c(block));
      n_end_ = min(c(p_.n), b_.CreateAdd(n_begin_, c(block)));
      emit_range(range, m0, m1);
    });
  }

  int64_t terms() const { return static_cast<int64_t>(p_.terms.size()); }
  bool k_blocked() const { return p_.k > t_.kc; }
  Value* c(int64_t v) { return llvm::ConstantInt::get(i64_, static_cast<uint64_t>(v), true); }
  Value* min(Value* a, Value* b) { return b_.CreateSelect(b_.CreateICmpSLT(a, b), a, b); }
  Value* max(Value* a, Value* b) { return b_.CreateSelect(b_.CreateICmpSLT(a, b), b, a); }
  BasicBlock* block(const std::string& name) { return BasicBlock::Create(ctx_, name, fn_); }
  Value* at(Value* base, Value* index) { return b_.CreateInBoundsGEP(f32_, base, index); }

  // for (iv = begin; iv < end; iv += step) with loop-carried values; returns
  // their values after the loop. `vectorize`: loop metadata asking LLVM's loop
  // vectorizer for 16 lanes and nothing else to unroll it first (the
  // epilogue's column loop, at most nr iterations, was otherwise unrolled into
  // scalar code).
  std::vector<Value*> loop(Value* begin, Value* end, int64_t step, std::vector<Value*> carried,
                           const std::function<std::vector<Value*>(Value*, const std::vector<Value*>&)>& body,
                           const std::string& name, Vectorize vectorize = Vectorize::kNo) {
    BasicBlock* pre = b_.GetInsertBlock();
    BasicBlock* cond = block(name + ".cond");
    BasicBlock* loop_body = block(name + ".body");
    BasicBlock* exit = block(name + ".end");
    b_.CreateBr(cond);
    b_.SetInsertPoint(cond);
    llvm::PHINode* iv = b_.CreatePHI(i64_, 2, name);
    iv->addIncoming(begin, pre);
    std::vector<llvm::PHINode*> phis;
    std::vector<Value*> current;
    for (Value* v : carried) {
      phis.push_back(b_.CreatePHI(v->getType(), 2));
      phis.back()->addIncoming(v, pre);
      current.push_back(phis.back());
    }
    b_.CreateCondBr(b_.CreateICmpSLT(iv, end), loop_body, exit);
    b_.SetInsertPoint(loop_body);
    std::vector<Value*> next = body(iv, current);
    BasicBlock* latch = b_.GetInsertBlock();
    iv->addIncoming(b_.CreateAdd(iv, c(step), "", true, true), latch);
    for (size_t i = 0; i < phis.size(); ++i) phis[i]->addIncoming(next[i], latch);
    llvm::BranchInst* back = b_.CreateBr(cond);
    if (vectorize != Vectorize::kNo)
      back->setMetadata(llvm::LLVMContext::MD_loop, vectorize_loop_metadata(vectorize == Vectorize::kMaskedTail));
    b_.SetInsertPoint(exit);
    return current;
  }
  llvm::MDNode* vectorize_loop_metadata(bool masked_tail) {
    llvm::Metadata* enable[] = {llvm::MDString::get(ctx_, "llvm.loop.vectorize.enable"),
                                llvm::ConstantAsMetadata::get(b_.getTrue())};
    llvm::Metadata* predicate[] = {llvm::MDString::get(ctx_, "llvm.loop.vectorize.predicate.enable"),
                                   llvm::ConstantAsMetadata::get(b_.getTrue())};
    llvm::Metadata* width[] = {llvm::MDString::get(ctx_, "llvm.loop.vectorize.width"),
                               llvm::ConstantAsMetadata::get(b_.getInt32(16))};
    llvm::Metadata* no_unroll[] = {llvm::MDString::get(ctx_, "llvm.loop.unroll.disable")};
    std::vector<llvm::Metadata*> parts = {nullptr, llvm::MDNode::get(ctx_, enable), llvm::MDNode::get(ctx_, width),
                                          llvm::MDNode::get(ctx_, no_unroll)};
    if (masked_tail) parts.push_back(llvm::MDNode::get(ctx_, predicate));
    llvm::MDNode* self = llvm::MDNode::getDistinct(ctx_, parts);
    self->replaceOperandWith(0, self);
    return self;
  }
  void loop(Value* begin, Value* end, int64_t step, const std::function<void(Value*)>& body, const std::string& name,
            Vectorize vectorize = Vectorize::kNo) {
    loop(begin, end, step, {}, [&](Value* iv, const std::vector<Value*>&) {
      body(iv);
      return std::vector<Value*>{};
    }, name, vectorize);
  }

  // Kernel variables for one evaluation point; null where not available. The
  // column n is linear; several column axes take it apart (row-major), each
  // remainder as rest - quotient * extent: an address that puts the axes back
  // together (a residual read, the output stored over [h, w]) then folds to n
  // by plain algebra. From a urem, LLVM folds it only behind a `freeze` of n,
  // which hides the column's stride from its vectorizer: a 1x1 convolution's
  // epilogue over 56x56 positions read its residual by gathers and stored by
  // scatters (1,488 us against 915 for the convolution alone, 2026-11-29, one
  // thread).
  std::vector<Value*> variables(const std::vector<Value*>& batch_vars, Value* m, Value* n, Value* k) {
    std::vector<Value*> vars(static_cast<size_t>(k_.num_vars()), nullptr);
    for (size_t i = 0; i < batch_vars.size(); ++i) vars[i] = batch_vars[i];
    const size_t row_axis = p_.batch.size();
    vars[row_axis] = m;
    if (n && p_.columns.size() > 1) {
      Value* rest = n;
      for (size_t a = p_.columns.size(); a-- > 0;) {
        if (a == 0) {
          vars[row_axis + 1] = rest;
          break;
        }
        Value* quotient = b_.CreateUDiv(rest, c(p_.columns[a]));
        vars[row_axis + 1 + a] = b_.CreateNUWSub(rest, b_.CreateNUWMul(quotient, c(p_.columns[a])));
        rest = quotient;
      }
    } else {
      vars[row_axis + 1] = n;
    }
    vars[rank_] = k;
    return vars;
  }
  Value* operand(int expr, std::vector<Value*> vars, const kernel::BranchPlan::Leaf& version) {
    NodeValues point(k_, std::move(vars));
    point.assume(version);
    return em_.emit_node(expr, point);
  }

  // `body` once per version of the kernel (kernel/kernel_branches.h), decided by the
  // range's batch element: the packing and the epilogue compute only the taken
  // sides; the micro-kernel between them is shared.
  void versions(const Range& range, const std::function<void(const kernel::BranchPlan::Leaf&)>& body) {
    em_.emit_versions(NodeValues(k_, variables(range.batch_vars, nullptr, nullptr, nullptr)), body);
  }

  // Rows [r0, r1) of a range, in chunks of rows_per_chunk (the scratch's rows).
  void emit_range(const Range& range, Value* r0, Value* r1) {
    loop(r0, r1, t_.rows_per_chunk, [&](Value* chunk0) {
      emit_chunk(range, chunk0, min(r1, b_.CreateAdd(chunk0, c(t_.rows_per_chunk))));
    }, "chunk");
  }

  void emit_chunk(const Range& range, Value* m0, Value* m1) {
    const int64_t mr = t_.mr, nr = t_.nr;
    loop(n_begin_, n_end_, t_.nc, [&](Value* nc0) {
      Value* nb = min(c(t_.nc), b_.CreateSub(c(p_.n), nc0));
      Value* n_panels = b_.CreateUDiv(b_.CreateAdd(nb, c(nr - 1)), c(nr));
      loop(c(0), c(p_.k), t_.kc, [&](Value* kc0) {
        Value* kb = min(c(t_.kc), b_.CreateSub(c(p_.k), kc0));
        Value* first = b_.CreateICmpEQ(kc0, c(0));
        Value* last = b_.CreateICmpEQ(b_.CreateAdd(kc0, kb), c(p_.k));
        if (packed_b_) {
          b_block_ = packed_b_block(nc0, kc0);
        } else {
          pack_b(range, b_pack_, nc0, kb, kc0, n_panels);
          b_block_ = b_pack_;
        }
        loop(m0, m1, t_.mc, [&](Value* mc0) {
          Value* mb = min(c(t_.mc), b_.CreateSub(m1, mc0));
          Value* m_panels = b_.CreateUDiv(b_.CreateAdd(mb, c(mr - 1)), c(mr));
          if (!a_in_place()) pack_a(range, mc0, m1, kb, kc0, m_panels);
          auto tile_at = [&](Value* ir, Value* jr) {
            MicroTile tile{&range, m0, b_.CreateAdd(mc0, b_.CreateMul(ir, c(mr))), m1,
                           nc0, b_.CreateAdd(nc0, b_.CreateMul(jr, c(nr))), ir, jr, kb, kc0, first, last};
            micro_kernel(tile);
          };
          if (p_.rows_outer) {
            loop(c(0), m_panels, 1, [&](Value* ir) {
              loop(c(0), n_panels, 1, [&](Value* jr) { tile_at(ir, jr); }, "jr");
            }, "ir");
          } else {
            loop(c(0), n_panels, 1, [&](Value* jr) {
              loop(c(0), m_panels, 1, [&](Value* ir) { tile_at(ir, jr); }, "ir");
            }, "jr");
          }
        }, "mc");
      }, "kc");
    }, "nc");
  }

  // B block: panel jr holds [k][nr] of columns nc0 + jr·nr …, zeros past N.
  void pack_b(const Range& range, Value* pack, Value* nc0, Value* kb, Value* kc0, Value* n_panels) {
    const int64_t nr = t_.nr;
    versions(range, [&](const kernel::BranchPlan::Leaf& version) {
      for (size_t j = 0; j < p_.b_sides.size(); ++j) {
        Value* base = at(pack, c(static_cast<int64_t>(j) * t_.kc * t_.nc));
        if (packs_b_by_lines()) {
          pack_b_block_by_lines(range, p_.b_sides[j], base, nc0, kb, kc0, n_panels, version);
          continue;
        }
        loop(c(0), n_panels, 1, [&](Value* jr) {
          Value* n_base = b_.CreateAdd(nc0, b_.CreateMul(jr, c(nr)));
          Value* cols = min(c(nr), b_.CreateSub(c(p_.n), n_base));
          Value* panel = at(base, b_.CreateMul(b_.CreateMul(jr, kb), c(nr)));
          loop(c(0), kb, 1, [&](Value* kk) {
            Value* row = at(panel, b_.CreateMul(kk, c(nr)));
            Value* k = b_.CreateAdd(kc0, kk);
            loop(c(0), cols, 1, [&](Value* col) {
              Value* v = operand(p_.b_sides[j], variables(range.batch_vars, nullptr, b_.CreateAdd(n_base, col), k), version);
              b_.CreateStore(v, at(row, col));
            }, "pack_b_col");
            loop(cols, c(nr), 1, [&](Value* col) { b_.CreateStore(llvm::ConstantFP::get(f32_, 0.0), at(row, col)); },
                 "pack_b_pad");
          }, "pack_b_k");
        }, "pack_b_panel");
      }
    });
  }

  // B read by lines (several column axes, not flat: a convolution's output
  // positions) is packed kLineRows rows of K at a time: each row's lines once
  // into line_rows_ (row-major over the block's columns, zeros up to the
  // last panel's end), then copied into the panels nr floats at a time.
  // Packed panel by panel, each (panel, k) pair took its one or two pieces of
  // lines of at most nr columns apart, with the line's variables and masks
  // rebuilt for each: a 3x3 convolution of 64 maps over 56x56 spent 40 % of
  // its time packing (8.0-10.2 ms against 5.5-6.5 for the 1x1 convolution
  // of the same product over 576 channels; 2026-12-01, AMD EPYC, one thread).
  // kLineRows rows of a 2,048-column block are 128 KiB: they stay in L2.
  static constexpr int64_t kLineRows = 16;
  bool packs_b_by_lines() const { return p_.columns.size() > 1 && !p_.flat_columns; }

  void pack_b_block_by_lines(const Range& range, int side, Value* base, Value* nc0, Value* kb, Value* kc0,
                             Value* n_panels, const kernel::BranchPlan::Leaf& version) {
    const int64_t nr = t_.nr;
    Value* nb = min(c(t_.nc), b_.CreateSub(c(p_.n), nc0));
    Value* padded = b_.CreateMul(n_panels, c(nr));
    loop(c(0), kb, kLineRows, [&](Value* kk0) {
      Value* rows = min(c(kLineRows), b_.CreateSub(kb, kk0));
      loop(c(0), rows, 1, [&](Value* r) {
        Value* row = at(line_rows_, b_.CreateMul(r, c(t_.nc)));
        pack_b_row_by_lines(range, side, row, nc0, nb, b_.CreateAdd(kc0, b_.CreateAdd(kk0, r)), version);
        loop(nb, padded, 1, [&](Value* col) { b_.CreateStore(llvm::ConstantFP::get(f32_, 0.0), at(row, col)); },
             "line_rows_pad");
      }, "line_rows");
      loop(c(0), n_panels, 1, [&](Value* jr) {
        Value* panel = at(base, b_.CreateMul(b_.CreateMul(jr, kb), c(nr)));
        loop(c(0), rows, 1, [&](Value* r) {
          Value* from = at(line_rows_, b_.CreateAdd(b_.CreateMul(r, c(t_.nc)), b_.CreateMul(jr, c(nr))));
          Value* to = at(panel, b_.CreateMul(b_.CreateAdd(kk0, r), c(nr)));
          for (int64_t v = 0; v < nr / 16; ++v)
            b_.CreateAlignedStore(b_.CreateAlignedLoad(v16_, at(from, c(v * 16)), llvm::Align(64)), at(to, c(v * 16)),
                                  llvm::Align(64));
        }, "line_rows_copy");
      }, "line_rows_panel");
    }, "line_rows_block");
  }

  // The comparisons of `side`'s masked loads that are affine in the last
  // column variable (a padded convolution's `1 <= i3 + r0 % 3`, `i3 + r0 % 3 <
  // 57`), with their slope along it: on a line they hold over one interval of
  // it, which pack_b_row_by_lines computes and packs with plain loads.
  struct LineCondition {
    kernel::IndexRef comparison;
    int64_t slope;
  };
  std::vector<LineCondition> line_conditions(int side) const {
    const int column = static_cast<int>(p_.batch.size() + p_.columns.size());
    std::vector<kernel::IndexRef> comparisons;  // the loads' masks, down to their comparisons, each once
    std::vector<bool> seen(k_.exprs.size(), false);
    std::vector<int> pending{side};
    while (!pending.empty()) {
      const int node = pending.back();
      pending.pop_back();
      if (seen[static_cast<size_t>(node)]) continue;
      seen[static_cast<size_t>(node)] = true;
      const kernel::KernelExpr& e = k_.exprs[static_cast<size_t>(node)];
      pending.insert(pending.end(), e.operands.begin(), e.operands.end());
      if (e.kind == kernel::KernelExpr::Kind::kLoad) k_.indices.append_conjuncts(e.valid, comparisons);
    }
    std::vector<LineCondition> conditions;
    for (const kernel::IndexRef at : comparisons) {
      const kernel::IndexPool::Node& n = k_.indices.node(at);
      if (n.kind != kernel::IndexPool::Kind::kLt && n.kind != kernel::IndexPool::Kind::kLe) continue;
      const std::optional<int64_t> a = k_.indices.coefficient(n.a, column), b = k_.indices.coefficient(n.b, column);
      if (a && b) conditions.push_back({at, *a - *b});  // otherwise it stays a masked load
    }
    return conditions;
  }

  // floor(a / d) and ceil(a / d) of a signed a and a constant d > 0.
  Value* floor_div(Value* a, int64_t d) {
    Value* q = b_.CreateSDiv(a, c(d));
    return b_.CreateSub(q, b_.CreateZExt(b_.CreateICmpSLT(b_.CreateSRem(a, c(d)), c(0)), i64_));
  }
  Value* ceil_div(Value* a, int64_t d) { return b_.CreateNeg(floor_div(b_.CreateNeg(a), d)); }

  // Columns [n_base, n_base + cols) of B row k, for several column axes (a
  // convolution's output positions): one loop per line of the last axis, whose
  // variable then advances by one (the input index is affine in it and the
  // loop vectorizes) instead of being taken apart per column. Where the masks
  // hold over an interval of the line (line_conditions: a padded
  // convolution's interior), that interval is packed with them known true,
  // by plain vector loads; the edges before and after it keep the masks.
  void pack_b_row_by_lines(const Range& range, int side, Value* row, Value* n_base, Value* cols, Value* k,
                           const kernel::BranchPlan::Leaf& version) {
    const int64_t line = p_.columns.back();
    const size_t row_axis = p_.batch.size(), last_axis = row_axis + p_.columns.size();
    const std::vector<LineCondition> conditions = line_conditions(side);
    std::vector<kernel::IndexRef> comparisons;
    for (const LineCondition& lc : conditions) comparisons.push_back(lc.comparison);
    Value* n_end = b_.CreateAdd(n_base, cols);
    Value* first_line = b_.CreateUDiv(n_base, c(line));
    Value* end_line = b_.CreateUDiv(b_.CreateAdd(n_end, c(line - 1)), c(line));
    loop(first_line, end_line, 1, [&](Value* l) {
      Value* line_start = b_.CreateMul(l, c(line));
      Value* from = b_.CreateSub(max(n_base, line_start), line_start);
      Value* to = b_.CreateSub(min(n_end, b_.CreateAdd(line_start, c(line))), line_start);
      std::vector<Value*> vars = variables(range.batch_vars, nullptr, line_start, k);
      // A padded input's loads as branches: consecutive along the line, they
      // become masked vector loads, not gathers.
      const bool branches = em_.masked_loads_as_branches();
      em_.set_masked_loads_as_branches(true);
      auto pack = [&](Value* j0, Value* j1, const char* name, Vectorize vectorize) {
        loop(j0, j1, 1, [&](Value* j) {
          std::vector<Value*> at_j = vars;
          at_j[last_axis] = j;
          Value* v = operand(side, std::move(at_j), version);
          b_.CreateStore(v, at(row, b_.CreateSub(b_.CreateAdd(line_start, j), n_base)));
        }, name, vectorize);
      };
      if (conditions.empty()) {
        pack(from, to, "pack_b_line", Vectorize::kMaskedTail);  // lines are short (7 to 56): no scalar remainder
      } else {
        // Each comparison a < b (a <= b: a - 1 < b) as e + slope·j < 0, e its
        // value at j = 0: the interval [lo, hi) of j where all hold.
        std::vector<Value*> at_zero = vars;
        at_zero[last_axis] = c(0);
        const NodeValues zero(k_, at_zero);
        Value* lo = from;
        Value* hi = to;
        Value* holds = b_.getTrue();
        for (const LineCondition& lc : conditions) {
          const kernel::IndexPool::Node& n = k_.indices.node(lc.comparison);
          Value* e = b_.CreateSub(em_.index(n.a, zero), em_.index(n.b, zero));
          if (n.kind == kernel::IndexPool::Kind::kLe) e = b_.CreateSub(e, c(1));
          if (lc.slope > 0) hi = min(hi, ceil_div(b_.CreateNeg(e), lc.slope));
          if (lc.slope < 0) lo = max(lo, b_.CreateAdd(floor_div(e, -lc.slope), c(1)));
          if (lc.slope == 0) holds = b_.CreateAnd(holds, b_.CreateICmpSLT(e, c(0)));
        }
        lo = b_.CreateSelect(holds, min(lo, to), to);
        hi = max(lo, min(hi, to));
        pack(from, lo, "pack_b_line_before", Vectorize::kMaskedTail);
        // The interior with a scalar remainder: a strided window (stride 2)
        // then reads whole vectors and shuffles them, where a masked tail
        // loaded it lane by lane (ResNet-50's 7x7 stem, one thread: 10.0-10.4
        // ms with a masked tail, 5.8-6.3 so; the 3x3 of stride 1 alike).
        em_.assume_true(&comparisons);
        pack(lo, hi, "pack_b_line_interior", Vectorize::kYes);
        em_.assume_true(nullptr);
        pack(hi, to, "pack_b_line_after", Vectorize::kMaskedTail);
      }
      em_.set_masked_loads_as_branches(branches);
    }, "pack_b_lines");
  }

  // A block: panel ir holds [k][mr] of rows mc0 + ir·mr …, zeros past m1.
  void pack_a(const Range& range, Value* mc0, Value* m1, Value* kb, Value* kc0, Value* m_panels) {
    const int64_t mr = t_.mr;
    versions(range, [&](const kernel::BranchPlan::Leaf& version) {
      for (size_t i = 0; i < p_.a_sides.size(); ++i) {
        Value* base = at(a_pack_, c(static_cast<int64_t>(i) * t_.mc * t_.kc));
        loop(c(0), m_panels, 1, [&](Value* ir) {
          Value* m_base = b_.CreateAdd(mc0, b_.CreateMul(ir, c(mr)));
          Value* rows = min(c(mr), b_.CreateSub(m1, m_base));
          Value* panel = at(base, b_.CreateMul(b_.CreateMul(ir, kb), c(mr)));
          loop(c(0), rows, 1, [&](Value* r) {
            const Row at_row = row(range, b_.CreateAdd(m_base, r));
            loop(c(0), kb, 1, [&](Value* kk) {
              Value* v = operand(p_.a_sides[i], variables(at_row.batch_vars, at_row.m, nullptr, b_.CreateAdd(kc0, kk)), version);
              b_.CreateStore(v, at(panel, b_.CreateAdd(b_.CreateMul(kk, c(mr)), r)));
            }, "pack_a_k");
          }, "pack_a_row");
          loop(rows, c(mr), 1, [&](Value* r) {
            loop(c(0), kb, 1, [&](Value* kk) {
              b_.CreateStore(llvm::ConstantFP::get(f32_, 0.0), at(panel, b_.CreateAdd(b_.CreateMul(kk, c(mr)), r)));
            }, "pad_a_k");
          }, "pad_a_row");
        }, "pack_a_panel");
      }
    });
  }

  struct MicroTile {
    const Range* range;
    Value* m0;      // first row of the chunk (scratch row 0)
    Value* m_base;  // first row of the tile
    Value* m1;      // end of the range
    Value* nc0;     // first column of the B block (scratch column 0)
    Value* n_base;  // first column of the tile
    Value* ir;
    Value* jr;
    Value* kb;
    Value* kc0;    // first k of the K block
    Value* first;  // first K block: start from zero
    Value* last;   // last K block: run the epilogue
  };

  // Every A side is an unmasked f32 load whose element advances by one with k:
  // the micro-kernel broadcasts A from its rows in place (mr streams, each
  // line used 16 times from L1) instead of packing it. Packing copied all of A
  // to use each element N / nr times: p @ v of attention (K = 512, N = 64)
  // spent 30 % of its time packing; side by side, in place was also 1–9 %
  // faster on the square, MLP and wide shapes measured (M 8–512, N up to
  // 4096, 1 and 2 threads).
  bool a_in_place() const {
    if (a_in_place_) return *a_in_place_;
    a_in_place_ = true;
    for (int side : p_.a_sides)
      if (!advances_by_one_with_k(k_.exprs[static_cast<size_t>(side)])) a_in_place_ = false;
    return *a_in_place_;
  }
  // An unmasked f32 load whose axes that read k are the last ones, read only
  // k, and together are k's row-major position over their extents (k itself
  // on the last axis; a convolution's [c, kernel rows, kernel columns] taken
  // apart from its flattened K): element k + 1 follows element k.
  bool advances_by_one_with_k(const kernel::KernelExpr& e) const {
    const int k_var = static_cast<int>(rank_);
    const uint64_t k_bit = uint64_t{1} << k_var;
    if (e.kind != kernel::KernelExpr::Kind::kLoad || e.valid != kernel::kNoIndex || e.index.empty() ||
        !e.operands.empty())  // a gather: not a strided run
      return false;
    const kernel::Buffer& buffer = em_.program().buffers.at(static_cast<size_t>(e.buffer));
    if (buffer.type.dtype != ir::DType::F32) return false;
    // Trailing axes of extent 1 (a 1x1 convolution's weight [C_out, C_in, 1, 1])
    // hold index 0 in an unmasked load: they move nothing. Missing them packed
    // every 1x1 convolution's weights per call: [960, 160] @ [160, 49] took
    // 183 us against 147 for the same MatMul (2026-11-29, one thread).
    size_t last = e.index.size();
    while (last > 0 && buffer.type.shape[last - 1] == 1 && k_.indices.vars_used(e.index[last - 1]) == 0) --last;
    size_t first = last;
    while (first > 0 && k_.indices.vars_used(e.index[first - 1]) == k_bit) --first;
    if (first == last) return false;
    for (size_t axis = 0; axis < first; ++axis)
      if (k_.indices.vars_used(e.index[axis]) & k_bit) return false;
    int64_t extent = 1;
    for (size_t axis = first; axis < last; ++axis) extent *= buffer.type.shape[axis];
    if (extent != p_.k || p_.k > (int64_t{1} << 20)) return false;  // checked by evaluation below
    std::vector<int64_t> vars(static_cast<size_t>(k_.num_vars()), 0);
    for (int64_t k = 0; k < p_.k; ++k) {
      vars[static_cast<size_t>(k_var)] = k;
      int64_t position = 0;
      for (size_t axis = first; axis < last; ++axis)
        position = position * buffer.type.shape[axis] + k_.indices.eval(e.index[axis], vars);
      if (position != k) return false;
    }
    return true;
  }

  void micro_kernel(const MicroTile& tile) {
    const int64_t mr = t_.mr, nr = t_.nr, nv = nr / 16;
    std::vector<Value*> a_panel, b_panel;
    // In place: a_rows[i·mr + r] = &A_i[row m_base + r (the last row past m1), k = kc0].
    std::vector<Value*> a_rows;
    if (a_in_place()) {
      Value* last_row = b_.CreateSub(tile.m1, c(1));
      for (int64_t r = 0; r < mr; ++r) {
        const Row at_row = row(*tile.range, min(b_.CreateAdd(tile.m_base, c(r)), last_row));
        NodeValues point(k_, variables(at_row.batch_vars, at_row.m, nullptr, tile.kc0));
        for (size_t i = 0; i < p_.a_sides.size(); ++i) a_rows.push_back(em_.load_address(p_.a_sides[i], point));
      }
    }
    for (size_t i = 0; i < p_.a_sides.size() && a_rows.empty(); ++i)
      a_panel.push_back(at(a_pack_, b_.CreateAdd(c(static_cast<int64_t>(i) * t_.mc * t_.kc),
                                                 b_.CreateMul(b_.CreateMul(tile.ir, tile.kb), c(mr)))));
    for (size_t j = 0; j < p_.b_sides.size(); ++j)
      b_panel.push_back(at(b_block_, b_.CreateAdd(c(static_cast<int64_t>(j) * t_.kc * t_.nc),
                                                 b_.CreateMul(b_.CreateMul(tile.jr, tile.kb), c(nr)))));

    // The terms in passes of t_.terms_per_pass (all at once where the
    // registers hold them): each pass runs the k loop over the same packed A
    // with its own accumulators and leaves its sums in the epilogue tile (or,
    // before the last K block, in the scratch).
    Value* zero = llvm::ConstantAggregateZero::get(v16_);
    Value* scratch_tile = nullptr;
    if (k_blocked()) {
      Value* row = b_.CreateSub(tile.m_base, tile.m0);
      Value* col = b_.CreateSub(tile.n_base, tile.nc0);
      scratch_tile = at(scratch_, b_.CreateAdd(b_.CreateMul(row, c(t_.nc)), col));
    }
    const int64_t per_pass = t_.terms_per_pass > 0 ? std::min<int64_t>(t_.terms_per_pass, terms()) : terms();
    for (int64_t first_term = 0; first_term < terms(); first_term += per_pass) {
      std::vector<int64_t> pass;  // the terms of this pass; accumulator (pass[g], r, v) at acc[(g·mr + r)·nv + v]
      for (int64_t g = first_term; g < std::min(terms(), first_term + per_pass); ++g) pass.push_back(g);
      const int64_t n_pass = static_cast<int64_t>(pass.size());
      std::vector<int> b_slot(p_.b_sides.size(), -1);  // the B sides this pass reads, in order
      int b_used = 0;
      for (int64_t g : pass) {
        int& slot = b_slot[static_cast<size_t>(p_.terms[static_cast<size_t>(g)].b_side)];
        if (slot < 0) slot = b_used++;
      }
      std::vector<Value*> acc(static_cast<size_t>(n_pass * mr * nv), zero);
      if (k_blocked())
        for (int64_t g = 0; g < n_pass; ++g)
          for (int64_t r = 0; r < mr; ++r)
            for (int64_t v = 0; v < nv; ++v) {
              Value* p = at(scratch_tile, c(pass[g] * scratch_rows() * t_.nc + r * t_.nc + v * 16));
              Value* partial = b_.CreateAlignedLoad(v16_, p, llvm::Align(64));
              acc[static_cast<size_t>((g * mr + r) * nv + v)] = b_.CreateSelect(tile.first, zero, partial);
            }

      auto step = [&](Value* kk, std::vector<Value*> a) {
        std::vector<Value*> b_vectors(static_cast<size_t>(b_used * nv), nullptr);
        for (size_t j = 0; j < p_.b_sides.size(); ++j) {
          if (b_slot[j] < 0) continue;
          for (int64_t v = 0; v < nv; ++v) {
            Value* offset = b_.CreateAdd(b_.CreateMul(kk, c(nr)), c(v * 16));
            b_vectors[static_cast<size_t>(b_slot[j] * nv + v)] =
                b_.CreateAlignedLoad(v16_, at(b_panel[j], offset), llvm::Align(64));
            if (prefetch_next_b_panel()) {
              Value* next = b_.CreateGEP(f32_, b_panel[j], b_.CreateAdd(offset, b_.CreateMul(tile.kb, c(nr))));
              b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {next->getType()},
                                 {next, b_.getInt32(0), b_.getInt32(3), b_.getInt32(1)});
            }
          }
        }
        for (int64_t r = 0; r < mr; ++r)
          for (size_t i = 0; i < p_.a_sides.size(); ++i) {
            bool used = false;
            for (int64_t g : pass) used = used || p_.terms[static_cast<size_t>(g)].a_side == static_cast<int>(i);
            if (!used) continue;
            Value* scalar = a_rows.empty()
                                ? b_.CreateLoad(f32_, at(a_panel[i], b_.CreateAdd(b_.CreateMul(kk, c(mr)), c(r))))
                                : b_.CreateLoad(f32_, at(a_rows[static_cast<size_t>(r) * p_.a_sides.size() + i], kk));
            Value* broadcast = b_.CreateVectorSplat(16, scalar);
            for (int64_t g = 0; g < n_pass; ++g) {
              const kernel::ContractionTerm& term = p_.terms[static_cast<size_t>(pass[g])];
              if (term.a_side != static_cast<int>(i)) continue;
              for (int64_t v = 0; v < nv; ++v) {
                Value*& slot = a[static_cast<size_t>((g * mr + r) * nv + v)];
                slot = b_.CreateIntrinsic(
                    llvm::Intrinsic::fma, {v16_},
                    {broadcast, b_vectors[static_cast<size_t>(b_slot[static_cast<size_t>(term.b_side)] * nv + v)], slot});
              }
            }
          }
        return a;
      };
      const int64_t unroll = t_.unroll;
      Value* main_end = b_.CreateSub(tile.kb, b_.CreateURem(tile.kb, c(unroll)));
      acc = loop(c(0), main_end, unroll, acc, [&](Value* kk, const std::vector<Value*>& in) {
        std::vector<Value*> a = in;
        for (int64_t u = 0; u < unroll; ++u) a = step(b_.CreateAdd(kk, c(u)), a);
        return a;
      }, "k");
      if (unroll > 1)
        acc = loop(main_end, tile.kb, 1, acc, [&](Value* kk, const std::vector<Value*>& in) { return step(kk, in); },
                   "k_rest");

      auto to_tile = [&] {
        for (int64_t g = 0; g < n_pass; ++g)
          for (int64_t r = 0; r < mr; ++r)
            for (int64_t v = 0; v < nv; ++v)
              b_.CreateAlignedStore(acc[static_cast<size_t>((g * mr + r) * nv + v)],
                                    at(tile_, c((pass[g] * mr + r) * nr + v * 16)), llvm::Align(64));
      };
      if (!k_blocked()) {
        to_tile();
        continue;
      }
      BasicBlock* last = block("sums_to_tile");
      BasicBlock* keep = block("keep_partial");
      BasicBlock* join = block("pass_done");
      b_.CreateCondBr(tile.last, last, keep);
      b_.SetInsertPoint(keep);
      for (int64_t g = 0; g < n_pass; ++g)
        for (int64_t r = 0; r < mr; ++r)
          for (int64_t v = 0; v < nv; ++v) {
            Value* p = at(scratch_tile, c(pass[g] * scratch_rows() * t_.nc + r * t_.nc + v * 16));
            b_.CreateAlignedStore(acc[static_cast<size_t>((g * mr + r) * nv + v)], p, llvm::Align(64));
          }
      b_.CreateBr(join);
      b_.SetInsertPoint(last);
      to_tile();
      b_.CreateBr(join);
      b_.SetInsertPoint(join);
    }

    if (!k_blocked()) {
      epilogue(tile);
      return;
    }
    BasicBlock* epi = block("epilogue");
    BasicBlock* join = block("tile_done");
    b_.CreateCondBr(tile.last, epi, join);
    b_.SetInsertPoint(epi);
    epilogue(tile);
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
  }

  // The epilogue per valid element of the tile, the reduces' values preset
  // from the sums the passes left in the epilogue tile.
  void epilogue(const MicroTile& tile) {
    const int64_t mr = t_.mr, nr = t_.nr;
    Value* rows = min(c(mr), b_.CreateSub(tile.m1, tile.m_base));
    Value* cols = min(c(nr), b_.CreateSub(c(p_.n), tile.n_base));
    versions(*tile.range, [&](const kernel::BranchPlan::Leaf& version) {
      loop(c(0), rows, 1, [&](Value* r) {
        const Row at_row = row(*tile.range, b_.CreateAdd(tile.m_base, r));
        Value* row_linear = b_.CreateMul(at_row.linear, c(p_.n));
        loop(c(0), cols, 1, [&](Value* col) {
          Value* n = b_.CreateAdd(tile.n_base, col);
          NodeValues point(k_, variables(at_row.batch_vars, at_row.m, n, nullptr));
          point.assume(version);
          for (int64_t g = 0; g < terms(); ++g) {
            const int reduce = p_.terms[static_cast<size_t>(g)].reduce;
            Value* sum = b_.CreateLoad(f32_, at(tile_, b_.CreateAdd(c(g * mr * nr), b_.CreateAdd(b_.CreateMul(r, c(nr)), col))));
            point.set(reduce, em_.reduce_finish(reduce, sum));
          }
          em_.store_outputs(point, b_.CreateAdd(row_linear, n));
        }, "epilogue_col", Vectorize::kYes);
      }, "epilogue_row");
    });
  }

  KernelEmitter& em_;
  llvm::IRBuilder<>& b_;
  const ContractionPlan& p_;
  const ContractionTiles& t_;
  const kernel::Kernel& k_;
  llvm::LLVMContext& ctx_;
  llvm::IntegerType* i64_;
  llvm::Type* f32_;
  llvm::FixedVectorType* v16_;
  llvm::Function* fn_;
  size_t rank_;
  llvm::AllocaInst* tile_ = nullptr;
  mutable std::optional<bool> a_in_place_;
  Value* a_pack_ = nullptr;
  Value* b_pack_ = nullptr;    // B packed per call (one block), or
  Value* packed_b_ = nullptr;  // B packed once (every block; b_is_constant)
  Value* b_block_ = nullptr;   // the block the micro-kernels of this (nc, kc) step read
  Value* n_begin_ = nullptr;   // the columns of this call's block: all N, or one column block
  Value* n_end_ = nullptr;
  Value* scratch_ = nullptr;
  Value* line_rows_ = nullptr;  // kLineRows rows of a B block by lines (packs_b_by_lines)
};

}  // namespace

bool contraction_rows_outer(const kernel::Kernel& kernel, const ContractionPlan& plan) {
  const int64_t b_block_bytes =
      std::min<int64_t>(plan.tiles.kc, plan.k) * std::min<int64_t>(plan.tiles.nc, plan.n) * 4;
  if (b_block_bytes > kRowsOuterMaxBBlockBytes) return false;
  const std::vector<bool> in_loop = kernel::reduction_loop_nodes(kernel);
  const size_t row_axis = plan.batch.size();
  uint64_t columns = 0;
  for (size_t a = 0; a < plan.columns.size(); ++a) columns |= uint64_t{1} << (row_axis + 1 + a);
  for (size_t i = 0; i < kernel.exprs.size(); ++i) {
    const kernel::KernelExpr& e = kernel.exprs[i];
    if (in_loop[i] || e.kind != kernel::KernelExpr::Kind::kLoad) continue;
    uint64_t used = 0;
    for (kernel::IndexRef axis : e.index) used |= kernel.indices.vars_used(axis);
    if ((used >> row_axis & 1) && (used & columns)) return true;
  }
  return false;
}

std::optional<ContractionPlan> plan_host_contraction(const kernel::KernelProgram& program, const kernel::Kernel& kernel,
                                                    const ContractionTiles& tiles) {
  // Empty extents and one column: the straightforward loop (kernel/host_plan.h).
  std::optional<kernel::ContractionGroup> group = kernel::match_contraction_group(kernel);
  if (!kernel::host_tiled_contraction(kernel, group)) return std::nullopt;
  ContractionPlan plan;
  static_cast<kernel::ContractionGroup&>(plan) = std::move(*group);
  ContractionTiles chosen = tiles;
  // Several B sides packed on every call for few rows: each packed block
  // serves one or two micro-tiles right after it is written, so a short block
  // that stays in L1 / L2 beats a long one. Two products sharing A, [8, 512] @
  // [512, 256] each: 94 us at kc 512, 68 at 128 (separate: 58); at 64 rows and
  // N 2048, kc 128 lost 10 % (2026-11-29, one thread, B inputs). B packed
  // once (weights) keeps 512: a SwiGLU group at 128 lost 5 %.
  if (plan.b_sides.size() > 1 && plan.rows_per_b() <= kGroupFewRows && !kernel::b_sides_are_constant(program, kernel, plan))
    chosen.kc = std::min(chosen.kc, kGroupFewRowsKc);
  if (kernel::host_column_blocks(kernel) > 1) chosen.nc = static_cast<int>(kernel::host_column_block(kernel));  // a block per unit
  plan.tiles = clamp_tiles(chosen, plan);
  plan.flat_columns = kernel::b_columns_are_flat(program, kernel, plan);
  plan.rows_outer = contraction_rows_outer(kernel, plan);
  return plan;
}

void emit_tiled_contraction(KernelEmitter& emitter, const ContractionPlan& plan, llvm::Value* begin, llvm::Value* end) {
  TiledContraction(emitter, plan).emit(begin, end);
}

}  // namespace smelt::lower
