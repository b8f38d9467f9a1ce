// libdevice for the cuda target: linked only-needed, its __nvvm_reflect
// queries answered here (see gpu_backend.h).
#include <cstdlib>
#include <filesystem>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

#include "lower/gpu_backend.h"

namespace smelt::lower {
namespace {

constexpr const char* kDefaultLibdevice = "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc";

std::string libdevice_path() {
  if (const char* path = std::getenv("SMELT_LIBDEVICE"); path && *path) return path;
  return kDefaultLibdevice;
}

bool calls_libdevice(const llvm::Module& module) {
  for (const llvm::Function& fn : module)
    if (fn.isDeclaration() && fn.getName().starts_with("__nv_")) return true;
  return false;
}

// The string constant a __nvvm_reflect call asks about ("" if not one).
std::string reflect_query(const llvm::CallInst& call) {
  const llvm::Value* arg = call.getArgOperand(0)->stripPointerCasts();
  const auto* global = llvm::dyn_cast<llvm::GlobalVariable>(arg);
  if (!global || !global->hasInitializer()) return "";
  const auto* data = llvm::dyn_cast<llvm::ConstantDataSequential>(global->getInitializer());
  if (!data || !data->isString()) return "";
  return data->getAsCString().str();
}

// What NVVMReflect would answer: flush-to-zero off, the arch; 0 for anything else.
void answer_reflect_queries(llvm::Module& module, int sm_version) {
  for (const char* name : {"__nvvm_reflect", "llvm.nvvm.reflect"}) {
    llvm::Function* reflect = module.getFunction(name);
    if (!reflect) continue;
    std::vector<llvm::CallInst*> calls;
    for (llvm::User* user : reflect->users())
      if (auto* call = llvm::dyn_cast<llvm::CallInst>(user)) calls.push_back(call);
    for (llvm::CallInst* call : calls) {
      const std::string query = reflect_query(*call);
      const int answer = query == "__CUDA_ARCH" ? sm_version : 0;  // "__CUDA_FTZ" and the rest: 0
      call->replaceAllUsesWith(llvm::ConstantInt::get(call->getType(), answer));
      call->eraseFromParent();
    }
  }
}

}  // namespace

void nvptx_link_libdevice(llvm::Module& module, int sm_version) {
  if (!calls_libdevice(module)) return;
  const std::string path = libdevice_path();
  if (!std::filesystem::exists(path))
    throw LowerError("cuda: libdevice not found at " + path +
                     " (install the CUDA toolkit's nvvm component or set SMELT_LIBDEVICE)");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file = llvm::MemoryBuffer::getFile(path);
  if (!file) throw LowerError("cuda: cannot read " + path + ": " + file.getError().message());
  llvm::Expected<std::unique_ptr<llvm::Module>> library =
      llvm::parseBitcodeFile((*file)->getMemBufferRef(), module.getContext());
  if (!library) throw LowerError("cuda: " + path + " is not LLVM bitcode: " + llvm::toString(library.takeError()));
  // libdevice says nvptx64-nvidia-gpulibs; take the kernel module's triple and layout.
  (*library)->setTargetTriple(module.getTargetTriple());
  (*library)->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(*library), llvm::Linker::Flags::LinkOnlyNeeded))
    throw LowerError("cuda: linking libdevice failed");
  answer_reflect_queries(module, sm_version);
}

}  // namespace smelt::lower
