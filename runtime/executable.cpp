#include "runtime/executable.h"

#include "runtime/tensor_bytes.h"

namespace runtime {
namespace {

// Buffer index of each io_index of `kind`; a program without a buffer for
// some io_index is malformed.
std::vector<int> buffers_by_io_index(const ir::KernelProgram& program, ir::BufferKind kind, const char* what) {
  std::vector<int> by_index;
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const ir::Buffer& buffer = program.buffers[b];
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

Executable::Executable(ir::KernelProgram program, std::shared_ptr<Device> device)
    : program_(std::move(program)), device_(std::move(device)) {
  ir::validate(program_);
  input_buffers_ = buffers_by_io_index(program_, ir::BufferKind::kInput, "input");
  output_buffers_ = buffers_by_io_index(program_, ir::BufferKind::kOutput, "output");
  plan_ = plan_buffers(program_);
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
    const ir::Buffer& buffer = program_.buffers[input_buffers_[i]];
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
  write_inputs(inputs);
  loaded_->run_kernels();
  std::vector<ir::HostTensor> outputs;
  for (int b : output_buffers_) {
    const ir::TensorType& type = program_.buffers[b].type;
    std::vector<uint8_t> bytes(storage_bytes(type));
    loaded_->read_output(b, bytes);
    outputs.push_back(from_bytes(type, bytes));
  }
  return outputs;
}

std::vector<double> Executable::benchmark(const std::vector<ir::HostTensor>& inputs, int reps, int warmup) {
  if (reps < 1) throw std::invalid_argument("benchmark: reps must be at least 1");
  if (warmup < 0) throw std::invalid_argument("benchmark: warmup must not be negative");
  write_inputs(inputs);
  for (int w = 0; w < warmup; ++w) loaded_->run_kernels();
  std::vector<double> seconds;
  for (int r = 0; r < reps; ++r) seconds.push_back(loaded_->run_kernels());
  return seconds;
}

}  // namespace runtime
