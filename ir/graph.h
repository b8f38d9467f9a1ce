#pragma once
// smelt::ir::Graph: an SSA list of tensor ops with static shapes and dtypes, checked as
// they are added (ShapeError names the op, its operands' types and what was expected).
#include <cstdint>
#include <deque>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>


#include "error/error.h"
#include "ir/ops.h"

namespace smelt::ir {

using ValueId = int32_t;

class ShapeError : public Error {
 public:
  explicit ShapeError(const std::string& message) : Error(ErrorKind::kShape, message) {}
};

struct Node {
  Op op;
  std::vector<ValueId> operands;
  Attrs attrs;
  TensorType type;
  std::string name;  // may be empty; inputs always have one
};

class Graph {
 public:
  explicit Graph(std::string name = {}) : name_(std::move(name)) {}

  // Appends an op after checking operand types and attributes. Operands must
  // already be in the graph; names, where given, must be unique.
  ValueId add(Op op, std::vector<ValueId> operands, Attrs attrs = {}, std::string name = {});
  void add_output(ValueId v);

  // References to nodes (and their types and shapes) stay valid while nodes
  // are added: builder code passes `x.shape()` beside an argument that adds
  // the node it is broadcast to (broadcast(reduce_max(x), x.shape())), and
  // either may be evaluated first.
  const Node& node(ValueId v) const { return nodes_.at(static_cast<size_t>(v)); }
  const TensorType& type(ValueId v) const { return node(v).type; }
  const std::deque<Node>& nodes() const { return nodes_; }
  size_t size() const { return nodes_.size(); }
  const std::vector<ValueId>& outputs() const { return outputs_; }
  // The input nodes, in the order they were added.
  std::vector<ValueId> inputs() const;
  // The node named `name`, or -1.
  ValueId find(std::string_view name) const;

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

 private:
  std::string name_;
  std::deque<Node> nodes_;
  std::vector<ValueId> outputs_;
  std::unordered_map<std::string, ValueId> by_name_;
};

}  // namespace smelt::ir
