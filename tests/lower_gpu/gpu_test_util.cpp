#include "gpu_test_util.h"

#include <gtest/gtest.h>

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "smelt/smelt.h"

namespace smelt::gpu_testing {
namespace fs = std::filesystem;

const std::vector<ExampleProgram>& example_programs() {
  static const std::vector<ExampleProgram> programs = [] {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(std::string(SMELT_SOURCE_DIR) + "/examples"))
      if (entry.path().extension() == ".sg") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    std::vector<ExampleProgram> result;
    for (const fs::path& file : files) {
      smelt::FusionResult fused = smelt::fuse(smelt::load_graph(file.string()));
      result.push_back({file.stem().string() + ".before", std::move(fused.before)});
      result.push_back({file.stem().string() + ".after", std::move(fused.after)});
    }
    return result;
  }();
  return programs;
}

const std::vector<ExampleProgram>& exported_model_programs() {
  static const std::vector<ExampleProgram> programs = [] {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(std::string(SMELT_SOURCE_DIR) + "/examples/models"))
      if (fs::exists(entry.path() / "model.onnx")) files.push_back(entry.path() / "model.onnx");
    std::sort(files.begin(), files.end());
    std::vector<ExampleProgram> result;
    for (const fs::path& file : files)
      result.push_back({file.parent_path().filename().string() + ".after",
                        smelt::fuse(smelt::load_graph(file.string())).after});
    return result;
  }();
  return programs;
}

ToolResult run_tool(const std::string& command) {
  ToolResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run " + command);
  char chunk[4096];
  for (size_t n; (n = fread(chunk, 1, sizeof chunk, pipe)) > 0;) result.output.append(chunk, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

namespace {
// The tool `variable` names, if it is set: its path when it is executable,
// else "" (absent). std::nullopt when the variable is not set.
std::optional<std::string> from_env(const char* variable) {
  const char* path = std::getenv(variable);
  if (!path) return std::nullopt;
  return ::access(path, X_OK) == 0 ? std::string(path) : std::string();
}

std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::stringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && ::access((fs::path(dir) / name).c_str(), X_OK) == 0) return (fs::path(dir) / name).string();
  return "";
}
}  // namespace

std::string find_ptxas() {
  if (std::optional<std::string> path = from_env("SMELT_PTXAS")) return *path;
  if (::access("/usr/local/cuda/bin/ptxas", X_OK) == 0) return "/usr/local/cuda/bin/ptxas";
  return on_path("ptxas");
}

std::string find_readelf() {
  if (std::optional<std::string> path = from_env("SMELT_LLVM_READELF")) return *path;
  if (std::string path = on_path("llvm-readelf-19"); !path.empty()) return path;
  if (::access("/usr/lib/llvm-19/bin/llvm-readelf", X_OK) == 0) return "/usr/lib/llvm-19/bin/llvm-readelf";
  return "";
}

void skip_without(const std::string& tool, const std::string& unchecked) {
  GTEST_SKIP() << tool << " is not installed: " << unchecked << " not checked";
}

ScratchDir::ScratchDir() {
  std::string pattern = (fs::temp_directory_path() / "smelt-gpu-test-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a scratch folder");
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

fs::path ScratchDir::write(const std::string& name, const std::string& bytes) const {
  const fs::path file = path_ / name;
  std::ofstream out(file, std::ios::binary);
  out << bytes;
  if (!out) throw std::runtime_error("cannot write " + file.string());
  return file;
}

}  // namespace smelt::gpu_testing
