#pragma once
// Shared by the GPU lowering tests: the examples' kernel programs (fused once
// per test binary), running the external checkers (ptxas, llvm-readelf-19) and
// a scratch folder.
#include <filesystem>
#include <string>
#include <vector>

#include "kernel/kernel.h"

namespace smelt::gpu_testing {

struct ExampleProgram {
  std::string name;   // "luminal_fusion.after"
  kernel::KernelProgram program;
};

// Every examples/*.sg, smelt::fuse(g).before and .after, sorted by name.
const std::vector<ExampleProgram>& example_programs();
// The committed language models (examples/models/*/model.onnx: embedding
// gathers, attention, the LM head), fused only: "gpt2_small.after", ...
const std::vector<ExampleProgram>& exported_model_programs();

struct ToolResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};
// Runs `command` (a shell command line of paths without quotes) and captures its output.
ToolResult run_tool(const std::string& command);

// The path of ptxas (/usr/local/cuda/bin/ptxas or on PATH), or "" if absent.
// ptxas comes with NVIDIA's CUDA toolkit, which scripts/bootstrap does not
// install (Debian has it only in non-free, and it is large): the checks that
// need it are skipped without it (docs/testing.md). SMELT_PTXAS, when set,
// names the one to use instead ("" if it is not an executable), so the
// skipped path can be tried on a machine that has ptxas.
std::string find_ptxas();
// llvm-readelf-19 on PATH, or LLVM 19's own; "" if absent. SMELT_LLVM_READELF,
// when set, names the one to use instead, as SMELT_PTXAS does for ptxas.
std::string find_readelf();

// Marks the running test skipped because `tool` is absent, saying which check
// it did not run. A GTEST_SKIP from a helper returns from the helper only: the
// test goes on with the checks that need no tool, and is reported skipped only
// if none of them failed (a failure outranks a skip).
void skip_without(const std::string& tool, const std::string& unchecked);

// A fresh folder under the temp dir, removed with its contents at scope exit.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // Writes `bytes` to `name` in the folder; returns its path.
  std::filesystem::path write(const std::string& name, const std::string& bytes) const;

 private:
  std::filesystem::path path_;
};

}  // namespace smelt::gpu_testing
