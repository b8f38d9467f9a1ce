// The hip target's libraries and linker: ocml / ockl from rocm-device-libs
// where installed, and `ld.lld-19 -shared` making the code object (see
// gpu_backend.h).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

#include "lower/gpu_backend.h"

extern char** environ;

namespace smelt::lower {
namespace {

namespace fs = std::filesystem;

// rocm-device-libs names ISA libraries by the arch without "gfx".
std::string isa_library(const std::string& arch) { return "oclc_isa_version_" + arch.substr(3) + ".bc"; }

// The control libraries answering ocml's __oclc_* queries the way HIP does by
// default: IEEE denormals, no fast math, correctly rounded sqrt, wave64
// (gfx90a and gfx942 are wave64 parts), code object v5's ABI.
std::vector<std::string> control_libraries(const std::string& arch) {
  return {isa_library(arch),
          "oclc_wavefrontsize64_on.bc",
          "oclc_finite_only_off.bc",
          "oclc_unsafe_math_off.bc",
          "oclc_daz_opt_off.bc",
          "oclc_correctly_rounded_sqrt_on.bc",
          "oclc_abi_version_500.bc"};
}

std::unique_ptr<llvm::Module> read_bitcode(const fs::path& path, llvm::LLVMContext& context) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file = llvm::MemoryBuffer::getFile(path.string());
  if (!file) throw LowerError("hip: cannot read " + path.string() + ": " + file.getError().message());
  llvm::Expected<std::unique_ptr<llvm::Module>> library = llvm::parseBitcodeFile((*file)->getMemBufferRef(), context);
  if (!library)
    throw LowerError("hip: " + path.string() + " is not LLVM bitcode: " + llvm::toString(library.takeError()));
  return std::move(*library);
}

bool calls_ocml(const llvm::Module& module) {
  for (const llvm::Function& fn : module)
    if (fn.isDeclaration() && (fn.getName().starts_with("__ocml_") || fn.getName().starts_with("__ockl_")))
      return true;
  return false;
}

std::string find_ld_lld() {
  if (const char* path = std::getenv("SMELT_LD_LLD"); path && *path) return path;
  if (const char* path_env = std::getenv("PATH")) {
    std::stringstream dirs(path_env);
    for (std::string dir; std::getline(dirs, dir, ':');)
      if (!dir.empty() && ::access((fs::path(dir) / "ld.lld-19").c_str(), X_OK) == 0)
        return (fs::path(dir) / "ld.lld-19").string();
  }
  if (::access("/usr/lib/llvm-19/bin/ld.lld", X_OK) == 0) return "/usr/lib/llvm-19/bin/ld.lld";
  throw LowerError("hip: ld.lld-19 not found (install Debian's lld-19 or set SMELT_LD_LLD): it links the code object");
}

// A fresh private directory, removed with everything in it on scope exit.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "smelt-hsaco-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw LowerError("hip: cannot create a temporary directory for linking");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string amdgpu_device_libs_dir(const std::string& arch) {
  std::vector<fs::path> candidates;
  if (const char* dir = std::getenv("SMELT_ROCM_DEVICE_LIBS"); dir && *dir) candidates.emplace_back(dir);
  candidates.emplace_back("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode");  // Debian's rocm-device-libs
  candidates.emplace_back("/usr/lib/llvm-19/lib/clang/19/lib/amdgcn/bitcode");
  candidates.emplace_back("/opt/rocm/amdgcn/bitcode");
  for (const fs::path& dir : candidates) {
    std::error_code ignored;
    bool complete = fs::exists(dir / "ocml.bc", ignored) && fs::exists(dir / "ockl.bc", ignored);
    for (const std::string& library : control_libraries(arch)) complete = complete && fs::exists(dir / library, ignored);
    if (complete) return dir.string();
  }
  return "";
}

void amdgpu_link_device_libs(llvm::Module& module, const std::string& arch) {
  if (!calls_ocml(module)) return;
  const std::string dir = amdgpu_device_libs_dir(arch);
  if (dir.empty())
    throw LowerError("hip: the module calls ocml but rocm-device-libs for " + arch + " is not installed");
  std::vector<std::string> libraries = {"ocml.bc", "ockl.bc"};
  for (const std::string& control : control_libraries(arch)) libraries.push_back(control);
  // Each library only adds what is still undefined, so ocml goes first, then
  // what it calls.
  for (const std::string& name : libraries) {
    std::unique_ptr<llvm::Module> library = read_bitcode(fs::path(dir) / name, module.getContext());
    library->setTargetTriple(module.getTargetTriple());
    library->setDataLayout(module.getDataLayout());
    if (llvm::Linker::linkModules(module, std::move(library), llvm::Linker::Flags::LinkOnlyNeeded))
      throw LowerError("hip: linking " + name + " from " + dir + " failed");
  }
  // As clang's -mlink-builtin-bitcode: the library code is compiled for our arch.
  for (llvm::Function& fn : module)
    if (!fn.isDeclaration()) fn.addFnAttr("target-cpu", arch);
}

std::vector<uint8_t> link_amdgpu_code_object(const std::vector<uint8_t>& object) {
  const std::string linker = find_ld_lld();
  TempDir temp;
  const fs::path input = temp.path() / "kernels.o";
  const fs::path output = temp.path() / "kernels.hsaco";
  const fs::path log = temp.path() / "ld.log";
  {
    std::ofstream out(input, std::ios::binary);
    out.write(reinterpret_cast<const char*>(object.data()), static_cast<std::streamsize>(object.size()));
    if (!out) throw LowerError("hip: cannot write " + input.string());
  }
  std::vector<std::string> args = {linker, "-shared", input.string(), "-o", output.string()};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int spawn_error = posix_spawn(&pid, linker.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0) throw LowerError("hip: cannot run " + linker + ": " + std::strerror(spawn_error));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw LowerError("hip: waiting for " + linker + " failed");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw LowerError("hip: " + linker + " failed: " + read_text(log));
  std::ifstream in(output, std::ios::binary);
  std::vector<uint8_t> code_object((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (code_object.empty()) throw LowerError("hip: " + linker + " wrote no code object");
  return code_object;
}

}  // namespace smelt::lower
