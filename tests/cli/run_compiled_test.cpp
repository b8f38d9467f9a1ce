// `smelt run` on compiled targets and `smelt compile --emit`, run as a user would.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ir/text_format.h"
#include "tests/fusion/fusion_test_util.h"
#include "tests/support/smelt_cli_fixture.h"

namespace fs = std::filesystem;

namespace {

using Result = smelt::smelt_testing::CliResult;

bool library_opens(const char* name) {
  void* handle = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (handle) ::dlclose(handle);
  return handle != nullptr;
}

class RunCompiledTest : public smelt::smelt_testing::SmeltCliTest {
 protected:
  // A .npy v1 file: header padded to a multiple of 64 bytes, then the raw data.
  void write_npy(const fs::path& path, const std::string& descr, const std::string& shape, const void* data,
                 size_t bytes) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::ofstream out(path, std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    const uint16_t len = static_cast<uint16_t>(header.size());
    out.put(static_cast<char>(len & 0xff));
    out.put(static_cast<char>(len >> 8));
    out << header;
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  }

  // a f32[3], h f16[2], b bf16[2], i i64[2], m bool[2] (and n i32[3] with `with_i32`) into `dir`.
  void write_dtype_inputs(const fs::path& dir, bool with_i32) {
    fs::create_directories(dir);
    const float a[] = {1, 2, 3.5f};
    const int32_t n[] = {-5, 7, 100};
    const uint16_t h[] = {0x3e00, 0xc000};  // f16 1.5, -2
    const uint16_t b[] = {0x3fc0, 0x4040};  // bf16 1.5, 3
    const int64_t i[] = {int64_t{1} << 40, -3};
    const uint8_t m[] = {1, 0};
    write_npy(dir / "a.npy", "<f4", "(3,)", a, sizeof a);
    if (with_i32) write_npy(dir / "n.npy", "<i4", "(3,)", n, sizeof n);
    write_npy(dir / "h.npy", "<f2", "(2,)", h, sizeof h);
    write_npy(dir / "b.npy", "<u2", "(2,)", b, sizeof b);
    write_npy(dir / "i.npy", "<i8", "(2,)", i, sizeof i);
    write_npy(dir / "m.npy", "|b1", "(2,)", m, sizeof m);
  }
};

TEST_F(RunCompiledTest, TheDefaultTargetIsTheCompiledHost) {
  Result r = smelt("run --json " + example("luminal_fusion.sg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["target"], "host");
  EXPECT_EQ(j["device"].get<std::string>().rfind("host (", 0), 0u) << j["device"];
  EXPECT_EQ(j["kernels"], 1);
  EXPECT_EQ(j["outputs"][0]["shape"], nlohmann::json({10}));
}

TEST_F(RunCompiledTest, ReferenceTargetIsTheInterpreter) {
  Result r = smelt("run --json --target reference " + example("luminal_fusion.sg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["target"], "reference");
}

// The llama examples run scaled down (smelt::fusion_testing::scaled_example), to keep
// the test short; at full size the reference's error scales judge their long sums
// (lower.LargeHostExamples).
TEST_F(RunCompiledTest, CheckPassesOnEveryExampleFusedAndPrintsTolerances) {
  int count = 0;
  for (const std::string& name : smelt::fusion_testing::example_names()) {
    ++count;
    std::string file = example(name + ".sg");
    if (name.rfind("llama_", 0) == 0) file = write(name + "_scaled.sg", smelt::ir::print_graph(smelt::fusion_testing::scaled_example(name))).string();
    Result r = smelt("run --check --threads 2 " + file);
    EXPECT_EQ(r.exit_code, 0) << file << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("  max abs err "), std::string::npos) << file << r.out;
    EXPECT_EQ(r.out.find("MISMATCH"), std::string::npos) << file << r.out;
    EXPECT_NE(r.out.find("check: every output matches the reference interpreter"), std::string::npos) << r.out;
  }
  EXPECT_GE(count, 10);
}

TEST_F(RunCompiledTest, CheckMismatchIsExitOne) {
  // A deliberate bug (kernel/mutation.h): the input read 1 % too large.
  const fs::path graph = write("exp.sg",
                               "graph exp\n"
                               "x = input() : f32[64]\n"
                               "y = exp(x)\n"
                               "output y\n");
  Result r = smelt("run --check --mutate input-1pct " + graph.string());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("mutation input-1pct: kernel 0"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find(": MISMATCH"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check: MISMATCH with the reference interpreter"), std::string::npos) << r.out;
}

// 1e8 absorbs the ones an f32 sum adds to it (the spacing there is 8), which
// the reference, summing in double, keeps: 4097 comes out as about 3968. The
// element is judged by a share of its terms' size (2e8): 4 x 2^-24 of it, 48,
// in units of rtol 4 2^-24 / 1e-4 (ir/interpreter.cpp, sum_error_scale), less
// than this sum loses, since its rounding errors all go one way: reported.
TEST_F(RunCompiledTest, ASumThatAbsorbsItsTermsIsReported) {
  const fs::path graph = write("sum.sg",
                               "graph lossy_sum\n"
                               "x = input() : f32[4099]\n"
                               "s = reduce_sum(x, axes=[0])\n"
                               "output s\n");
  const fs::path dir = dir_ / "inputs";
  fs::create_directories(dir);
  std::vector<float> x(4099, 1.0f);
  x.front() = 1e8f;
  x.back() = -1e8f;
  write_npy(dir / "x.npy", "<f4", "(4099,)", x.data(), x.size() * sizeof(float));
  Result r = smelt("run --check --json --inputs " + dir.string() + " " + graph.string());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["check"], "mismatch");
  const double u = std::ldexp(1.0, -24) / 1e-4;
  const double scale = 2 * u * 4097 + std::max(4 * u * (2e8 + 4097), 4 * std::sqrt(4099.0) * u * 4097);
  EXPECT_NEAR(j["outputs"][0]["worst_scale"].get<double>(), scale, 64);  // held as f32
}

TEST_F(RunCompiledTest, CheckPassesUnfusedWithPerOutputErrorsInJson) {
  Result r = smelt("run --check --no-fusion --json " + example("nvfuser_rope_bwd.sg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["check"], "ok");
  EXPECT_EQ(j["fusion"], false);
  EXPECT_GT(j["kernels"].get<int>(), 10);
  EXPECT_LT(j["peak_bytes_after"].get<size_t>(), j["peak_bytes_before"].get<size_t>());
  for (const auto& out : j["outputs"]) {
    EXPECT_TRUE(out["ok"].get<bool>());
    EXPECT_LE(out["worst_error"].get<double>(), out["worst_bound"].get<double>());
    EXPECT_EQ(out["failed_elements"].get<int64_t>(), 0);
  }
}

TEST_F(RunCompiledTest, CheckWithTheReferenceTargetIsAUsageError) {
  Result r = smelt("run --check --target reference " + example("luminal_fusion.sg"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--check compares a compiled target"), std::string::npos) << r.err;
}

TEST_F(RunCompiledTest, MissingCudaDriverIsExitOneWithOneLine) {
  if (library_opens("libcuda.so.1")) GTEST_SKIP() << "an NVIDIA driver is installed here";
  Result r = smelt("run --target cuda --check " + example("luminal_fusion.sg"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: cuda: libcuda.so.1 not found (no NVIDIA driver on this machine)\n");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(RunCompiledTest, MissingHipRuntimeIsExitOneWithOneLine) {
  if (library_opens("libamdhip64.so") || library_opens("libamdhip64.so.6") || library_opens("libamdhip64.so.5"))
    GTEST_SKIP() << "a HIP runtime is installed here";
  Result r = smelt("run --target hip " + example("luminal_fusion.sg"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: hip: libamdhip64.so not found (no ROCm HIP runtime on this machine)\n");
}

// Every dtype through .npy files: values chosen so each checksum is exact.
TEST_F(RunCompiledTest, NpyInputsOfEveryDtype) {
  const fs::path graph = write("dtypes.sg",
                               "graph dtypes\n"
                               "a = input() : f32[3]\n"
                               "n = input() : i32[3]\n"
                               "h = input() : f16[2]\n"
                               "b = input() : bf16[2]\n"
                               "i = input() : i64[2]\n"
                               "m = input() : bool[2]\n"
                               "a2 = add(a, a)\n"
                               "n2 = add(n, n)\n"
                               "h2 = add(h, h)\n"
                               "b2 = add(b, b)\n"
                               "i2 = add(i, i)\n"
                               "mf = cast(m, to=f32)\n"
                               "output a2\noutput n2\noutput h2\noutput b2\noutput i2\noutput mf\n");
  const fs::path dir = dir_ / "inputs";
  write_dtype_inputs(dir, true);
  for (const char* target : {"host", "reference"}) {
    Result r = smelt("run --json --target " + std::string(target) + " --inputs " + dir.string() + " " + graph.string());
    ASSERT_EQ(r.exit_code, 0) << target << r.err;
    auto outs = nlohmann::json::parse(r.out)["outputs"];
    EXPECT_EQ(outs[0]["checksum"], 13.0) << target;
    EXPECT_EQ(outs[1]["checksum"], 204.0) << target;
    EXPECT_EQ(outs[2]["checksum"], -1.0) << target;
    EXPECT_EQ(outs[3]["checksum"], 9.0) << target;
    EXPECT_EQ(outs[4]["checksum"], static_cast<double>((int64_t{1} << 41) - 6)) << target;
    EXPECT_EQ(outs[5]["checksum"], 1.0) << target;
  }
  Result check = smelt("run --check --inputs " + dir.string() + " " + graph.string());
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

// --outputs writes each output as <name>.npy, which --inputs reads back: the
// six dtypes of the test above round-trip through a graph that takes them in.
TEST_F(RunCompiledTest, OutputsAreWrittenAsNpyThatInputsReadBack) {
  const fs::path graph = write("twice.sg",
                               "graph twice\n"
                               "a = input() : f32[3]\nh = input() : f16[2]\nb = input() : bf16[2]\n"
                               "i = input() : i64[2]\nm = input() : bool[2]\n"
                               "a2 = add(a, a)\nh2 = add(h, h)\nb2 = add(b, b)\ni2 = add(i, i)\nm2 = eq(m, m)\n"
                               "output a2, h2, b2, i2, m2\n");
  const fs::path in = dir_ / "in";
  write_dtype_inputs(in, false);
  const fs::path back = write("back.sg",
                              "graph back\n"
                              "a2 = input() : f32[3]\nh2 = input() : f16[2]\nb2 = input() : bf16[2]\n"
                              "i2 = input() : i64[2]\nm2 = input() : bool[2]\n"
                              "ma = cast(m2, to=f32)\noutput a2, h2, b2, i2, ma\n");
  for (const char* target : {"host", "reference"}) {
    const fs::path out = dir_ / (std::string("out_") + target);
    Result r = smelt("run --target " + std::string(target) + " --inputs " + in.string() + " --outputs " + out.string() +
                     " " + graph.string());
    ASSERT_EQ(r.exit_code, 0) << target << r.err;
    for (const char* name : {"a2", "h2", "b2", "i2", "m2"}) EXPECT_TRUE(fs::exists(out / (std::string(name) + ".npy")));
    Result again = smelt("run --json --target reference --inputs " + out.string() + " " + back.string());
    ASSERT_EQ(again.exit_code, 0) << target << again.err;
    auto outs = nlohmann::json::parse(again.out)["outputs"];
    EXPECT_EQ(outs[0]["checksum"], 13.0) << target;
    EXPECT_EQ(outs[1]["checksum"], -1.0) << target;
    EXPECT_EQ(outs[2]["checksum"], 9.0) << target;
    EXPECT_EQ(outs[3]["checksum"], static_cast<double>((int64_t{1} << 41) - 6)) << target;
    EXPECT_EQ(outs[4]["checksum"], 2.0) << target;  // eq(m, m): both true
  }
  // A file where the folder should be: exit 1, the path named, nothing written.
  const fs::path taken = write("taken", "not a folder");
  Result bad = smelt("run --inputs " + in.string() + " --outputs " + taken.string() + " " + graph.string());
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find(taken.string() + ": cannot create the folder"), std::string::npos) << bad.err;
}

TEST_F(RunCompiledTest, NpyErrorsNameTheFile) {
  const fs::path graph = write("one.sg", "graph one\nx = input() : f32[4]\ny = add(x, x)\noutput y\n");
  const fs::path dir = dir_ / "inputs";
  fs::create_directories(dir);
  Result missing = smelt("run --inputs " + dir.string() + " " + graph.string());
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("x.npy: missing (input x is f32[4])"), std::string::npos) << missing.err;

  const double wide[4] = {1, 2, 3, 4};
  write_npy(dir / "x.npy", "<f8", "(4,)", wide, sizeof wide);
  Result dtype = smelt("run --inputs " + dir.string() + " " + graph.string());
  EXPECT_EQ(dtype.exit_code, 1);
  EXPECT_NE(dtype.err.find("x.npy: dtype '<f8', but input x is f32[4] (expected '<f4')"), std::string::npos)
      << dtype.err;

  const float f[6] = {};
  write_npy(dir / "x.npy", "<f4", "(2, 3)", f, sizeof f);
  Result shape = smelt("run --inputs " + dir.string() + " " + graph.string());
  EXPECT_EQ(shape.exit_code, 1);
  EXPECT_NE(shape.err.find("x.npy: shape (2, 3), but input x is f32[4]"), std::string::npos) << shape.err;

  write_npy(dir / "x.npy", "<f4", "(4,)", f, 8);
  Result truncated = smelt("run --inputs " + dir.string() + " " + graph.string());
  EXPECT_EQ(truncated.exit_code, 1);
  EXPECT_NE(truncated.err.find("x.npy: 8 data bytes, expected 16 for f32[4]"), std::string::npos) << truncated.err;

  std::ofstream(dir / "x.npy") << "not numpy";
  Result garbage = smelt("run --inputs " + dir.string() + " " + graph.string());
  EXPECT_EQ(garbage.exit_code, 1);
  EXPECT_NE(garbage.err.find("x.npy: not a .npy file"), std::string::npos) << garbage.err;
}

TEST_F(RunCompiledTest, EmitKernelsAndLlvmToStdout) {
  Result kernels = smelt("compile " + example("luminal_fusion.sg") + " --emit kernels");
  ASSERT_EQ(kernels.exit_code, 0) << kernels.err;
  EXPECT_NE(kernels.out.find("kernel"), std::string::npos) << kernels.out;
  Result llvm = smelt("compile " + example("luminal_fusion.sg") + " --emit llvm -o -");
  ASSERT_EQ(llvm.exit_code, 0) << llvm.err;
  EXPECT_NE(llvm.out.find("define "), std::string::npos);
  Result host_asm = smelt("compile " + example("luminal_fusion.sg") + " --target host --emit asm");
  ASSERT_EQ(host_asm.exit_code, 0) << host_asm.err;
  EXPECT_FALSE(host_asm.out.empty());
}

TEST_F(RunCompiledTest, EmitPtxForCudaWithoutADriver) {
  const fs::path out = dir_ / "k.ptx";
  Result r = smelt("compile " + example("luminal_fusion.sg") + " --target cuda --emit ptx -o " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string ptx = smelt::smelt_testing::read_text_file(out);
  EXPECT_NE(ptx.find(".entry"), std::string::npos);
  EXPECT_NE(ptx.find("sm_80"), std::string::npos);
  // asm on cuda is the PTX too.
  Result as = smelt("compile " + example("luminal_fusion.sg") + " --target cuda --emit asm");
  ASSERT_EQ(as.exit_code, 0) << as.err;
  EXPECT_EQ(as.out, ptx);
}

TEST_F(RunCompiledTest, EmitHsacoToAFile) {
  const fs::path out = dir_ / "k.hsaco";
  Result r = smelt("compile " + example("luminal_fusion.sg") + " --target hip --emit hsaco -o " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string bytes = smelt::smelt_testing::read_text_file(out);
  ASSERT_GE(bytes.size(), 4u);
  EXPECT_EQ(bytes.substr(0, 4), "\x7f" "ELF");
}

TEST_F(RunCompiledTest, EmitKindsThatDoNotFitTheTargetAreUsageErrors) {
  Result ptx = smelt("compile " + example("luminal_fusion.sg") + " --emit ptx");
  EXPECT_EQ(ptx.exit_code, 2);
  EXPECT_NE(ptx.err.find("--emit ptx is for --target cuda, not host"), std::string::npos) << ptx.err;
  Result hsaco = smelt("compile " + example("luminal_fusion.sg") + " --target cuda --emit hsaco -o x");
  EXPECT_EQ(hsaco.exit_code, 2);
  EXPECT_NE(hsaco.err.find("--emit hsaco is for --target hip, not cuda"), std::string::npos) << hsaco.err;
  EXPECT_EQ(smelt("compile " + example("luminal_fusion.sg") + " --emit exe").exit_code, 2);
  Result no_emit = smelt("compile " + example("luminal_fusion.sg") + " -o out.txt");
  EXPECT_EQ(no_emit.exit_code, 2);
  EXPECT_NE(no_emit.err.find("-o needs --emit"), std::string::npos) << no_emit.err;
}

}  // namespace
