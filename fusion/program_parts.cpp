#include "fusion/program_parts.h"

#include <algorithm>

namespace smelt::fusion {

std::vector<bool> free_values(const ir::Graph& g) {
  std::vector<bool> free(g.size(), false);
  for (size_t v = 0; v < g.size(); ++v) {
    const ir::Node& node = g.node(static_cast<ir::ValueId>(v));
    const ir::OpClass cls = ir::op_class(node.op);
    bool from_free = cls == ir::OpClass::Source || cls == ir::OpClass::Factory ||
                     cls == ir::OpClass::Elementwise || cls == ir::OpClass::View;
    for (ir::ValueId operand : node.operands) from_free = from_free && free[static_cast<size_t>(operand)];
    free[v] = from_free;
  }
  return free;
}

std::vector<ProgramPart> split_program(const ir::Graph& g, const PartOptions& options) {
  const size_t n = g.size();
  if (n == 0) return {};
  const std::vector<bool> free = free_values(g);
  std::vector<bool> output(n, false);
  std::vector<size_t> readers(n, 0);
  std::vector<ir::ValueId> last_reader(n, -1);
  for (size_t v = 0; v < n; ++v)
    for (ir::ValueId operand : g.node(static_cast<ir::ValueId>(v)).operands) {
      ++readers[static_cast<size_t>(operand)];
      last_reader[static_cast<size_t>(operand)] = static_cast<ir::ValueId>(v);
    }
  for (ir::ValueId v : g.outputs()) output[static_cast<size_t>(v)] = true;
  auto persistent = [&](size_t v) {
    return readers[v] >= options.persistent_readers && last_reader[v] >= 0 &&
           static_cast<size_t>(last_reader[v]) - v >= options.persistent_span;
  };
  // What a cut after value i carries: the values before it read after it,
  // counted (and summed, which names the value when there is one).
  std::vector<size_t> ending(n, 0);
  std::vector<int64_t> ending_sum(n, 0);
  auto carried = [&](size_t v) { return !free[v] && !persistent(v) && last_reader[v] > static_cast<ir::ValueId>(v); };
  for (size_t v = 0; v < n; ++v)
    if (carried(v)) {
      ++ending[static_cast<size_t>(last_reader[v])];
      ending_sum[static_cast<size_t>(last_reader[v])] += static_cast<int64_t>(v);
    }
  std::vector<ProgramPart> parts;
  size_t live = 0, ops = 0;
  int64_t live_sum = 0;
  ir::ValueId first = 0;
  for (size_t i = 0; i < n; ++i) {
    live -= ending[i];
    live_sum -= ending_sum[i];
    if (carried(i)) {
      ++live;
      live_sum += static_cast<int64_t>(i);
    }
    if (!free[i]) ++ops;
    // The value crossing is held across a block (a residual: read now and
    // again min_ops values later), not a value read twice in a row (SiLU's
    // x * sigmoid(x)), which fusion keeps in registers.
    const size_t crossing = static_cast<size_t>(live_sum);
    const bool cut = i + 1 < n && ops >= options.min_ops && live == 1 && readers[crossing] >= 2 &&
                     static_cast<size_t>(last_reader[crossing]) - crossing >= options.min_ops;
    if (!cut && i + 1 < n) continue;
    ProgramPart part{first, static_cast<ir::ValueId>(i), {}};
    for (size_t v = static_cast<size_t>(first); v <= i; ++v)
      if (output[v] || (!free[v] && last_reader[v] > static_cast<ir::ValueId>(i))) part.outputs.push_back(static_cast<ir::ValueId>(v));
    parts.push_back(std::move(part));
    first = static_cast<ir::ValueId>(i + 1);
    ops = 0;
  }
  return parts;
}

}  // namespace smelt::fusion
