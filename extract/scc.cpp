#include "extract/scc.h"

#include <algorithm>

namespace smelt::extract {

Components class_components(const Problem& problem) {
  // Iterative Tarjan; a frame walks the children of every node of its class.
  const std::size_t n = problem.num_classes();
  constexpr std::uint32_t kUnvisited = UINT32_MAX;
  std::vector<std::uint32_t> index(n, kUnvisited), low(n, 0);
  std::vector<char> on_stack(n, 0);
  std::vector<ClassId> stack;
  struct Frame {
    ClassId c;
    std::uint32_t node_pos, child_pos;
  };
  std::vector<Frame> frames;
  Components out{std::vector<std::uint32_t>(n, 0), {}};
  std::uint32_t counter = 0;
  for (ClassId start = 0; start < n; ++start) {
    if (index[start] != kUnvisited) continue;
    auto open = [&](ClassId c) {
      index[c] = low[c] = counter++;
      stack.push_back(c);
      on_stack[c] = 1;
      frames.push_back({c, 0, 0});
    };
    open(start);
    while (!frames.empty()) {
      Frame& f = frames.back();
      const auto nodes = problem.nodes(f.c);
      if (f.node_pos < nodes.size()) {
        const auto kids = problem.children(nodes[f.node_pos]);
        if (f.child_pos == kids.size()) {
          ++f.node_pos;
          f.child_pos = 0;
          continue;
        }
        const ClassId k = kids[f.child_pos++];
        if (index[k] == kUnvisited) {
          open(k);
        } else if (on_stack[k]) {
          low[f.c] = std::min(low[f.c], index[k]);
        }
        continue;
      }
      const ClassId c = f.c;
      frames.pop_back();
      if (!frames.empty()) low[frames.back().c] = std::min(low[frames.back().c], low[c]);
      if (low[c] == index[c]) {
        const auto id = static_cast<std::uint32_t>(out.size.size());
        std::uint32_t members = 0;
        ClassId w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = 0;
          out.of_class[w] = id;
          ++members;
        } while (w != c);
        out.size.push_back(members);
      }
    }
  }
  return out;
}

}  // namespace smelt::extract
