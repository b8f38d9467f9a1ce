#pragma once
// A KernelProgram ready to run on one device: its buffer plan, its compiled
// code and its memory. Inputs and outputs are smelt::ir::HostTensors.
//
// Thread safety: every member may be called from several threads at once.
// Runs (run, run_into, benchmark, benchmark_each_kernel) of one executable
// take turns behind a lock: they share its buffers (inputs, outputs and the
// intermediates' arena) and its device's threads. For runs in parallel, load
// one executable per thread.
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>


#include "error/error.h"
#include "ir/host_tensor.h"
#include "kernel/kernel.h"
#include "runtime/buffer_plan.h"
#include "runtime/device.h"

namespace smelt::runtime {

// Inputs that do not fit the program: a wrong count or type; the message says
// which input and what was expected.
class InputError : public Error {
 public:
  explicit InputError(const std::string& message) : Error(ErrorKind::kInput, message) {}
};

class Executable {
 public:
  // Plans the buffers and loads the program on `device` (kept alive by the
  // executable). Throws lower::LowerError or DeviceError.
  Executable(kernel::KernelProgram program, std::shared_ptr<Device> device);

  // Runs the program; inputs in the order of the program's inputs (io_index),
  // outputs likewise. Throws InputError for inputs that do not fit, and
  // WorkLimitError before running kernels whose iterations pass the work limit.
  std::vector<ir::HostTensor> run(const std::vector<ir::HostTensor>& inputs);
  // Copies the inputs in once, runs `warmup` times to warm up (first-touch
  // pages, caches, packed weights, lazy driver work) and on until `warmup_s`
  // seconds have passed, then `reps` times; the seconds of each rep's kernels
  // (host: wall clock; GPU: events). A time, not a count, warms memory the
  // process has just allocated: on this project's 2-core VM a model that
  // streams its 115 MB of weights (Llama-style, batch 1) ran 9.3 ms at first
  // and 5.8 ms after about 30 runs (0.2 s), where a compute loop in cache ran
  // at full speed from its first run (2026-11-29).
  std::vector<double> benchmark(const std::vector<ir::HostTensor>& inputs, int reps, int warmup = 1,
                                double warmup_s = 0);
  // As benchmark, timing each kernel: seconds[rep][kernel], kernels in program
  // order (a profile: which kernel the time goes to).
  std::vector<std::vector<double>> benchmark_each_kernel(const std::vector<ir::HostTensor>& inputs, int reps,
                                                         int warmup = 1, double warmup_s = 0);

  // Runs the program on caller memory, without copies: `inputs` and `outputs`
  // in io_index order, each exactly storage_bytes(type) in the memory layout of
  // runtime/tensor_bytes.h and aligned to its element; no output may overlap an
  // input or another output. For serving without allocation. Throws InputError
  // (count, size, alignment, overlap) or DeviceError (not the host); returns
  // the seconds the kernels took.
  double run_into(const std::vector<std::span<const uint8_t>>& inputs, const std::vector<std::span<uint8_t>>& outputs);

  const kernel::KernelProgram& program() const { return program_; }
  const BufferPlan& plan() const { return plan_; }
  const Device& device() const { return *device_; }
  std::vector<ir::TensorType> input_types() const;
  std::vector<ir::TensorType> output_types() const;

 private:
  void write_inputs(const std::vector<ir::HostTensor>& inputs);
  // WorkLimitError (error/memory_limit.h) when `runs` runs of the kernels pass
  // the work limit: checked before the first of them starts.
  void check_run_work(int runs) const;
  // benchmark's set-up: checks reps and warmup, copies the inputs in, warms up.
  void prepare_benchmark(const std::vector<ir::HostTensor>& inputs, int reps, int warmup, double warmup_s);

  // Held by each run from its first input copy to its last output copy.
  std::mutex run_mutex_;
  kernel::KernelProgram program_;
  std::shared_ptr<Device> device_;
  BufferPlan plan_;
  std::unique_ptr<LoadedProgram> loaded_;
  std::vector<int> input_buffers_, output_buffers_;  // buffer index by io_index
};

}  // namespace smelt::runtime
