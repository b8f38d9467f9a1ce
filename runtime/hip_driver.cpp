#include "runtime/hip_driver.h"

#include "runtime/device.h"
#include "runtime/driver_api.h"
#include "runtime/dynamic_library.h"

namespace smelt::runtime {
namespace {

using hipError_t = int;
using hipModule_t = void*;
using hipFunction_t = void*;
using hipEvent_t = void*;
using hipStream_t = void*;

constexpr hipError_t kHipSuccess = 0;
constexpr hipError_t kHipErrorNoDevice = 100;
constexpr int kHipMemcpyHostToDevice = 1;
constexpr int kHipMemcpyDeviceToHost = 2;

struct HipApi {
  DynamicLibrary library;
  hipError_t (*hipInit)(unsigned) = nullptr;
  const char* (*hipGetErrorString)(hipError_t) = nullptr;
  hipError_t (*hipGetDeviceCount)(int*) = nullptr;
  hipError_t (*hipSetDevice)(int) = nullptr;
  hipError_t (*hipDeviceGetName)(char*, int, int) = nullptr;
  hipError_t (*hipModuleLoadData)(hipModule_t*, const void*) = nullptr;
  hipError_t (*hipModuleUnload)(hipModule_t) = nullptr;
  hipError_t (*hipModuleGetFunction)(hipFunction_t*, hipModule_t, const char*) = nullptr;
  hipError_t (*hipMalloc)(void**, size_t) = nullptr;
  hipError_t (*hipFree)(void*) = nullptr;
  hipError_t (*hipMemcpy)(void*, const void*, size_t, int) = nullptr;
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, hipStream_t, void**, void**) = nullptr;
  hipError_t (*hipEventCreate)(hipEvent_t*) = nullptr;
  hipError_t (*hipEventDestroy)(hipEvent_t) = nullptr;
  hipError_t (*hipEventRecord)(hipEvent_t, hipStream_t) = nullptr;
  hipError_t (*hipEventSynchronize)(hipEvent_t) = nullptr;
  hipError_t (*hipEventElapsedTime)(float*, hipEvent_t, hipEvent_t) = nullptr;
};

std::unique_ptr<HipApi> load_hip_api() {
  auto api = std::make_unique<HipApi>(
      HipApi{DynamicLibrary::open({"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"},
                                   DynamicLibrary::Namespace::kOwn)});
  if (!api->library.loaded())
    throw DeviceUnavailable("hip: libamdhip64.so not found (no ROCm HIP runtime on this machine)");
  const DriverSymbols symbols{api->library, "hip"};
  symbols.bind(api->hipInit, {"hipInit"});
  symbols.bind(api->hipGetErrorString, {"hipGetErrorString"});
  symbols.bind(api->hipGetDeviceCount, {"hipGetDeviceCount"});
  symbols.bind(api->hipSetDevice, {"hipSetDevice"});
  symbols.bind(api->hipDeviceGetName, {"hipDeviceGetName"});
  symbols.bind(api->hipModuleLoadData, {"hipModuleLoadData"});
  symbols.bind(api->hipModuleUnload, {"hipModuleUnload"});
  symbols.bind(api->hipModuleGetFunction, {"hipModuleGetFunction"});
  symbols.bind(api->hipMalloc, {"hipMalloc"});
  symbols.bind(api->hipFree, {"hipFree"});
  symbols.bind(api->hipMemcpy, {"hipMemcpy"});
  symbols.bind(api->hipModuleLaunchKernel, {"hipModuleLaunchKernel"});
  symbols.bind(api->hipEventCreate, {"hipEventCreate"});
  symbols.bind(api->hipEventDestroy, {"hipEventDestroy"});
  symbols.bind(api->hipEventRecord, {"hipEventRecord"});
  symbols.bind(api->hipEventSynchronize, {"hipEventSynchronize"});
  symbols.bind(api->hipEventElapsedTime, {"hipEventElapsedTime"});
  return api;
}

const HipApi& hip_api() { return load_once(load_hip_api); }

class HipDriver : public GpuDriver {
 public:
  explicit HipDriver(const std::string& arch) : api_(hip_api()), arch_(arch.empty() ? "gfx90a" : arch) {
    const hipError_t init = api_.hipInit(0);
    if (init == kHipErrorNoDevice) throw DeviceUnavailable("hip: no HIP device on this machine");
    if (init != kHipSuccess) throw DeviceUnavailable("hip: hipInit failed: " + message(init));
    int count = 0;
    if (api_.hipGetDeviceCount(&count) != kHipSuccess || count == 0)
      throw DeviceUnavailable("hip: no HIP device on this machine");
    make_current();
    char name[256] = {};
    check(api_.hipDeviceGetName(name, sizeof name - 1, 0), "hipDeviceGetName");
    name_ = name;
  }

  std::string device_name() const override { return name_; }
  std::string arch() const override { return arch_; }
  void make_current() override { check(api_.hipSetDevice(0), "hipSetDevice"); }

  DevicePtr alloc(size_t bytes) override {
    void* p = nullptr;
    check(api_.hipMalloc(&p, bytes == 0 ? 4 : bytes), "hipMalloc (" + std::to_string(bytes) + " bytes)");
    return reinterpret_cast<DevicePtr>(p);
  }
  void free(DevicePtr p) noexcept override { api_.hipFree(reinterpret_cast<void*>(p)); }
  void copy_in(DevicePtr dst, const void* src, size_t bytes) override {
    if (bytes) check(api_.hipMemcpy(reinterpret_cast<void*>(dst), src, bytes, kHipMemcpyHostToDevice), "hipMemcpy");
  }
  void copy_out(void* dst, DevicePtr src, size_t bytes) override {
    if (bytes)
      check(api_.hipMemcpy(dst, reinterpret_cast<const void*>(src), bytes, kHipMemcpyDeviceToHost), "hipMemcpy");
  }

  void* load_module(std::span<const uint8_t> image) override {
    hipModule_t module = nullptr;
    check(api_.hipModuleLoadData(&module, image.data()), "hipModuleLoadData (code object for " + arch_ + ")");
    return module;
  }
  void unload_module(void* module) noexcept override { api_.hipModuleUnload(module); }
  void* function(void* module, const std::string& name) override {
    hipFunction_t fn = nullptr;
    check(api_.hipModuleGetFunction(&fn, module, name.c_str()), "hipModuleGetFunction(" + name + ")");
    return fn;
  }
  void launch(void* fn, const lower::LaunchConfig& c, DevicePtr buffers) override {
    void* arg = reinterpret_cast<void*>(buffers);
    void* params[] = {&arg};
    check(api_.hipModuleLaunchKernel(fn, c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1], c.block[2],
                                     c.shared_bytes, nullptr, params, nullptr),
          "hipModuleLaunchKernel");
  }

  void* create_event() override {
    hipEvent_t e = nullptr;
    check(api_.hipEventCreate(&e), "hipEventCreate");
    return e;
  }
  void destroy_event(void* event) noexcept override { api_.hipEventDestroy(event); }
  void record(void* event) override { check(api_.hipEventRecord(event, nullptr), "hipEventRecord"); }
  float elapsed_ms(void* start, void* stop) override {
    check(api_.hipEventSynchronize(stop), "hipEventSynchronize (after the kernels)");
    float ms = 0;
    check(api_.hipEventElapsedTime(&ms, start, stop), "hipEventElapsedTime");
    return ms;
  }

 private:
  std::string message(hipError_t r) const {
    const char* text = api_.hipGetErrorString(r);
    return text ? text : "HIP error " + std::to_string(r);
  }
  void check(hipError_t r, const std::string& call) const {
    if (r != kHipSuccess) throw DeviceError("hip: " + call + ": " + message(r));
  }

  const HipApi& api_;
  std::string name_, arch_;
};

}  // namespace

std::unique_ptr<GpuDriver> open_hip_driver(const std::string& arch) { return std::make_unique<HipDriver>(arch); }

}  // namespace smelt::runtime
