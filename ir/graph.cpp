#include "ir/graph.h"

namespace smelt::ir {

ValueId Graph::add(Op op, std::vector<ValueId> operands, Attrs attrs, std::string name) {
  const OpInfo& info = op_info(op);
  std::string where(info.name);
  if (info.arity >= 0 ? operands.size() != static_cast<size_t>(info.arity) : operands.empty())
    throw ShapeError(where + ": takes " +
                     (info.arity >= 0 ? std::to_string(info.arity) : std::string("one or more")) +
                     " operand(s), got " + std::to_string(operands.size()));
  std::vector<TensorType> types;
  for (ValueId v : operands) {
    if (v < 0 || static_cast<size_t>(v) >= nodes_.size())
      throw ShapeError(where + ": operand " + std::to_string(v) + " is not a value of this graph");
    types.push_back(nodes_[v].type);
  }
  if (op == Op::Input && name.empty()) throw ShapeError("input: an input needs a name");
  if (!name.empty() && find(name) >= 0)
    throw ShapeError(where + ": the name '" + name + "' is already defined");
  Inferred result = info.infer(types, attrs);
  if (!result.error.empty()) {
    std::string signature = where + "(";
    for (size_t i = 0; i < types.size(); ++i) signature += (i ? ", " : "") + type_str(types[i]);
    throw ShapeError(signature + "): " + result.error);
  }
  auto id = static_cast<ValueId>(nodes_.size());
  if (!name.empty()) by_name_.emplace(name, id);
  nodes_.push_back({op, std::move(operands), std::move(attrs), std::move(result.type), std::move(name)});
  return id;
}

void Graph::add_output(ValueId v) {
  if (v < 0 || static_cast<size_t>(v) >= nodes_.size())
    throw ShapeError("output: " + std::to_string(v) + " is not a value of this graph");
  outputs_.push_back(v);
}

std::vector<ValueId> Graph::inputs() const {
  std::vector<ValueId> result;
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].op == Op::Input) result.push_back(static_cast<ValueId>(i));
  return result;
}

ValueId Graph::find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? -1 : it->second;
}

}  // namespace smelt::ir
