#include "rules/tensor_analysis.h"

#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "rules/scalar_eval.h"

namespace smelt::rules {

using smelt::egraph::EGraph;
using smelt::egraph::Id;
using smelt::egraph::NodeView;

namespace {

// Same number, as a splat means it: bit-identical (−0.0 ≠ 0.0), or both NaN.
bool same_number(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

std::string signature(ir::Op op, const std::vector<ir::TensorType>& types) {
  std::string s = std::string(ir::op_name(op)) + "(";
  for (size_t k = 0; k < types.size(); ++k) s += (k ? ", " : "") + ir::type_str(types[k]);
  return s + ")";
}

// The value of every element of a node's result, from its operands' splats.
std::optional<double> node_splat(ir::Op op, const ir::Attrs& attrs, const ir::TensorType& type,
                                 const std::vector<ir::TensorType>& types,
                                 const std::vector<std::optional<double>>& splats) {
  if (ir::numel(type.shape) == 0) return std::nullopt;  // vacuous: any value would do
  switch (op) {
    case ir::Op::Full:
      return round_to_dtype(attrs.values.at(0), type.dtype);
    case ir::Op::Constant: {
      const double first = round_to_dtype(attrs.values.at(0), type.dtype);
      for (double v : attrs.values)
        if (!same_number(round_to_dtype(v, type.dtype), first)) return std::nullopt;
      return first;
    }
    case ir::Op::Reshape:
    case ir::Op::Permute:
    case ir::Op::Slice:
    case ir::Op::Broadcast:
      return splats[0];
    case ir::Op::Pad: {
      const double pad = round_to_dtype(attrs.values.at(0), type.dtype);
      if (ir::numel(types[0].shape) == 0) return pad;  // nothing but padding
      if (splats[0] && same_number(*splats[0], pad)) return pad;
      return std::nullopt;
    }
    case ir::Op::Concat: {
      std::optional<double> value;
      for (size_t k = 0; k < splats.size(); ++k) {
        if (ir::numel(types[k].shape) == 0) continue;
        if (!splats[k] || (value && !same_number(*value, *splats[k]))) return std::nullopt;
        value = splats[k];
      }
      return value;
    }
    case ir::Op::ReduceMax: {
      for (int64_t axis : attrs.axes)
        if (types[0].shape[axis] == 0) return std::nullopt;  // the empty max is the dtype's lowest
      return splats[0];
    }
    case ir::Op::Where:
      // A known condition picks one branch; the other need not be constant.
      if (splats[0]) return *splats[0] != 0 ? splats[1] : splats[2];
      return std::nullopt;
    default:
      break;
  }
  if (ir::op_class(op) != ir::OpClass::Elementwise) return std::nullopt;
  std::vector<ir::DType> dtypes;
  std::vector<double> values;
  for (size_t k = 0; k < splats.size(); ++k) {
    if (!splats[k]) return std::nullopt;
    dtypes.push_back(types[k].dtype);
    values.push_back(*splats[k]);
  }
  auto folded = eval_scalar(op, attrs, dtypes, values);
  if (!folded) return std::nullopt;
  return folded->value;
}

bool node_cheap(ir::Op op, const std::vector<bool>& cheap_operands) {
  const ir::OpClass c = ir::op_class(op);
  if (c == ir::OpClass::Factory) return true;
  if (c != ir::OpClass::View && c != ir::OpClass::Elementwise) return false;
  for (bool b : cheap_operands)
    if (!b) return false;
  return true;
}

}  // namespace

TensorData TensorAnalysis::make_data(const EGraph& graph, NodeView node) const {
  const std::optional<ir::Op> op = lang_.op_of(node.op);
  if (!op)
    throw std::logic_error("tensor analysis: e-node symbol '" + graph.symbols().name(node.op) +
                           "' is not a tensor op");
  const AttrRecord& record = lang_.record(node.payload);
  if (record.op != *op)
    throw std::logic_error("tensor analysis: e-node " + std::string(ir::op_name(*op)) +
                           " carries the attributes of " + std::string(ir::op_name(record.op)));
  const ir::OpInfo& info = ir::op_info(*op);
  std::vector<ir::TensorType> types;
  std::vector<std::optional<double>> splats;
  std::vector<bool> cheap;
  for (Id child : node.children) {
    const TensorData& d = data(graph, child);
    if (!d.type) throw std::logic_error("tensor analysis: operand class " + std::to_string(child) + " has no type");
    types.push_back(*d.type);
    splats.push_back(d.splat);
    cheap.push_back(d.cheap);
  }
  if (info.arity >= 0 ? types.size() != static_cast<size_t>(info.arity) : types.empty())
    throw std::logic_error("tensor analysis: " + signature(*op, types) + " has the wrong number of operands");
  ir::Attrs attrs = record.attrs;
  ir::Inferred inferred = info.infer(types, attrs);
  if (!inferred.error.empty())
    throw std::logic_error("tensor analysis: e-node " + signature(*op, types) +
                           " does not type-check: " + inferred.error);
  TensorData result;
  result.splat = node_splat(*op, attrs, inferred.type, types, splats);
  result.cheap = result.splat.has_value() || node_cheap(*op, cheap);
  result.type = std::move(inferred.type);
  return result;
}

bool TensorAnalysis::merge_data(TensorData& into, const TensorData& from) const {
  bool changed = false;
  if (from.type) {
    if (!into.type) {
      into.type = from.type;
      changed = true;
    } else if (*into.type != *from.type) {
      throw std::logic_error("tensor analysis: cannot unite an e-class of type " + ir::type_str(*into.type) +
                             " with one of type " + ir::type_str(*from.type));
    }
  }
  // Two known splats of equal tensors are equal; keep the first.
  if (!into.splat && from.splat) {
    into.splat = from.splat;
    changed = true;
  }
  if (!into.cheap && from.cheap) {
    into.cheap = true;
    changed = true;
  }
  return changed;
}

void TensorAnalysis::modify(EGraph& graph, Id cls) {
  const TensorData d = data(graph, cls);  // a copy: adding nodes grows the data table
  if (!d.splat || !d.type || !fits_literal(*d.splat, d.type->dtype)) return;
  ir::Attrs attrs;
  attrs.result = *d.type;
  attrs.values = {*d.splat};
  const uint64_t payload = lang_.payload(ir::Op::Full, attrs);
  const Id full = graph.add(lang_.symbol(ir::Op::Full), payload, {});
  graph.unite(cls, full);
}

const ir::TensorType& TensorAnalysis::type(const EGraph& graph, Id cls) const {
  const TensorData& d = data(graph, cls);
  if (!d.type) throw std::logic_error("tensor analysis: class " + std::to_string(cls) + " has no type");
  return *d.type;
}

EGraph make_tensor_egraph(smelt::egraph::EGraphOptions options) {
  auto analysis = std::make_unique<TensorAnalysis>();
  TensorAnalysis* raw = analysis.get();
  EGraph graph(options, std::move(analysis));
  raw->lang().register_ops(graph.symbols());
  return graph;
}

TensorAnalysis& tensor_analysis(EGraph& graph) {
  auto* a = dynamic_cast<TensorAnalysis*>(graph.analysis());
  if (!a) throw std::logic_error("not a tensor e-graph (make one with make_tensor_egraph)");
  return *a;
}

const TensorAnalysis& tensor_analysis(const EGraph& graph) {
  auto* a = dynamic_cast<const TensorAnalysis*>(graph.analysis());
  if (!a) throw std::logic_error("not a tensor e-graph (make one with make_tensor_egraph)");
  return *a;
}

}  // namespace smelt::rules
