// Every example, unfused and fused, and every committed language model, fused:
// PTX for sm_80 and sm_90 that ptxas accepts, and a gfx90a code object whose
// notes list every kernel.
#include <gtest/gtest.h>

#include <future>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "lower/lower.h"

namespace {

using smelt::gpu_testing::ExampleProgram;
using smelt::gpu_testing::run_tool;
using smelt::gpu_testing::ScratchDir;

std::string ptx_of(const smelt::kernel::KernelProgram& program, const std::string& arch) {
  const std::vector<uint8_t> bytes = smelt::lower::emit_binary(program, {smelt::lower::Target::kCuda, arch});
  return std::string(bytes.begin(), bytes.end());
}

// Without ptxas the PTX text is still checked and the test is reported
// skipped, naming ptxas (gpu_testing::skip_without).
void check_ptx(const std::vector<const ExampleProgram*>& programs, const std::string& what) {
  const std::string ptxas = smelt::gpu_testing::find_ptxas();
  if (ptxas.empty()) smelt::gpu_testing::skip_without("ptxas", what);
  ScratchDir scratch;
  struct Check {
    std::string label;
    std::future<smelt::gpu_testing::ToolResult> result;
  };
  std::vector<Check> checks;
  for (const ExampleProgram* checked : programs) {
    const ExampleProgram& example = *checked;
    for (const std::string arch : {"sm_80", "sm_90"}) {
      const std::string ptx = ptx_of(example.program, arch);
      EXPECT_NE(ptx.find(".target " + arch), std::string::npos) << example.name;
      for (size_t k = 0; k < example.program.kernels.size(); ++k)
        EXPECT_NE(ptx.find(".entry " + smelt::lower::kernel_symbol(example.program, k)), std::string::npos)
            << example.name << ": kernel " << k << " is not an entry";
      // libdevice is linked and inlined: no call leaves the module.
      EXPECT_EQ(ptx.find("__nv_"), std::string::npos) << example.name;
      if (ptxas.empty()) continue;
      const std::string label = example.name + "." + arch;
      const std::string file = scratch.write(label + ".ptx", ptx).string();
      checks.push_back({label, std::async(std::launch::async, run_tool,
                                          ptxas + " -arch=" + arch + " " + file + " -o " + file + ".cubin")});
      // Two ptxas at a time: the machine is shared.
      if (checks.size() % 2 == 0) checks[checks.size() - 2].result.wait();
    }
  }
  if (ptxas.empty()) return;
  ASSERT_EQ(checks.size(), programs.size() * 2);
  for (Check& check : checks) {
    const smelt::gpu_testing::ToolResult result = check.result.get();
    EXPECT_EQ(result.exit_code, 0) << check.label << ": ptxas said\n" << result.output;
  }
}

// Without llvm-readelf-19 the code objects are still built (linked by
// ld.lld-19) and the test is reported skipped, naming llvm-readelf-19.
void check_code_objects(const std::vector<const ExampleProgram*>& programs, const std::string& what) {
  const std::string readelf = smelt::gpu_testing::find_readelf();
  if (readelf.empty()) smelt::gpu_testing::skip_without("llvm-readelf-19", what);
  ScratchDir scratch;
  for (const ExampleProgram* checked : programs) {
    const ExampleProgram& example = *checked;
    const std::vector<uint8_t> code = smelt::lower::emit_binary(example.program, {smelt::lower::Target::kHip, "gfx90a"});
    EXPECT_FALSE(code.empty()) << example.name;
    if (readelf.empty()) continue;
    const std::string file = scratch.write(example.name + ".hsaco", std::string(code.begin(), code.end())).string();
    const smelt::gpu_testing::ToolResult notes = run_tool(readelf + " --notes " + file);
    ASSERT_EQ(notes.exit_code, 0) << example.name << ": " << notes.output;
    EXPECT_NE(notes.output.find("amdhsa.target:   amdgcn-amd-amdhsa--gfx90a"), std::string::npos)
        << example.name << ":\n" << notes.output;
    for (size_t k = 0; k < example.program.kernels.size(); ++k) {
      const std::string symbol = smelt::lower::kernel_symbol(example.program, k);
      EXPECT_NE(notes.output.find(".name:           " + symbol + "\n"), std::string::npos)
          << example.name << ": kernel " << symbol << " missing from the notes";
      EXPECT_NE(notes.output.find(".symbol:         " + symbol + ".kd"), std::string::npos) << example.name;
    }
  }
}

std::vector<const ExampleProgram*> all_of(const std::vector<ExampleProgram>& programs) {
  std::vector<const ExampleProgram*> out;
  for (const ExampleProgram& p : programs) out.push_back(&p);
  return out;
}

TEST(GpuExamples, PtxOfEveryExamplePassesPtxasForSm80AndSm90) {
  check_ptx(all_of(smelt::gpu_testing::example_programs()), "the examples' PTX");
}

TEST(GpuExamples, CodeObjectOfEveryExampleForGfx90aListsItsKernels) {
  check_code_objects(all_of(smelt::gpu_testing::example_programs()), "the examples' gfx90a code objects");
}

// The committed language models (embedding gathers, attention, the LM head), fused.
TEST(GpuExamples, PtxOfEveryExportedModelPassesPtxasForSm80AndSm90) {
  check_ptx(all_of(smelt::gpu_testing::exported_model_programs()), "the exported models' PTX");
}

TEST(GpuExamples, CodeObjectOfEveryExportedModelForGfx90aListsItsKernels) {
  check_code_objects(all_of(smelt::gpu_testing::exported_model_programs()), "the exported models' gfx90a code objects");
}

}  // namespace
