#include "tests/lower/jit_runner.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "lower/lower.h"

namespace smelt::testing {

std::vector<ir::HostTensor> run_on_host_jit(const kernel::KernelProgram& program, const std::vector<ir::HostTensor>& inputs,
                                            int64_t units_per_call) {
  std::unique_ptr<lower::HostJit> jit = lower::HostJit::compile(program);
  std::vector<std::vector<uint8_t>> storage;
  for (const kernel::Buffer& buffer : program.buffers) {
    if (buffer.kind == kernel::BufferKind::kInput) {
      const ir::HostTensor& given = inputs.at(static_cast<size_t>(buffer.io_index));
      if (!(given.type == buffer.type)) throw std::invalid_argument("input " + buffer.name + ": wrong type");
      storage.push_back(to_bytes(given));
    } else if (buffer.kind == kernel::BufferKind::kConstant) {
      storage.push_back(to_bytes(ir::HostTensor::from_values(buffer.type, buffer.values)));
    } else {
      storage.push_back(to_bytes(ir::HostTensor::zeros(buffer.type)));
    }
  }
  std::vector<void*> pointers;
  for (auto& bytes : storage) pointers.push_back(bytes.data());
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const int64_t units = lower::parallel_units(program.kernels[k]);
    const int64_t step = units_per_call > 0 ? units_per_call : std::max<int64_t>(units, 1);
    for (int64_t begin = 0; begin < units; begin += step)
      jit->kernel(k)(pointers.data(), begin, std::min(units, begin + step));
  }
  std::vector<std::pair<int, size_t>> outputs;
  for (size_t b = 0; b < program.buffers.size(); ++b)
    if (program.buffers[b].kind == kernel::BufferKind::kOutput) outputs.emplace_back(program.buffers[b].io_index, b);
  std::sort(outputs.begin(), outputs.end());
  std::vector<ir::HostTensor> result;
  for (auto [io_index, b] : outputs) result.push_back(from_bytes(program.buffers[b].type, storage[b]));
  return result;
}

bool uses_tiled_contraction(const kernel::KernelProgram& program) {
  return lower::emit_llvm_ir(program, {}).find("@llvm.fma.v16f32") != std::string::npos;
}

}  // namespace smelt::testing
