// Cost model v0: the shipped profile, profile parsing errors, load
// classification and the properties of predictions the extractor relies on.
#include <gtest/gtest.h>

#include "cost/device_profile.h"
#include "cost/predict.h"
#include "ir/builder.h"
#include "ir/kernel_builder.h"
#include "ir/lower_to_kernels.h"

namespace cost {
namespace {

using ir::BufferKind;
using ir::DType;
using ir::Op;

TEST(DeviceProfile, TheShippedHostProfileHasEveryNumber) {
  const DeviceProfile& p = default_host_profile();
  EXPECT_EQ(p.device, "host");
  EXPECT_GT(p.launch_overhead_us, 0);
  EXPECT_GT(p.read_gbps_contiguous, p.read_gbps_strided);
  EXPECT_GT(p.op_rate("add"), p.op_rate("exp"));  // a transcendental costs more than an add
  EXPECT_FALSE(p.matmul.empty());
  // Round trip through JSON.
  DeviceProfile again = parse_profile(profile_to_json(p));
  EXPECT_EQ(again.op_elements_per_ns, p.op_elements_per_ns);
  EXPECT_EQ(again.write_gbps, p.write_gbps);
}

TEST(DeviceProfile, BadProfilesNameTheProblem) {
  auto expect_error = [](const std::string& text, const std::string& fragment) {
    try {
      parse_profile(text, "p.json");
      ADD_FAILURE() << "accepted " << text;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("p.json", 0), 0u) << e.what();
    }
  };
  std::string good = profile_to_json(default_host_profile());
  expect_error("{", "not JSON");
  expect_error("[]", "JSON object");
  expect_error("{}", "launch_overhead_us");
  std::string no_write = good;
  no_write.replace(no_write.find("\"write_gbps\""), 12, "\"write_gbpz\"");
  expect_error(no_write, "write_gbps");
  std::string negative = good;
  negative.replace(negative.find("\"cache_bytes\": "), 15, "\"cache_bytes\": -");
  expect_error(negative, "cache_bytes");
  EXPECT_THROW(load_profile("/nonexistent/profile.json"), std::runtime_error);
}

TEST(DeviceProfile, MatmulThroughputUsesTheNearestShapeBucket) {
  DeviceProfile p = default_host_profile();
  p.matmul = {{64, 64, 64, 1.0}, {1024, 1024, 1024, 9.0}};
  EXPECT_EQ(p.matmul_gflops(60, 70, 64), 1.0);
  EXPECT_EQ(p.matmul_gflops(2048, 512, 1024), 9.0);
}

TEST(ClassifyLoad, ContiguousStridedAndBroadcast) {
  ir::KernelProgram prog;
  int x = ir::add_buffer(prog, "x", {DType::F32, {8, 16}}, BufferKind::kInput, 0);
  int row = ir::add_buffer(prog, "row", {DType::F32, {16}}, BufferKind::kInput, 1);
  prog.kernels.push_back({"k", {8, 16}, {}, {}, {}, {}});
  ir::Kernel& k = prog.kernels.back();
  ir::KernelBuilder b(k);
  int contiguous = b.load(x, {b.var(0), b.indices().add(b.var(1), b.constant_index(0))}, DType::F32);
  int transposed = b.load(x, {b.var(1), b.var(0)}, DType::F32);  // permute: walks the outer axis
  int broadcast = b.load(row, {b.var(0)}, DType::F32);           // the inner variable is unused
  EXPECT_EQ(classify_load(k, k.exprs[contiguous], false), AccessKind::kContiguous);
  EXPECT_EQ(classify_load(k, k.exprs[transposed], false), AccessKind::kStrided);
  EXPECT_EQ(classify_load(k, k.exprs[broadcast], false), AccessKind::kBroadcast);
}

// A chain of three elementwise ops over 1M elements, unfused (three kernels
// with intermediates in memory) and fused (one kernel).
ir::KernelProgram chain(bool fused) {
  const int64_t n = 1 << 20;
  ir::TensorType t{DType::F32, {n}};
  ir::KernelProgram p;
  int x = ir::add_buffer(p, "x", t, BufferKind::kInput, 0);
  int y = ir::add_buffer(p, "y", t, BufferKind::kOutput, 0);
  if (fused) {
    p.kernels.push_back({"fused", {n}, {}, {}, {}, {}});
    ir::KernelBuilder b(p.kernels.back());
    int v = b.load(x, {b.var(0)}, DType::F32);
    for (Op op : {Op::Exp, Op::Neg, Op::Sigmoid}) v = b.op(op, {v}, DType::F32);
    b.output(y, v);
    return p;
  }
  int source = x;
  const Op ops[] = {Op::Exp, Op::Neg, Op::Sigmoid};
  for (int i = 0; i < 3; ++i) {
    int target = i == 2 ? y : ir::add_buffer(p, "t" + std::to_string(i), t, BufferKind::kIntermediate);
    p.kernels.push_back({"k" + std::to_string(i), {n}, {}, {}, {}, {}});
    ir::KernelBuilder b(p.kernels.back());
    b.output(target, b.op(ops[i], {b.load(source, {b.var(0)}, DType::F32)}, DType::F32));
    source = target;
  }
  return p;
}

TEST(Predict, FusingAChainIsPredictedFaster) {
  const DeviceProfile& p = default_host_profile();
  double unfused = predict_program_us(chain(false), p), fused = predict_program_us(chain(true), p);
  EXPECT_LT(fused, unfused);
  KernelCost one = predict(chain(true), chain(true).kernels[0], p);
  EXPECT_DOUBLE_EQ(one.bytes_read, 4.0 * (1 << 20));
  EXPECT_DOUBLE_EQ(one.bytes_written, 4.0 * (1 << 20));
  EXPECT_NEAR(one.total_us, one.launch_us + std::max(one.memory_us, one.compute_us), 1e-9);
}

TEST(Predict, RecomputationIsPaidInEveryConsumer) {
  const DeviceProfile& p = default_host_profile();
  auto kernel_with_exps = [](int copies) {
    ir::KernelProgram prog;
    int x = ir::add_buffer(prog, "x", {DType::F32, {4096}}, BufferKind::kInput, 0);
    int y = ir::add_buffer(prog, "y", {DType::F32, {4096}}, BufferKind::kOutput, 0);
    prog.kernels.push_back({"k", {4096}, {}, {}, {}, {}});
    ir::KernelBuilder b(prog.kernels.back());
    int v = b.load(x, {b.var(0)}, DType::F32);
    int sum = b.op(Op::Exp, {v}, DType::F32);
    for (int i = 1; i < copies; ++i) sum = b.op(Op::Add, {sum, b.op(Op::Exp, {v}, DType::F32)}, DType::F32);
    b.output(y, sum);
    return prog;
  };
  auto once = kernel_with_exps(1), thrice = kernel_with_exps(3);
  EXPECT_LT(predict(once, once.kernels[0], p).compute_us, predict(thrice, thrice.kernels[0], p).compute_us);
}

TEST(Predict, ContractionsCountTwoFlopsPerMultiplyAdd) {
  ir::KernelProgram prog;
  const int64_t M = 64, N = 128, K = 256;
  int a = ir::add_buffer(prog, "a", {DType::F32, {M, K}}, BufferKind::kInput, 0);
  int bm = ir::add_buffer(prog, "b", {DType::F32, {K, N}}, BufferKind::kInput, 1);
  int c = ir::add_buffer(prog, "c", {DType::F32, {M, N}}, BufferKind::kOutput, 0);
  prog.kernels.push_back({"gemm", {M, N}, {K}, {}, {}, {}});
  ir::KernelBuilder b(prog.kernels.back());
  int product = b.op(Op::Mul, {b.load(a, {b.var(0), b.var(2)}, DType::F32), b.load(bm, {b.var(2), b.var(1)}, DType::F32)},
                     DType::F32);
  b.output(c, b.reduce(Op::ReduceSum, product, DType::F32, true));
  const DeviceProfile& p = default_host_profile();
  KernelCost cost = predict(prog, prog.kernels[0], p);
  EXPECT_DOUBLE_EQ(cost.flops, 2.0 * M * N * K);
  EXPECT_NEAR(cost.compute_us, cost.flops / p.matmul_gflops(M, N, K) / 1000, 1e-9);
  // Each operand is read once (ideal reuse), not once per output element.
  EXPECT_DOUBLE_EQ(cost.bytes_read, 4.0 * (M * K + K * N));
}

// A concat along rows of six exps is decided per row (ir/kernel_branches.h):
// each row computes one exp, so the kernel costs what one exp over the whole
// output costs, not six.
TEST(Predict, ABranchPerRegionIsChargedOnlyWhereItIsTaken) {
  ir::Graph g("six");
  std::vector<ir::Tensor> parts;
  for (int i = 0; i < 6; ++i) parts.push_back(ir::exp(ir::input(g, "x" + std::to_string(i), DType::F32, {64, 1024})));
  g.add_output(ir::concat(parts, 0));
  ir::Graph one("one");
  one.add_output(ir::exp(ir::input(one, "x", DType::F32, {6 * 64, 1024})));
  const DeviceProfile& p = default_host_profile();
  const ir::KernelProgram six_ways = ir::lower_to_kernels(g, ir::materialize_outputs(g));
  const ir::KernelProgram single = ir::lower_to_kernels(one, ir::materialize_outputs(one));
  ASSERT_EQ(six_ways.kernels.size(), 1u);
  const KernelCost split = predict(six_ways, six_ways.kernels[0], p), whole = predict(single, single.kernels[0], p);
  EXPECT_NEAR(split.compute_us, whole.compute_us, 1e-9);
  EXPECT_DOUBLE_EQ(split.bytes_read, whole.bytes_read);
}

}  // namespace
}  // namespace cost
