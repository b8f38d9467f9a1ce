#include "lower/host_kernel.h"

#include "lower/lower.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace smelt::lower {

bool has_contraction(const kernel::Kernel& kernel) {
  for (const kernel::KernelExpr& e : kernel.exprs)
    if (e.kind == kernel::KernelExpr::Kind::kReduce && e.contraction) return true;
  return false;
}

HostFunction begin_host_function(llvm::Module& module, llvm::IRBuilder<>& builder, const kernel::KernelProgram& program,
                                 size_t kernel) {
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* ptr = llvm::PointerType::get(context, 0);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr, i64, i64}, false);
  HostFunction host;
  host.function = llvm::Function::Create(type, llvm::Function::ExternalLinkage, kernel_symbol(program, kernel), module);
  host.function->setDoesNotThrow();
  host.function->addParamAttr(0, llvm::Attribute::NoAlias);
  host.function->addParamAttr(0, llvm::Attribute::ReadOnly);
  host.function->addParamAttr(0, llvm::Attribute::NoCapture);
  llvm::Argument* buffers = host.function->getArg(0);
  buffers->setName("buffers");
  host.begin = host.function->getArg(1);
  host.begin->setName("begin");
  host.end = host.function->getArg(2);
  host.end->setName("end");

  builder.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", host.function));
  host.buffers = load_kernel_buffers(builder, program, kernel, buffers);
  return host;
}

namespace {
// The row buffers of a two-pass row take at most this many columns (16 KiB of
// f32 per reduce on the stack).
constexpr int64_t kRowBufferMaxColumns = 4096;

// Whether a node outside the reduce loops computes something beyond sums (an
// op other than add: an activation, a clip). A bias alone stays in the reduce
// loop: in two passes, a depthwise 3x3 + bias over 144 maps of 56x56 took
// 1,705 us against 331 in one (LLVM versioned its masked loads into gathers;
// with a clip after the bias, two passes took 430 us against 675), and over
// 28x28 or 112x112 maps the two were alike (2026-11-29, one thread).
bool has_epilogue_op(const kernel::Kernel& kernel) {
  const std::vector<bool> in_loop = kernel::reduction_loop_nodes(kernel);
  for (size_t node = 0; node < kernel.exprs.size(); ++node)
    if (!in_loop[node] && kernel.exprs[node].kind == kernel::KernelExpr::Kind::kElementwise &&
        kernel.exprs[node].op != ir::Op::Add)
      return true;
  return false;
}
}  // namespace

void emit_host_rows(llvm::IRBuilder<>& builder, const HostFunction& host, KernelEmitter& emitter) {
  const kernel::Kernel& kernel = emitter.kernel();
  const size_t rank = kernel.space.size();
  auto constant = [&](int64_t v) { return builder.getInt64(static_cast<uint64_t>(v)); };
  const int64_t blocks = rank >= 2 ? kernel::host_column_blocks(kernel) : 1;
  // Segments of the row with constant masks (kernel::host_column_cuts): whole rows only.
  const std::vector<int64_t> cuts = kernel::host_column_cuts(kernel);
  emitter.set_masked_loads_as_branches(kernel::host_masked_loads_as_branches(kernel, cuts));
  // A contraction on this path (a depthwise convolution: no tiled plan) with
  // an epilogue (bias, SiLU) computes each row's reduces into a row buffer on
  // the stack first: evaluated per element beside the reduce, the epilogue ran
  // in the column segments' short loops and scalar edges (EfficientNet-B0's
  // depthwise 3x3 + bias + SiLU over 144 maps of 56x56, one thread: 1,031 us,
  // 568 us in two passes; the convolution alone 253).
  struct RowBuffer {
    int node;              // the reduce
    llvm::Type* type;      // its element type
    llvm::Value* columns;  // [n x type] on the stack
  };
  // One row buffer per reduce of the kernel, in the entry block; `type_of(node)`.
  auto row_buffers = [&](const char* name, const std::function<llvm::Type*(int)>& type_of) {
    std::vector<RowBuffer> buffers;
    llvm::IRBuilder<> entry(&host.function->getEntryBlock(), host.function->getEntryBlock().begin());
    for (size_t node = 0; node < kernel.exprs.size(); ++node) {
      if (kernel.exprs[node].kind != kernel::KernelExpr::Kind::kReduce) continue;
      llvm::Type* type = type_of(static_cast<int>(node));
      auto* buffer =
          entry.CreateAlloca(llvm::ArrayType::get(type, static_cast<uint64_t>(kernel.space.back())), nullptr, name);
      buffer->setAlignment(llvm::Align(64));
      buffers.push_back({static_cast<int>(node), type, buffer});
    }
    return buffers;
  };
  std::vector<RowBuffer> row_of_reduces;
  if (rank >= 2 && has_contraction(kernel) && kernel.space.back() <= kRowBufferMaxColumns && has_epilogue_op(kernel))
    row_of_reduces = row_buffers("row_of_reduce", [&](int node) {
      return register_type(builder.getContext(), kernel.exprs[static_cast<size_t>(node)].dtype);
    });
  // Row stages (kernel::host_row_stages): each pass computes its nodes along
  // the row into their row buffers; the last pass reads them back.
  std::vector<std::vector<RowBuffer>> stages;
  {
    llvm::IRBuilder<> entry(&host.function->getEntryBlock(), host.function->getEntryBlock().begin());
    // None for a rank-0 space, whose space has no columns.
    const std::vector<std::vector<int>> passes = kernel::host_row_stages(kernel, emitter.program().buffers);
    const uint64_t columns = passes.empty() ? 0
                             : static_cast<uint64_t>(rank == 1 ? std::min(kernel.space[0], kernel::kHostRank1Chunk)
                                                               : kernel.space.back());
    for (const std::vector<int>& nodes : passes) {
      std::vector<RowBuffer>& pass = stages.emplace_back();
      for (int node : nodes) {
        llvm::Type* type = register_type(builder.getContext(), kernel.exprs[static_cast<size_t>(node)].dtype);
        auto* buffer = entry.CreateAlloca(llvm::ArrayType::get(type, columns), nullptr, "row_stage");
        buffer->setAlignment(llvm::Align(64));
        pass.push_back({node, type, buffer});
      }
    }
  }
  // A looped contraction's masked loads (a padded depthwise convolution):
  // each column segment of a row runs in two versions, behind a test that
  // the masks' comparisons hold over all of it (kernel::host_interior_conditions).
  // In the interior they are plain loads: EfficientNet-B0's padded depthwise
  // 3x3 over 96 maps of 56x56 with stride 2 read by gathers, 3,690 us, 416
  // without the padding (2026-11-30, AMD EPYC, one thread).
  const std::vector<kernel::InteriorCondition> interior = kernel::host_interior_conditions(kernel);
  std::vector<kernel::IndexRef> interior_comparisons;
  for (const kernel::InteriorCondition& c : interior) interior_comparisons.push_back(c.comparison);
  // Whether every interior condition holds over the columns [s0, s1) of the
  // row at `row_vars` and the whole reduction: each at its worst corner.
  auto holds_in_segment = [&](const std::vector<llvm::Value*>& row_vars, llvm::Value* s0, llvm::Value* s1) {
    llvm::Value* all = builder.getTrue();
    for (const kernel::InteriorCondition& c : interior) {
      std::vector<llvm::Value*> corner = row_vars;
      corner.resize(static_cast<size_t>(kernel.num_vars()), nullptr);
      corner[rank - 1] = c.slope[rank - 1] > 0 ? builder.CreateSub(s1, constant(1)) : s0;
      for (size_t d = 0; d < kernel.reduction.size(); ++d)
        corner[rank + d] = constant(c.slope[rank + d] > 0 ? kernel.reduction[d] - 1 : 0);
      const NodeValues at(kernel, corner);
      const kernel::IndexPool::Node& n = kernel.indices.node(c.comparison);
      llvm::Value* a = emitter.index(n.a, at);
      llvm::Value* b = emitter.index(n.b, at);
      all = builder.CreateAnd(all, n.kind == kernel::IndexPool::Kind::kLt ? builder.CreateICmpSLT(a, b)
                                                                           : builder.CreateICmpSLE(a, b));
    }
    return all;
  };
  // emit_loop over a column segment of the row at `row_vars`, in the two
  // versions where the kernel has interior conditions.
  auto segment_loop = [&](const std::vector<llvm::Value*>& row_vars, llvm::Value* s0, llvm::Value* s1,
                          const std::function<void(llvm::Value*)>& body, const char* name, LoopHint hint) {
    if (interior.empty()) {
      emit_loop(builder, s0, s1, body, name, hint);
      return;
    }
    llvm::Value* inside = holds_in_segment(row_vars, s0, s1);
    llvm::LLVMContext& context = builder.getContext();
    auto* unmasked = llvm::BasicBlock::Create(context, std::string(name) + ".interior", host.function);
    auto* masked = llvm::BasicBlock::Create(context, std::string(name) + ".edge", host.function);
    auto* done = llvm::BasicBlock::Create(context, std::string(name) + ".done", host.function);
    builder.CreateCondBr(inside, unmasked, masked);
    builder.SetInsertPoint(unmasked);
    emitter.assume_true(&interior_comparisons);
    emit_loop(builder, s0, s1, body, name, hint);
    emitter.assume_true(nullptr);
    builder.CreateBr(done);
    builder.SetInsertPoint(masked);
    emit_loop(builder, s0, s1, body, name, hint);
    builder.CreateBr(done);
    builder.SetInsertPoint(done);
  };
  // A load in the reduction loop that steps more than one element along its
  // row per column (a stride-2 convolution): folded into a masked iteration,
  // LLVM loads it lane by lane behind branches; with a scalar remainder it
  // reads whole vectors and shuffles them (the padded depthwise 3x3 of stride
  // 2 above, interior unmasked: 2,458 us with a masked tail, 363-437 without).
  bool strided_columns = false;
  if (has_contraction(kernel)) {
    const std::vector<bool> in_loop = kernel::reduction_loop_nodes(kernel);
    for (size_t node = 0; node < kernel.exprs.size(); ++node) {
      const kernel::KernelExpr& e = kernel.exprs[node];
      if (!in_loop[node] || e.kind != kernel::KernelExpr::Kind::kLoad || e.index.empty() || rank < 1) continue;
      const std::optional<int64_t> step = kernel.indices.coefficient(e.index.back(), static_cast<int>(rank) - 1);
      strided_columns = strided_columns || (step && std::abs(*step) > 1);
    }
  }
  // A contraction's column segments fold their remainder into one masked
  // iteration (LoopHint::kMaskedTail) where their loads stay masked anyway;
  // with an unmasked interior, or strided loads, a scalar remainder is
  // faster (the padded depthwise 3x3 of stride 1 above: 462-639 us masked,
  // 225-343 with the remainder scalar; 130 without the padding).
  const LoopHint contraction_hint = strided_columns || !interior.empty() ? LoopHint::kNone : LoopHint::kMaskedTail;
  // Reduces down the columns (kernel::host_reduces_down_columns): one
  // accumulator per column of the row, on the stack.
  std::vector<RowBuffer> column_accumulators;
  if (kernel::host_reduces_down_columns(kernel))
    column_accumulators =
        row_buffers("column_accumulators", [&](int node) { return emitter.reduce_identity(node)->getType(); });
  emit_loop(builder, host.begin, host.end, [&](llvm::Value* unit) {
    if (rank == 0) {
      NodeValues at(kernel, {});
      emitter.store_outputs(at, constant(0));
      return;
    }
    std::vector<llvm::Value*> vars(rank, nullptr);
    llvm::Value* first = constant(0);
    llvm::Value* last = constant(kernel.space[0]);
    llvm::Value* row_base = constant(0);
    if (rank == 1) {
      first = builder.CreateMul(unit, constant(kHostRank1Chunk));
      last = builder.CreateBinaryIntrinsic(llvm::Intrinsic::smin, builder.CreateAdd(first, constant(kHostRank1Chunk)),
                                           constant(kernel.space[0]));
    } else {
      // The unit is a row: delinearize it over the outer dims.
      auto delinearize = [&](llvm::Value* rest) {
        std::vector<llvm::Value*> at(rank, nullptr);
        for (size_t axis = rank - 1; axis-- > 0;) {
          at[axis] = axis == 0 ? rest : builder.CreateURem(rest, constant(kernel.space[axis]));
          if (axis > 0) rest = builder.CreateUDiv(rest, constant(kernel.space[axis]));
        }
        return at;
      };
      // Column blocks (a contraction of few rows, kernel/host_plan.h): unit = block · rows + row.
      llvm::Value* row = unit;
      if (blocks > 1) {
        const int64_t rows = kernel::host_parallel_units(kernel) / blocks;
        row = builder.CreateURem(unit, constant(rows));
        const int64_t block = kernel::host_column_block(kernel);
        first = builder.CreateMul(builder.CreateUDiv(unit, constant(rows)), constant(block));
        last = builder.CreateBinaryIntrinsic(llvm::Intrinsic::smin, builder.CreateAdd(first, constant(block)),
                                             constant(kernel.space[rank - 1]));
      } else {
        last = constant(kernel.space[rank - 1]);
      }
      unit = row;
      vars = delinearize(unit);
      row_base = builder.CreateMul(unit, constant(kernel.space[rank - 1]));
      // Rows of a permuted view lie far apart: prefetch the row about 4 KiB of
      // rows ahead, so that its loads do not wait on memory when it comes.
      const int64_t row_bytes = 4 * std::max<int64_t>(kernel.space[rank - 1], 1);
      const int64_t ahead = std::clamp<int64_t>(4096 / row_bytes, 1, 64);
      std::vector<llvm::Value*> next = delinearize(builder.CreateAdd(unit, constant(ahead)));
      next[rank - 1] = constant(0);
      emitter.prefetch_row(NodeValues(kernel, next), kernel.space[rank - 1]);
    }
    // A row is one version: its per-region branches are decided before the
    // column loop, which then computes only the taken sides and vectorizes.
    std::vector<llvm::Value*> bounds = {first};
    for (int64_t cut : cuts) bounds.push_back(constant(cut));
    bounds.push_back(last);
    emitter.emit_versions(NodeValues(kernel, vars), [&](const kernel::BranchPlan::Leaf& version) {
      // The columns' segments, each one loop of `body(column)`.
      auto for_each_column = [&](const char* name, const std::function<void(llvm::Value*)>& body) {
        for (size_t s = 0; s + 1 < bounds.size(); ++s) emit_loop(builder, bounds[s], bounds[s + 1], body, name);
      };
      if (!column_accumulators.empty()) {
        // Down the columns: the identity in every column's accumulator, then
        // the reduction's steps in order, each a pass along the row, then the
        // epilogue along the row with the reduces' values.
        auto slot = [&](const RowBuffer& acc, llvm::Value* column) {
          return builder.CreateInBoundsGEP(acc.type, acc.columns, builder.CreateSub(column, first));
        };
        for_each_column("init_col", [&](llvm::Value* column) {
          for (const RowBuffer& acc : column_accumulators)
            builder.CreateStore(emitter.reduce_identity(acc.node), slot(acc, column));
        });
        std::vector<llvm::Value*> steps = vars;
        steps.resize(static_cast<size_t>(kernel.num_vars()), nullptr);
        std::function<void(size_t)> nest = [&](size_t dim) {
          if (dim == kernel.reduction.size()) {
            for_each_column("reduce_col", [&](llvm::Value* column) {
              steps[rank - 1] = column;
              NodeValues at(kernel, steps);
              at.assume(version);
              for (const RowBuffer& acc : column_accumulators) {
                llvm::Value* address = slot(acc, column);
                builder.CreateStore(emitter.reduce_combine(acc.node, builder.CreateLoad(acc.type, address),
                                                           emitter.reduce_value(acc.node, at)),
                                    address);
              }
            });
            return;
          }
          emit_loop(builder, constant(0), constant(kernel.reduction[dim]), [&](llvm::Value* r) {
            steps[rank + dim] = r;
            nest(dim + 1);
          }, "r");
        };
        nest(0);
        for_each_column("epilogue_col", [&](llvm::Value* column) {
          vars[rank - 1] = column;
          NodeValues at(kernel, vars);
          at.assume(version);
          for (const RowBuffer& acc : column_accumulators)
            at.set(acc.node, emitter.reduce_finish(acc.node, builder.CreateLoad(acc.type, slot(acc, column))));
          emitter.store_outputs(at, builder.CreateAdd(row_base, column));
        });
        return;
      }
      if (row_of_reduces.empty()) {
        // The point `column` (its row buffer slot `slot`) of this row with
        // the staged values of the passes before `pass`.
        auto point = [&](llvm::Value* column, llvm::Value* slot, size_t pass) {
          vars[rank - 1] = column;
          NodeValues at(kernel, vars);
          at.assume(version);
          for (size_t p = 0; p < pass; ++p)
            for (const RowBuffer& row : stages[p])
              if (at.live(row.node))
                at.set(row.node, builder.CreateLoad(row.type, builder.CreateInBoundsGEP(row.type, row.columns, slot)));
          return at;
        };
        // The passes stay loops (LoopHint::kStagedPass): unrolled whole (a
        // row of 64), LLVM merged two passes back into one straight-line body
        // (a transposing read staged before exp: 27.6 us in one pass, 38.4 in
        // two merged so, 2026-11-29, one thread).
        const LoopHint hint = has_contraction(kernel) ? contraction_hint
                              : stages.empty() ? LoopHint::kNone
                                                      : LoopHint::kStagedPass;
        const std::vector<llvm::Value*> row_vars = vars;
        for (size_t pass = 0; pass < stages.size(); ++pass)
          for (size_t s = 0; s + 1 < bounds.size(); ++s)
            segment_loop(row_vars, bounds[s], bounds[s + 1], [&](llvm::Value* column) {
              llvm::Value* slot = builder.CreateSub(column, first);
              NodeValues at = point(column, slot, pass);
              for (const RowBuffer& row : stages[pass])
                if (at.live(row.node))
                  builder.CreateStore(emitter.emit_node(row.node, at),
                                      builder.CreateInBoundsGEP(row.type, row.columns, slot));
            }, "stage_col", hint);
        for (size_t s = 0; s + 1 < bounds.size(); ++s)
          segment_loop(row_vars, bounds[s], bounds[s + 1], [&](llvm::Value* column) {
            NodeValues at = point(column, builder.CreateSub(column, first), stages.size());
            emitter.store_outputs(at, builder.CreateAdd(row_base, column));
          }, "col", hint);
        return;
      }
      // Two passes over the row: the reduces per segment into the row buffers,
      // then the epilogue over the whole row, one vector loop without edges.
      const std::vector<llvm::Value*> row_vars = vars;
      for (size_t s = 0; s + 1 < bounds.size(); ++s)
        segment_loop(row_vars, bounds[s], bounds[s + 1], [&](llvm::Value* column) {
          vars[rank - 1] = column;
          NodeValues at(kernel, vars);
          at.assume(version);
          llvm::Value* slot = builder.CreateSub(column, first);
          for (const RowBuffer& row : row_of_reduces)
            builder.CreateStore(emitter.emit_node(row.node, at), builder.CreateInBoundsGEP(row.type, row.columns, slot));
        }, "reduce_col", contraction_hint);
      emit_loop(builder, first, last, [&](llvm::Value* column) {
        vars[rank - 1] = column;
        NodeValues at(kernel, vars);
        at.assume(version);
        llvm::Value* slot = builder.CreateSub(column, first);
        for (const RowBuffer& row : row_of_reduces)
          at.set(row.node, builder.CreateLoad(row.type, builder.CreateInBoundsGEP(row.type, row.columns, slot)));
        emitter.store_outputs(at, builder.CreateAdd(row_base, column));
      }, "epilogue_col");
    });
  }, "unit");
  builder.CreateRetVoid();
}

llvm::Function* emit_host_kernel(llvm::Module& module, const kernel::KernelProgram& program, size_t kernel,
                                 const VectorRegisters& registers) {
  llvm::IRBuilder<> builder(module.getContext());
  HostFunction host = begin_host_function(module, builder, program, kernel);
  static const HostMathHooks math;
  KernelEmitter emitter(builder, program, kernel, math, host.buffers);
  if (kernel::is_scatter_kernel(program.kernels[kernel])) {  // one unit (kernel/host_plan.h): the whole kernel
    emitter.emit_scatter();
    builder.CreateRetVoid();
  } else if (has_contraction(program.kernels[kernel])) emit_host_contraction(builder, host, emitter, registers);
  else emit_host_rows(builder, host, emitter);
  return host.function;
}

llvm::Function* emit_host_kernel_call(llvm::Module& module, const kernel::KernelProgram& program, size_t kernel,
                                      const std::vector<int>& buffers, llvm::Function* body) {
  llvm::LLVMContext& context = module.getContext();
  llvm::IRBuilder<> builder(context);
  llvm::Type* ptr = llvm::PointerType::get(context, 0);
  auto* function = llvm::Function::Create(body->getFunctionType(), llvm::Function::ExternalLinkage,
                                          kernel_symbol(program, kernel), module);
  function->setDoesNotThrow();
  builder.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", function));
  auto* array_type = llvm::ArrayType::get(ptr, buffers.size());
  llvm::Value* local = builder.CreateAlloca(array_type, nullptr, "buffers");
  for (size_t i = 0; i < buffers.size(); ++i) {
    llvm::Value* slot = builder.CreateConstInBoundsGEP1_64(ptr, function->getArg(0), static_cast<uint64_t>(buffers[i]));
    builder.CreateStore(builder.CreateLoad(ptr, slot, program.buffers[static_cast<size_t>(buffers[i])].name),
                        builder.CreateConstInBoundsGEP2_64(array_type, local, 0, i));
  }
  builder.CreateCall(body, {local, function->getArg(1), function->getArg(2)});
  builder.CreateRetVoid();
  return function;
}

}  // namespace smelt::lower
