#pragma once
// ONNX model (opset 13 and later) -> smelt::ir::Graph. Initializers become constants (or
// inputs), Constant / ConstantOfShape / Shape / Range and anything computed only from
// them are folded at import, numpy broadcasting becomes explicit `broadcast` ops, and
// the ops smelt lacks (Softmax, LayerNormalization, Gemm's alpha/beta/trans, ...) are
// decomposed into smelt ops with the same semantics. Anything else is an error naming
// the node, the op and the attribute: UnsupportedError (import/import_error.h).
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/host_tensor.h"

namespace smelt::importer {

struct ImportOptions {
  // Initializers become graph inputs (after the model's own inputs) instead of constants.
  bool initializers_as_inputs = false;
  // Graph inputs bound to values at import time: they become constants. The test
  // runner binds inputs that feed shapes (Reshape's shape, Slice's bounds, ...).
  std::map<std::string, ir::HostTensor> static_inputs;
};

struct ImportResult {
  ir::Graph graph;
  // The ONNX names of graph.inputs() and graph.outputs(), in order.
  std::vector<std::string> input_names, output_names;
};

// Throws ImportError (unreadable or malformed model) or UnsupportedError.
ImportResult import_model_file(const std::string& path, const ImportOptions& options = {});
ImportResult import_model_bytes(const std::string& bytes, const std::string& filename,
                                const ImportOptions& options = {});

// The ONNX op types the importer converts, sorted.
std::vector<std::string> supported_op_types();

struct ModelSummary {
  std::vector<std::string> input_names;  // real inputs (not initializers), in order
  std::vector<std::string> op_types;     // of every node, in order
  // Why the model's inputs or outputs cannot be smelt tensors (a sequence, an
  // optional, a dtype smelt lacks); empty when they can.
  std::string unsupported_signature;
};
// Reads the model without importing it; throws ImportError for an unreadable file.
ModelSummary summarize_model(const std::string& path);

}  // namespace smelt::importer
