// Every example graph, fused and unfused (smelt::fuse's after / before),
// compiled by the host JIT and run: outputs equal the reference interpreter.
// The examples with large gemms run scaled down (element-wise tolerance) and
// at full size (norm-wise tolerance, see below).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "ir/tensor_compare.h"
#include "smelt/smelt.h"
#include "tests/fusion/fusion_test_util.h"
#include "tests/lower/jit_runner.h"

namespace {

using smelt::testing::run_on_host_jit;

class HostExamples : public ::testing::TestWithParam<std::string> {};

TEST_P(HostExamples, FusedAndUnfusedMatchTheReference) {
  const std::string name = GetParam();
  const smelt::ir::Graph g = smelt::fusion_testing::is_large_example(name) ? smelt::fusion_testing::scaled_example(name)
                                                             : smelt::fusion_testing::example(name);
  const smelt::FusionResult fused = smelt::fuse(g);
  const std::vector<smelt::ir::HostTensor> inputs = smelt::random_inputs(g, 7);
  const std::vector<smelt::ir::HostTensor> want = smelt::run_reference(g, inputs);
  EXPECT_EQ(smelt::ir::compare_outputs(want, run_on_host_jit(fused.after, inputs)), "") << "fused " << name;
  EXPECT_EQ(smelt::ir::compare_outputs(want, run_on_host_jit(fused.before, inputs)), "") << "unfused " << name;
  // Work split into calls of one unit gives the same result.
  EXPECT_EQ(smelt::ir::compare_outputs(want, run_on_host_jit(fused.after, inputs, 1)), "") << "fused, unit by unit " << name;
}

class LargeHostExamples : public ::testing::TestWithParam<std::string> {};

std::vector<std::string> large_example_names() {
  std::vector<std::string> names;
  for (const std::string& name : smelt::fusion_testing::example_names())
    if (smelt::fusion_testing::is_large_example(name)) names.push_back(name);
  return names;
}

// At full size the gemms sum hundreds of terms: f32 sums (the kernels) and
// double sums (the reference) then differ by ~1e-6 of the output's scale, which
// is more than 1e-4 of an element that cancels to near 0. So the check is
// norm-wise: every element within 1e-4 of the output's largest magnitude.
std::string compare_normwise(const std::vector<smelt::ir::HostTensor>& want, const std::vector<smelt::ir::HostTensor>& got) {
  if (want.size() != got.size()) return "output count differs";
  for (size_t o = 0; o < want.size(); ++o) {
    if (!(want[o].type == got[o].type)) return "output " + std::to_string(o) + ": type differs";
    double scale = 1;
    for (int64_t i = 0; i < want[o].numel(); ++i) scale = std::max(scale, std::fabs(want[o].get(i)));
    for (int64_t i = 0; i < want[o].numel(); ++i) {
      const double a = want[o].get(i), b = got[o].get(i);
      if ((std::isnan(a) && std::isnan(b)) || std::fabs(a - b) <= 1e-4 * scale) continue;
      return "output " + std::to_string(o) + " element " + std::to_string(i) + ": " + std::to_string(b) +
             ", expected " + std::to_string(a) + " (scale " + std::to_string(scale) + ")";
    }
  }
  return "";
}

TEST_P(LargeHostExamples, FullSizeFusedAndUnfusedMatchTheReferenceNormwise) {
  const std::string name = GetParam();
  const smelt::ir::Graph g = smelt::fusion_testing::example(name);
  smelt::FuseOptions options;
  options.simplify_indices = false;  // the Z3 proofs are the fusion tests' business
  const smelt::FusionResult fused = smelt::fuse(g, options);
  const std::vector<smelt::ir::HostTensor> inputs = smelt::random_inputs(g, 7);
  const std::vector<smelt::ir::HostTensor> want = smelt::run_reference(g, inputs);
  EXPECT_EQ(compare_normwise(want, run_on_host_jit(fused.after, inputs)), "") << "fused " << name;
  EXPECT_EQ(compare_normwise(want, run_on_host_jit(fused.before, inputs)), "") << "unfused " << name;
}

INSTANTIATE_TEST_SUITE_P(Examples, HostExamples, ::testing::ValuesIn(smelt::fusion_testing::example_names()),
                         [](const auto& param_info) { return param_info.param; });
INSTANTIATE_TEST_SUITE_P(Examples, LargeHostExamples, ::testing::ValuesIn(large_example_names()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
