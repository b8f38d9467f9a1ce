// The GPU kernels' semantics without a GPU: smelt::lower::gpu_emulation_llvm_ir (the
// same grid-stride loops, block reductions and tiled matmuls as the PTX and
// the code objects) JIT-compiled for this CPU, each GPU thread a fiber
// (ucontext) on the test's own thread, each block's barrier a switch to the
// next fiber; every fused example must give the reference interpreter's
// outputs. Grids are capped at a few blocks, so the grid-stride paths run too.
//
// Fibers, not std::threads: 256 OS threads a block meeting at a std::barrier
// on CI's 2 cores spent the run switching (2026-11-29: 15.6 million
// involuntary context switches, 317 s of wall time for 35 s of CPU beside a
// build). A barrier ends a round in which every fiber of the block runs to its
// next barrier; each round runs the fibers in a new shuffled order, so a
// missing barrier (a thread reading what another writes in the same round)
// reads values of either side of the write and fails the comparison.
#include <gtest/gtest.h>
#include <ucontext.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>

#include "gpu_test_util.h"
#include "ir/builder.h"
#include "kernel/gpu_plan.h"
#include "fusion/kernelize.h"
#include "ir/tensor_compare.h"
#include "lower/gpu_lower.h"
#include "smelt/smelt.h"
#include "tests/lower/jit_runner.h"

namespace smelt {
namespace {

using KernelFn = void (*)(void* const*);

// One block's threads as fibers. The emulator's extern "C" functions read the
// running fiber's coordinates from here.
struct Fiber {
  ucontext_t context;
  int barriers_passed = 0;
  bool done = false;
};
struct EmulatedBlock {
  int block = 0;
  int grid_blocks = 1;
  int running = 0;  // the fiber now running
  KernelFn fn = nullptr;
  void* const* buffers = nullptr;
  ucontext_t scheduler;
  std::vector<Fiber> fibers;
  // 256 KiB a fiber: the kernels keep their tiles' accumulators in registers
  // and shared memory is a global, so their frames are small.
  static constexpr size_t kStackBytes = 256 * 1024;
  std::vector<std::unique_ptr<char[]>> stacks;
};
EmulatedBlock emulated;

extern "C" int emu_thread_index() { return emulated.running; }
extern "C" int emu_block_index() { return emulated.block; }
extern "C" int emu_grid_blocks() { return emulated.grid_blocks; }
extern "C" void emu_barrier() {
  Fiber& fiber = emulated.fibers[static_cast<size_t>(emulated.running)];
  ++fiber.barriers_passed;
  swapcontext(&fiber.context, &emulated.scheduler);
}
void run_fiber() {
  emulated.fn(emulated.buffers);
  emulated.fibers[static_cast<size_t>(emulated.running)].done = true;
  // Returning resumes uc_link: the scheduler.
}

// Runs `threads` fibers of fn as block `block`; the barriers each passed.
std::vector<int> run_block(KernelFn fn, void* const* buffers, int threads, int block, std::mt19937& shuffle) {
  emulated.block = block;
  emulated.fn = fn;
  emulated.buffers = buffers;
  emulated.fibers.assign(static_cast<size_t>(threads), Fiber{});
  while (emulated.stacks.size() < static_cast<size_t>(threads))
    emulated.stacks.push_back(std::make_unique<char[]>(EmulatedBlock::kStackBytes));
  for (size_t t = 0; t < emulated.fibers.size(); ++t) {
    ucontext_t& context = emulated.fibers[t].context;
    getcontext(&context);
    context.uc_stack.ss_sp = emulated.stacks[t].get();
    context.uc_stack.ss_size = EmulatedBlock::kStackBytes;
    context.uc_link = &emulated.scheduler;
    makecontext(&context, run_fiber, 0);
  }
  std::vector<int> order(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) order[static_cast<size_t>(t)] = t;
  for (bool any_left = true; any_left;) {
    any_left = false;
    std::shuffle(order.begin(), order.end(), shuffle);
    for (int t : order) {
      Fiber& fiber = emulated.fibers[static_cast<size_t>(t)];
      if (fiber.done) continue;
      emulated.running = t;
      swapcontext(&emulated.scheduler, &fiber.context);
      any_left |= !fiber.done;
    }
  }
  std::vector<int> passed;
  for (const Fiber& fiber : emulated.fibers) passed.push_back(fiber.barriers_passed);
  return passed;
}

class EmulatedGpu {
 public:
  explicit EmulatedGpu(const kernel::KernelProgram& program) : program_(program) {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto context = std::make_unique<llvm::LLVMContext>();
    llvm::SMDiagnostic error;
    std::unique_ptr<llvm::Module> module =
        llvm::parseIR(llvm::MemoryBufferRef(ir_ = lower::gpu_emulation_llvm_ir(program), "emulation"), error, *context);
    if (!module) throw std::runtime_error("emulation IR does not parse: " + error.getMessage().str());
    jit_ = cantFail(llvm::orc::LLJITBuilder().create());
    llvm::orc::JITDylib& dylib = jit_->getMainJITDylib();
    dylib.addGenerator(cantFail(
        llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(jit_->getDataLayout().getGlobalPrefix())));
    llvm::orc::SymbolMap emulator;
    auto define = [&](const char* name, auto* fn) {
      emulator[jit_->mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn), llvm::JITSymbolFlags::Exported};
    };
    define("smelt_gpu_emu_thread_index", &emu_thread_index);
    define("smelt_gpu_emu_block_index", &emu_block_index);
    define("smelt_gpu_emu_grid_blocks", &emu_grid_blocks);
    define("smelt_gpu_emu_barrier", &emu_barrier);
    cantFail(dylib.define(llvm::orc::absoluteSymbols(std::move(emulator))));
    cantFail(jit_->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))));
  }

  // Runs kernel `k` with launch_config's block and at most `max_blocks` blocks,
  // one block after another. False when the threads of a block passed
  // different numbers of barriers (a barrier under divergent control flow).
  bool launch(size_t k, void* const* buffers, uint32_t max_blocks) {
    auto fn = cantFail(jit_->lookup(lower::kernel_symbol(program_, k))).toPtr<KernelFn>();
    const lower::LaunchConfig config = lower::launch_config(program_.kernels[k], {lower::Target::kCuda, ""});
    const int threads = static_cast<int>(config.block[0]);
    emulated.grid_blocks = static_cast<int>(std::min(config.grid[0], max_blocks));
    std::mt19937 shuffle(static_cast<uint32_t>(k));
    for (int block = 0; block < emulated.grid_blocks; ++block) {
      const std::vector<int> passed = run_block(fn, buffers, threads, block, shuffle);
      if (std::adjacent_find(passed.begin(), passed.end(), std::not_equal_to<>()) != passed.end()) return false;
    }
    return true;
  }

 private:
  const kernel::KernelProgram& program_;
  std::string ir_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
};

// The program's outputs (io_index order) computed by the emulated GPU kernels.
std::vector<ir::HostTensor> run_emulated(const kernel::KernelProgram& program, const std::vector<ir::HostTensor>& inputs,
                                         uint32_t max_blocks) {
  EmulatedGpu gpu(program);
  std::vector<std::vector<uint8_t>> storage;
  for (const kernel::Buffer& buffer : program.buffers) {
    if (buffer.kind == kernel::BufferKind::kInput) storage.push_back(smelt::testing::to_bytes(inputs.at(buffer.io_index)));
    else if (buffer.kind == kernel::BufferKind::kConstant)
      storage.push_back(smelt::testing::to_bytes(ir::HostTensor::from_values(buffer.type, buffer.values)));
    else storage.push_back(smelt::testing::to_bytes(ir::HostTensor::zeros(buffer.type)));
  }
  std::vector<void*> pointers;
  for (auto& bytes : storage) pointers.push_back(bytes.data());
  for (size_t k = 0; k < program.kernels.size(); ++k)
    EXPECT_TRUE(gpu.launch(k, pointers.data(), max_blocks)) << "kernel " << k << ": divergent barriers";
  std::vector<std::pair<int, size_t>> outputs;
  for (size_t b = 0; b < program.buffers.size(); ++b)
    if (program.buffers[b].kind == kernel::BufferKind::kOutput) outputs.emplace_back(program.buffers[b].io_index, b);
  std::sort(outputs.begin(), outputs.end());
  std::vector<ir::HostTensor> result;
  for (auto [io_index, b] : outputs) result.push_back(smelt::testing::from_bytes(program.buffers[b].type, storage[b]));
  return result;
}

TEST(GpuEmulation, EveryExampleComputesTheReferenceOutputs) {
  std::map<std::string, std::vector<ir::HostTensor>> inputs;
  std::map<std::string, ir::Reference> want;
  for (const gpu_testing::ExampleProgram& example : gpu_testing::example_programs()) {
    // The fused programs hold every kernel shape; the unfused ones (a kernel per
    // op, up to 120 of them) would only multiply the emulated threads.
    if (!example.name.ends_with(".after")) continue;
    const std::string graph = example.name.substr(0, example.name.rfind('.'));
    if (!want.count(graph)) {
      const ir::Graph g = smelt::load_graph(std::string(SMELT_SOURCE_DIR) + "/examples/" + graph + ".sg");
      inputs[graph] = smelt::random_inputs(g, 7);
      want[graph] = smelt::reference(g, inputs[graph]);
    }
    const std::vector<ir::HostTensor> got = run_emulated(example.program, inputs[graph], /*max_blocks=*/2);
    // Chains of gemms (K up to 1376 in the llama examples) summed in f32, the
    // reference in double: the error scales judge each element by its terms.
    EXPECT_EQ(ir::compare_outputs(want[graph], got), "") << example.name;
  }
}

// Runs of elements per thread (kernel/gpu_plan.h) where a run agrees on the
// versions' condition (a RoPE rotation of halves 64: runs of 8 bf16) and where
// it does not (a concat at column 4093: runs of 4 f32 that straddle it take
// the element-by-element path).
TEST(GpuEmulation, RunsOfElementsComputeTheReferenceOnBothSidesOfABoundary) {
  ir::Graph g("runs");
  const ir::Tensor x = ir::input(g, "x", ir::DType::F32, {256, 4096});
  const ir::Tensor two = ir::broadcast(ir::constant(g, 2.0), {256, 4093});
  const ir::Tensor one = ir::broadcast(ir::constant(g, 1.0), {256, 3});
  g.add_output(ir::concat({ir::slice_axis(x, 1, 0, 4093) * two, ir::slice_axis(x, 1, 4093, 4096) + one}, 1));
  const ir::Tensor h = ir::input(g, "h", ir::DType::BF16, {4096, 256});
  const ir::Tensor rotated = ir::concat(
      {ir::slice_axis(h, 1, 64, 128), -ir::slice_axis(h, 1, 0, 64), ir::slice_axis(h, 1, 128, 256)}, 1);
  g.add_output(rotated * h);
  const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_outputs(g));
  ASSERT_EQ(program.kernels.size(), 2u);
  EXPECT_EQ(kernel::plan_gpu_kernel(program.kernels[0], kernel::GpuMatrixUnits::kNvidiaMma).elements_per_thread, 4);
  EXPECT_EQ(kernel::plan_gpu_kernel(program.kernels[1], kernel::GpuMatrixUnits::kNvidiaMma).elements_per_thread, 8);
  const std::vector<ir::HostTensor> inputs = smelt::random_inputs(g, 11);
  const ir::Reference want = smelt::reference(g, inputs);
  EXPECT_EQ(ir::compare_outputs(want, run_emulated(program, inputs, /*max_blocks=*/2)), "");
}

// The tensor-core matmul (lower/gpu_tensor_core.cpp) emulated: its mma
// exchanges each warp's fragments by the PTX ISA's layouts, so a wrong layout,
// a wrong shared-memory line or a missed K step gives wrong products. Edges in
// M, N and K (K = 75: runs of 8 cut by K), B read along its columns and along
// K (a transposed weight), a batch, an f16 prologue and an epilogue.
TEST(GpuEmulation, TensorCoreMatmulsComputeTheReference) {
  struct Case {
    ir::DType dtype;
    bool transposed_b;
    int64_t m, n, k;
  };
  // K = 75 and N = 150 cut runs of 8: those runs load element by element.
  // Multiples of 8 (M = 136, N = 144, K = 96) load every run at clamped
  // coordinates without a branch and choose its zeros where it is stored.
  for (const Case& c : {Case{ir::DType::BF16, false, 130, 150, 75}, Case{ir::DType::F16, true, 130, 150, 75},
                        Case{ir::DType::BF16, false, 136, 144, 96}, Case{ir::DType::F16, true, 136, 144, 96}}) {
    ir::Graph g("tensor_cores");
    // A batch of 2 where K is cut (the batch index in every address), 1 elsewhere (the emulation is slow).
    const int64_t batch = c.k % 8 == 0 ? 1 : 2;
    const ir::Tensor a = ir::input(g, "a", c.dtype, {batch, c.m, c.k});
    const ir::Tensor b = c.transposed_b ? ir::permute(ir::input(g, "bt", c.dtype, {batch, c.n, c.k}), {0, 2, 1})
                                        : ir::input(g, "b", c.dtype, {batch, c.k, c.n});
    const ir::Tensor bias = ir::input(g, "bias", c.dtype, {c.n});
    g.add_output(ir::matmul(a * a, b) + ir::broadcast(bias, {batch, c.m, c.n}));
    const kernel::KernelProgram program = fusion::kernelize_program(g, fusion::materialize_outputs(g));
    ASSERT_EQ(program.kernels.size(), 1u) << kernel::print_program(program);
    ASSERT_EQ(kernel::plan_gpu_kernel(program.kernels[0], kernel::GpuMatrixUnits::kNvidiaMma).shape,
              kernel::GpuShape::kTensorCoreMatmul)
        << kernel::print_program(program);
    const std::vector<ir::HostTensor> inputs = smelt::random_inputs(g, 13);
    const ir::Reference want = smelt::reference(g, inputs);
    // 4 or 8 tiles over 3 blocks: the grid-stride loop runs too.
    EXPECT_EQ(ir::compare_outputs(want, run_emulated(program, inputs, /*max_blocks=*/3)), "")
        << ir::dtype_name(c.dtype) << " " << c.m << "x" << c.n << "x" << c.k;
  }
}

// A long float sum (KernelEmitter::sums_in_blocks): each thread's f32 sum of a
// round of kSerialSumBlock steps goes into an f64 total, so 2^19 steps per
// thread err as little as 256 do (plain f32 accumulators: 6e-5 off here, where
// the host vectorizes each thread's loop into 32 chains; 4e-3 on a GPU).
// A max in the same kernel keeps its own accumulator across the rounds.
TEST(GpuEmulation, LongSumsErrNoMoreThanShortOnes) {
  ir::Graph g("long_sum");
  const ir::Tensor tenths = ir::broadcast(ir::constant(g, 0.1), {16384, 8192});
  g.add_output(ir::reduce_sum(tenths, {0, 1}) + ir::reduce_max(tenths, {0, 1}));
  const kernel::KernelProgram program = fusion::kernelize_program(g, std::vector<bool>(g.size(), false));
  ASSERT_EQ(program.kernels.size(), 1u);
  const double tenth = static_cast<float>(0.1);
  const double want = 16384.0 * 8192.0 * tenth + tenth;
  const double got = run_emulated(program, {}, /*max_blocks=*/1).at(0).get(0);
  EXPECT_NEAR(got, want, 1e-5 * want);
}

}  // namespace
}  // namespace smelt
