#pragma once
// `smelt import MODEL.onnx -o MODEL.sg`: an ONNX model written as a .sg graph.
#include <string>

namespace smelt::cli {

struct ImportCommandOptions {
  std::string file, output;
  bool initializers_as_inputs = false;
};
int import_command(const ImportCommandOptions& options);

}  // namespace smelt::cli
