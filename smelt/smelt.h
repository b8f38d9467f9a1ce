#pragma once
// smelt's public C++ API. For now: load a graph, make inputs, run it through the
// reference interpreter. Compilation (smelt::compile) arrives with the lowering work.
#include <cstdint>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "ir/interpreter.h"
#include "ir/text_format.h"

namespace smelt {

// Loads a graph from a .sg file. Throws ir::ParseError (FILE:LINE:COL) on bad input.
ir::Graph load_graph(const std::string& path);

// One random tensor per graph input, reproducible from `seed`.
std::vector<ir::HostTensor> random_inputs(const ir::Graph& g, uint64_t seed);

// Evaluates the graph's outputs with the reference interpreter.
std::vector<ir::HostTensor> run_reference(const ir::Graph& g,
                                          const std::vector<ir::HostTensor>& inputs);

}  // namespace smelt
