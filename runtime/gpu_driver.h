#pragma once
// The few driver calls a GPU program needs, the same for CUDA and HIP, so one
// GpuProgram (runtime/gpu_device.h) serves both. Each failure throws
// DeviceError naming the call and the driver's message.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "lower/lower.h"

namespace smelt::runtime {

using DevicePtr = uint64_t;

class GpuDriver {
 public:
  virtual ~GpuDriver() = default;
  virtual std::string device_name() const = 0;
  // The code-generation architecture of the device ("sm_90", "gfx90a").
  virtual std::string arch() const = 0;
  // Binds the device's context to the calling thread.
  virtual void make_current() = 0;

  virtual DevicePtr alloc(size_t bytes) = 0;
  virtual void free(DevicePtr p) noexcept = 0;
  virtual void copy_in(DevicePtr dst, const void* src, size_t bytes) = 0;
  virtual void copy_out(void* dst, DevicePtr src, size_t bytes) = 0;

  // A module from the image lower::emit_binary produced (PTX text | hsaco).
  virtual void* load_module(std::span<const uint8_t> image) = 0;
  virtual void unload_module(void* module) noexcept = 0;
  virtual void* function(void* module, const std::string& name) = 0;
  // Launches `fn` with a single kernel parameter: `buffers`, a device pointer
  // to the array of buffer pointers (the kernel ABI of lower/lower.h).
  virtual void launch(void* fn, const lower::LaunchConfig& config, DevicePtr buffers) = 0;

  virtual void* create_event() = 0;
  virtual void destroy_event(void* event) noexcept = 0;
  virtual void record(void* event) = 0;
  // Waits for `stop` and returns the milliseconds between the two events.
  virtual float elapsed_ms(void* start, void* stop) = 0;
};

}  // namespace smelt::runtime
