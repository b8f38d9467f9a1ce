// The runtime splits a kernel's parallel units over threads and may compile
// programs on several threads: both must give the single-threaded result.
#include <gtest/gtest.h>

#include <thread>

#include "ir/builder.h"
#include "fusion/kernelize.h"
#include "ir/tensor_compare.h"
#include "lower/lower.h"
#include "tests/lower/jit_runner.h"

namespace smelt {
namespace {

using ir::DType;

ir::Graph softmax_graph() {
  ir::Graph g("softmax");
  auto x = ir::input(g, "x", DType::F32, {96, 130});
  auto e = ir::exp(x - ir::broadcast(ir::reduce_max(x, {1}, true), {96, 130}));
  g.add_output(e / ir::broadcast(ir::reduce_sum(e, {1}, true), {96, 130}));
  return g;
}

TEST(HostThreads, UnitsSplitOverThreadsGiveTheSingleThreadedResult) {
  const ir::Graph g = softmax_graph();
  const kernel::KernelProgram p = fusion::kernelize_program(g, std::vector<bool>(g.size(), false));
  std::mt19937_64 rng(23);
  const ir::HostTensor x = ir::random_tensor({DType::F32, {96, 130}}, rng);
  const std::vector<ir::HostTensor> want = smelt::testing::run_on_host_jit(p, {x});

  const auto jit = lower::HostJit::compile(p);
  std::vector<std::vector<uint8_t>> storage;
  for (const kernel::Buffer& b : p.buffers)
    storage.push_back(b.kind == kernel::BufferKind::kInput ? smelt::testing::to_bytes(x)
                                                        : smelt::testing::to_bytes(ir::HostTensor::zeros(b.type)));
  std::vector<void*> pointers;
  for (auto& bytes : storage) pointers.push_back(bytes.data());
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    const int64_t units = lower::parallel_units(p.kernels[k]);
    std::vector<std::thread> threads;
    constexpr int kThreads = 4;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] { jit->kernel(k)(pointers.data(), units * t / kThreads, units * (t + 1) / kThreads); });
    for (std::thread& thread : threads) thread.join();
  }
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    if (p.buffers[b].kind == kernel::BufferKind::kOutput) {
      EXPECT_EQ(ir::compare_outputs(want, {smelt::testing::from_bytes(p.buffers[b].type, storage[b])}), "");
    }
  }
}

TEST(HostThreads, ProgramsCompileConcurrently) {
  const ir::Graph g = softmax_graph();
  const kernel::KernelProgram p = fusion::kernelize_program(g, fusion::materialize_everything(g));
  std::mt19937_64 rng(29);
  const ir::HostTensor x = ir::random_tensor({DType::F32, {96, 130}}, rng);
  const std::vector<ir::HostTensor> want = smelt::testing::run_on_host_jit(p, {x});
  std::vector<std::vector<ir::HostTensor>> got(3);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t)
    threads.emplace_back([&, t] { got[t] = smelt::testing::run_on_host_jit(p, {x}); });
  for (std::thread& thread : threads) thread.join();
  for (const auto& result : got) EXPECT_EQ(ir::compare_outputs(want, result), "");
}

}  // namespace
}  // namespace smelt
