#pragma once
// `smelt test DIR`: one ONNX backend-style test directory, run and compared with
// its shipped outputs; per output the max absolute and relative error.
#include <string>

namespace smelt::cli {

struct OnnxTestCommandOptions {
  std::string dir;
  std::string target = "all";  // reference | host | all (every target this build has)
  double rtol = -1, atol = 0;  // rtol < 0: the dtype's (ir::default_tolerance)
};
int onnx_test_command(const OnnxTestCommandOptions& options);

}  // namespace smelt::cli
