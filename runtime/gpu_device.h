#pragma once
// A CUDA or HIP device: the program's code emitted by smelt::lower::emit_binary,
// loaded as a module, one launch per kernel, timed with events.
#include <memory>

#include "runtime/device.h"
#include "runtime/gpu_driver.h"

namespace smelt::runtime {

class GpuDevice : public Device {
 public:
  GpuDevice(lower::Target target, std::shared_ptr<GpuDriver> driver);
  lower::Target target() const override { return target_; }
  std::string description() const override;
  std::string processor() const override { return driver_->device_name(); }
  lower::TargetOptions target_options() const override { return {target_, driver_->arch()}; }
  std::unique_ptr<LoadedProgram> load(const kernel::KernelProgram& program, const BufferPlan& plan) override;

 private:
  lower::Target target_;
  std::shared_ptr<GpuDriver> driver_;
};

}  // namespace smelt::runtime
