// Every example graph, fused and unfused (smelt::fuse's after / before),
// compiled by the host JIT and run: outputs equal the reference interpreter.
// The examples with large gemms run scaled down and at full size; every
// output is judged element by element by ir::compare_outputs, with the
// reference interpreter's error scales.
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
  const smelt::ir::Reference want = smelt::reference(g, inputs);
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

TEST_P(LargeHostExamples, FullSizeFusedAndUnfusedMatchTheReference) {
  const std::string name = GetParam();
  const smelt::ir::Graph g = smelt::fusion_testing::example(name);
  smelt::FuseOptions options;
  options.simplify_indices = false;  // the Z3 proofs are the fusion tests' business
  const smelt::FusionResult fused = smelt::fuse(g, options);
  const std::vector<smelt::ir::HostTensor> inputs = smelt::random_inputs(g, 7);
  const smelt::ir::Reference want = smelt::reference(g, inputs);
  EXPECT_EQ(smelt::ir::compare_outputs(want, run_on_host_jit(fused.after, inputs)), "") << "fused " << name;
  EXPECT_EQ(smelt::ir::compare_outputs(want, run_on_host_jit(fused.before, inputs)), "") << "unfused " << name;
}

INSTANTIATE_TEST_SUITE_P(Examples, HostExamples, ::testing::ValuesIn(smelt::fusion_testing::example_names()),
                         [](const auto& param_info) { return param_info.param; });
INSTANTIATE_TEST_SUITE_P(Examples, LargeHostExamples, ::testing::ValuesIn(large_example_names()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
