// Properties of fusion on random well-shaped graphs (fuzz/graphs): the fused
// program computes what the reference interpreter computes, the unfused one
// too, and fusion never predicts a slower program than one kernel per op.
#include <rapidcheck.h>

#include <cstdio>
#include <random>

#include "fuzz/graphs/graph_gen.h"
#include "ir/interpreter.h"
#include "ir/kernel_interpreter.h"
#include "ir/tensor_compare.h"
#include "ir/text_format.h"
#include "smelt/smelt.h"

int main() {
  bool ok = true;
  ok &= rc::check("fused and unfused programs equal the reference interpreter", [] {
    const ir::Graph g = *smelt::fuzz::gen_graph();
    smelt::FuseOptions options;
    options.time_limit_s = 0.2;
    smelt::FusionResult result = smelt::fuse(g, options);
    std::mt19937_64 rng(7);
    std::vector<ir::HostTensor> inputs = smelt::fuzz::random_inputs(g, rng);
    std::vector<ir::HostTensor> want = ir::interpret(g, inputs);
    RC_LOG() << ir::print_graph(g) << "\n" << ir::print_program(result.after);
    RC_ASSERT(ir::compare_outputs(want, ir::run_kernels(result.before, inputs)) == "");
    RC_ASSERT(ir::compare_outputs(want, ir::run_kernels(result.after, inputs)) == "");
  });
  ok &= rc::check("fusion is never predicted slower than one kernel per op", [] {
    const ir::Graph g = *smelt::fuzz::gen_graph();
    smelt::FuseOptions options;
    options.time_limit_s = 0.2;
    smelt::FusionResult result = smelt::fuse(g, options);
    RC_ASSERT(result.predicted_us_after <= result.predicted_us_before * (1 + 1e-12));
  });
  return ok ? 0 : 1;
}
