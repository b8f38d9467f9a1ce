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

struct ToolResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};
// Runs `command` (a shell command line of paths without quotes) and captures its output.
ToolResult run_tool(const std::string& command);

// The path of ptxas (/usr/local/cuda/bin/ptxas or on PATH), or "" if absent.
std::string find_ptxas();
// llvm-readelf-19 on PATH, or LLVM 19's own; "" if absent.
std::string find_readelf();

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
