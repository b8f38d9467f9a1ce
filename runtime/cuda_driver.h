#pragma once
// The CUDA Driver API, loaded with dlopen("libcuda.so.1"): no CUDA headers or
// libraries are needed to build smelt.
#include <memory>
#include <string>

#include "runtime/gpu_driver.h"

namespace smelt::runtime {

// Device 0 with its primary context. Throws DeviceUnavailable ("cuda: ...")
// when the driver library, a device, or a supported architecture is missing.
// `arch`: "" = from the device's compute capability (sm_90 on 9.x and newer,
// else sm_80).
std::unique_ptr<GpuDriver> open_cuda_driver(const std::string& arch = "");

}  // namespace smelt::runtime
