#include "cli/import_command.h"

#include <memory>
#include <fstream>
#include <iostream>

#include "cli/command.h"
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

Registered register_import(CLI::App& app, SharedOptions& shared) {
  auto import_options = std::make_shared<ImportCommandOptions>();
  CLI::App* import_cmd = app.add_subcommand("import", "Import an ONNX model (opset 13+) and write it as a .sg graph");
  import_cmd->add_option("file", import_options->file, "The model (.onnx)")->required();
  import_cmd->add_option("-o,--output", import_options->output, "The .sg file to write (default: stdout)");
  import_cmd->add_flag("--initializers-as-inputs", import_options->initializers_as_inputs,
                       "Initializers become graph inputs instead of constants");
  add_memory_limit_option(import_cmd, shared);

  return {import_cmd, [import_options] { return import_command(*import_options); }};
}

}  // namespace smelt::cli
