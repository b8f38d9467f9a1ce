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

// --work-limit, on the commands that run graphs.
void add_work_limit_option(CLI::App* command, SharedOptions& shared) {
  command
      ->add_option("--work-limit", shared.work_limit,
                   "Most element visits one run may make (each element an op or kernel reads or writes, a "
                   "reduction's or product's terms; --check adds the reference interpreter's): a run that needs "
                   "more is an error before it starts (default: 1e12)")
      ->type_name("VISITS")
      ->check(CLI::Validator(
          [](std::string& text) {
            return smelt::parse_visit_count(text) ? std::string() : "'" + text + "' is not a count (e.g. 1e12, 5000000)";
          },
          ""));
}

}  // namespace smelt::cli
