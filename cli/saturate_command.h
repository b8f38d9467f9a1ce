#pragma once
// `smelt saturate FILE`: equality saturation from the command line
// (smelt/saturate.h): a per-iteration table, the stop reason, per-rule
// statistics, the term extraction picks; --json for machines; --serialize
// writes the e-graph for `smelt extract` and extraction-gym; --dot / --svg
// draw it; --explain says why the picked term equals the input.
#include <cstddef>
#include <string>
#include <vector>

#include "cli/picture_files.h"

namespace smelt::cli {

struct SaturateCommandOptions {
  std::string file;
  std::vector<std::string> rule_files;
  size_t iterations = 0, nodes = 0;  // 0: the default limit
  double time_limit_s = 0;           // 0: the default limit
  std::string scheduler = "backoff"; // backoff | simple
  bool json = false;
  bool explain = false;
  std::string serialize;  // OUT.json
  PictureFiles picture;   // --dot OUT.dot, --svg OUT.svg: the e-graph
  std::string profile;    // a device profile (JSON) for node costs and the extraction
  unsigned threads = 0;
};

int saturate_command(const SaturateCommandOptions& options);

}  // namespace smelt::cli
