#pragma once
// `smelt run` on a compiled target (host | cuda | hip): fuse, lower, run, and
// with --check compare every output with the reference interpreter.
#include <vector>

#include "cli/commands.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"

namespace cli {

// The graph's inputs: random (reproducible from options.seed) or one
// `<input name>.npy` per input from the folder options.inputs. A missing or
// mismatching file throws NpyError naming it.
std::vector<ir::HostTensor> run_inputs(const ir::Graph& g, const RunOptions& options);

// A missing device is bad input (exit 1) with one line saying what is
// missing; a mismatch under --check is exit 1 too.
int run_compiled_command(const RunOptions& options);

}  // namespace cli
