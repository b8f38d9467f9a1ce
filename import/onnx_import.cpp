#include "import/onnx_import.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string_view>

#include "import/context.h"
#include "import/graph_prune.h"
#include "import/op_versions.h"
#include "import/tensor_proto.h"
#include "error/input_file.h"
#include "error/memory_limit.h"

namespace smelt::importer {
namespace {

const ConverterTable& converters() {
  static const ConverterTable table = [] {
    ConverterTable t;
    add_elementwise_converters(t);
    add_shape_converters(t);
    add_reduction_converters(t);
    add_nn_converters(t);
    add_index_converters(t);
    add_gather_converters(t);
    add_loss_converters(t);
    add_window_converters(t);
    add_conv_transpose_converters(t);
    add_resize_converters(t);
    return t;
  }();
  return table;
}

onnx::ModelProto parse_model(std::string_view bytes, const std::string& filename) {
  onnx::ModelProto model;
  if (bytes.size() > static_cast<size_t>(INT32_MAX))
    throw ImportError(filename + ": " + std::to_string(bytes.size()) +
                      " bytes; a protobuf message holds less than 2 GiB (larger models keep their weights in external files, which smelt does not read)");
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) throw ImportError(filename + ": not an ONNX model (protobuf parse failed)");
  if (!model.has_graph()) throw ImportError(filename + ": the model has no graph");
  return model;
}

// The model's version of the default ONNX domain (none when it imports none).
std::optional<int64_t> default_opset(const onnx::ModelProto& model) {
  for (const onnx::OperatorSetIdProto& opset : model.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx") return opset.version();
  return std::nullopt;
}

// What a graph input or output declares: for an input, all of its type (dtype
// and static shape); an output may leave out its type, its shape or any of its
// dimensions (legal ONNX: the imported graph computes them), left empty here.
struct DeclaredType {
  std::optional<ir::DType> dtype;
  std::optional<std::vector<std::optional<int64_t>>> dims;
};

// UnsupportedError for non-tensors and dtypes smelt lacks, ImportError for a
// negative dimension or too many elements (ir::shape_problem); `complete`
// (inputs) also requires the dtype and every dimension as a number.
DeclaredType declared_type(const onnx::ValueInfoProto& info, const std::string& what, bool complete) {
  DeclaredType declared;
  if (!info.has_type()) {
    if (complete) throw ImportError(what + " has no type");
    return declared;
  }
  if (!info.type().has_tensor_type()) throw UnsupportedError(what + " is not a tensor (sequence, map or optional)");
  const onnx::TypeProto::Tensor& tensor = info.type().tensor_type();
  if (tensor.elem_type() != onnx::TensorProto::UNDEFINED || complete) {
    declared.dtype = dtype_from_onnx(tensor.elem_type());
    if (!declared.dtype)
      throw UnsupportedError(what + " has element type " + onnx_type_name(tensor.elem_type()) +
                             " (smelt has f32, f16, bf16, i32, i64, bool)");
  }
  if (!tensor.has_shape()) {
    if (complete) throw UnsupportedError(what + " has no shape; smelt needs static shapes");
    return declared;
  }
  declared.dims.emplace();
  ir::Shape known;  // the dimensions given as numbers
  for (const onnx::TensorShapeProto::Dimension& d : tensor.shape().dim()) {
    if (!d.has_dim_value()) {
      if (complete)
        throw UnsupportedError(what + " has a dynamic dimension '" + d.dim_param() + "'; smelt needs static shapes");
      declared.dims->push_back(std::nullopt);
      continue;
    }
    declared.dims->push_back(d.dim_value());
    known.push_back(d.dim_value());
  }
  if (std::string problem = ir::shape_problem(known); !problem.empty()) throw ImportError(what + ": " + problem);
  return declared;
}

ir::TensorType input_type(const onnx::ValueInfoProto& info, const std::string& what) {
  const DeclaredType declared = declared_type(info, what, /*complete=*/true);
  ir::TensorType type{*declared.dtype, {}};
  for (const std::optional<int64_t>& d : *declared.dims) type.shape.push_back(*d);
  return type;
}

// Whether the computed `type` is what `declared` says, where it says anything.
bool matches(const DeclaredType& declared, const ir::TensorType& type) {
  if (declared.dtype && *declared.dtype != type.dtype) return false;
  if (!declared.dims) return true;
  if (declared.dims->size() != type.shape.size()) return false;
  for (size_t k = 0; k < type.shape.size(); ++k)
    if ((*declared.dims)[k] && *(*declared.dims)[k] != type.shape[k]) return false;
  return true;
}

std::string declared_str(const DeclaredType& declared) {
  std::string text = declared.dtype ? std::string(ir::dtype_name(*declared.dtype)) : "?";
  if (!declared.dims) return text + "[...]";
  text += "[";
  for (size_t k = 0; k < declared.dims->size(); ++k)
    text += (k ? "," : "") + ((*declared.dims)[k] ? std::to_string(*(*declared.dims)[k]) : std::string("?"));
  return text + "]";
}

// OnnxValue names in .sg files: [A-Za-z_][A-Za-z0-9_.]*, unique, not a keyword or dtype.
std::string sg_name(const std::string& onnx_name, const ir::Graph& g) {
  std::string name;
  for (char c : onnx_name) name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ? c : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) || name[0] == '.') name = "v_" + name;
  static const std::set<std::string> reserved = {"graph", "output", "true", "false", "inf", "nan",
                                                 "f32",   "f16",    "bf16", "i32",   "i64", "bool"};
  if (reserved.count(name)) name += "_";
  std::string unique = name;
  for (int n = 2; g.find(unique) >= 0; ++n) unique = name + "_" + std::to_string(n);
  return unique;
}

// Takes the model to free each initializer's bytes once converted: GPT-2's
// peak compile memory 1,817 -> 1,407 MB (its file is 475 MB; 2026-11-30).
ImportResult import_graph(onnx::ModelProto model, const std::string& filename, const ImportOptions& options) {
  const std::optional<int64_t> opset = default_opset(model);
  if (opset && (*opset < 1 || *opset > kNewestOpset))
    throw UnsupportedError(filename + ": opset " + std::to_string(*opset) +
                           " of the default ONNX domain is not supported: smelt imports opsets 1 to " +
                           std::to_string(kNewestOpset) + " (most ops from opset 13 on)");
  const onnx::GraphProto& onnx_graph = model.graph();
  ImportResult result{ir::Graph(onnx_graph.name().empty() ? "onnx" : sg_name(onnx_graph.name(), ir::Graph())), {}, {}};
  ir::Graph& g = result.graph;
  Context ctx(g, options, filename);
  if (opset) ctx.set_opset(*opset);

  std::set<std::string> initializer_names;
  for (const onnx::TensorProto& init : onnx_graph.initializer()) initializer_names.insert(init.name());
  if (onnx_graph.sparse_initializer_size() > 0) throw UnsupportedError(filename + ": sparse initializers");

  for (const onnx::ValueInfoProto& info : onnx_graph.input()) {
    if (initializer_names.count(info.name())) continue;
    const ir::TensorType type = input_type(info, filename + ": graph input '" + info.name() + "'");
    OnnxValue v;
    v.type = type;
    auto bound = options.static_inputs.find(info.name());
    if (bound != options.static_inputs.end()) {
      if (bound->second.type != type)
        throw ImportError(filename + ": the value bound to input '" + info.name() + "' is " +
                          ir::type_str(bound->second.type) + ", the input is " + ir::type_str(type));
      v.constant = bound->second;
    } else {
      v.id = ir::input(g, sg_name(info.name(), g), type.dtype, type.shape);
      v.graph_input = true;
      result.input_names.push_back(info.name());
    }
    ctx.define(info.name(), std::move(v));
  }
  for (onnx::TensorProto& init : *model.mutable_graph()->mutable_initializer()) {
    OnnxValue v;
    ir::HostTensor t = tensor_from_proto(init, filename + ": initializer '" + init.name() + "'");
    if (init.has_raw_data()) std::string().swap(*init.mutable_raw_data());  // clear_raw_data keeps the capacity
    v.type = t.type;
    if (options.initializers_as_inputs) {
      v.id = ir::input(g, sg_name(init.name(), g), t.type.dtype, t.type.shape);
      v.graph_input = true;
      result.input_names.push_back(init.name());
    } else {
      v.constant = std::move(t);
    }
    ctx.define(init.name(), std::move(v));
  }

  for (int i = 0; i < onnx_graph.node_size(); ++i) {
    const onnx::NodeProto& node = onnx_graph.node(i);
    ctx.begin_node(node, i);
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      ctx.unsupported("op domain '" + node.domain() + "' is not supported");
    auto converter = converters().find(node.op_type());
    if (converter == converters().end()) ctx.unsupported("op " + node.op_type() + " is not supported");
    if (!opset) ctx.fail("the model imports no version of the default ONNX domain");
    if (*opset < min_opset_for(node.op_type()))
      ctx.unsupported("the model's opset " + std::to_string(*opset) + " defines " + node.op_type() +
                      " differently; smelt imports its definition from opset " +
                      std::to_string(min_opset_for(node.op_type())) + " on");
    try {
      converter->second(ctx);
    } catch (const ir::ShapeError& e) {
      ctx.fail(e.what());
    } catch (const MemoryLimitError& e) {  // a constant it computes at import time is too large
      throw MemoryLimitError(ctx.where() + ": " + e.subject(), e.needed_bytes(), e.limit_bytes());
    }
    ctx.check_attributes_understood();
    ctx.check_outputs_set();
  }

  std::vector<ir::ValueId> outputs;
  for (const onnx::ValueInfoProto& info : onnx_graph.output()) {
    const std::string what = filename + ": graph output '" + info.name() + "'";
    const DeclaredType declared = declared_type(info, what, /*complete=*/false);
    if (!ctx.defined(info.name())) throw ImportError(what + " is never computed");
    OnnxValue& v = ctx.value(info.name());
    ir::Tensor t = ctx.materialize(v);
    if (!matches(declared, t.type()))
      throw ImportError(what + " is declared " + declared_str(declared) + " but the imported graph computes " +
                        ir::type_str(t.type()));
    outputs.push_back(t.id);
    result.output_names.push_back(info.name());
  }
  if (outputs.empty()) throw ImportError(filename + ": the graph has no outputs");
  std::vector<std::string> output_sg_names;
  for (const std::string& name : result.output_names) output_sg_names.push_back(sg_name(name, ir::Graph()));
  result.graph = prune_dead_values(g, outputs, output_sg_names);
  return result;
}

std::unique_ptr<MappedInputFile> map_file(const std::string& path) {
  try {
    return std::make_unique<MappedInputFile>(path);
  } catch (const InputFileError& e) {
    throw ImportError(e.what());
  }
}

onnx::ModelProto parse_model_file(const std::string& path) {
  // The file is unmapped once parsed: GPT-2's is 475 MB.
  return parse_model(map_file(path)->bytes(), path);
}

}  // namespace

ImportResult import_model_bytes(const std::string& bytes, const std::string& filename, const ImportOptions& options) {
  return import_graph(parse_model(bytes, filename), filename, options);
}

ImportResult import_model_file(const std::string& path, const ImportOptions& options) {
  return import_graph(parse_model_file(path), path, options);
}

std::vector<std::string> supported_op_types() {
  std::vector<std::string> ops;
  for (const auto& entry : converters()) ops.push_back(entry.first);
  std::sort(ops.begin(), ops.end());
  return ops;
}

ModelSummary summarize_model(const std::string& path) {
  onnx::ModelProto model = parse_model_file(path);
  std::set<std::string> initializer_names;
  for (const onnx::TensorProto& init : model.graph().initializer()) initializer_names.insert(init.name());
  ModelSummary summary;
  for (const onnx::ValueInfoProto& info : model.graph().input())
    if (!initializer_names.count(info.name())) summary.input_names.push_back(info.name());
  for (const onnx::NodeProto& node : model.graph().node()) summary.op_types.push_back(node.op_type());
  try {
    for (const onnx::ValueInfoProto& info : model.graph().input())
      if (!initializer_names.count(info.name())) input_type(info, path + ": graph input '" + info.name() + "'");
    for (const onnx::ValueInfoProto& info : model.graph().output())
      declared_type(info, path + ": graph output '" + info.name() + "'", /*complete=*/false);
  } catch (const UnsupportedError& e) {
    summary.unsupported_signature = e.what();
  }
  return summary;
}

}  // namespace smelt::importer
