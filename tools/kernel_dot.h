#pragma once
// A kernel program as a Graphviz picture (for `smelt compile --dot / --svg`).
#include <string>

#include "kernel/kernel.h"

namespace smelt::tools {

// DOT text: each buffer an ellipse (name, type, kind; inputs, outputs,
// temporaries and constants in different colors), each kernel a box with its
// iteration space and a short summary of what it computes (contractions,
// reductions, elementwise ops; long lists truncated); an edge buffer -> kernel
// for each buffer a kernel loads (labeled ×N when loaded N > 1 times) and
// kernel -> buffer for each store.
std::string kernel_program_dot(const kernel::KernelProgram& program);

}  // namespace smelt::tools
