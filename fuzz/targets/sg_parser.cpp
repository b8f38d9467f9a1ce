// libFuzzer target for the .sg parser: any bytes either parse into a graph that
// round-trips through the printer, or raise smelt::ir::SgTextError — nothing else.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ir/text_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    smelt::ir::Graph g = smelt::ir::parse_graph(text, "fuzz.sg");
    std::string printed = smelt::ir::print_graph(g);
    if (smelt::ir::print_graph(smelt::ir::parse_graph(printed, "printed.sg")) != printed) std::abort();
  } catch (const smelt::ir::SgTextError&) {
  }
  return 0;
}
