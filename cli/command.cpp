#include "cli/command.h"

#include "smelt/memory.h"

namespace smelt::cli {

const char* const kUnsafeFpHelp =
    "Also rewrite with the rules exact only in real arithmetic (reassociation, distribution, batch-norm scales "
    "folded into convolution weights): outputs may differ from the graph's in the last bits, as with fast-math";

// --memory-limit, on the commands that read graphs and allocate tensors.
void add_memory_limit_option(CLI::App* command, SharedOptions& shared) {
  command
      ->add_option("--memory-limit", shared.memory_limit,
                   "Most memory tensors and input files may take, in bytes or with a unit (K, M, G, T: binary): "
                   "a graph that needs more is an error before allocating (default: half the physical memory, " +
                       smelt::format_bytes(smelt::default_memory_limit()) + " here)")
      ->type_name("BYTES")
      ->check(CLI::Validator(
          [](std::string& text) {
            return smelt::parse_byte_count(text) ? std::string() : "'" + text + "' is not a byte count (e.g. 8G, 512MiB)";
          },
          ""));
}

}  // namespace smelt::cli
