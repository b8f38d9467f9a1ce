#pragma once
// Cost model v1 (host): a kernel's predicted time is
//   fixed + balance * (max(memory, compute) + overlap * min(memory, compute))
// fixed: the cost of running a kernel inline, plus the pool's dispatch when the
//   kernel is split over threads (kernel/host_plan.h says how it is split);
// memory: per load, the distinct bytes it touches times the measured cost of
//   its access kind (contiguous, strided, gather, broadcast, masked) at the
//   kernel's working set, plus the bytes written;
// compute: every node once per distinct value of the variables it depends on
//   (loop-invariant work is hoisted), at the measured per-element cost of the
//   vectorized code; reductions per reduced element (inner or outer axis);
//   contractions at the tiled matmul's measured GFLOP/s for their shape;
// balance: the slowest thread's share when chunks do not divide evenly.
// Every rate comes from the profile entry for the threads the kernel really
// occupies, measured by `smelt calibrate` through lower/ and runtime/.
#include <string>

#include "cost/device_profile.h"
#include "kernel/gpu_plan.h"
#include "kernel/kernel.h"

namespace smelt::cost {

struct KernelCost {
  double fixed_us = 0;  // inline call + dispatch
  double memory_us = 0;
  // Of memory_us, the reads by a gather per vector that feed a math call: time
  // the core spends on them beside the calls, added to the work, not overlapped.
  double gathered_us = 0;
  double compute_us = 0;
  double total_us = 0;
  double bytes_read = 0;
  double bytes_written = 0;
  double working_set_bytes = 0;
  double flops = 0;  // contraction multiply-adds × 2
  unsigned threads = 1;  // threads the kernel occupies
};

KernelCost predict(const kernel::KernelProgram& program, const kernel::Kernel& kernel, const DeviceProfile& profile);
// The program's fixed cost plus its predicted kernel times, in microseconds.
// The matrix units a kernel costed with `profile` runs on (kernel/gpu_plan.h):
// tensor cores for a cuda profile, none elsewhere (lower/gpu_kernel.h agrees).
kernel::GpuMatrixUnits gpu_matrix_units(const DeviceProfile& profile);
double predict_program_us(const kernel::KernelProgram& program, const DeviceProfile& profile);

// Evaluations of a contraction's prologue nodes (the nodes inside the K loop
// other than the product and its plain loads), each charged `prologue_ns`.
double prologue_evaluations(const kernel::Kernel& kernel);
// Elements of a convolution's windows its tiled contraction packs (a group
// with several column axes: batch x K x positions per B side; 0 otherwise),
// each charged `window_pack_ns`.
double window_elements(const kernel::Kernel& kernel);

// How a load walks its buffer (of shape `buffer_shape`) as the innermost loop
// variable advances.
AccessKind classify_load(const kernel::Kernel& kernel, const kernel::KernelExpr& load, bool inside_reduction,
                         const ir::Shape& buffer_shape);

// Rough per-op work for choosing starting terms (extract/): nanoseconds of
// `elements` evaluations of an elementwise op, a reduction, or a matmul, on
// every thread the profile runs with.
double elementwise_work_ns(const DeviceProfile& profile, const std::string& op, double elements);
double reduction_work_ns(const DeviceProfile& profile, double reduced_elements);
double matmul_work_ns(const DeviceProfile& profile, long batch, long m, long n, long k);

}  // namespace smelt::cost
