// The GPU side of the cost model, tested without a GPU: the GPU calibration's
// steps run on the host device at a fraction of their sizes (the same code
// measures a GPU through runtime::GpuDevice), its profile is one the loader
// takes, GPU predictions charge launches and the share of the device a kernel
// keeps busy (kernel/gpu_plan.h), and a GPU's profile is chosen by its name.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "cost/calibrate.h"
#include "cost/device_profile.h"
#include "cost/predict.h"
#include "ir/builder.h"
#include "kernel/gpu_plan.h"
#include "fusion/kernelize.h"
#include "runtime/host_device.h"
#include "tools/calibration.h"

namespace smelt::cost {
namespace {

using ir::DType;

kernel::KernelProgram fused(const ir::Graph& g) { return fusion::kernelize(g, fusion::materialize_outputs(g)).program; }

kernel::KernelProgram row_sums(int64_t rows, int64_t length) {
  ir::Graph g("row_sums");
  g.add_output(ir::reduce_sum(ir::input(g, "x", DType::F32, {rows, length}), {1}));
  return fused(g);
}

kernel::KernelProgram negation(int64_t elements) {
  ir::Graph g("neg");
  g.add_output(ir::neg(ir::input(g, "x", DType::F32, {elements})));
  return fused(g);
}

// A GPU profile with round numbers: 1 ns per KB read or written, launches of 2 us,
// a device that needs 100K busy threads to run at its full rate.
DeviceProfile round_gpu_profile() {
  DeviceProfile p;
  p.device = "cuda";
  p.name = "round numbers";
  p.cpu = "Round GPU";
  p.overlap = 0;
  ThreadRates r;
  r.threads = 1;
  r.kernel_us = 2;
  for (Curve& c : r.read) c = {{1e6, 1e-3}, {1e9, 1e-3}};
  r.write = {{1e6, 1e-3}, {1e9, 1e-3}};
  r.read_aliasing_stride = {{512, 1e-3}};
  r.op_ns = {{"default", 1e-6}, {"neg", 1e-6}, {"add", 1e-6}};
  r.reduce_inner = r.reduce_max_inner = {{16, 1e-6}, {1e6, 1e-6}};
  r.reduce_outer_ns = 1e-6;
  r.call_chain_factor = {1};
  r.matmul = {{1, 64, 64, 64, 1000}};
  r.fill = {{100, 1e-3}, {1e5, 1}};
  p.rates.push_back(r);
  return p;
}

TEST(GpuSplit, TheCostModelAndTheCodeGeneratorReadOnePlan) {
  const kernel::KernelProgram elementwise = negation(1000);
  const kernel::GpuPlan e = kernel::plan_gpu_kernel(elementwise.kernels[0], kernel::GpuMatrixUnits::kNvidiaMma);
  EXPECT_EQ(e.shape, kernel::GpuShape::kElementwise);
  EXPECT_EQ(e.work_items, 4u);  // 1000 elements in blocks of 256
  EXPECT_EQ(kernel::gpu_busy_threads(elementwise.kernels[0], e), 1000);
  const kernel::KernelProgram reduce = row_sums(3, 100);
  const kernel::GpuPlan r = kernel::plan_gpu_kernel(reduce.kernels[0], kernel::GpuMatrixUnits::kNvidiaMma);
  EXPECT_EQ(r.shape, kernel::GpuShape::kBlockReduce);
  EXPECT_EQ(r.block_threads, 128u) << "the smallest power of two from a warp covering 100 steps";
  EXPECT_EQ(kernel::gpu_busy_threads(reduce.kernels[0], r), 300) << "3 blocks, 100 threads of each find a step";
  EXPECT_EQ(kernel::gpu_grid_blocks({kernel::GpuShape::kElementwise, 256, 1u << 30}), kernel::kGpuMaxGridBlocks);
  ir::Graph g("mm");
  g.add_output(ir::matmul(ir::input(g, "a", DType::F32, {128, 64}), ir::input(g, "b", DType::F32, {64, 130})));
  const kernel::KernelProgram mm = fused(g);
  const kernel::GpuPlan m = kernel::plan_gpu_kernel(mm.kernels[0], kernel::GpuMatrixUnits::kNvidiaMma);
  EXPECT_EQ(m.shape, kernel::GpuShape::kTiledMatmul);
  EXPECT_EQ(m.work_items, 2u * 3u) << "64x64 tiles: 2 along M, 3 along N";
}

TEST(GpuPredict, AKernelPaysItsLaunchAndNoThreadPool) {
  const DeviceProfile p = round_gpu_profile();
  const kernel::KernelProgram big = negation(1 << 24);
  const KernelCost c = predict(big, big.kernels[0], p);
  EXPECT_DOUBLE_EQ(c.fixed_us, 2);
  EXPECT_EQ(c.threads, 1u);
  // 64 MB read + 64 MB written at 1 ns per KB; 16M busy threads fill the device.
  EXPECT_NEAR(c.total_us, 2 + 2 * 67.108864, 0.1);
}

TEST(GpuPredict, FewBusyThreadsGetTheirShareOfTheDevice) {
  const DeviceProfile p = round_gpu_profile();
  // The same 1M elements summed as one row (one block: 256 busy threads) and
  // as 4096 rows (4096 blocks of 256): the first is bound by its few threads.
  const kernel::KernelProgram one = row_sums(1, 1 << 20), many = row_sums(4096, 256);
  const double one_us = predict_program_us(one, p), many_us = predict_program_us(many, p);
  EXPECT_GT(one_us, 20 * many_us) << one_us << " vs " << many_us;
  // Without the fill curve (a host-shaped profile) they would cost the same.
  DeviceProfile flat = p;
  flat.rates[0].fill = {{1, 1}};
  EXPECT_NEAR(predict_program_us(one, flat), predict_program_us(many, flat), 0.05);
}

TEST(GpuProfile, AGpuProfileNeedsItsFillAndOneSetOfRates) {
  const DeviceProfile p = round_gpu_profile();
  const DeviceProfile back = parse_profile(profile_to_json(p), "round.json", "cuda");
  ASSERT_EQ(back.rates[0].fill.size(), 2u);
  EXPECT_DOUBLE_EQ(back.rates[0].fill[0].ns, 1e-3);
  DeviceProfile no_fill = p;
  no_fill.rates[0].fill.clear();
  try {
    parse_profile(profile_to_json(no_fill), "nofill.json");
    FAIL() << "a cuda profile without fill was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("rates[0].fill"), std::string::npos) << e.what();
  }
  DeviceProfile two = p;
  two.rates.push_back(p.rates[0]);
  two.rates[1].threads = 2;
  EXPECT_THROW(parse_profile(profile_to_json(two), "two.json"), std::runtime_error);
  DeviceProfile over = p;
  over.rates[0].fill.back().ns = 1.5;
  EXPECT_THROW(parse_profile(profile_to_json(over), "over.json"), std::runtime_error);
}

TEST(GpuProfile, AProfileShipsUnderItsProcessorsName) {
  EXPECT_EQ(profile_file_name("cuda", "NVIDIA H200"), "nvidia-h200.json");
  EXPECT_EQ(profile_file_name("cuda", "NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3.json");
  EXPECT_EQ(profile_file_name("hip", "  AMD Instinct MI300X (gfx942) "), "amd-instinct-mi300x-gfx942.json");
  EXPECT_EQ(profile_file_name("cuda", "???"), "gpu.json");
  EXPECT_EQ(profile_file_name("host", "Intel(R) Xeon(R) Processor (family 6, model 207)"),
            "host-intel-r-xeon-r-processor-family-6-model-207.json");
}

TEST(GpuProfile, EveryShippedProfileLoadsAndIsChosenByItsOwnName) {
  ASSERT_FALSE(shipped_profiles().empty());
  EXPECT_EQ(shipped_profiles().front().file, "cost/profiles/host.json") << "the reference host profile comes first";
  for (const ShippedProfile& s : shipped_profiles()) {
    if (s.file != "cost/profiles/host.json") {
      EXPECT_EQ("cost/profiles/" + profile_file_name(s.profile.device, s.profile.cpu), s.file)
          << "shipped under its processor's name";
    }
    const ChosenProfile own = shipped_profile_for(s.profile.device, s.profile.cpu);
    EXPECT_EQ(own.note, "") << "its own processor needs no note";
    EXPECT_EQ(own.profile.cpu, s.profile.cpu);
    const ChosenProfile other = shipped_profile_for(s.profile.device, s.profile.cpu + " Ultra");
    EXPECT_NE(other.note.find(s.file), std::string::npos) << "another processor is told which profile costs it: " << other.note;
    EXPECT_EQ(other.profile.device, s.profile.device) << "never another kind's numbers";
  }
  try {
    shipped_profile_for("no-such-kind", "Some GPU");
    FAIL() << "a kind with no shipped profile must not fall back silently";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("smelt calibrate --device no-such-kind"), std::string::npos) << e.what();
  }
}

// The GPU calibration's steps, on the host device at 1/256 of a GPU's sizes:
// every step runs and fits a profile the loader takes as a cuda profile.
TEST(GpuCalibration, EveryStepRunsAndFitsAProfileTheLoaderTakes) {
  CalibrationOptions options;
  options.quick = true;
  options.gpu_size_scale = 1.0 / 256;
  options.kernelizer = tools::calibration_kernelizer();
  Calibration c = calibrate_gpu(options, std::make_shared<runtime::HostDevice>(1), "Test GPU");
  DeviceProfile& p = c.profile;
  EXPECT_EQ(p.cpu, "Test GPU");
  ASSERT_EQ(p.rates.size(), 1u);
  const ThreadRates& r = p.rates[0];
  EXPECT_GT(r.kernel_us, 0);
  EXPECT_EQ(r.dispatch_us, 0) << "a GPU has no thread pool to dispatch to";
  EXPECT_EQ(r.row_ns, 0);
  ASSERT_GE(r.fill.size(), 2u);
  for (size_t i = 1; i < r.fill.size(); ++i) {
    EXPECT_GT(r.fill[i].x, r.fill[i - 1].x);
    EXPECT_GE(r.fill[i].ns, r.fill[i - 1].ns) << "more busy threads never get a smaller share";
  }
  EXPECT_GT(r.matmul.size(), 8u);
  EXPECT_FALSE(r.reduce_inner.empty());
  EXPECT_GT(c.samples.size(), 50u);
  p.device = "cuda";  // measured on the host here; the loader's cuda rules apply to what a GPU run writes
  const DeviceProfile back = parse_profile(profile_to_json(p), "gpu.json", "cuda");
  EXPECT_GT(predict_program_us(negation(1 << 20), back), 0);
}

}  // namespace
}  // namespace smelt::cost
