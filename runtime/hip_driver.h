#pragma once
// HIP (ROCm), loaded with dlopen("libamdhip64.so"): no ROCm is needed to build smelt.
#include <memory>
#include <string>

#include "runtime/gpu_driver.h"

namespace smelt::runtime {

// Device 0. Throws DeviceUnavailable ("hip: ...") when the HIP runtime or a
// device is missing. `arch`: "" = gfx90a (the code object's target; HIP's
// device properties are not read, their layout changes between releases).
std::unique_ptr<GpuDriver> open_hip_driver(const std::string& arch = "");

}  // namespace smelt::runtime
