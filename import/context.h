#pragma once
// The state of one import: the graph being built, every ONNX value by name (known
// constants are held as host tensors and only materialized when an op uses them as
// data), and the node being converted, with checked access to its inputs and
// attributes. Converters (convert_*.cpp) see only this.
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "import/import_error.h"
#include "import/onnx_import.h"
#include "ir/builder.h"
#include "onnx/onnx_pb.h"

namespace smelt::importer {

struct OnnxValue {
  std::optional<ir::HostTensor> constant;  // known at import time
  ir::ValueId id = -1;                     // in the graph, once materialized
  ir::TensorType type;
  bool graph_input = false;  // an ONNX graph input (not static)
};

class Context {
 public:
  // `filename` starts every error message.
  Context(ir::Graph& graph, const ImportOptions& options, std::string filename)
      : graph_(graph), options_(options), filename_(std::move(filename)) {}

  ir::Graph& graph() { return graph_; }
  const ImportOptions& options() const { return options_; }
  // The model's version of the default ONNX domain, for converters whose op
  // changed meaning between versions (set before any node is converted).
  void set_opset(int64_t opset) { opset_ = opset; }
  int64_t opset() const { return opset_; }

  // An ONNX value is assigned once: a second definition of `name` (two nodes
  // writing it, a node writing an input) is an ImportError.
  void define(const std::string& name, OnnxValue value);
  bool defined(const std::string& name) const { return values_.count(name) != 0; }
  OnnxValue& value(const std::string& name);
  // The value as a graph tensor, materializing a constant (`full` when all its
  // elements are equal, else a `constant` literal).
  ir::Tensor materialize(OnnxValue& v);
  // The value's contents if they are known at import time: a constant, or a graph
  // value computed from constants only (folded with the reference interpreter).
  std::optional<ir::HostTensor> fold(OnnxValue& v);

  // --- the node being converted
  void begin_node(const onnx::NodeProto& node, int index);
  const onnx::NodeProto& node() const { return *node_; }
  const std::string& op_type() const { return node_->op_type(); }
  // "FILE: node 'name' (Op)" or "FILE: node #3 (Op)"; "FILE" outside a node.
  std::string where() const;
  [[noreturn]] void fail(const std::string& message) const;         // ImportError
  [[noreturn]] void unsupported(const std::string& message) const;  // UnsupportedError

  // Inputs, by position; absent optional inputs have an empty name.
  int num_inputs() const { return node_->input_size(); }
  bool has_input(int i) const { return i < node_->input_size() && !node_->input(i).empty(); }
  void require_inputs(int min_count, int max_count) const;
  ir::Tensor input(int i);
  const ir::TensorType& input_type(int i);
  // A value smelt needs at import time (a shape, axes, bounds): UnsupportedError
  // (naming the graph input, if that is what it is) when it is not known.
  ir::HostTensor static_input(int i, const std::string& what);
  std::vector<int64_t> static_ints(int i, const std::string& what);
  double static_scalar(int i, const std::string& what);

  // Attributes; each read marks the attribute as understood. After the converter
  // runs, an attribute that was never read is an error naming it.
  const onnx::AttributeProto* attribute(const std::string& name);
  int64_t attr_int(const std::string& name, int64_t fallback);
  float attr_float(const std::string& name, float fallback);
  std::string attr_string(const std::string& name, const std::string& fallback);
  std::optional<std::vector<int64_t>> attr_ints(const std::string& name);
  void check_attributes_understood() const;

  // Outputs.
  int num_outputs() const { return node_->output_size(); }
  bool wants_output(int i) const { return i < node_->output_size() && !node_->output(i).empty(); }
  void set_output(int i, ir::Tensor t);
  void set_output_constant(int i, ir::HostTensor t);
  void check_outputs_set() const;

  // --- helpers for converters
  ir::Tensor scalar_like(double v, ir::DType dtype, const ir::Shape& shape);  // full(shape, v)
  ir::Tensor scalar_like(double v, const ir::Tensor& x) { return scalar_like(v, x.dtype(), x.shape()); }
  int64_t normalize_axis(int64_t axis, int64_t rank, const std::string& what) const;

 private:
  ir::Graph& graph_;
  const ImportOptions& options_;
  std::string filename_;
  int64_t opset_ = 0;
  std::unordered_map<std::string, OnnxValue> values_;
  const onnx::NodeProto* node_ = nullptr;
  int node_index_ = 0;
  std::set<std::string> understood_;
  std::set<int> outputs_set_;
};

using Converter = std::function<void(Context&)>;
using ConverterTable = std::unordered_map<std::string, Converter>;

// Each convert_*.cpp registers its ops.
void add_elementwise_converters(ConverterTable& table);
void add_shape_converters(ConverterTable& table);
void add_reduction_converters(ConverterTable& table);
void add_nn_converters(ConverterTable& table);
void add_index_converters(ConverterTable& table);
void add_gather_converters(ConverterTable& table);  // Gather, GatherElements, GatherND
void add_loss_converters(ConverterTable& table);
void add_window_converters(ConverterTable& table);  // Conv, pooling
void add_conv_transpose_converters(ConverterTable& table);
void add_resize_converters(ConverterTable& table);

}  // namespace smelt::importer
