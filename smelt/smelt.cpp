#include "smelt/smelt.h"

#include <random>

#include "ir/interpreter.h"
#include "error/memory_limit.h"
#include "ir/text_format.h"

namespace smelt {

ir::Graph load_graph(const std::string& path) {
  if (path.ends_with(".onnx")) return import_onnx(path);  // smelt/onnx.cpp
  return ir::parse_graph_file(path);
}

std::vector<ir::HostTensor> random_inputs(const ir::Graph& g, uint64_t seed) {
  uint64_t bytes = 0;
  for (ir::ValueId v : g.inputs()) bytes = add_bytes(bytes, host_tensor_bytes(g.type(v)));
  check_memory(bytes, "generating " + std::to_string(g.inputs().size()) + " random input(s) (8 bytes per element)");
  std::mt19937_64 rng(seed);
  std::vector<ir::HostTensor> inputs;
  for (ir::ValueId v : g.inputs()) inputs.push_back(ir::random_tensor(g.type(v), rng));
  return inputs;
}

std::vector<ir::HostTensor> run_reference(const ir::Graph& g,
                                          const std::vector<ir::HostTensor>& inputs) {
  return ir::interpret(g, inputs);
}

ir::Reference reference(const ir::Graph& g, const std::vector<ir::HostTensor>& inputs) {
  return ir::interpret_with_error_scales(g, inputs);
}

}  // namespace smelt
