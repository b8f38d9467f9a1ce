#pragma once
// Executes a KernelProgram directly, element by element, before any LLVM: the
// check that every fused program computes what the reference interpreter does.
#include <vector>

#include "ir/host_tensor.h"
#include "ir/kernel.h"

namespace smelt::ir {

// `inputs` match the program's input buffers by io_index; returns the output
// buffers ordered by io_index. Throws std::invalid_argument on a malformed
// program or inputs of the wrong type.
std::vector<HostTensor> run_kernels(const KernelProgram& program, const std::vector<HostTensor>& inputs);

}  // namespace smelt::ir
