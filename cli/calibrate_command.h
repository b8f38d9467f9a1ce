#pragma once
// `smelt calibrate [--device host|cuda|hip] [-o PROFILE.json] [--arch A] [--quick] [--threads N]
// [--validate FILE...] [--random N] [--validate-only PROFILE.json] [--json]`:
// measures a device profile through the code smelt emits, validates it on
// kernels and programs it was not fitted on, writes the profile (with the
// samples and the validation) and a predicted-vs-measured scatter PNG beside it.
#include <string>
#include <vector>

namespace smelt::cli {

struct CalibrateCommandOptions {
  std::string device = "host";
  std::string output;                    // "": profile.json, a GPU's <name>.json; the PNG goes beside it: <stem>.png
  std::string arch;                      // cuda / hip: "" = the device's own
  bool quick = false;
  unsigned threads = 0;                  // calibrate 1, 2, 4, ... up to this (0: every core)
  std::vector<std::string> validate;     // extra .sg / .onnx graphs for validation
  int random = 0;                        // random graphs for validation (0: 60, --quick 16)
  uint64_t seed = 1;
  std::string save_graphs;               // write the random validation graphs here (.sg)
  std::string validate_only;             // a profile to validate instead of measuring
  bool json = false;                     // the summary as one JSON object
};

int calibrate_command(const CalibrateCommandOptions& options);

}  // namespace smelt::cli
