#pragma once
// Number formatting shared by the subcommands' text output.
#include <cstdio>
#include <string>

namespace smelt::cli {

// One number through a printf format, e.g. formatted("%.3f s", 0.25) = "0.250 s".
inline std::string formatted(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace smelt::cli
