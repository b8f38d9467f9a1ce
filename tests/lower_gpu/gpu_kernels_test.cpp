// The GPU kernel shapes (grid-stride elementwise, block reduction, tiled
// matmul), their launch configurations, math libraries and error messages.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "kernel/gpu_plan.h"
#include "fusion/kernelize.h"
#include "ir/text_format.h"
#include "lower/lower.h"
#include "tests/support/scoped_env.h"

namespace smelt {
namespace {

using gpu_testing::run_tool;
using gpu_testing::ScratchDir;
using lower::Target;

kernel::KernelProgram program_of(const std::string& graph_text) {
  const ir::Graph g = ir::parse_graph(graph_text);
  return fusion::kernelize_program(g, fusion::materialize_outputs(g));
}

std::string ptx_of(const kernel::KernelProgram& program, const std::string& arch = "sm_80") {
  const std::vector<uint8_t> bytes = lower::emit_binary(program, {Target::kCuda, arch});
  return std::string(bytes.begin(), bytes.end());
}

// Whether ptxas assembles `ptx` for `arch` (EXPECT_TRUE it). Without ptxas
// there is no verdict: the test is marked skipped, naming ptxas, and this
// returns success so that its checks that need no ptxas still run (a failure
// among them still fails the test).
::testing::AssertionResult ptxas_accepts(const std::string& ptx, const std::string& arch) {
  const std::string ptxas = gpu_testing::find_ptxas();
  if (ptxas.empty()) {
    gpu_testing::skip_without("ptxas", "PTX for " + arch);
    return ::testing::AssertionSuccess();
  }
  ScratchDir scratch;
  const std::string file = scratch.write("k.ptx", ptx).string();
  const gpu_testing::ToolResult result = run_tool(ptxas + " -arch=" + arch + " " + file + " -o " + file + ".cubin");
  if (result.exit_code == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "ptxas -arch=" << arch << " failed:\n" << result.output;
}

// llvm-readelf-19 `flags` output on the hip code object of `program`; without
// llvm-readelf-19, std::nullopt and the test is marked skipped, naming it.
std::optional<std::string> readelf_of(const kernel::KernelProgram& program, const std::string& arch,
                                      const std::string& flags) {
  const std::string readelf = gpu_testing::find_readelf();
  if (readelf.empty()) {
    gpu_testing::skip_without("llvm-readelf-19", "the " + arch + " code object's " + flags);
    return std::nullopt;
  }
  const std::vector<uint8_t> code = lower::emit_binary(program, {Target::kHip, arch});
  ScratchDir scratch;
  const std::string file = scratch.write("k.hsaco", std::string(code.begin(), code.end())).string();
  const gpu_testing::ToolResult result = run_tool(readelf + " " + flags + " " + file);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return result.output;
}

const char* kElementwise = R"(graph ew
x = input() : f32[1000]
y = exp(x)
output y
)";

const char* kRowMax = R"(graph rowmax
x = input() : f32[8,1000]
y = reduce_max(x, axes=[1], keepdims=false) : f32[8]
output y
)";

const char* kMatmulBias = R"(graph mm
a = input() : f32[100,70]
b = input() : f32[70,130]
bias = input() : f32[130]
d = matmul(a, b) : f32[100,130]
bb = broadcast(bias, shape=[100,130]) : f32[100,130]
y = add(d, bb) : f32[100,130]
output y
)";

TEST(GpuKernels, ElementwiseKernelIsAGridStrideLoopWithLibdeviceInlined) {
  const kernel::KernelProgram program = program_of(kElementwise);
  ASSERT_EQ(program.kernels.size(), 1u);
  const std::string ptx = ptx_of(program);
  EXPECT_NE(ptx.find(".version 8.0"), std::string::npos);
  EXPECT_NE(ptx.find(".target sm_80"), std::string::npos);
  EXPECT_NE(ptx.find(".entry " + lower::kernel_symbol(program, 0)), std::string::npos);
  EXPECT_NE(ptx.find(".maxntid 256, 1, 1"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("%nctaid.x"), std::string::npos) << "no grid stride:\n" << ptx;
  EXPECT_EQ(ptx.find("__nv_expf"), std::string::npos) << "libdevice's expf is not inlined:\n" << ptx;
  EXPECT_EQ(ptx.find("call."), std::string::npos) << ptx;
  EXPECT_TRUE(ptxas_accepts(ptx, "sm_80"));

  const lower::LaunchConfig launch = lower::launch_config(program.kernels[0], {Target::kCuda, "sm_80"});
  EXPECT_EQ(launch.block[0], 256u);
  EXPECT_EQ(launch.grid[0], 4u);  // ceil(1000 / 256)
  EXPECT_EQ(launch.grid[1] * launch.grid[2] * launch.block[1] * launch.block[2], 1u);
}

// The nvFuser seed's RoPE backward (bf16, rotation halves of 64) at a million
// elements: each thread takes runs of 8 elements (16 bytes of bf16), every
// access of the run is one 16-byte load or store (no 2-byte ones left: one
// element per thread spent ~100 instructions per element on an H200), the
// rotation's `where` is decided once per run, and bf16 rounds in one cvt.
const char* kRopeBackward = R"(graph rope_bwd
g = input() : bf16[1,4,2048,128]
cos = input() : bf16[2048,128]
sin = input() : bf16[2048,128]
cos_b = broadcast(cos, shape=[1,4,2048,128]) : bf16[1,4,2048,128]
sin_b = broadcast(sin, shape=[1,4,2048,128]) : bf16[1,4,2048,128]
u = mul(g, sin_b) : bf16[1,4,2048,128]
u_hi = slice(u, start=[0,0,0,64], stop=[1,4,2048,128], step=[1,1,1,1]) : bf16[1,4,2048,64]
u_lo = slice(u, start=[0,0,0,0], stop=[1,4,2048,64], step=[1,1,1,1]) : bf16[1,4,2048,64]
u_lo_n = neg(u_lo) : bf16[1,4,2048,64]
r = concat(u_hi, u_lo_n, axis=3) : bf16[1,4,2048,128]
gc = mul(g, cos_b) : bf16[1,4,2048,128]
dx = add(gc, r) : bf16[1,4,2048,128]
output dx
)";

TEST(GpuKernels, LargeElementwiseKernelsMoveSixteenBytesPerAccess) {
  const kernel::KernelProgram program = program_of(kRopeBackward);
  ASSERT_EQ(program.kernels.size(), 1u);
  const kernel::GpuPlan plan = kernel::plan_gpu_kernel(program.kernels[0], kernel::GpuMatrixUnits::kNvidiaMma);
  EXPECT_EQ(plan.elements_per_thread, 8);
  EXPECT_EQ(plan.work_items, 1u << 20 >> 3 >> 8);  // blocks of 256 threads
  for (const char* arch : {"sm_80", "sm_90"}) {
    const std::string ptx = ptx_of(program, arch);
    EXPECT_NE(ptx.find("ld.global.v4.b32"), std::string::npos) << arch << ptx;
    EXPECT_NE(ptx.find("st.global.v4.b32"), std::string::npos) << arch << ptx;
    EXPECT_EQ(ptx.find("ld.global.u16"), std::string::npos) << arch << ptx;
    EXPECT_EQ(ptx.find("st.global.u16"), std::string::npos) << arch << ptx;
    EXPECT_NE(ptx.find("cvt.rn.bf16.f32"), std::string::npos) << arch << ptx;
    EXPECT_TRUE(ptxas_accepts(ptx, arch));
  }
  // Below 2^20 elements (kernel::kGpuRunMinElements): one element per thread.
  EXPECT_EQ(kernel::plan_gpu_kernel(program_of(kElementwise).kernels.at(0), kernel::GpuMatrixUnits::kNvidiaMma).elements_per_thread, 1);
}

TEST(GpuKernels, LibdeviceReflectAnswersNoFlushToZero) {
  const std::string ir_text = lower::emit_llvm_ir(program_of(kElementwise), {Target::kCuda, "sm_80"});
  EXPECT_EQ(ir_text.find("__nvvm_reflect"), std::string::npos) << "unanswered reflect queries";
  // __nv_expf picks its saturate by __CUDA_FTZ: the IEEE one, since flush-to-zero is off.
  EXPECT_NE(ir_text.find("@llvm.nvvm.saturate.f("), std::string::npos) << ir_text;
  EXPECT_EQ(ir_text.find("saturate.ftz"), std::string::npos) << "libdevice took its flush-to-zero path:\n" << ir_text;
  EXPECT_NE(ir_text.find("ptx_kernel"), std::string::npos);
}

TEST(GpuKernels, ReductionIsABlockTreeInSharedMemory) {
  const kernel::KernelProgram program = program_of(kRowMax);
  const std::string ptx = ptx_of(program, "sm_90");
  EXPECT_NE(ptx.find(".shared"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("bar.sync"), std::string::npos) << ptx;
  EXPECT_TRUE(ptxas_accepts(ptx, "sm_90"));
  const lower::LaunchConfig launch = lower::launch_config(program.kernels[0], {Target::kCuda, "sm_90"});
  EXPECT_EQ(launch.grid[0], 8u);  // one block per output element
  EXPECT_EQ(launch.block[0], 256u);

  // A short reduction gets a smaller block: one warp.
  const kernel::KernelProgram small = program_of(R"(graph s
x = input() : i32[5,10]
y = reduce_sum(x, axes=[1], keepdims=true) : i32[5,1]
output y
)");
  EXPECT_EQ(lower::launch_config(small.kernels[0], {Target::kHip, "gfx90a"}).block[0], 32u);
  EXPECT_TRUE(ptxas_accepts(ptx_of(small), "sm_80"));
}

// A sum of more than block_threads · kSerialSumBlock values per output adds
// each thread's f32 round sums into f64 (KernelEmitter::sums_in_blocks);
// shorter sums (kRowMax's size) keep f32 throughout.
TEST(GpuKernels, LongSumsAddRoundSumsInDouble) {
  const kernel::KernelProgram long_sum = program_of(R"(graph long_sum
x = input() : f32[2,300000]
y = reduce_sum(x, axes=[1], keepdims=false) : f32[2]
output y
)");
  const std::string ptx = ptx_of(long_sum);
  EXPECT_NE(ptx.find("cvt.f64.f32"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("add.rn.f64"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".shared .align 16 .b8 smelt_partials_1[2048]"), std::string::npos) << "f64 partials:\n" << ptx;
  EXPECT_TRUE(ptxas_accepts(ptx, "sm_80"));
  if (const std::optional<std::string> symbols = readelf_of(long_sum, "gfx90a", "-s")) {
    EXPECT_NE(symbols->find(lower::kernel_symbol(long_sum, 0)), std::string::npos) << *symbols;
  }

  const kernel::KernelProgram short_sum = program_of(R"(graph short_sum
x = input() : f32[8,1000]
y = reduce_sum(x, axes=[1], keepdims=false) : f32[8]
output y
)");
  EXPECT_EQ(ptx_of(short_sum).find("f64"), std::string::npos) << ptx_of(short_sum);
}

// A contraction of two bf16 (or f16) sides runs on tensor cores: mma.sync
// m16n8k16 with f32 accumulators, 128x128 tiles of 256 threads, A's 16-byte
// runs along K loaded as one access; hip, which has no mma.sync, keeps the
// tiled matmul. The emulation (gpu_emulation_test.cpp) checks the values.
TEST(GpuKernels, HalfContractionsRunOnTensorCores) {
  for (const char* dtype : {"bf16", "f16"}) {
    const std::string text = std::string(R"(graph mm
a = input() : )") + dtype + R"([300,256]
b = input() : )" + dtype + R"([256,200]
y = matmul(a, b) : )" + dtype + R"([300,200]
output y
)";
    const kernel::KernelProgram program = program_of(text);
    ASSERT_EQ(program.kernels.size(), 1u);
    EXPECT_EQ(kernel::plan_gpu_kernel(program.kernels[0], kernel::GpuMatrixUnits::kNvidiaMma).shape,
              kernel::GpuShape::kTensorCoreMatmul);
    EXPECT_EQ(kernel::plan_gpu_kernel(program.kernels[0], kernel::GpuMatrixUnits::kNone).shape,
              kernel::GpuShape::kTiledMatmul);
    const lower::LaunchConfig launch = lower::launch_config(program.kernels[0], {Target::kCuda, "sm_80"});
    EXPECT_EQ(launch.grid[0], 6u) << "ceil(300 / 128) · ceil(200 / 128) tiles";
    EXPECT_EQ(launch.block[0], 256u);
    EXPECT_EQ(lower::launch_config(program.kernels[0], {Target::kHip, "gfx90a"}).grid[0], 20u) << "64x64 tiles on hip";
    for (const std::string arch : {"sm_80", "sm_90"}) {
      const std::string ptx = ptx_of(program, arch);
      const std::string mma = std::string("mma.sync.aligned.m16n8k16.row.col.f32.") + dtype + "." + dtype + ".f32";
      EXPECT_NE(ptx.find(mma), std::string::npos) << dtype << " " << arch << ptx;
      EXPECT_NE(ptx.find("ld.global.v4.b32"), std::string::npos) << dtype << " " << arch << ptx;
      EXPECT_NE(ptx.find("st.shared.v4.b32"), std::string::npos) << dtype << " " << arch << ptx;
      EXPECT_TRUE(ptxas_accepts(ptx, arch));
    }
    EXPECT_EQ(lower::emit_llvm_ir(program, {Target::kHip, "gfx90a"}).find("mma"), std::string::npos);
  }
}

TEST(GpuKernels, ContractionIsATiledMatmulWithFusedEpilogue) {
  const kernel::KernelProgram program = program_of(kMatmulBias);
  ASSERT_EQ(program.kernels.size(), 1u);
  const std::string ir_text = lower::emit_llvm_ir(program, {Target::kCuda, "sm_80"});
  EXPECT_NE(ir_text.find("smelt_a_tiles"), std::string::npos);
  EXPECT_NE(ir_text.find("smelt_b_tiles"), std::string::npos);
  const lower::LaunchConfig launch = lower::launch_config(program.kernels[0], {Target::kCuda, "sm_80"});
  EXPECT_EQ(launch.grid[0], 6u);  // ceil(100 / 64) · ceil(130 / 64) tiles
  EXPECT_EQ(launch.block[0], 256u);
  for (const std::string arch : {"sm_80", "sm_90"}) EXPECT_TRUE(ptxas_accepts(ptx_of(program, arch), arch));
  if (const std::optional<std::string> notes = readelf_of(program, "gfx90a", "--notes")) {
    // Two 16×64 f32 slabs (A and B) of LDS.
    EXPECT_NE(notes->find(".group_segment_fixed_size: 8192"), std::string::npos) << *notes;
    // The block size launch_config gives is the most the code object accepts.
    EXPECT_NE(notes->find(".max_flat_workgroup_size: 256"), std::string::npos) << *notes;
  }
}

TEST(GpuKernels, IntegerMatmulFallsBackToBlockReduction) {
  const kernel::KernelProgram program = program_of(R"(graph im
a = input() : i32[3,40]
b = input() : i32[40,5]
y = matmul(a, b) : i32[3,5]
output y
)");
  const lower::LaunchConfig launch = lower::launch_config(program.kernels[0], {Target::kCuda, ""});
  EXPECT_EQ(launch.grid[0], 15u);  // one block per output element
  EXPECT_EQ(launch.block[0], 64u);
  EXPECT_TRUE(ptxas_accepts(ptx_of(program), "sm_80"));
}

// Every math op and every dtype conversion, on both targets: nothing is left
// for a library that is not linked.
TEST(GpuKernels, EveryMathOpAndDtypeLowersWithoutExternalCalls) {
  const kernel::KernelProgram program = program_of(R"(graph math
x = input() : f32[33]
h = input() : f16[33]
z = input() : bf16[33]
n = input() : i64[33]
e = exp(x)
e2 = exp2(e)
l = log(e2)
l2 = log2(l)
s = sin(l2)
c = cos(s)
t = tanh(c)
q = sqrt(t)
r = rsqrt(q)
rc = recip(r)
sg = sigmoid(rc)
g = gelu(sg)
er = erf(g)
p = pow(er, x)
hf = cast(h, to=f32)
zf = cast(z, to=f32)
nf = cast(n, to=f32)
a1 = add(p, hf)
a2 = mul(a1, zf)
a3 = div(a2, nf)
y = cast(a3, to=f16)
w = cast(a3, to=i32)
output y
output w
)");
  const std::string ptx = ptx_of(program);
  EXPECT_EQ(ptx.find("call."), std::string::npos) << "a call left in the PTX:\n" << ptx;
  EXPECT_TRUE(ptxas_accepts(ptx, "sm_80"));
  if (const std::optional<std::string> symbols = readelf_of(program, "gfx90a", "--dyn-syms")) {
    EXPECT_EQ(symbols->find(" UND "), symbols->find(" UND \n")) << "undefined symbols:\n" << *symbols;
    for (const char* missing : {"powf", "tanhf", "erff", "expf", "ocml"})
      EXPECT_EQ(symbols->find(missing), std::string::npos) << missing << " in\n" << *symbols;
  }
}

TEST(GpuKernels, Gfx942AndSm90AreTargetedWhenAsked) {
  const kernel::KernelProgram program = program_of(kRowMax);
  if (const std::optional<std::string> notes = readelf_of(program, "gfx942", "--notes")) {
    EXPECT_NE(notes->find("amdhsa.target:   amdgcn-amd-amdhsa--gfx942"), std::string::npos) << *notes;
  }
  const std::string assembly = lower::emit_assembly(program, {Target::kHip, "gfx942"});
  EXPECT_NE(assembly.find(".amdhsa_kernel " + lower::kernel_symbol(program, 0)), std::string::npos);
  EXPECT_NE(lower::emit_assembly(program, {Target::kCuda, "sm_90"}).find(".target sm_90"), std::string::npos);
  // Defaults: sm_80 and gfx90a.
  EXPECT_NE(lower::emit_assembly(program, {Target::kCuda, ""}).find(".target sm_80"), std::string::npos);
  EXPECT_NE(lower::emit_assembly(program, {Target::kHip, ""}).find("gfx90a"), std::string::npos);
}

TEST(GpuKernels, EmptyTensorsLaunchOneBlockThatDoesNothing) {
  const kernel::KernelProgram program = program_of(R"(graph empty
x = input() : f32[0,4]
y = neg(x)
s = reduce_sum(x, axes=[0], keepdims=false) : f32[4]
output y
output s
)");
  ASSERT_EQ(program.kernels.size(), 2u);
  for (const kernel::Kernel& kernel : program.kernels) {
    // neg over no elements: one block; the sum over an empty axis: 4 zeros, a block each.
    const uint32_t want = kernel.space == ir::Shape{4} ? 4u : 1u;
    EXPECT_EQ(lower::launch_config(kernel, {Target::kCuda, ""}).grid[0], want) << kernel.name;
  }
  EXPECT_TRUE(ptxas_accepts(ptx_of(program), "sm_80"));
  EXPECT_FALSE(lower::emit_binary(program, {Target::kHip, ""}).empty());
}

TEST(GpuKernels, UnknownArchIsAClearError) {
  const kernel::KernelProgram program = program_of(kElementwise);
  try {
    lower::emit_binary(program, {Target::kCuda, "sm_75"});
    FAIL() << "sm_75 accepted";
  } catch (const lower::LowerError& e) {
    EXPECT_NE(std::string(e.what()).find("supported: sm_80, sm_90"), std::string::npos) << e.what();
  }
  try {
    lower::emit_assembly(program, {Target::kHip, "gfx1100"});
    FAIL() << "gfx1100 accepted";
  } catch (const lower::LowerError& e) {
    EXPECT_NE(std::string(e.what()).find("supported: gfx90a, gfx942"), std::string::npos) << e.what();
  }
  EXPECT_THROW(lower::launch_config(program.kernels[0], {Target::kCuda, "sm_70"}), lower::LowerError);
  EXPECT_THROW(lower::launch_config(program.kernels[0], {Target::kHost, ""}), lower::LowerError);
}

using smelt_testing::ScopedEnv;

TEST(GpuKernels, MissingLinkerIsAClearError) {
  ScopedEnv linker("SMELT_LD_LLD", "/nonexistent/ld.lld-19");
  try {
    lower::emit_binary(program_of(kElementwise), {Target::kHip, ""});
    FAIL() << "linked without a linker";
  } catch (const lower::LowerError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot run /nonexistent/ld.lld-19"), std::string::npos) << e.what();
  }
  // The assembly needs no linker.
  EXPECT_FALSE(lower::emit_assembly(program_of(kElementwise), {Target::kHip, ""}).empty());
}

TEST(GpuKernels, MissingLibdeviceIsAClearError) {
  ScopedEnv libdevice("SMELT_LIBDEVICE", "/nonexistent/libdevice.10.bc");
  try {
    lower::emit_binary(program_of(kElementwise), {Target::kCuda, ""});
    FAIL() << "compiled exp without libdevice";
  } catch (const lower::LowerError& e) {
    EXPECT_NE(std::string(e.what()).find("libdevice not found at /nonexistent/libdevice.10.bc"), std::string::npos)
        << e.what();
  }
  // A kernel without math needs no libdevice.
  EXPECT_FALSE(ptx_of(program_of(kRowMax)).empty());
}

}  // namespace
}  // namespace smelt
