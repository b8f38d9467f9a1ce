// Executable on the host: compiled programs equal the reference interpreter,
// bad inputs are clear errors, intermediates share memory where they may.
#include "runtime/executable.h"

#include <gtest/gtest.h>

#include <thread>

#include "ir/builder.h"
#include "ir/tensor_compare.h"
#include "runtime/host_device.h"
#include "runtime/tensor_bytes.h"
#include "smelt/smelt.h"
#include "tests/fusion/fusion_test_util.h"

namespace smelt {
namespace {

std::shared_ptr<runtime::Device> host(unsigned threads = 2) { return runtime::open_device(lower::Target::kHost, {.threads = threads}); }

// The gemm-heavy examples run scaled down (fusion_testing::scaled_example): at
// full size their f32 sums through chained gemms differ from the reference's
// double sums by more than the f32 tolerance where outputs cancel (see
// tests/lower/host_examples_test.cpp, which compares them fused vs unfused).
TEST(Executable, EveryExampleFusedAndUnfusedMatchesTheReference) {
  auto device = host();
  int count = 0;
  for (const std::string& name : fusion_testing::example_names()) {
    ++count;
    SCOPED_TRACE(name);
    const ir::Graph g = fusion_testing::scaled_example(name);
    const auto inputs = smelt::random_inputs(g, 5);
    const auto want = smelt::reference(g, inputs);
    smelt::FuseOptions options;
    options.limits.extraction_s = 0.5;
    const smelt::FusionResult r = smelt::fuse(g, options);
    for (const kernel::KernelProgram* program : {&r.after, &r.before}) {
      runtime::Executable exe(*program, device);
      EXPECT_EQ(ir::compare_outputs(want, exe.run(inputs)), "") << (program == &r.after ? "fused" : "unfused");
    }
  }
  EXPECT_GE(count, 10);
}

TEST(Executable, ThreadCountDoesNotChangeResults) {
  const ir::Graph g = smelt::load_graph(std::string(SMELT_SOURCE_DIR) + "/examples/llama_mlp_swiglu.sg");
  const auto inputs = smelt::random_inputs(g, 2);
  const kernel::KernelProgram program = smelt::fuse(g).after;
  const auto one = runtime::Executable(program, host(1)).run(inputs);
  const auto four = runtime::Executable(program, host(4)).run(inputs);
  ASSERT_EQ(one.size(), four.size());
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].reals, four[i].reals);
    EXPECT_EQ(one[i].ints, four[i].ints);
  }
}

TEST(Executable, RunsAgainWithNewInputs) {
  const ir::Graph g = smelt::load_graph(std::string(SMELT_SOURCE_DIR) + "/examples/luminal_fusion.sg");
  runtime::Executable exe(smelt::fuse(g).after, host());
  for (uint64_t seed : {1, 2, 3}) {
    const auto inputs = smelt::random_inputs(g, seed);
    EXPECT_EQ(ir::compare_outputs(smelt::reference(g, inputs), exe.run(inputs)), "") << seed;
  }
}

TEST(Executable, WrongInputsAreClearErrors) {
  const ir::Graph g = smelt::load_graph(std::string(SMELT_SOURCE_DIR) + "/examples/luminal_fusion.sg");
  runtime::Executable exe(smelt::fuse(g).after, host());
  auto inputs = smelt::random_inputs(g, 1);
  inputs.pop_back();
  try {
    exe.run(inputs);
    FAIL() << "no error";
  } catch (const runtime::InputError& e) {
    EXPECT_STREQ(e.what(), "the program takes 3 inputs, got 2");
  }
  inputs = smelt::random_inputs(g, 1);
  inputs[1] = ir::HostTensor::zeros({ir::DType::F16, {10}});
  try {
    exe.run(inputs);
    FAIL() << "no error";
  } catch (const runtime::InputError& e) {
    EXPECT_STREQ(e.what(), "input 1 (b): expected f32[10], got f16[10]");
  }
}

// run_into: the kernels read and write the caller's memory directly (no copies),
// giving what run() gives, again and again; bad memory is a clear error.
TEST(Executable, RunIntoCallerMemoryMatchesRun) {
  const ir::Graph g = smelt::load_graph(std::string(SMELT_SOURCE_DIR) + "/examples/nvfuser_rope_bwd.sg");
  runtime::Executable exe(smelt::fuse(g).after, host());
  for (uint64_t seed : {1, 2}) {
    const auto inputs = smelt::random_inputs(g, seed);
    std::vector<std::vector<uint8_t>> in_bytes, out_bytes;
    for (const auto& t : inputs) in_bytes.push_back(runtime::to_bytes(t));
    for (const auto& type : exe.output_types()) out_bytes.emplace_back(runtime::storage_bytes(type), 0xff);
    std::vector<std::span<const uint8_t>> in(in_bytes.begin(), in_bytes.end());
    std::vector<std::span<uint8_t>> out(out_bytes.begin(), out_bytes.end());
    EXPECT_GT(exe.run_into(in, out), 0);
    std::vector<ir::HostTensor> got;
    for (size_t o = 0; o < out_bytes.size(); ++o) got.push_back(runtime::from_bytes(exe.output_types()[o], out_bytes[o]));
    EXPECT_EQ(ir::compare_outputs(exe.run(inputs), got), "") << seed;
  }
  const auto inputs = smelt::random_inputs(g, 3);
  std::vector<std::vector<uint8_t>> in_bytes, out_bytes;
  for (const auto& t : inputs) in_bytes.push_back(runtime::to_bytes(t));
  for (const auto& type : exe.output_types()) out_bytes.emplace_back(runtime::storage_bytes(type));
  std::vector<std::span<const uint8_t>> in(in_bytes.begin(), in_bytes.end());
  std::vector<std::span<uint8_t>> out(out_bytes.begin(), out_bytes.end());
  auto error = [&](std::vector<std::span<const uint8_t>> i, std::vector<std::span<uint8_t>> o) -> std::string {
    try {
      exe.run_into(i, o);
    } catch (const runtime::InputError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(error({in.begin(), in.end() - 1}, out).find("got " + std::to_string(in.size() - 1) + " and"), std::string::npos);
  auto short_out = out;
  short_out[0] = short_out[0].subspan(4);
  EXPECT_NE(error(in, short_out).find("output 0"), std::string::npos);
  auto misaligned = out;
  std::vector<uint8_t> spare(out_bytes[0].size() + 1);
  misaligned[0] = std::span<uint8_t>(spare.data() + 1, out_bytes[0].size());
  EXPECT_NE(error(in, misaligned).find("not aligned"), std::string::npos);
  auto overlapping = out;
  overlapping[0] = std::span<uint8_t>(const_cast<uint8_t*>(in[0].data()), in[0].size());
  ASSERT_EQ(in[0].size(), out[0].size());  // grad and dx: both bf16[1,8,64,128]
  EXPECT_NE(error(in, overlapping).find("overlaps input 0"), std::string::npos);
}

TEST(Executable, BenchmarkTimesEveryRep) {
  const ir::Graph g = smelt::load_graph(std::string(SMELT_SOURCE_DIR) + "/examples/ratchet_permute.sg");
  runtime::Executable exe(smelt::fuse(g).after, host());
  const auto times = exe.benchmark(smelt::random_inputs(g, 1), 5);
  ASSERT_EQ(times.size(), 5u);
  for (double t : times) EXPECT_GT(t, 0);
  EXPECT_THROW(exe.benchmark(smelt::random_inputs(g, 1), 0), std::invalid_argument);
}

TEST(Executable, BenchmarkEachKernelTimesEveryKernelOfEveryRep) {
  const ir::Graph g = smelt::load_graph(std::string(SMELT_SOURCE_DIR) + "/examples/llama_mlp_swiglu.sg");
  runtime::Executable exe(smelt::fuse(g).after, host());
  const size_t kernels = exe.program().kernels.size();
  ASSERT_GT(kernels, 1u);
  const auto times = exe.benchmark_each_kernel(smelt::random_inputs(g, 1), 4, 0);
  ASSERT_EQ(times.size(), 4u);
  for (const std::vector<double>& run : times) {
    ASSERT_EQ(run.size(), kernels);
    for (double t : run) EXPECT_GT(t, 0);
  }
  EXPECT_THROW(exe.benchmark_each_kernel(smelt::random_inputs(g, 1), 0), std::invalid_argument);
  EXPECT_THROW(exe.benchmark_each_kernel(smelt::random_inputs(g, 1), 1, -1), std::invalid_argument);
}

TEST(Executable, ReportsThePlansPeakBytes) {
  const ir::Graph g = smelt::load_graph(std::string(SMELT_SOURCE_DIR) + "/examples/nvfuser_rope_bwd.sg");
  const smelt::FusionResult r = smelt::fuse(g);
  runtime::Executable exe(r.before, host());
  EXPECT_GT(exe.plan().unpooled_bytes, 0u);
  EXPECT_LT(exe.plan().arena_bytes, exe.plan().unpooled_bytes);
  EXPECT_EQ(exe.input_types().size(), g.inputs().size());
  EXPECT_EQ(exe.output_types().size(), g.outputs().size());
}

// Program::run from several threads at once (smelt/compile.h: runs of one
// program take turns): each thread gets the outputs of its own inputs, run
// after run. Softmax rows large enough that each kernel splits over the pool.
TEST(Program, ConcurrentRunsEachGetTheirOwnOutputs) {
  ir::Graph g("softmax_rows");
  auto x = ir::input(g, "x", ir::DType::F32, {512, 256});
  auto shifted = x - ir::broadcast(ir::reduce_max(x, {1}, true), {512, 256});
  auto e = ir::exp(shifted);
  g.add_output(e / ir::broadcast(ir::reduce_sum(e, {1}, true), {512, 256}));
  smelt::CompileOptions options;
  options.threads = 2;
  smelt::Program program = smelt::compile(g, options);
  constexpr int kThreads = 4, kRuns = 40;
  std::vector<std::vector<ir::HostTensor>> inputs;
  std::vector<ir::Reference> want;
  for (int t = 0; t < kThreads; ++t) {
    inputs.push_back(smelt::random_inputs(g, 100 + static_cast<uint64_t>(t)));
    want.push_back(smelt::reference(g, inputs.back()));
  }
  std::vector<std::string> mismatches(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int run = 0; run < kRuns && mismatches[t].empty(); ++run)
        mismatches[t] = ir::compare_outputs(want[t], program.run(inputs[t]));
    });
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], "") << "thread " << t;
}

TEST(HostDevice, SmallKernelsTakeOneChunk) {
  kernel::Kernel k;
  k.space = {4, 8};
  EXPECT_GE(runtime::min_units_per_chunk(k, 4, 2), 4);  // 32 elements: inline
  k.space = {4096, 4096};
  EXPECT_LT(runtime::min_units_per_chunk(k, 4096, 2), 4096 / 2);  // 16M elements: split
}

TEST(HostDevice, ContractionKernelsTakeOneChunkPerThread) {
  // Each call packs the shared B panels again, so more chunks than threads only repeat that work.
  kernel::Kernel k;
  k.space = {64, 2048};
  k.reduction = {1024};
  k.exprs.push_back(kernel::make_constant(1, ir::DType::F32));
  k.exprs.push_back(kernel::make_reduce(ir::Op::ReduceSum, 0, ir::DType::F32, /*contraction=*/true));
  EXPECT_EQ(runtime::min_units_per_chunk(k, 64, 2), 32);
  EXPECT_EQ(runtime::min_units_per_chunk(k, 64, 3), 22);
  k.exprs[1].contraction = false;  // a plain reduction splits by work
  EXPECT_LT(runtime::min_units_per_chunk(k, 64, 2), 32);
}

}  // namespace
}  // namespace smelt
