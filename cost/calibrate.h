#pragma once
// `smelt calibrate`'s measurements: microkernels built as graphs, turned into
// kernels by the caller's GraphKernelizer (fusion/), lowered by lower/ and run
// by runtime/ (the code smelt really emits), timed until stable at every
// thread count the runtime uses, and fitted into a DeviceProfile. docs/cost.md lists what is measured and how it is fitted.
#include <functional>
#include <string>
#include <vector>

#include "cost/device_profile.h"
#include "cost/measure.h"
#include "ir/host_tensor.h"
#include "kernel/kernel.h"
#include "runtime/device.h"

namespace smelt::ir {
class Graph;
}

namespace smelt::cost {

// How calibration turns its microkernel graphs into the kernels smelt emits.
// Graph -> kernels is fusion/'s job, a layer above cost/ (DESIGN's module
// table), so the caller passes it in: tools/calibration.cpp's
// calibration_kernelizer() is fusion::kernelize.
struct GraphKernelizer {
  // The outputs stored, producers merged into their consumers, as compile does.
  std::function<kernel::KernelProgram(const ir::Graph&)> fused;
  // Every value stored, nothing merged: one kernel per op.
  std::function<kernel::KernelProgram(const ir::Graph&)> unmerged;
};

// Called before each step: steps done, steps in all, what runs next.
using CalibrationProgress = std::function<void(size_t done, size_t total, const std::string& what)>;

struct CalibrationOptions {
  bool quick = false;              // fewer sizes and shapes (2.6 min at one thread)
  std::vector<unsigned> threads;   // host: empty = 1, 2, 4, ... up to every core (and every core itself)
  CalibrationProgress progress;
  GraphKernelizer kernelizer;  // both functions required
  // calibrate_gpu's sizes times this: tests run its steps on the host device
  // at a fraction of the sizes that fill a GPU (1 on a GPU).
  double gpu_size_scale = 1;
};

// One timed microkernel, as written beside the profile (the spread is kept).
struct CalibrationSample {
  std::string what;  // e.g. "read contiguous 1048576 B", "op exp", "matmul 1x128x256x1024"
  unsigned threads = 1;
  Timing timing;
  double value = 0;  // what was derived from it (ns per byte, ns per element, GFLOP/s, µs)
  std::string unit;
};

struct Calibration {
  DeviceProfile profile;
  std::vector<CalibrationSample> samples;
  // Steps that threw ("bandwidth: cuda: cuLaunchKernel failed ..."): the
  // profile lacks what they measure. Empty on success.
  std::vector<std::string> failed_steps;
};

// The thread counts calibrated by default on this machine.
std::vector<unsigned> default_calibration_threads();

// Measures the host and fits a profile (device "host", this CPU's model, today's date).
Calibration calibrate_host(const CalibrationOptions& options);

// Measures a GPU through the kernels smelt emits for it (cuda, hip) and fits a
// profile: device "cuda" / "hip", `cpu` the GPU's name, one set of rates
// (threads 1: the whole device) at GPU sizes, with the fill curve.
// `gpu_name` is what the driver calls the device ("NVIDIA H200").
Calibration calibrate_gpu(const CalibrationOptions& options, std::shared_ptr<runtime::Device> device,
                          const std::string& gpu_name);

// Random inputs for a program (values in [0.5, 1.5) for floats, so every op's
// fast path is timed), in the order of its input buffers' io_index.
std::vector<ir::HostTensor> timing_inputs(const kernel::KernelProgram& program, uint64_t seed = 1);

// A program holding only kernel `k` of `program`: the buffers it reads become
// inputs (constants stay constants), the ones it writes outputs. How one fused
// kernel is timed alone.
kernel::KernelProgram single_kernel_program(const kernel::KernelProgram& program, size_t k);

// Times `program` on the host with `threads` threads until stable.
Timing time_host_program(const kernel::KernelProgram& program, unsigned threads, double budget_s = 0.25);

// Times several programs side by side on `device` (the host's pool or a GPU:
// events around the launches), as time_host_programs does; on `inputs` (one
// list per program) where given, else on timing_inputs.
std::vector<Timing> time_programs(const std::vector<const kernel::KernelProgram*>& programs,
                                  const std::shared_ptr<runtime::Device>& device, double budget_s = 0.25,
                                  const std::vector<std::vector<ir::HostTensor>>* inputs = nullptr);

// Times several programs side by side on one host device: all are loaded
// first, then run in interleaved rounds until every median is stable
// (measure_until_stable), so none gains or loses from being timed first or
// from the machine drifting (at most about `budget_s` seconds each).
std::vector<Timing> time_host_programs(const std::vector<const kernel::KernelProgram*>& programs, unsigned threads,
                                       double budget_s = 0.25);

// This machine's processor model (from /proc/cpuinfo), "unknown" if unreadable.
std::string cpu_model();

}  // namespace smelt::cost
