// Devices: the host always runs; CUDA and HIP either run the program (a GPU is
// present) or say in one line what is missing.
#include "runtime/device.h"
#include "runtime/dynamic_library.h"

#include <dlfcn.h>
#include <fstream>
#include <gtest/gtest.h>

#include "ir/tensor_compare.h"
#include "runtime/executable.h"
#include "smelt/smelt.h"
#include "tests/fusion/fusion_test_util.h"

namespace smelt {
namespace {

bool library_opens(const char* name) {
  void* handle = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (handle) ::dlclose(handle);
  return handle != nullptr;
}

// Opens the device or skips the test, checking the reason is one clear line.
std::shared_ptr<runtime::Device> open_or_skip(lower::Target target) {
  try {
    return runtime::open_device(target);
  } catch (const runtime::DeviceUnavailable& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(runtime::target_name(target) + ": ", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    return nullptr;
  }
}

TEST(Device, MissingCudaDriverIsOneClearLine) {
  if (library_opens("libcuda.so.1")) GTEST_SKIP() << "an NVIDIA driver is installed here";
  try {
    runtime::open_device(lower::Target::kCuda);
    FAIL() << "opened cuda without a driver";
  } catch (const runtime::DeviceUnavailable& e) {
    EXPECT_STREQ(e.what(), "cuda: libcuda.so.1 not found (no NVIDIA driver on this machine)");
  }
}

TEST(Device, MissingHipRuntimeIsOneClearLine) {
  if (library_opens("libamdhip64.so") || library_opens("libamdhip64.so.6") || library_opens("libamdhip64.so.5"))
    GTEST_SKIP() << "a HIP runtime is installed here";
  try {
    runtime::open_device(lower::Target::kHip);
    FAIL() << "opened hip without a runtime";
  } catch (const runtime::DeviceUnavailable& e) {
    EXPECT_STREQ(e.what(), "hip: libamdhip64.so not found (no ROCm HIP runtime on this machine)");
  }
}

TEST(Device, TheFailureIsRepeatable) {
  // The driver is looked up once per process; asking again gives the same answer.
  std::string first, second;
  try { runtime::open_device(lower::Target::kCuda); } catch (const runtime::DeviceUnavailable& e) { first = e.what(); }
  try { runtime::open_device(lower::Target::kCuda); } catch (const runtime::DeviceUnavailable& e) { second = e.what(); }
  EXPECT_EQ(first, second);
}

// A library in a link-map namespace of its own (how HIP is opened) answers
// its symbols like one opened into the process's; a missing one says why.
TEST(DynamicLibrary, OwnNamespaceLoadsAndBindsSymbols) {
  using runtime::DynamicLibrary;
  DynamicLibrary zlib = DynamicLibrary::open({"libz.so.1"}, DynamicLibrary::Namespace::kOwn);
  ASSERT_TRUE(zlib.loaded()) << zlib.error();
  auto version = reinterpret_cast<const char* (*)()>(zlib.symbol("zlibVersion"));
  ASSERT_NE(version, nullptr);
  EXPECT_EQ(std::string(version()).substr(0, 2), "1.");
  DynamicLibrary missing = DynamicLibrary::open({"libsmelt-no-such-library.so"}, DynamicLibrary::Namespace::kOwn);
  EXPECT_FALSE(missing.loaded());
  EXPECT_NE(missing.error().find("libsmelt-no-such-library.so"), std::string::npos) << missing.error();
}

TEST(Device, HostAlwaysOpens) {
  runtime::DeviceOptions options;
  options.threads = 3;
  auto host = runtime::open_device(lower::Target::kHost, options);
  EXPECT_EQ(host->target(), lower::Target::kHost);
  EXPECT_EQ(host->description(), "host (3 threads)");
}

// The host's processor names its family and model where /proc/cpuinfo has
// them (two CPUs of one model name, "AMD EPYC": a Zen 3 and a Zen 4, are
// costed with different profiles), and is the model name alone where it has
// not (an ARM kernel's /proc/cpuinfo has no cpu family).
TEST(Device, TheHostProcessorCarriesItsFamilyAndModel) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  bool numbered = false;
  while (std::getline(in, line) && !line.empty()) numbered = numbered || line.rfind("cpu family", 0) == 0;
  const std::string cpu = runtime::open_device(lower::Target::kHost, {})->processor();
  ASSERT_FALSE(cpu.empty());
  EXPECT_EQ(cpu.find(" (family ") != std::string::npos, numbered) << cpu;
  if (numbered) {
    EXPECT_NE(cpu.find(", model "), std::string::npos) << cpu;
    EXPECT_EQ(cpu.back(), ')') << cpu;
  }
}

// On a machine with a GPU: every example, fused, matches the reference.
void expect_examples_match_on(lower::Target target) {
  std::shared_ptr<runtime::Device> device = open_or_skip(target);
  if (!device) GTEST_SKIP() << runtime::target_name(target) << " is not available here";
  for (const std::string& name : fusion_testing::example_names()) {
    SCOPED_TRACE(name);
    // Gemm-heavy examples scaled down, as on the host (executable_test.cpp).
    const ir::Graph g = fusion_testing::scaled_example(name);
    const auto inputs = smelt::random_inputs(g, 1);
    runtime::Executable exe(smelt::fuse(g).after, device);
    EXPECT_EQ(ir::compare_outputs(smelt::reference(g, inputs), exe.run(inputs)), "");
    const std::vector<double> times = exe.benchmark(inputs, 3);
    ASSERT_EQ(times.size(), 3u);
    for (double t : times) EXPECT_GT(t, 0);
  }
}

TEST(Device, CudaRunsEveryExampleWhereAGpuIsPresent) { expect_examples_match_on(lower::Target::kCuda); }
TEST(Device, HipRunsEveryExampleWhereAGpuIsPresent) { expect_examples_match_on(lower::Target::kHip); }

}  // namespace
}  // namespace smelt
