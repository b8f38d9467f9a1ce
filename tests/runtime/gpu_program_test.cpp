// The GPU program logic (module load, buffers and the device pointer array,
// launches, events, freeing) without a GPU: a driver whose "device memory" is
// host memory and whose launches run the host JIT's code for the same kernels.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>

#include "ir/tensor_compare.h"
#include "runtime/aligned_buffer.h"
#include "runtime/executable.h"
#include "runtime/gpu_device.h"
#include "smelt/smelt.h"
#include "tests/fusion/fusion_test_util.h"

namespace smelt {
namespace {

class EmulatedDriver : public runtime::GpuDriver {
 public:
  explicit EmulatedDriver(const kernel::KernelProgram& program) : jit_(lower::HostJit::compile(program)) {
    for (size_t k = 0; k < program.kernels.size(); ++k) {
      kernel_of_symbol_[lower::kernel_symbol(program, k)] = k;
      units_.push_back(lower::parallel_units(program.kernels[k]));
    }
  }
  std::string device_name() const override { return "emulated"; }
  std::string arch() const override { return "sm_80"; }
  void make_current() override {}

  runtime::DevicePtr alloc(size_t bytes) override {
    auto block = std::make_unique<runtime::AlignedBuffer>(bytes);
    const auto p = reinterpret_cast<runtime::DevicePtr>(block->data());
    live_[p] = std::move(block);
    return p;
  }
  void free(runtime::DevicePtr p) noexcept override { freed_ += live_.erase(p); }
  void copy_in(runtime::DevicePtr dst, const void* src, size_t bytes) override {
    ASSERT_TRUE(inside_allocation(dst, bytes));
    std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
  }
  void copy_out(void* dst, runtime::DevicePtr src, size_t bytes) override {
    ASSERT_TRUE(inside_allocation(src, bytes));
    std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
  }

  void* load_module(std::span<const uint8_t> image) override {
    ptx_.assign(image.begin(), image.end());
    return this;
  }
  void unload_module(void*) noexcept override { ++unloads_; }
  void* function(void* module, const std::string& name) override {
    EXPECT_EQ(module, this);
    auto it = kernel_of_symbol_.find(name);
    if (it == kernel_of_symbol_.end()) throw runtime::DeviceError("no kernel " + name);
    EXPECT_NE(ptx_.find(".entry " + name), std::string::npos) << name;
    return reinterpret_cast<void*>(it->second + 1);
  }
  void launch(void* fn, const lower::LaunchConfig& config, runtime::DevicePtr buffers) override {
    EXPECT_GT(config.block[0], 0u);
    const size_t k = reinterpret_cast<size_t>(fn) - 1;
    ASSERT_TRUE(live_.count(buffers)) << "the kernel argument is not the device pointer array";
    jit_->kernel(k)(reinterpret_cast<void* const*>(buffers), 0, units_[k]);
    ++launches_;
  }

  void* create_event() override { return &events_[created_events_++ % 2]; }
  void destroy_event(void*) noexcept override { ++destroyed_events_; }
  void record(void*) override { ++records_; }
  float elapsed_ms(void*, void*) override { return 0.25f; }

  size_t live_allocations() const { return live_.size(); }
  size_t freed_ = 0, unloads_ = 0, launches_ = 0, records_ = 0, created_events_ = 0, destroyed_events_ = 0;

 private:
  bool inside_allocation(runtime::DevicePtr p, size_t bytes) const {
    for (const auto& [base, block] : live_)
      if (p >= base && p + bytes <= base + std::max<size_t>(block->size(), 1)) return true;
    return false;
  }
  std::unique_ptr<lower::HostJit> jit_;
  std::map<std::string, size_t> kernel_of_symbol_;
  std::vector<int64_t> units_;
  std::map<runtime::DevicePtr, std::unique_ptr<runtime::AlignedBuffer>> live_;
  std::string ptx_;
  char events_[2] = {};
};

TEST(GpuProgram, RunsEveryExampleThroughAnEmulatedDriver) {
  for (const std::string& name : fusion_testing::example_names()) {
    SCOPED_TRACE(name);
    const ir::Graph g = fusion_testing::scaled_example(name);
    const smelt::FusionResult fused = smelt::fuse(g);
    for (const kernel::KernelProgram* program : {&fused.after, &fused.before}) {
      auto driver = std::make_shared<EmulatedDriver>(*program);
      {
        runtime::Executable exe(*program, std::make_shared<runtime::GpuDevice>(lower::Target::kCuda, driver));
        EXPECT_EQ(exe.device().description(), "cuda: emulated (sm_80)");
        const auto inputs = smelt::random_inputs(g, 3);
        EXPECT_EQ(ir::compare_outputs(smelt::reference(g, inputs), exe.run(inputs)), "");
        EXPECT_EQ(driver->launches_, program->kernels.size());
        EXPECT_EQ(driver->records_, 2u);  // start and stop around the launches
        const std::vector<double> seconds = exe.benchmark(inputs, 2);
        EXPECT_EQ(seconds, (std::vector<double>{0.25e-3, 0.25e-3}));  // the events' time, not the wall clock
      }
      // Everything the program allocated is freed with it, the module unloaded.
      EXPECT_EQ(driver->live_allocations(), 0u);
      EXPECT_EQ(driver->unloads_, 1u);
      EXPECT_EQ(driver->destroyed_events_, 2u);
    }
  }
}

}  // namespace
}  // namespace smelt
