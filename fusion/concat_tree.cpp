#include "fusion/concat_tree.h"

#include <stdexcept>
#include <utility>
#include <vector>

namespace smelt::fusion {

using namespace ir;      // graphs in

Graph split_wide_concats(const Graph& g, size_t max_operands) {
  if (max_operands < 2) throw std::invalid_argument("split_wide_concats: max_operands below 2");
  bool wide = false;
  for (const Node& n : g.nodes()) wide = wide || (n.op == Op::Concat && n.operands.size() > max_operands);
  if (!wide) return g;
  Graph out(g.name());
  std::vector<ValueId> value(g.size(), -1);
  for (size_t v = 0; v < g.size(); ++v) {
    const Node& n = g.node(static_cast<ValueId>(v));
    std::vector<ValueId> operands;
    for (ValueId o : n.operands) operands.push_back(value[o]);
    // Level by level: groups of max_operands consecutive operands become one
    // unnamed concat each, until one group is left for the named root.
    while (n.op == Op::Concat && operands.size() > max_operands) {
      std::vector<ValueId> level;
      for (size_t first = 0; first < operands.size(); first += max_operands) {
        const size_t end = std::min(operands.size(), first + max_operands);
        if (end - first == 1) {
          level.push_back(operands[first]);
          continue;
        }
        level.push_back(out.add(Op::Concat, std::vector<ValueId>(operands.begin() + first, operands.begin() + end), n.attrs));
      }
      operands = std::move(level);
    }
    value[v] = out.add(n.op, std::move(operands), n.attrs, n.name);
  }
  for (ValueId o : g.outputs()) out.add_output(value[o]);
  return out;
}

}  // namespace smelt::fusion
