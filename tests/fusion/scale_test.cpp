// Graphs that are deep or wide.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/interpreter.h"
#include "smelt/compile.h"
#include "smelt/smelt.h"
#include "tests/fusion/fusion_test_util.h"

namespace fusion_testing {
namespace {

// More operands than an e-node's 8-bit arity field held (255 and up).
TEST(Scale, AConcatOfThreeHundredTensorsCompilesAndRuns) {
  ir::Graph g("wide");
  std::vector<ir::Tensor> parts;
  for (int i = 0; i < 300; ++i) parts.push_back(ir::input(g, "a" + std::to_string(i), ir::DType::F32, {2}));
  g.add_output(ir::exp(ir::concat(parts, 0)));
  smelt::CompileOptions options;
  options.threads = 1;
  options.limits.extraction_s = 0.5;
  smelt::Program program = smelt::compile(g, options);
  EXPECT_EQ(program.kernels().kernels.size(), 1u);
  const std::vector<ir::HostTensor> inputs = random_inputs(g, 3);
  EXPECT_EQ(compare_values(ir::interpret(g, inputs), program.run(inputs)), "");
}

}  // namespace
}  // namespace fusion_testing
