// rapidcheck property: a random graph (graph_gen.h), fused by smelt::fuse and
// compiled by the host JIT (smelt::lower::HostJit), gives the reference
// interpreter's outputs within smelt::ir::compare_outputs' tolerance — the unfused
// program too. Run by ctest with a fixed seed (RC_PARAMS in CMakeLists.txt);
// exit status 1 on any failure. The case count is set so a run stays < 60 s.
#include <rapidcheck.h>

#include <random>
#include <string>

#include "fuzz/graphs/graph_gen.h"
#include "ir/interpreter.h"
#include "ir/tensor_compare.h"
#include "ir/text_format.h"
#include "smelt/smelt.h"
#include "tests/lower/jit_runner.h"

int main() {
  smelt::FuseOptions options;
  options.limits.extraction_s = 0.05;  // the extraction's search: any chosen program must be correct
  return rc::check("compiled host output of fuse(g).after and .before equals the reference interpreter's",
                   [&options] {
                     const smelt::ir::Graph g = *smelt::fuzz::gen_graph();
                     std::mt19937_64 rng(*rc::gen::arbitrary<uint64_t>());
                     const std::vector<smelt::ir::HostTensor> inputs = smelt::fuzz::random_inputs(g, rng);
                     const smelt::ir::Reference want = smelt::ir::interpret_with_error_scales(g, inputs);
                     const smelt::FusionResult fused = smelt::fuse(g, options);
                     const std::string after =
                         smelt::ir::compare_outputs(want, smelt::testing::run_on_host_jit(fused.after, inputs));
                     RC_LOG() << "fused program:\n" << smelt::kernel::print_program(fused.after) << "\n";
                     RC_ASSERT(after == std::string());
                     const std::string before =
                         smelt::ir::compare_outputs(want, smelt::testing::run_on_host_jit(fused.before, inputs));
                     RC_ASSERT(before == std::string());
                   })
             ? 0
             : 1;
}
