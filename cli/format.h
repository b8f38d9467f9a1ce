#pragma once
// Formatting shared by the subcommands' text and JSON output.
#include <cstdio>
#include <string>

#include "ir/graph.h"

namespace smelt::cli {

// One number through a printf format, e.g. formatted("%.3f s", 0.25) = "0.250 s".
inline std::string formatted(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// A value as the subcommands name it: its name in the graph, else %<id>.
inline std::string value_name(const ir::Graph& g, ir::ValueId v) {
  const std::string& name = g.node(v).name;
  return name.empty() ? "%" + std::to_string(v) : name;
}

}  // namespace smelt::cli
