// The checks catch wrong answers: every deliberate bug of kernel/mutation.h,
// put into the fused program of small examples and run by the host JIT, is
// reported by ir::compare_outputs wherever it changes an output by 1 % of an
// element or more; each mutation is caught somewhere. (scripts/mutation_check
// does the same through `smelt run --check --mutate` on every example.)
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "ir/tensor_compare.h"
#include "kernel/mutation.h"
#include "smelt/smelt.h"
#include "tests/fusion/fusion_test_util.h"
#include "tests/lower/jit_runner.h"

namespace {

using smelt::testing::run_on_host_jit;

// The largest |mutated - clean| / |clean| over every element (inf where a zero moved).
double largest_effect(const std::vector<smelt::ir::HostTensor>& clean, const std::vector<smelt::ir::HostTensor>& mutated) {
  double worst = 0;
  for (size_t o = 0; o < clean.size(); ++o)
    for (int64_t i = 0; i < clean[o].numel(); ++i) {
      const double a = clean[o].get(i), b = mutated[o].get(i);
      if (a == b || (std::isnan(a) && std::isnan(b))) continue;
      worst = std::max(worst, a != 0 && std::isfinite(a) && std::isfinite(b) ? std::fabs(b - a) / std::fabs(a)
                                                                             : INFINITY);
    }
  return worst;
}

TEST(Mutations, EveryMutationThatMovesAnElementByOnePercentIsCaught) {
  // Small examples that between them give every mutation a site: sigmoid,
  // relu, literals, pads and concats, gemms, reductions, a convolution.
  const std::vector<std::string> examples = {"migraphx_silu_slices", "mlir_dot_slice", "luminal_fusion",
                                             "luminal_subexpr",      "nvfuser_rope_bwd", "conv_block"};
  std::map<std::string, int> caught;
  for (const std::string& name : examples) {
    SCOPED_TRACE(name);
    const smelt::ir::Graph g = smelt::fusion_testing::is_large_example(name) ? smelt::fusion_testing::scaled_example(name)
                                                                      : smelt::fusion_testing::example(name);
    const smelt::FusionResult fused = smelt::fuse(g);
    const std::vector<smelt::ir::HostTensor> inputs = smelt::random_inputs(g, 7);
    const smelt::ir::Reference want = smelt::reference(g, inputs);
    const std::vector<smelt::ir::HostTensor> clean = run_on_host_jit(fused.after, inputs);
    ASSERT_EQ(smelt::ir::compare_outputs(want, clean), "");
    for (const smelt::kernel::Mutation& m : smelt::kernel::mutations()) {
      smelt::kernel::KernelProgram program = fused.after;
      const std::string site = smelt::kernel::mutate(program, m.name);
      if (site.empty()) continue;
      const std::vector<smelt::ir::HostTensor> got = run_on_host_jit(program, inputs);
      const std::string verdict = smelt::ir::compare_outputs(want, got);
      if (!verdict.empty()) {
        ++caught[std::string(m.name)];
        continue;
      }
      EXPECT_LT(largest_effect(clean, got), 0.01) << m.name << " at " << site << " passed the check";
    }
  }
  for (const smelt::kernel::Mutation& m : smelt::kernel::mutations())
    EXPECT_GT(caught[std::string(m.name)], 0) << m.name << " was caught on none of the examples";
}

TEST(Mutations, AnUnknownNameIsAClearError) {
  smelt::kernel::KernelProgram program;
  try {
    smelt::kernel::mutate(program, "no-such-bug");
    FAIL() << "an unknown mutation must throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("silu-slope"), std::string::npos) << e.what();
  }
}

}  // namespace
