#pragma once
// Executes a KernelProgram directly, element by element, before any LLVM: the
// check that every fused program computes what the reference interpreter does.
#include <vector>

#include "ir/host_tensor.h"
#include "kernel/kernel.h"

namespace smelt::kernel {

// `inputs` match the program's input buffers by io_index; returns the output
// buffers ordered by io_index. Throws std::invalid_argument on a malformed
// program or inputs of the wrong type.
std::vector<ir::HostTensor> run_kernels(const KernelProgram& program, const std::vector<ir::HostTensor>& inputs);

}  // namespace smelt::kernel
