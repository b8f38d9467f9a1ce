#pragma once
// Runs a KernelProgram through smelt::lower::HostJit on this thread, the way the
// runtime will: buffers allocated in lower.h's memory layout, every kernel
// called over all its parallel units in order. For tests and properties only
// (runtime/ has the real executor).
#include <cstdint>
#include <vector>

#include "ir/host_tensor.h"
#include "kernel/kernel.h"
#include "runtime/tensor_bytes.h"

namespace smelt::testing {

// A tensor's elements in lower.h's memory layout, and back (runtime/tensor_bytes.h).
using ::smelt::runtime::from_bytes;
using ::smelt::runtime::to_bytes;

// Compiles `program`, runs it on `inputs` (by io_index) and returns the
// outputs in io_index order. `units_per_call` > 0 splits each kernel's units
// into calls of that many (to exercise begin/end); 0 = one call per kernel.
std::vector<ir::HostTensor> run_on_host_jit(const kernel::KernelProgram& program,
                                            const std::vector<ir::HostTensor>& inputs, int64_t units_per_call = 0);

// Whether the host lowered `program` through the tiled contraction (its
// signature in the optimized IR: 16-wide f32 FMAs).
bool uses_tiled_contraction(const kernel::KernelProgram& program);

}  // namespace smelt::testing
