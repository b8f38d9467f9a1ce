#include "lower/host_kernel.h"
#include "lower/host_matmul.h"

namespace smelt::lower {

// The tiled, register-blocked contraction (lower/host_matmul.h) where its plan
// accepts the kernel; otherwise the straightforward loop: per output element
// (a row of the space per parallel unit), a sequential loop over K evaluating
// the prologue subtrees — correct for every contraction group and epilogue
// (integer dtypes, empty extents), not fast.
void emit_host_contraction(llvm::IRBuilder<>& builder, const HostFunction& host, KernelEmitter& emitter,
                           const VectorRegisters& registers) {
  ContractionTiles tiles;
  tiles.registers = registers;
  if (std::optional<ContractionPlan> plan = plan_host_contraction(emitter.program(), emitter.kernel(), tiles)) {
    emit_tiled_contraction(emitter, *plan, host.begin, host.end);
    builder.CreateRetVoid();
    return;
  }
  emit_host_rows(builder, host, emitter);
}

}  // namespace smelt::lower
