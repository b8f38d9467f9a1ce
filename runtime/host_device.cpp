#include "runtime/host_device.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "kernel/host_plan.h"
#include "runtime/aligned_buffer.h"
#include "runtime/tensor_bytes.h"

namespace smelt::runtime {
namespace {

// Calls a kernel the JIT compiled. Clang's -fsanitize=function (UBSan in the
// fuzz build) reads a type signature just before the callee's address: JIT
// code has none, and the page before a kernel may be unmapped (a SEGV the
// fuzzer met after a thousand programs).
#if defined(__clang__)
__attribute__((no_sanitize("function")))
#endif
void call_kernel(lower::HostJit::KernelFn fn, void* const* buffers, int64_t begin, int64_t end) {
  fn(buffers, begin, end);
}

class HostProgram : public LoadedProgram {
 public:
  HostProgram(const kernel::KernelProgram& program, const BufferPlan& plan, std::shared_ptr<ThreadPool> pool)
      : jit_(lower::HostJit::compile(program)), pool_(std::move(pool)), arena_(plan.arena_bytes) {
    pointers_.resize(program.buffers.size());
    own_.resize(program.buffers.size());
    for (size_t b = 0; b < program.buffers.size(); ++b) {
      const kernel::Buffer& buffer = program.buffers[b];
      const BufferSlot& slot = plan.slots[b];
      if (slot.pooled) {
        pointers_[b] = arena_.data() + slot.offset;
        continue;
      }
      own_[b] = AlignedBuffer(slot.bytes);
      pointers_[b] = own_[b].data();
      if (buffer.kind == kernel::BufferKind::kConstant)
        write_tensor(ir::HostTensor::from_values(buffer.type, buffer.values), {own_[b].data(), slot.bytes});
    }
    for (size_t k = 0; k < program.kernels.size(); ++k) {
      const kernel::HostSplit split = kernel::host_split(program.kernels[k], pool_->threads());
      kernels_.push_back({jit_->kernel(k), split.units, split.min_chunk});
    }
  }

  void write_input(size_t buffer, std::span<const uint8_t> bytes) override {
    const size_t size = std::min(bytes.size(), own_.at(buffer).size());
    if (size > 0) std::memcpy(own_[buffer].data(), bytes.data(), size);  // empty tensors may have no storage
  }

  double run_kernels(std::span<double> each_kernel_s) override {
    if (!each_kernel_s.empty() && each_kernel_s.size() != kernels_.size())
      throw std::invalid_argument("run_kernels: one time slot per kernel");
    const auto start = std::chrono::steady_clock::now();
    auto kernel_start = start;
    void* const* buffers = pointers_.data();
    for (size_t i = 0; i < kernels_.size(); ++i) {
      const KernelLaunch& k = kernels_[i];
      lower::HostJit::KernelFn fn = k.fn;
      pool_->parallel_for(k.units, k.min_chunk,
                          [fn, buffers](int64_t begin, int64_t end) { call_kernel(fn, buffers, begin, end); });
      if (each_kernel_s.empty()) continue;
      const auto now = std::chrono::steady_clock::now();
      each_kernel_s[i] = std::chrono::duration<double>(now - kernel_start).count();
      kernel_start = now;
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  double run_kernels_with(std::span<const std::pair<size_t, void*>> buffers) override {
    std::vector<std::pair<size_t, void*>> own;
    for (const auto& [b, memory] : buffers) {
      own.emplace_back(b, pointers_.at(b));
      pointers_[b] = memory;
    }
    struct Restore {
      std::vector<void*>& pointers;
      std::vector<std::pair<size_t, void*>>& own;
      ~Restore() {
        for (const auto& [b, memory] : own) pointers[b] = memory;
      }
    } restore{pointers_, own};
    return run_kernels({});
  }

  void read_output(size_t buffer, std::span<uint8_t> bytes) override {
    const size_t size = std::min(bytes.size(), own_.at(buffer).size());
    if (size > 0) std::memcpy(bytes.data(), own_[buffer].data(), size);
  }

 private:
  struct KernelLaunch {
    lower::HostJit::KernelFn fn;
    int64_t units, min_chunk;
  };
  std::unique_ptr<lower::HostJit> jit_;
  std::shared_ptr<ThreadPool> pool_;
  AlignedBuffer arena_;
  std::vector<AlignedBuffer> own_;  // by buffer; empty for pooled ones
  std::vector<void*> pointers_;     // by buffer: what the kernels see
  std::vector<KernelLaunch> kernels_;
};

}  // namespace

int64_t min_units_per_chunk(const kernel::Kernel& kernel, int64_t units, unsigned threads) {
  return kernel::host_min_units_per_chunk(kernel, units, threads);
}

HostDevice::HostDevice(unsigned threads) : pool_(std::make_shared<ThreadPool>(threads)) {}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, name, family, model;
  auto value = [&line] {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) return std::string();
    const size_t begin = line.find_first_not_of(" \t", colon + 1);
    return begin == std::string::npos ? std::string() : line.substr(begin);
  };
  auto key_is = [&line](const std::string& key) {
    return line.rfind(key, 0) == 0 && line.find_first_not_of(" \t", key.size()) == line.find(':');
  };
  while (std::getline(in, line) && !line.empty()) {  // the first processor's block
    if (key_is("model name")) name = value();
    else if (key_is("cpu family")) family = value();
    else if (key_is("model")) model = value();
  }
  if (name.empty()) return "unknown";
  // A VM's model name may be only the vendor's line: "AMD EPYC" was a Zen 3
  // (family 25, model 1: AVX2) on one machine of this kind and a Zen 4
  // (family 25, model 17: AVX-512, products 1.4x faster) on another, so a
  // profile is measured for, and chosen by, the name with its family and model.
  if (!family.empty() && !model.empty()) name += " (family " + family + ", model " + model + ")";
  return name;
}

std::string HostDevice::description() const {
  const unsigned n = pool_->threads();
  return "host (" + std::to_string(n) + (n == 1 ? " thread)" : " threads)");
}

std::unique_ptr<LoadedProgram> HostDevice::load(const kernel::KernelProgram& program, const BufferPlan& plan) {
  return std::make_unique<HostProgram>(program, plan, pool_);
}

}  // namespace smelt::runtime
