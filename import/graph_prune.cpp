#include "import/graph_prune.h"

namespace smelt::importer {

ir::Graph prune_dead_values(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                            const std::vector<std::string>& output_names) {
  std::vector<bool> live(g.size(), false);
  for (ir::ValueId v : outputs) live[static_cast<size_t>(v)] = true;
  for (ir::ValueId v : g.inputs()) live[static_cast<size_t>(v)] = true;
  for (ir::ValueId id = static_cast<ir::ValueId>(g.size()) - 1; id >= 0; --id) {
    if (!live[static_cast<size_t>(id)]) continue;
    for (ir::ValueId operand : g.node(id).operands) live[static_cast<size_t>(operand)] = true;
  }
  // Names for unnamed outputs; the first output that uses a value names it.
  std::vector<std::string> names(g.size());
  for (ir::ValueId id = 0; id < static_cast<ir::ValueId>(g.size()); ++id)
    names[static_cast<size_t>(id)] = g.node(id).name;
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string& name = names[static_cast<size_t>(outputs[i])];
    if (name.empty() && i < output_names.size() && g.find(output_names[i]) < 0) name = output_names[i];
  }
  ir::Graph pruned(g.name());
  std::vector<ir::ValueId> renamed(g.size(), -1);
  for (ir::ValueId id = 0; id < static_cast<ir::ValueId>(g.size()); ++id) {
    if (!live[static_cast<size_t>(id)]) continue;
    const ir::Node& n = g.node(id);
    std::vector<ir::ValueId> operands;
    for (ir::ValueId operand : n.operands) operands.push_back(renamed[static_cast<size_t>(operand)]);
    std::string name = names[static_cast<size_t>(id)];
    if (!name.empty() && pruned.find(name) >= 0) name.clear();  // two outputs wanted one name
    renamed[static_cast<size_t>(id)] = pruned.add(n.op, operands, n.attrs, name);
  }
  for (ir::ValueId v : outputs) pruned.add_output(renamed[static_cast<size_t>(v)]);
  return pruned;
}

}  // namespace smelt::importer
