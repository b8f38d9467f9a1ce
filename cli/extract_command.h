#pragma once
// `smelt extract FILE.json --extractor NAME [--time-limit S]`.
#include <string>

namespace smelt::cli {

struct ExtractCommandOptions {
  std::string file;
  std::string extractor = "exact";
  double time_limit_s = 60;
};

// Prints one JSON line {"file","extractor","tree","dag","micros","lower_bound"}
// (lower_bound null unless the extractor proves one); a note on stderr when the
// exact search stopped before proving optimality. Bad files: a message, exit 1.
int extract_command(const ExtractCommandOptions& options);

}  // namespace smelt::cli
