#include "runtime/executable.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

#include "error/memory_limit.h"
#include "runtime/tensor_bytes.h"

namespace smelt::runtime {
namespace {

// Buffer index of each io_index of `kind`; a program without a buffer for
// some io_index is malformed.
std::vector<int> buffers_by_io_index(const kernel::KernelProgram& program, kernel::BufferKind kind, const char* what) {
  std::vector<int> by_index;
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const kernel::Buffer& buffer = program.buffers[b];
    if (buffer.kind != kind) continue;
    if (buffer.io_index < 0) throw std::invalid_argument(std::string(what) + " buffer " + buffer.name + " has no position");
    if (static_cast<size_t>(buffer.io_index) >= by_index.size()) by_index.resize(buffer.io_index + 1, -1);
    if (by_index[buffer.io_index] != -1)
      throw std::invalid_argument(std::string(what) + " " + std::to_string(buffer.io_index) + " has two buffers");
    by_index[buffer.io_index] = static_cast<int>(b);
  }
  for (size_t i = 0; i < by_index.size(); ++i)
    if (by_index[i] == -1) throw std::invalid_argument(std::string(what) + " " + std::to_string(i) + " has no buffer");
  return by_index;
}

}  // namespace

void Executable::check_run_work(int runs) const {
  const size_t kernels = program_.kernels.size();
  check_work(mul_counts(program_iterations(program_), static_cast<uint64_t>(std::max(runs, 1))),
             (runs > 1 ? std::to_string(runs) + " runs of " : std::string("running ")) + "the program's " +
                 std::to_string(kernels) + (kernels == 1 ? " kernel" : " kernels") + " (loop iterations)");
}

Executable::Executable(kernel::KernelProgram program, std::shared_ptr<Device> device)
    : program_(std::move(program)), device_(std::move(device)) {
  kernel::validate(program_);
  input_buffers_ = buffers_by_io_index(program_, kernel::BufferKind::kInput, "input");
  output_buffers_ = buffers_by_io_index(program_, kernel::BufferKind::kOutput, "output");
  plan_ = plan_buffers(program_);
  uint64_t buffer_bytes = plan_.arena_bytes;  // inputs, outputs and constants have storage of their own
  for (const BufferSlot& slot : plan_.slots)
    if (!slot.pooled) buffer_bytes = add_bytes(buffer_bytes, slot.bytes);
  check_memory(buffer_bytes, "allocating the program's " + std::to_string(program_.buffers.size()) +
                                     " buffer(s) (intermediates sharing " + format_bytes(plan_.arena_bytes) + ")");
  loaded_ = device_->load(program_, plan_);
}

std::vector<ir::TensorType> Executable::input_types() const {
  std::vector<ir::TensorType> types;
  for (int b : input_buffers_) types.push_back(program_.buffers[b].type);
  return types;
}

std::vector<ir::TensorType> Executable::output_types() const {
  std::vector<ir::TensorType> types;
  for (int b : output_buffers_) types.push_back(program_.buffers[b].type);
  return types;
}

void Executable::write_inputs(const std::vector<ir::HostTensor>& inputs) {
  if (inputs.size() != input_buffers_.size())
    throw InputError("the program takes " + std::to_string(input_buffers_.size()) + " inputs, got " +
                     std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const kernel::Buffer& buffer = program_.buffers[input_buffers_[i]];
    if (inputs[i].type != buffer.type)
      throw InputError("input " + std::to_string(i) + " (" + buffer.name + "): expected " + ir::type_str(buffer.type) +
                       ", got " + ir::type_str(inputs[i].type));
    const size_t expected = static_cast<size_t>(inputs[i].numel());
    if ((inputs[i].is_real() ? inputs[i].reals.size() : inputs[i].ints.size()) != expected)
      throw InputError("input " + std::to_string(i) + " (" + buffer.name + "): holds the wrong number of elements");
  }
  for (size_t i = 0; i < inputs.size(); ++i) loaded_->write_input(input_buffers_[i], to_bytes(inputs[i]));
}

std::vector<ir::HostTensor> Executable::run(const std::vector<ir::HostTensor>& inputs) {
  check_run_work(1);
  std::lock_guard lock(run_mutex_);
  write_inputs(inputs);
  loaded_->run_kernels({});
  std::vector<ir::HostTensor> outputs;
  for (int b : output_buffers_) {
    const ir::TensorType& type = program_.buffers[b].type;
    std::vector<uint8_t> bytes(storage_bytes(type));
    loaded_->read_output(b, bytes);
    outputs.push_back(from_bytes(type, bytes));
  }
  return outputs;
}

double Executable::run_into(const std::vector<std::span<const uint8_t>>& inputs,
                            const std::vector<std::span<uint8_t>>& outputs) {
  if (inputs.size() != input_buffers_.size() || outputs.size() != output_buffers_.size())
    throw InputError("the program takes " + std::to_string(input_buffers_.size()) + " inputs and " +
                     std::to_string(output_buffers_.size()) + " outputs, got " + std::to_string(inputs.size()) +
                     " and " + std::to_string(outputs.size()));
  std::vector<std::pair<size_t, void*>> bound;
  struct Range {
    const uint8_t* begin;
    size_t bytes;
    std::string what;
  };
  std::vector<Range> ranges;
  auto bind = [&](int b, const uint8_t* data, size_t bytes, const std::string& what) {
    const kernel::Buffer& buffer = program_.buffers[static_cast<size_t>(b)];
    const size_t want = storage_bytes(buffer.type);
    const std::string name = what + " (" + buffer.name + ", " + ir::type_str(buffer.type) + ")";
    if (bytes != want)
      throw InputError(name + ": " + std::to_string(bytes) + " bytes, expected " + std::to_string(want));
    const size_t element = want / static_cast<size_t>(std::max<int64_t>(1, ir::numel(buffer.type.shape)));
    if (element > 1 && reinterpret_cast<uintptr_t>(data) % element != 0)
      throw InputError(name + ": not aligned to its " + std::to_string(element) + "-byte elements");
    ranges.push_back({data, bytes, name});
    bound.emplace_back(static_cast<size_t>(b), const_cast<uint8_t*>(data));  // inputs are only read
  };
  for (size_t i = 0; i < inputs.size(); ++i) bind(input_buffers_[i], inputs[i].data(), inputs[i].size(), "input " + std::to_string(i));
  const size_t first_output = ranges.size();
  for (size_t i = 0; i < outputs.size(); ++i)
    bind(output_buffers_[i], outputs[i].data(), outputs[i].size(), "output " + std::to_string(i));
  // The kernels are compiled assuming buffers they write do not alias others.
  for (size_t o = first_output; o < ranges.size(); ++o)
    for (size_t r = 0; r < ranges.size(); ++r) {
      if (r == o || ranges[r].bytes == 0 || ranges[o].bytes == 0) continue;
      if (ranges[o].begin < ranges[r].begin + ranges[r].bytes && ranges[r].begin < ranges[o].begin + ranges[o].bytes)
        throw InputError(ranges[o].what + " overlaps " + ranges[r].what);
    }
  check_run_work(1);
  std::lock_guard lock(run_mutex_);
  return loaded_->run_kernels_with(bound);
}

void Executable::prepare_benchmark(const std::vector<ir::HostTensor>& inputs, int reps, int warmup, double warmup_s) {
  if (reps < 1) throw std::invalid_argument("benchmark: reps must be at least 1");
  if (warmup < 0) throw std::invalid_argument("benchmark: warmup must not be negative");
  if (!(warmup_s >= 0) || warmup_s > 3600)
    throw std::invalid_argument("benchmark: warmup_s must be between 0 and 3600 seconds");
  check_run_work(reps + std::max(warmup, warmup_s > 0 ? 1 : 0));
  write_inputs(inputs);
  const auto start = std::chrono::steady_clock::now();
  for (int w = 0; w < warmup; ++w) loaded_->run_kernels({});
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < warmup_s)
    loaded_->run_kernels({});
}

std::vector<double> Executable::benchmark(const std::vector<ir::HostTensor>& inputs, int reps, int warmup,
                                          double warmup_s) {
  std::lock_guard lock(run_mutex_);
  prepare_benchmark(inputs, reps, warmup, warmup_s);
  std::vector<double> seconds;
  for (int r = 0; r < reps; ++r) seconds.push_back(loaded_->run_kernels({}));
  return seconds;
}

std::vector<std::vector<double>> Executable::benchmark_each_kernel(const std::vector<ir::HostTensor>& inputs, int reps,
                                                                   int warmup, double warmup_s) {
  std::lock_guard lock(run_mutex_);
  prepare_benchmark(inputs, reps, warmup, warmup_s);
  std::vector<std::vector<double>> seconds(static_cast<size_t>(reps), std::vector<double>(program_.kernels.size()));
  for (std::vector<double>& run : seconds) loaded_->run_kernels(run);
  return seconds;
}

}  // namespace smelt::runtime
