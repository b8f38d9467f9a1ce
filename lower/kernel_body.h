#pragma once
// Kernels that compute the same thing on other buffers (the layers of a deep
// model, one kernel per op of a long chain) need one body of code, not one
// each: LLVM's O3 pipeline costs milliseconds per function (10,000 negations,
// one kernel each: 89 s and 714 MB of LLVM). A kernel's body is a function of
// the buffers it touches, numbered locally; its key tells bodies apart.
#include <cstddef>
#include <string>
#include <vector>

#include "kernel/kernel.h"

namespace smelt::lower {

struct KernelBody {
  kernel::KernelProgram program;  // the kernel alone, over the buffers it touches (in program order; no constant values)
  std::vector<int> buffers;   // the program's buffer of each local one
  // Equal keys, equal code: the kernel's structure exactly (constants by
  // their bits), each local buffer's dtype, shape and kind, and a constant
  // buffer by its place in the program (code may cache what it read from one:
  // a matmul packs a constant B once).
  std::string key;
};

KernelBody kernel_body(const kernel::KernelProgram& program, size_t kernel);

}  // namespace smelt::lower
