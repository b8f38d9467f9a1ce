#include "runtime/cuda_driver.h"

#include <vector>

#include "runtime/device.h"
#include "runtime/driver_api.h"
#include "runtime/dynamic_library.h"

namespace smelt::runtime {
namespace {

// The driver's types, declared here (cuda.h is not needed): handles are
// opaque pointers, a device is an int ordinal, results are enum ints.
using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUevent = void*;
using CUstream = void*;
using CUdeviceptr = unsigned long long;

constexpr CUresult kCudaSuccess = 0;
constexpr CUresult kCudaErrorNoDevice = 100;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSizeBytes = 6;

struct CudaApi {
  DynamicLibrary library;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void**, void**) = nullptr;
  CUresult (*cuEventCreate)(CUevent*, unsigned) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;
};

std::unique_ptr<CudaApi> load_cuda_api() {
  auto api = std::make_unique<CudaApi>(CudaApi{DynamicLibrary::open({"libcuda.so.1", "libcuda.so"})});
  if (!api->library.loaded())
    throw DeviceUnavailable("cuda: libcuda.so.1 not found (no NVIDIA driver on this machine)");
  const DriverSymbols symbols{api->library, "cuda", " (driver too old)"};
  symbols.bind(api->cuInit, {"cuInit"});
  symbols.bind(api->cuGetErrorString, {"cuGetErrorString"});
  symbols.bind(api->cuDeviceGetCount, {"cuDeviceGetCount"});
  symbols.bind(api->cuDeviceGet, {"cuDeviceGet"});
  symbols.bind(api->cuDeviceGetName, {"cuDeviceGetName"});
  symbols.bind(api->cuDeviceGetAttribute, {"cuDeviceGetAttribute"});
  symbols.bind(api->cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
  symbols.bind(api->cuDevicePrimaryCtxRelease, {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"});
  symbols.bind(api->cuCtxSetCurrent, {"cuCtxSetCurrent"});
  symbols.bind(api->cuModuleLoadDataEx, {"cuModuleLoadDataEx"});
  symbols.bind(api->cuModuleUnload, {"cuModuleUnload"});
  symbols.bind(api->cuModuleGetFunction, {"cuModuleGetFunction"});
  symbols.bind(api->cuMemAlloc, {"cuMemAlloc_v2"});
  symbols.bind(api->cuMemFree, {"cuMemFree_v2"});
  symbols.bind(api->cuMemcpyHtoD, {"cuMemcpyHtoD_v2"});
  symbols.bind(api->cuMemcpyDtoH, {"cuMemcpyDtoH_v2"});
  symbols.bind(api->cuLaunchKernel, {"cuLaunchKernel"});
  symbols.bind(api->cuEventCreate, {"cuEventCreate"});
  symbols.bind(api->cuEventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"});
  symbols.bind(api->cuEventRecord, {"cuEventRecord"});
  symbols.bind(api->cuEventSynchronize, {"cuEventSynchronize"});
  symbols.bind(api->cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  return api;
}

const CudaApi& cuda_api() { return load_once(load_cuda_api); }

class CudaDriver : public GpuDriver {
 public:
  explicit CudaDriver(const std::string& arch) : api_(cuda_api()) {
    const CUresult init = api_.cuInit(0);
    if (init == kCudaErrorNoDevice) throw DeviceUnavailable("cuda: no CUDA device on this machine");
    if (init != kCudaSuccess) throw DeviceUnavailable("cuda: cuInit failed: " + message(init));
    int count = 0;
    if (api_.cuDeviceGetCount(&count) != kCudaSuccess || count == 0)
      throw DeviceUnavailable("cuda: no CUDA device on this machine");
    check(api_.cuDeviceGet(&device_, 0), "cuDeviceGet");
    char name[256] = {};
    check(api_.cuDeviceGetName(name, sizeof name - 1, device_), "cuDeviceGetName");
    name_ = name;
    int major = 0, minor = 0;
    check(api_.cuDeviceGetAttribute(&major, kAttrComputeCapabilityMajor, device_), "cuDeviceGetAttribute");
    check(api_.cuDeviceGetAttribute(&minor, kAttrComputeCapabilityMinor, device_), "cuDeviceGetAttribute");
    if (major < 8)
      throw DeviceUnavailable("cuda: " + name_ + " has compute capability " + std::to_string(major) + "." +
                              std::to_string(minor) + "; smelt's PTX needs sm_80 or newer");
    arch_ = !arch.empty() ? arch : major >= 9 ? "sm_90" : "sm_80";
    check(api_.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
    make_current();
  }
  ~CudaDriver() override { api_.cuDevicePrimaryCtxRelease(device_); }

  std::string device_name() const override { return name_; }
  std::string arch() const override { return arch_; }
  void make_current() override { check(api_.cuCtxSetCurrent(context_), "cuCtxSetCurrent"); }

  DevicePtr alloc(size_t bytes) override {
    CUdeviceptr p = 0;
    // A zero-size tensor still gets a distinct, valid pointer.
    check(api_.cuMemAlloc(&p, bytes == 0 ? 4 : bytes), "cuMemAlloc_v2 (" + std::to_string(bytes) + " bytes)");
    return p;
  }
  void free(DevicePtr p) noexcept override { api_.cuMemFree(p); }
  void copy_in(DevicePtr dst, const void* src, size_t bytes) override {
    if (bytes) check(api_.cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD_v2");
  }
  void copy_out(void* dst, DevicePtr src, size_t bytes) override {
    if (bytes) check(api_.cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH_v2");
  }

  void* load_module(std::span<const uint8_t> image) override {
    // PTX is loaded as a NUL-terminated string; the JIT's log explains a rejection.
    std::string ptx(image.begin(), image.end());
    std::vector<char> log(8192, '\0');
    int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes};
    void* values[] = {log.data(), reinterpret_cast<void*>(log.size() - 1)};
    CUmodule module = nullptr;
    const CUresult r = api_.cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values);
    if (r != kCudaSuccess)
      throw DeviceError("cuda: cuModuleLoadDataEx: " + message(r) + (log[0] ? ": " + std::string(log.data()) : ""));
    return module;
  }
  void unload_module(void* module) noexcept override { api_.cuModuleUnload(module); }
  void* function(void* module, const std::string& name) override {
    CUfunction fn = nullptr;
    check(api_.cuModuleGetFunction(&fn, module, name.c_str()), "cuModuleGetFunction(" + name + ")");
    return fn;
  }
  void launch(void* fn, const lower::LaunchConfig& c, DevicePtr buffers) override {
    CUdeviceptr arg = buffers;
    void* params[] = {&arg};
    check(api_.cuLaunchKernel(fn, c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1], c.block[2],
                              c.shared_bytes, nullptr, params, nullptr),
          "cuLaunchKernel");
  }

  void* create_event() override {
    CUevent e = nullptr;
    check(api_.cuEventCreate(&e, 0), "cuEventCreate");
    return e;
  }
  void destroy_event(void* event) noexcept override { api_.cuEventDestroy(event); }
  void record(void* event) override { check(api_.cuEventRecord(event, nullptr), "cuEventRecord"); }
  float elapsed_ms(void* start, void* stop) override {
    // Errors of the launches surface here, where the stream is waited on.
    check(api_.cuEventSynchronize(stop), "cuEventSynchronize (after the kernels)");
    float ms = 0;
    check(api_.cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
    return ms;
  }

 private:
  std::string message(CUresult r) const {
    const char* text = nullptr;
    if (api_.cuGetErrorString(r, &text) != kCudaSuccess || !text) return "CUDA error " + std::to_string(r);
    return text;
  }
  void check(CUresult r, const std::string& call) const {
    if (r != kCudaSuccess) throw DeviceError("cuda: " + call + ": " + message(r));
  }

  const CudaApi& api_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  std::string name_, arch_;
};

}  // namespace

std::unique_ptr<GpuDriver> open_cuda_driver(const std::string& arch) { return std::make_unique<CudaDriver>(arch); }

}  // namespace smelt::runtime
