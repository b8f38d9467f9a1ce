#pragma once
// Cost model v0: a kernel's predicted time = launch overhead + max(memory time,
// compute time). Memory time counts the distinct bytes each load touches (by
// access kind) and the bytes written; compute time counts every node once per
// distinct value of the variables it depends on (loop-invariant work is
// hoisted, as a tiled lowering does), so values inlined into several consumers
// are paid for in each. Contractions use the profile's matmul throughput.
#include "cost/device_profile.h"
#include "ir/kernel.h"

namespace cost {

struct KernelCost {
  double launch_us = 0;
  double memory_us = 0;
  double compute_us = 0;
  double total_us = 0;
  double bytes_read = 0;
  double bytes_written = 0;
  double flops = 0;  // contraction multiply-adds × 2
};

KernelCost predict(const ir::KernelProgram& program, const ir::Kernel& kernel, const DeviceProfile& profile);
// Sum of the predicted kernel times, in microseconds.
double predict_program_us(const ir::KernelProgram& program, const DeviceProfile& profile);

// How a load walks its buffer as the innermost loop variable advances.
AccessKind classify_load(const ir::Kernel& kernel, const ir::KernelExpr& load, bool inside_reduction);

}  // namespace cost
