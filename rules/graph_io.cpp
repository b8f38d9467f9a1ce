#include "rules/graph_io.h"

#include <stdexcept>
#include <unordered_map>

#include "rules/tensor_analysis.h"

namespace smelt::rules {

using smelt::egraph::EGraph;
using smelt::egraph::Id;
using smelt::egraph::kNoId;

GraphClasses add_graph(EGraph& graph, const ir::Graph& g) {
  TensorLang& lang = tensor_analysis(graph).lang();
  GraphClasses classes;
  std::vector<Id> children;
  for (const ir::Node& node : g.nodes()) {
    children.clear();
    for (ir::ValueId v : node.operands) children.push_back(classes.values.at(static_cast<size_t>(v)));
    const uint64_t payload = lang.payload(node.op, node.attrs, node.name);
    classes.values.push_back(graph.add(lang.symbol(node.op), payload, children));
  }
  for (ir::ValueId v : g.outputs()) classes.outputs.push_back(classes.values.at(static_cast<size_t>(v)));
  return classes;
}

ir::Graph read_graph(const EGraph& graph, std::span<const Id> roots, const TermChoice& choice, std::string name) {
  const TensorLang& lang = tensor_analysis(graph).lang();
  ir::Graph g(std::move(name));
  std::unordered_map<uint64_t, ir::ValueId> input_values;  // by payload
  for (uint64_t payload : lang.inputs()) {
    const AttrRecord& r = lang.record(payload);
    input_values[payload] = g.add(ir::Op::Input, {}, r.attrs, r.name);
  }

  // Iterative post-order walk; `open` marks classes on the current path, so a
  // cycle in the choice is reported instead of recursing forever.
  std::unordered_map<Id, ir::ValueId> built;
  std::unordered_map<Id, bool> open;
  auto chosen = [&](Id cls) {
    const Id node = cls < choice.size() ? choice[cls] : kNoId;
    if (node == kNoId) throw std::invalid_argument("read_graph: no term chosen for class " + std::to_string(cls));
    return node;
  };
  auto build = [&](Id root) {
    std::vector<std::pair<Id, size_t>> stack{{graph.find(root), 0}};
    while (!stack.empty()) {
      auto& [cls, next_child] = stack.back();
      if (built.count(cls)) {
        stack.pop_back();
        continue;
      }
      const smelt::egraph::NodeView node = graph.node(chosen(cls));
      open[cls] = true;
      if (next_child < node.children.size()) {
        const Id child = graph.find(node.children[next_child++]);
        if (open[child]) throw std::invalid_argument("read_graph: the chosen terms form a cycle");
        if (!built.count(child)) stack.push_back({child, 0});
        continue;
      }
      const AttrRecord& r = lang.record(node.payload);
      ir::ValueId value;
      if (r.op == ir::Op::Input) {
        value = input_values.at(node.payload);
      } else {
        std::vector<ir::ValueId> operands;
        for (Id child : node.children) operands.push_back(built.at(graph.find(child)));
        value = g.add(r.op, std::move(operands), r.attrs);
      }
      built[cls] = value;
      open[cls] = false;
      stack.pop_back();
    }
  };
  for (Id root : roots) {
    build(root);
    g.add_output(built.at(graph.find(root)));
  }
  return g;
}

}  // namespace smelt::rules
