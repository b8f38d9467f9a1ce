// The fusion-aware extractors on saturated e-graphs: valid, never worse than
// the unfused program, and the heuristic measured against the exhaustive
// search where that finishes.
#include <gtest/gtest.h>

#include <limits>

#include <algorithm>
#include <cstdio>

#include "cost/predict.h"
#include "fusion/fusion_search.h"
#include "fusion/exact_search.h"
#include "ir/builder.h"
#include "fusion/kernelize.h"
#include "rules/rule_library.h"
#include "rules/saturate.h"
#include "rules/tensor_analysis.h"
#include "tests/fusion/fusion_test_util.h"

namespace smelt::fusion_testing {
namespace {

using smelt::fusion::FusionEvaluator;
using smelt::fusion::FusionExtraction;
namespace egraph = smelt::egraph;

struct Saturated {
  ir::Graph graph;
  rules::Saturation sat;
  explicit Saturated(ir::Graph g)
      : graph(std::move(g)), sat(rules::saturate(graph, std::span<const rules::CompiledRule>(default_compiled()))) {}
};

double unfused_us(const ir::Graph& g) {
  const fusion::Kernelization unfused = fusion::kernelize(g, fusion::materialize_everything(g), fusion::KernelizeOptions::unmerged());
  return cost::predict_program_us(unfused.program, cost::default_host_profile());
}

struct Extracted {
  FusionExtraction start, heuristic;
};

// The best starting term (maximal fusion, no local search) and the heuristic.
Extracted run_heuristic(FusionEvaluator& evaluator, const Saturated& s) {
  smelt::fusion::FusionOptions options;
  options.original = smelt::fusion::original_choice(s.sat.egraph, s.graph, s.sat.classes);
  // To its local optimum, whatever the machine: under ASan migraphx_mlp_towers'
  // search ran past the default 2 s and stopped unfinished (19.7 s in all,
  // 2026-11-30, AMD EPYC beside other work).
  options.time_limit_s = 300;
  options.local_search = false;
  Extracted x;
  x.start = smelt::fusion::extract_fusion(evaluator, options);
  options.local_search = true;
  x.heuristic = smelt::fusion::extract_fusion(evaluator, options);
  return x;
}

// Small graphs where storing or recomputing, and which term, matter.
ir::Graph shared_expensive_value() {
  ir::Graph g("shared_expensive_value");
  auto x = ir::input(g, "x", ir::DType::F32, {64, 64});
  auto e = ir::tanh(ir::exp(x));
  g.add_output(ir::reduce_sum(e, {1}));
  g.add_output(ir::add(ir::mul(e, e), ir::permute(e, {1, 0})));
  return g;
}
ir::Graph gemms_sharing_an_operand() {
  ir::Graph g("gemms_sharing_an_operand");
  auto x = ir::input(g, "x", ir::DType::F32, {16, 32});
  auto w1 = ir::input(g, "w1", ir::DType::F32, {32, 24});
  auto w2 = ir::input(g, "w2", ir::DType::F32, {32, 24});
  g.add_output(ir::mul(ir::matmul(x, w1), ir::matmul(x, w2)));
  return g;
}
ir::Graph sliced_gemm_with_pad() {
  ir::Graph g("sliced_gemm_with_pad");
  auto a = ir::input(g, "a", ir::DType::F32, {8, 16});
  auto b = ir::input(g, "b", ir::DType::F32, {16, 32});
  auto c = ir::matmul(a, b);
  auto left = ir::slice_axis(c, 1, 0, 16), right = ir::slice_axis(c, 1, 16, 32);
  g.add_output(ir::pad(ir::mul(left, ir::cos(right)), {0, 1}, {0, 1}, 0));
  return g;
}
ir::Graph softmax_rows() {
  ir::Graph g("softmax_rows");
  auto x = ir::input(g, "x", ir::DType::F32, {64, 128});
  auto e = ir::exp(ir::sub(x, ir::broadcast(ir::reduce_max(x, {1}, true), {64, 128})));
  g.add_output(ir::div(e, ir::broadcast(ir::reduce_sum(e, {1}, true), {64, 128})));
  return g;
}
ir::Graph rotate_half() {
  ir::Graph g("rotate_half");
  auto x = ir::input(g, "x", ir::DType::F32, {64, 64});
  auto c = ir::input(g, "c", ir::DType::F32, {64, 64});
  auto s = ir::input(g, "s", ir::DType::F32, {64, 64});
  auto rotated = ir::concat({ir::neg(ir::slice_axis(x, 1, 32, 64)), ir::slice_axis(x, 1, 0, 32)}, 1);
  g.add_output(ir::add(ir::mul(x, c), ir::mul(rotated, s)));
  return g;
}

// On small e-graphs the exhaustive search finishes and proves the optimum
// under the cost model; the heuristic is compared with it (the gap is printed;
// the heuristic's space is a subset, so exact ≤ heuristic). mlir_dot_slice is
// its scaled-down copy (the same e-graph shape; the real one's gemm makes
// checking the values take minutes).
TEST(FusionExtract, HeuristicAgainstTheExhaustiveSearchOnSmallEGraphs) {
  std::vector<ir::Graph> graphs;
  for (const char* name : {"luminal_fusion", "luminal_slice_pad", "luminal_subexpr", "ratchet_permute",
                           "migraphx_silu_slices", "mlir_dot_slice"})
    graphs.push_back(scaled_example(name));
  graphs.push_back(shared_expensive_value());
  graphs.push_back(gemms_sharing_an_operand());
  graphs.push_back(sliced_gemm_with_pad());
  graphs.push_back(softmax_rows());
  graphs.push_back(rotate_half());
  double worst_gap = 0;
  for (ir::Graph& g : graphs) {
    SCOPED_TRACE(g.name());
    Saturated s(std::move(g));
    FusionEvaluator evaluator(s.sat.egraph, s.sat.classes.outputs, cost::default_host_profile());
    const Extracted x = run_heuristic(evaluator, s);
    const FusionExtraction exact = smelt::fusion::extract_fusion_exact(evaluator, {.time_limit_s = std::numeric_limits<double>::infinity()});
    ASSERT_TRUE(exact.finished) << "no time limit: the search runs to its end (ctest's timeout is the backstop)";
    const double gap = x.heuristic.cost.predicted_us / exact.cost.predicted_us - 1;
    worst_gap = std::max(worst_gap, gap);
    std::printf("[ gap      ] %-26s %3zu classes  unfused %9.2f  start %9.2f  heuristic %9.2f (%2zu kernels)  "
                "exact %9.2f (%2zu kernels, %6zu programs, %.2f s)  gap %.2f%%\n",
                s.graph.name().c_str(), s.sat.egraph.num_classes(), unfused_us(s.graph), x.start.cost.predicted_us,
                x.heuristic.cost.predicted_us, x.heuristic.cost.lowering.program.kernels.size(),
                exact.cost.predicted_us, exact.cost.lowering.program.kernels.size(), exact.evaluations, exact.seconds,
                100 * gap);
    EXPECT_LE(exact.cost.predicted_us, x.heuristic.cost.predicted_us * (1 + 1e-9));
    EXPECT_EQ(check_program(s.graph, exact.cost.lowering.program, 20), "");
    EXPECT_EQ(check_program(s.graph, x.heuristic.cost.lowering.program, 21), "");
  }
  EXPECT_LE(worst_gap, 0.05) << "the heuristic is more than 5% above the optimum somewhere";
}

// The starting programs (every shared value stored, least work, smallest,
// the original) are not the best: the local search finds a cheaper program.
// MIGraphX's towers: which tower layers to batch, and which of their SiLUs to
// fuse into the products, no start decides well. (This test ran on
// nvfuser_rope_bwd until its column segments were priced, then on a shared
// tanh(exp(x)) until the host computed chains of math calls in row stages:
// there the start that stores the shared value became the best, 2026-11-29.)
TEST(FusionExtract, LocalSearchImprovesOnItsStartingPrograms) {
  ir::Graph g = example("migraphx_mlp_towers");
  Saturated s(std::move(g));
  FusionEvaluator evaluator(s.sat.egraph, s.sat.classes.outputs, cost::default_host_profile());
  const Extracted x = run_heuristic(evaluator, s);
  EXPECT_LT(x.heuristic.cost.predicted_us, x.start.cost.predicted_us);
  EXPECT_GT(x.heuristic.improvements, 0u);
  EXPECT_TRUE(x.heuristic.finished);
  EXPECT_EQ(check_program(s.graph, x.heuristic.cost.lowering.program, 22), "");
}

// A limit stops the exhaustive search before the space is exhausted, and it
// says so; what it found by then is a valid program. The limits are ones that
// stop it on every machine: a number of programs (the space of rope_bwd's
// terms and materializations is far larger than 200), and a time limit of 0,
// which stops it before the first program, so there is no answer to give.
// (This test used a 0.3 s limit, which a fast enough machine would finish in.)
TEST(FusionExtract, ExactSearchReportsWhenALimitStopsIt) {
  Saturated s(example("nvfuser_rope_bwd"));
  FusionEvaluator evaluator(s.sat.egraph, s.sat.classes.outputs, cost::default_host_profile());
  const FusionExtraction exact =
      smelt::fusion::extract_fusion_exact(evaluator, {.time_limit_s = 1e7, .max_programs = 200});
  EXPECT_FALSE(exact.finished);
  EXPECT_EQ(exact.evaluations, 201u) << "200 programs priced, then the answer's";
  EXPECT_LE(exact.cost.predicted_us, unfused_us(s.graph));
  EXPECT_EQ(check_program(s.graph, exact.cost.lowering.program, 23), "");
  EXPECT_THROW(smelt::fusion::extract_fusion_exact(evaluator, {.time_limit_s = 0}), std::invalid_argument);
  EXPECT_THROW(smelt::fusion::extract_fusion_exact(evaluator, {.time_limit_s = 1, .max_classes = 10}),
               std::invalid_argument);
}

// The program limit counts exactly: a search allowed as many programs as its
// space holds finishes, with the optimum; one fewer, and it stops unfinished.
TEST(FusionExtract, ExactSearchFinishesWithinAProgramLimitTheSizeOfItsSpace) {
  Saturated s(shared_expensive_value());
  FusionEvaluator evaluator(s.sat.egraph, s.sat.classes.outputs, cost::default_host_profile());
  const FusionExtraction whole = smelt::fusion::extract_fusion_exact(evaluator, {.time_limit_s = 1e7});
  ASSERT_TRUE(whole.finished);
  const size_t programs = whole.evaluations - 1;  // less the answer's own costing
  ASSERT_GT(programs, 1u);
  const FusionExtraction enough =
      smelt::fusion::extract_fusion_exact(evaluator, {.time_limit_s = 1e7, .max_programs = programs});
  EXPECT_TRUE(enough.finished);
  EXPECT_EQ(enough.cost.predicted_us, whole.cost.predicted_us);
  const FusionExtraction short_one =
      smelt::fusion::extract_fusion_exact(evaluator, {.time_limit_s = 1e7, .max_programs = programs - 1});
  EXPECT_FALSE(short_one.finished);
  EXPECT_GE(short_one.cost.predicted_us, whole.cost.predicted_us);
}

// The work cost of the starting term: views free, a gemm by its flops.
TEST(FusionExtract, NodeWorkChargesComputeNotViews) {
  Saturated s(example("mlir_dot_slice"));
  const egraph::EGraph& graph = s.sat.egraph;
  const rules::TensorLang& lang = rules::tensor_analysis(graph).lang();
  double matmul_ns = 0, view_ns = 1;
  for (egraph::Id cls : graph.classes())
    for (egraph::Id node : graph.class_nodes(cls)) {
      const ir::Op op = lang.record(graph.node(node).payload).op;
      const double ns = smelt::fusion::node_work_ns(graph, node, cost::default_host_profile());
      EXPECT_GT(ns, 0);
      if (op == ir::Op::Matmul) matmul_ns = std::max(matmul_ns, ns);
      if (op == ir::Op::Slice) view_ns = std::min(view_ns, ns);
    }
  // 2·64·4096·1024 flops at the profile's gemm rate (cost::matmul_work_ns).
  EXPECT_NEAR(matmul_ns / 1e6, cost::matmul_work_ns(cost::default_host_profile(), 1, 64, 4096, 1024) / 1e6, 1e-6);
  EXPECT_LT(view_ns, 1e-3);
}

}  // namespace
}  // namespace smelt::fusion_testing
