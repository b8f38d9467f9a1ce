#include "cli/import_command.h"

#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "smelt/smelt.h"

namespace smelt::cli {

int import_command(const ImportCommandOptions& options) {
  importer::ImportOptions import_options;
  import_options.initializers_as_inputs = options.initializers_as_inputs;
  ir::Graph g = smelt::import_onnx(options.file, import_options);
  const std::string text = ir::print_graph(g);
  if (options.output.empty() || options.output == "-") {
    std::cout << text;
    return kOk;
  }
  std::ofstream out(options.output);
  if (!(out << text)) {
    std::cerr << "error: cannot write " << options.output << "\n";
    return kBadInput;
  }
  std::cerr << options.file << ": imported graph " << g.name() << ", " << g.size() << " values -> " << options.output
            << "\n";
  return kOk;
}

}  // namespace smelt::cli
