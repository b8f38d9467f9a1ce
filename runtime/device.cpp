#include "runtime/device.h"

#include "runtime/cuda_driver.h"
#include "runtime/gpu_device.h"
#include "runtime/hip_driver.h"
#include "runtime/host_device.h"

namespace smelt::runtime {

std::string target_name(lower::Target target) {
  switch (target) {
    case lower::Target::kHost: return "host";
    case lower::Target::kCuda: return "cuda";
    case lower::Target::kHip: return "hip";
  }
  return "unknown";
}

std::unique_ptr<Device> open_device(lower::Target target, const DeviceOptions& options) {
  switch (target) {
    case lower::Target::kHost: return std::make_unique<HostDevice>(options.threads);
    case lower::Target::kCuda: return std::make_unique<GpuDevice>(target, open_cuda_driver(options.arch));
    case lower::Target::kHip: return std::make_unique<GpuDevice>(target, open_hip_driver(options.arch));
  }
  throw DeviceUnavailable("unknown target");
}

}  // namespace smelt::runtime
