#pragma once
// The devices a compiled program runs on, behind one interface: the host (JIT
// code split over a thread pool), CUDA (Driver API) and HIP, the last two
// loaded with dlopen so one binary runs where they are absent and says so.
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <stdexcept>
#include <string>
#include <vector>


#include "error/error.h"
#include "kernel/kernel.h"
#include "lower/lower.h"
#include "runtime/buffer_plan.h"

namespace smelt::runtime {

// The target cannot run here: no driver library, no device. The message is
// one line naming the target, e.g. "cuda: libcuda.so.1 not found (no NVIDIA
// driver on this machine)".
class DeviceUnavailable : public Error {
 public:
  explicit DeviceUnavailable(const std::string& message) : Error(ErrorKind::kDeviceUnavailable, message) {}
};

// A driver call failed on a device that is present; the message names the
// call and the driver's error string.
class DeviceError : public Error {
 public:
  explicit DeviceError(const std::string& message) : Error(ErrorKind::kDevice, message) {}
};

// One program's code and memory on a device. Buffers are raw bytes in the
// layout of runtime/tensor_bytes.h.
class LoadedProgram {
 public:
  virtual ~LoadedProgram() = default;
  // Copies the bytes of input buffer `buffer` (a kInput buffer index) in.
  virtual void write_input(size_t buffer, std::span<const uint8_t> bytes) = 0;
  // Runs every kernel in order; returns the seconds the kernels took (host:
  // wall clock; GPU: events around the launches). A non-empty `each_kernel_s`
  // (one slot per kernel) also gets each kernel's own seconds (host: a clock
  // read between kernels; GPU: an event between launches), for profiles.
  virtual double run_kernels(std::span<double> each_kernel_s) = 0;
  // Copies output buffer `buffer` out.
  virtual void read_output(size_t buffer, std::span<uint8_t> bytes) = 0;
  // Runs every kernel with the listed buffers (index, memory) at the caller's
  // memory instead of the program's own, for this run only; the seconds the
  // kernels took. Host only: other devices throw DeviceError.
  virtual double run_kernels_with(std::span<const std::pair<size_t, void*>> buffers) {
    (void)buffers;
    throw DeviceError("running into caller memory is host-only");
  }
};

class Device {
 public:
  virtual ~Device() = default;
  virtual lower::Target target() const = 0;
  // For reports: "host (2 threads)", "cuda: NVIDIA H100 80GB HBM3 (sm_90)".
  virtual std::string description() const = 0;
  // The processor's own name, as its cost profile records it: the GPU's
  // ("NVIDIA H200"), the host's CPU model (/proc/cpuinfo).
  virtual std::string processor() const = 0;
  // The code-generation options matching this device (its architecture).
  virtual lower::TargetOptions target_options() const = 0;
  // Compiles or loads `program`'s code and allocates its buffers following `plan`.
  // Throws lower::LowerError (code generation) or DeviceError (driver).
  virtual std::unique_ptr<LoadedProgram> load(const kernel::KernelProgram& program, const BufferPlan& plan) = 0;
};

struct DeviceOptions {
  unsigned threads = 0;  // host: worker threads including the caller; 0 = every core
  std::string arch{};    // cuda / hip: "" = the device's own architecture
};

// Opens the device for `target`; throws DeviceUnavailable when it cannot run here.
std::unique_ptr<Device> open_device(lower::Target target, const DeviceOptions& options = {});

// "host", "cuda", "hip"
std::string target_name(lower::Target target);

}  // namespace smelt::runtime
