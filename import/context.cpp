#include "import/context.h"

#include <algorithm>
#include <cmath>

#include "import/tensor_proto.h"
#include "ir/interpreter.h"

namespace smelt::importer {
namespace {

constexpr int64_t kMaxExactInt = int64_t{1} << 53;  // ir literals: i64 values up to 2^53

bool all_equal(const ir::HostTensor& t) {
  for (int64_t i = 1; i < t.numel(); ++i) {
    if (t.is_real() ? !(t.reals[i] == t.reals[0] || (std::isnan(t.reals[i]) && std::isnan(t.reals[0])))
                    : t.ints[i] != t.ints[0])
      return false;
  }
  return true;
}

}  // namespace

void Context::define(const std::string& name, OnnxValue value) {
  if (!values_.emplace(name, std::move(value)).second) {
    const std::string message = "value '" + name + "' is defined twice (an ONNX value has one producer)";
    if (node_) fail(message);
    throw ImportError(where() + ": " + message);
  }
}

OnnxValue& Context::value(const std::string& name) {
  auto it = values_.find(name);
  if (it == values_.end()) fail("input '" + name + "' is not defined by any earlier node, input or initializer");
  return it->second;
}

namespace {
// Constants up to this many elements stay known to the importer after they
// are in the graph (shapes, axes, small tables fold through them).
constexpr int64_t kKeptForFolding = 4096;
}  // namespace

ir::Tensor Context::materialize(OnnxValue& v) {
  if (v.id < 0) {
    const ir::HostTensor& c = *v.constant;
    if (!c.is_real()) {
      for (int64_t x : c.ints)
        if (x > kMaxExactInt || x < -kMaxExactInt)
          unsupported("the constant value " + std::to_string(x) + " is used as data; smelt literals hold |v| <= 2^53");
    }
    if (c.numel() == 0)  // an empty literal has no value to repeat
      v.id = ir::full(graph_, c.type.shape, 0, c.type.dtype);
    else if (c.numel() > 1 && all_equal(c))
      v.id = ir::full(graph_, c.type.shape, c.get(0), c.type.dtype);
    else if (c.is_real() && c.numel() > kKeptForFolding) {
      // A weight: its values move into the graph (GPT-2's are 950 MB as
      // doubles); folding through it, rare, reads them back from there.
      std::vector<double> values = std::move(v.constant->reals);
      v.constant.reset();
      v.id = ir::constant(graph_, std::move(values), v.type.dtype, v.type.shape);
    } else {
      std::vector<double> values(static_cast<size_t>(c.numel()));
      for (int64_t i = 0; i < c.numel(); ++i) values[static_cast<size_t>(i)] = c.get(i);
      v.id = ir::constant(graph_, std::move(values), c.type.dtype, c.type.shape);
    }
  }
  return ir::Tensor{&graph_, v.id};
}

std::optional<ir::HostTensor> Context::fold(OnnxValue& v) {
  if (v.constant) return v.constant;
  if (v.id < 0) return std::nullopt;
  // The value's cone: if it reaches no input, evaluate it on its own.
  std::vector<bool> in_cone(graph_.size(), false);
  in_cone[static_cast<size_t>(v.id)] = true;
  for (ir::ValueId id = v.id; id >= 0; --id) {
    if (!in_cone[static_cast<size_t>(id)]) continue;
    const ir::Node& n = graph_.node(id);
    if (n.op == ir::Op::Input) return std::nullopt;
    for (ir::ValueId operand : n.operands) in_cone[static_cast<size_t>(operand)] = true;
  }
  ir::Graph cone;
  std::vector<ir::ValueId> renamed(graph_.size(), -1);
  for (ir::ValueId id = 0; id <= v.id; ++id) {
    if (!in_cone[static_cast<size_t>(id)]) continue;
    const ir::Node& n = graph_.node(id);
    std::vector<ir::ValueId> operands;
    for (ir::ValueId operand : n.operands) operands.push_back(renamed[static_cast<size_t>(operand)]);
    renamed[static_cast<size_t>(id)] = cone.add(n.op, operands, n.attrs);
  }
  cone.add_output(renamed[static_cast<size_t>(v.id)]);
  v.constant = ir::interpret(cone, {}).at(0);
  return v.constant;
}

void Context::begin_node(const onnx::NodeProto& node, int index) {
  node_ = &node;
  node_index_ = index;
  understood_.clear();
  outputs_set_.clear();
}

std::string Context::where() const {
  if (!node_) return filename_;
  std::string who = node_->name().empty() ? "#" + std::to_string(node_index_) : "'" + node_->name() + "'";
  return filename_ + ": node " + who + " (" + node_->op_type() + ")";
}

void Context::fail(const std::string& message) const { throw ImportError(where() + ": " + message); }

void Context::unsupported(const std::string& message) const { throw UnsupportedError(where() + ": " + message); }

void Context::require_inputs(int min_count, int max_count) const {
  int present = 0;
  for (int i = 0; i < node_->input_size(); ++i) present = node_->input(i).empty() ? present : i + 1;
  for (int i = 0; i < min_count; ++i)
    if (!has_input(i)) fail("input " + std::to_string(i) + " is required");
  if (present > max_count)
    fail("takes at most " + std::to_string(max_count) + " inputs, has " + std::to_string(present));
}

ir::Tensor Context::input(int i) {
  if (!has_input(i)) fail("input " + std::to_string(i) + " is required");
  return materialize(value(node_->input(i)));
}

const ir::TensorType& Context::input_type(int i) {
  if (!has_input(i)) fail("input " + std::to_string(i) + " is required");
  return value(node_->input(i)).type;
}

ir::HostTensor Context::static_input(int i, const std::string& what) {
  if (!has_input(i)) fail(what + " (input " + std::to_string(i) + ") is required");
  OnnxValue& v = value(node_->input(i));
  if (std::optional<ir::HostTensor> known = fold(v)) return *known;
  const std::string& name = node_->input(i);
  throw UnsupportedError(
      where() + ": " + what + " (input '" + name + "') must be known at import time; smelt graphs have static shapes",
      v.graph_input ? name : std::string());
}

std::vector<int64_t> Context::static_ints(int i, const std::string& what) {
  ir::HostTensor t = static_input(i, what);
  if (!ir::is_integer(t.type.dtype)) fail(what + " must be an integer tensor");
  return t.ints;
}

double Context::static_scalar(int i, const std::string& what) {
  ir::HostTensor t = static_input(i, what);
  if (t.numel() != 1) fail(what + " must hold one value, holds " + std::to_string(t.numel()));
  return t.get(0);
}

const onnx::AttributeProto* Context::attribute(const std::string& name) {
  understood_.insert(name);
  for (const onnx::AttributeProto& a : node_->attribute())
    if (a.name() == name) {
      if (!a.ref_attr_name().empty()) unsupported("attribute '" + name + "' refers to a function attribute");
      return &a;
    }
  return nullptr;
}

int64_t Context::attr_int(const std::string& name, int64_t fallback) {
  const onnx::AttributeProto* a = attribute(name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto::INT) fail("attribute '" + name + "' must be an int");
  return a->i();
}

float Context::attr_float(const std::string& name, float fallback) {
  const onnx::AttributeProto* a = attribute(name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto::FLOAT) fail("attribute '" + name + "' must be a float");
  return a->f();
}

std::string Context::attr_string(const std::string& name, const std::string& fallback) {
  const onnx::AttributeProto* a = attribute(name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto::STRING) fail("attribute '" + name + "' must be a string");
  return a->s();
}

std::optional<std::vector<int64_t>> Context::attr_ints(const std::string& name) {
  const onnx::AttributeProto* a = attribute(name);
  if (!a) return std::nullopt;
  if (a->type() != onnx::AttributeProto::INTS) fail("attribute '" + name + "' must be a list of ints");
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

void Context::check_attributes_understood() const {
  for (const onnx::AttributeProto& a : node_->attribute())
    if (!understood_.count(a.name())) unsupported("attribute '" + a.name() + "' is not supported");
}

void Context::set_output(int i, ir::Tensor t) {
  if (!wants_output(i)) return;
  OnnxValue v;
  v.id = t.id;
  v.type = t.type();
  define(node_->output(i), std::move(v));
  outputs_set_.insert(i);
}

void Context::set_output_constant(int i, ir::HostTensor t) {
  if (!wants_output(i)) return;
  OnnxValue v;
  v.type = t.type;
  v.constant = std::move(t);
  define(node_->output(i), std::move(v));
  outputs_set_.insert(i);
}

void Context::check_outputs_set() const {
  for (int i = 0; i < node_->output_size(); ++i)
    if (wants_output(i) && !outputs_set_.count(i))
      unsupported("output " + std::to_string(i) + " ('" + node_->output(i) + "') is not supported");
}

ir::Tensor Context::scalar_like(double v, ir::DType dtype, const ir::Shape& shape) {
  return ir::full(graph_, shape, v, dtype);
}

int64_t Context::normalize_axis(int64_t axis, int64_t rank, const std::string& what) const {
  if (axis < -rank || axis >= rank)
    fail(what + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

}  // namespace smelt::importer
