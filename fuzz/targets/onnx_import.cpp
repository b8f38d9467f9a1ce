// libFuzzer target for the ONNX importer: any bytes either import into a graph
// whose .sg text parses back to the same text (the `smelt import -o` round
// trip), or raise smelt::importer::ImportError — nothing else.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "import/import_error.h"
#include "import/onnx_import.h"
#include "ir/text_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  smelt::ir::Graph graph;
  try {
    graph = smelt::importer::import_model_bytes(bytes, "fuzz.onnx").graph;
  } catch (const smelt::importer::ImportError&) {
    return 0;
  }
  const std::string printed = smelt::ir::print_graph(graph);
  if (smelt::ir::print_graph(smelt::ir::parse_graph(printed, "imported.sg")) != printed) std::abort();
  return 0;
}
