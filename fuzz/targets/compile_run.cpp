// libFuzzer target for the whole compiler: a small .sg graph that parses and
// that the reference interpreter runs is compiled for the host (saturation,
// extraction, LLVM JIT) and must give the reference's outputs within
// smelt::ir::compare_outputs' tolerance. Anything else — an exception from compile or
// run, a mismatch, a crash — aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "ir/interpreter.h"
#include "ir/tensor_compare.h"
#include "ir/text_format.h"
#include "smelt/smelt.h"

namespace {

// Fuzzing explores op combinations, not sizes: big graphs and tensors only
// slow every execution down (huge shapes have their own tests).
constexpr size_t kMaxOps = 40;
constexpr int64_t kMaxElements = 4096;

bool small_enough(const smelt::ir::Graph& g) {
  if (g.size() > kMaxOps) return false;
  for (const smelt::ir::Node& node : g.nodes()) {
    int64_t elements = 1;
    for (int64_t extent : node.type.shape) {
      if (extent > kMaxElements) return false;
      elements *= extent;
      if (elements > kMaxElements) return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  smelt::ir::Graph g;
  try {
    g = smelt::ir::parse_graph(text, "fuzz.sg");
  } catch (const smelt::ir::SgTextError&) {
    return 0;
  }
  if (g.outputs().empty() || !small_enough(g)) return 0;
  const std::vector<smelt::ir::HostTensor> inputs = smelt::random_inputs(g, /*seed=*/1);
  smelt::ir::Reference want;
  try {
    want = smelt::reference(g, inputs);
  } catch (const smelt::ir::InterpretError&) {
    return 0;
  }
  // One thread and short searches: any program the optimizer picks must be right.
  smelt::CompileOptions options;
  options.threads = 1;
  options.limits = {.iterations = 4, .nodes = 2000, .saturation_s = 0.2, .extraction_s = 0.05};
  smelt::Program program = smelt::compile(g, options);
  const std::string mismatch = smelt::ir::compare_outputs(want, program.run(inputs));
  if (!mismatch.empty()) {
    std::fprintf(stderr, "compiled output differs from the reference: %s\n", mismatch.c_str());
    std::abort();
  }
  return 0;
}
