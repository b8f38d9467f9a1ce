#include <gtest/gtest.h>

#include "bench/egraph/math_rules.h"
#include "egraph/runner.h"
#include "tests/egraph/test_util.h"

namespace smelt::egraph {
namespace {

// Distinct canonical e-nodes after N steps of the 24-rule math benchmark
// must equal the oracle exactly.
class MathBenchmark : public ::testing::TestWithParam<std::size_t> {};

TEST_P(MathBenchmark, NodeCountMatchesOracle) {
  const std::size_t steps = GetParam();
  EGraph graph;
  const std::vector<PatternRewrite> rules = math::benchmark_rules(graph.symbols());
  math::add_benchmark_roots(graph);
  RunnerLimits limits;
  limits.iterations = steps;
  limits.nodes = 100'000'000;
  limits.seconds = 600;
  const RunReport report = Runner(graph, limits).run(rules);
  EXPECT_EQ(report.stop_reason, StopReason::kIterationLimit);
  EXPECT_EQ(report.iterations.size(), steps);
  EXPECT_EQ(graph.num_nodes(), *math::expected_nodes(steps));
  if (steps <= 7) testing::expect_sound(graph);
}

INSTANTIATE_TEST_SUITE_P(Steps5To9, MathBenchmark, ::testing::Values(5, 6, 7, 8, 9));

TEST(MathBenchmarkRules, TwentyFourRulesSevenRoots) {
  EGraph graph;
  EXPECT_EQ(math::benchmark_rules(graph.symbols()).size(), 24u);
  EXPECT_EQ(math::add_benchmark_roots(graph).size(), 7u);
  EXPECT_EQ(graph.num_nodes(), 35u);
}

}  // namespace
}  // namespace smelt::egraph
