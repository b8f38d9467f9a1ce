// libFuzzer target for the egraph-serialize JSON reader: any bytes either read
// (read_serialized) and import into an e-graph whose export imports again, or
// raise egraph::ParseError naming the place — nothing else.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "egraph/egraph.h"
#include "egraph/parse_error.h"
#include "egraph/serialize.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace smelt::egraph;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    read_serialized(text, "fuzz.json");
  } catch (const ParseError&) {
  }
  EGraph graph;
  SerializedImport imported;
  try {
    imported = import_json(graph, text, "fuzz.json");
  } catch (const ParseError&) {
    return 0;
  }
  // An e-graph smelt wrote is always readable back, by both readers.
  const std::string exported = export_json(graph, imported.roots);
  read_serialized(exported, "exported.json");
  EGraph again;
  import_json(again, exported, "exported.json");
  return 0;
}
