#include "fusion/part_shape.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "rules/tensor_analysis.h"

namespace smelt::fusion {

using egraph::Id;
using egraph::kNoId;

PartShape part_shape(const egraph::EGraph& graph, std::span<const Id> roots, const std::vector<ClassBoundary>& boundary) {
  const rules::TensorAnalysis& analysis = rules::tensor_analysis(graph);
  const rules::TensorLang& lang = analysis.lang();
  PartShape shape;
  std::unordered_map<Id, size_t> number;  // class -> canonical position
  std::unordered_map<uint64_t, std::string> signatures;
  auto signature = [&](uint64_t payload) -> const std::string& {
    auto it = signatures.find(payload);
    if (it == signatures.end()) it = signatures.emplace(payload, lang.shape_key(payload)).first;
    return it->second;
  };
  auto visit = [&](Id cls) {
    cls = graph.find(cls);
    auto [it, inserted] = number.emplace(cls, shape.classes.size());
    if (inserted) shape.classes.push_back(cls);
    return it->second;
  };
  auto write_number = [&](size_t n) { shape.key.append(std::to_string(n)).push_back(','); };
  shape.key.append("roots:");
  for (Id root : roots) write_number(visit(root));
  // Breadth-first: a class's children are numbered as its sorted nodes name them.
  for (size_t i = 0; i < shape.classes.size(); ++i) {
    const Id cls = shape.classes[i];
    shape.key.append("\n").append(ir::type_str(analysis.type(graph, cls)));
    shape.nodes.emplace_back();
    const ClassBoundary stop = cls < boundary.size() ? boundary[cls] : ClassBoundary::kInside;
    if (stop != ClassBoundary::kInside) {
      shape.key.append(stop == ClassBoundary::kLeaf ? " leaf" : " outside");
      continue;
    }
    std::vector<Id> nodes(graph.class_nodes(cls).begin(), graph.class_nodes(cls).end());
    std::stable_sort(nodes.begin(), nodes.end(), [&](Id a, Id b) {
      const egraph::NodeView x = graph.node(a), y = graph.node(b);
      if (x.children.size() != y.children.size()) return x.children.size() < y.children.size();
      return signature(x.payload) < signature(y.payload);
    });
    for (Id node_id : nodes) {
      const egraph::NodeView node = graph.node(node_id);
      shape.key.append(" (").append(signature(node.payload)).push_back(':');
      for (Id child : node.children) write_number(visit(child));
      shape.key.push_back(')');
    }
    shape.nodes[i] = std::move(nodes);
  }
  return shape;
}

void carry_choices(const PartShape& from, const PartShape& to, const std::vector<Id>& from_choice,
                   const std::vector<bool>& from_materialized, std::vector<Id>& to_choice,
                   std::vector<bool>& to_materialized) {
  for (size_t i = 0; i < from.classes.size() && i < to.classes.size(); ++i) {
    const Id a = from.classes[i], b = to.classes[i];
    if (a < from_materialized.size() && b < to_materialized.size()) to_materialized[b] = from_materialized[a];
    const Id chosen = a < from_choice.size() ? from_choice[a] : kNoId;
    if (chosen == kNoId || b >= to_choice.size()) continue;
    const std::vector<Id>& nodes = from.nodes[i];
    const auto at = std::find(nodes.begin(), nodes.end(), chosen);
    if (at != nodes.end()) to_choice[b] = to.nodes[i][static_cast<size_t>(at - nodes.begin())];
  }
}

}  // namespace smelt::fusion
