#include "runtime/gpu_device.h"

#include <algorithm>
#include <stdexcept>

#include "runtime/tensor_bytes.h"

namespace smelt::runtime {
namespace {

// Device memory owned by a program, freed when it goes (also on a failed load).
class DeviceMemory {
 public:
  explicit DeviceMemory(std::shared_ptr<GpuDriver> driver) : driver_(std::move(driver)) {}
  ~DeviceMemory() {
    for (DevicePtr p : owned_) driver_->free(p);
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  DevicePtr alloc(size_t bytes) {
    owned_.push_back(driver_->alloc(bytes));
    return owned_.back();
  }

 private:
  std::shared_ptr<GpuDriver> driver_;
  std::vector<DevicePtr> owned_;
};

class GpuProgram : public LoadedProgram {
 public:
  GpuProgram(const kernel::KernelProgram& program, const BufferPlan& plan, std::shared_ptr<GpuDriver> driver,
             const lower::TargetOptions& options)
      : driver_(driver), memory_(driver) {
    driver_->make_current();
    const std::vector<uint8_t> image = lower::emit_binary(program, options);
    module_ = driver_->load_module(image);
    for (size_t k = 0; k < program.kernels.size(); ++k) {
      const lower::LaunchConfig config = lower::launch_config(program.kernels[k], options);
      const bool empty = std::min({config.grid[0], config.grid[1], config.grid[2]}) == 0;
      kernels_.push_back({driver_->function(module_, lower::kernel_symbol(program, k)), config, empty});
    }
    const DevicePtr arena = memory_.alloc(plan.arena_bytes);
    std::vector<DevicePtr> pointers(program.buffers.size());
    bytes_.resize(program.buffers.size());
    for (size_t b = 0; b < program.buffers.size(); ++b) {
      const BufferSlot& slot = plan.slots[b];
      bytes_[b] = slot.bytes;
      pointers[b] = slot.pooled ? arena + slot.offset : memory_.alloc(slot.bytes);
      const kernel::Buffer& buffer = program.buffers[b];
      if (buffer.kind == kernel::BufferKind::kConstant) {
        const std::vector<uint8_t> bytes = to_bytes(ir::HostTensor::from_values(buffer.type, buffer.values));
        driver_->copy_in(pointers[b], bytes.data(), bytes.size());
      }
    }
    pointers_ = pointers;
    pointer_array_ = memory_.alloc(pointers.size() * sizeof(DevicePtr));
    driver_->copy_in(pointer_array_, pointers.data(), pointers.size() * sizeof(DevicePtr));
    start_ = driver_->create_event();
    stop_ = driver_->create_event();
  }
  ~GpuProgram() override {
    driver_->destroy_event(start_);
    driver_->destroy_event(stop_);
    for (void* event : between_) driver_->destroy_event(event);
    driver_->unload_module(module_);
  }

  void write_input(size_t buffer, std::span<const uint8_t> bytes) override {
    driver_->make_current();
    driver_->copy_in(pointers_.at(buffer), bytes.data(), std::min(bytes.size(), bytes_[buffer]));
  }

  double run_kernels(std::span<double> each_kernel_s) override {
    if (!each_kernel_s.empty() && each_kernel_s.size() != kernels_.size())
      throw std::invalid_argument("run_kernels: one time slot per kernel");
    driver_->make_current();
    if (!each_kernel_s.empty())
      while (between_.size() < kernels_.size() + 1) between_.push_back(driver_->create_event());
    driver_->record(start_);
    for (size_t i = 0; i < kernels_.size(); ++i) {
      if (!each_kernel_s.empty()) driver_->record(between_[i]);
      if (!kernels_[i].empty) driver_->launch(kernels_[i].fn, kernels_[i].config, pointer_array_);
    }
    if (!each_kernel_s.empty()) driver_->record(between_[kernels_.size()]);
    driver_->record(stop_);
    for (size_t i = 0; i < each_kernel_s.size(); ++i)
      each_kernel_s[i] = driver_->elapsed_ms(between_[i], between_[i + 1]) / 1e3;
    return driver_->elapsed_ms(start_, stop_) / 1e3;
  }

  void read_output(size_t buffer, std::span<uint8_t> bytes) override {
    driver_->make_current();
    driver_->copy_out(bytes.data(), pointers_.at(buffer), std::min(bytes.size(), bytes_[buffer]));
  }

 private:
  struct Launch {
    void* fn;
    lower::LaunchConfig config;
    bool empty;  // a zero-size grid: nothing to compute
  };
  std::shared_ptr<GpuDriver> driver_;
  DeviceMemory memory_;
  void* module_ = nullptr;
  std::vector<Launch> kernels_;
  std::vector<DevicePtr> pointers_;  // by buffer
  std::vector<size_t> bytes_;        // by buffer
  DevicePtr pointer_array_ = 0;
  void* start_ = nullptr;
  void* stop_ = nullptr;
  std::vector<void*> between_;  // events between launches, made on the first per-kernel timing
};

}  // namespace

GpuDevice::GpuDevice(lower::Target target, std::shared_ptr<GpuDriver> driver)
    : target_(target), driver_(std::move(driver)) {}

std::string GpuDevice::description() const {
  return target_name(target_) + ": " + driver_->device_name() + " (" + driver_->arch() + ")";
}

std::unique_ptr<LoadedProgram> GpuDevice::load(const kernel::KernelProgram& program, const BufferPlan& plan) {
  return std::make_unique<GpuProgram>(program, plan, driver_, target_options());
}

}  // namespace smelt::runtime
