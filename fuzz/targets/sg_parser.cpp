// libFuzzer target for the .sg parser: any bytes either parse into a graph that
// round-trips through the printer, or raise ir::ParseError — nothing else.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ir/text_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    ir::Graph g = ir::parse_graph(text, "fuzz.sg");
    std::string printed = ir::print_graph(g);
    if (ir::print_graph(ir::parse_graph(printed, "printed.sg")) != printed) std::abort();
  } catch (const ir::ParseError&) {
  }
  return 0;
}
