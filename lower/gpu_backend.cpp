// Target machines, kernel marking, optimization and emission for the two GPU
// targets (see gpu_backend.h); the libraries each target links live in
// nvptx_backend.cpp and amdgpu_backend.cpp.
#include "lower/gpu_backend.h"

#include <mutex>

#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/IPO/Internalize.h>

namespace smelt::lower {
namespace {

constexpr const char* kNvptxTriple = "nvptx64-nvidia-cuda";
constexpr const char* kAmdgpuTriple = "amdgcn-amd-amdhsa";
// PTX ISA 8.0 (CUDA 12.0): covers sm_90 and is read by every CUDA 12/13 driver and ptxas.
constexpr const char* kNvptxFeatures = "+ptx80";
// Code object version 5 (see gpu_backend.h): the module flag holds version * 100.
constexpr int kAmdgpuCodeObjectVersion = 500;

void initialize_gpu_targets() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
  });
}

const char* triple_of(Target target) {
  if (target == Target::kCuda) return kNvptxTriple;
  if (target == Target::kHip) return kAmdgpuTriple;
  throw LowerError("not a GPU target");
}

void verify(llvm::Module& module, const char* when) {
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(module, &os))
    throw LowerError(std::string("GPU module invalid ") + when + ": " + os.str());
}

}  // namespace

std::string gpu_arch(const TargetOptions& options) {
  if (options.target == Target::kCuda) {
    if (options.arch.empty()) return "sm_80";
    if (options.arch == "sm_80" || options.arch == "sm_90") return options.arch;
    throw LowerError("cuda: unsupported arch '" + options.arch + "' (supported: sm_80, sm_90)");
  }
  if (options.target == Target::kHip) {
    if (options.arch.empty()) return "gfx90a";
    if (options.arch == "gfx90a" || options.arch == "gfx942") return options.arch;
    throw LowerError("hip: unsupported arch '" + options.arch + "' (supported: gfx90a, gfx942)");
  }
  throw LowerError("gpu_arch: the host is not a GPU target");
}

std::unique_ptr<llvm::TargetMachine> gpu_target_machine(const TargetOptions& options) {
  initialize_gpu_targets();
  const std::string arch = gpu_arch(options);
  const std::string triple = triple_of(options.target);
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) throw LowerError("LLVM has no target " + triple + ": " + error);
  const bool cuda = options.target == Target::kCuda;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, arch, cuda ? kNvptxFeatures : "", llvm::TargetOptions(),
      cuda ? std::optional<llvm::Reloc::Model>() : llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine) throw LowerError("LLVM could not create a target machine for " + triple + " " + arch);
  return machine;
}

void configure_gpu_module(llvm::Module& module, llvm::TargetMachine& machine, Target target) {
  module.setTargetTriple(machine.getTargetTriple().str());
  module.setDataLayout(machine.createDataLayout());
  if (target == Target::kCuda) {
    // Read by LLVM's NVVMReflect pass (__CUDA_FTZ); nvptx_link_libdevice answers the same.
    module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t{0});
  } else {
    module.addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version", uint32_t{kAmdgpuCodeObjectVersion});
  }
}

void mark_gpu_kernel(llvm::Function& fn, Target target, unsigned max_threads_per_block) {
  if (target == Target::kHost) return;  // the host emulation's kernels are plain functions
  llvm::LLVMContext& context = fn.getContext();
  if (target == Target::kCuda) {
    fn.setCallingConv(llvm::CallingConv::PTX_Kernel);
    // .maxntid lets ptxas budget registers for the block size we launch with.
    llvm::Module& module = *fn.getParent();
    llvm::Type* i32 = llvm::Type::getInt32Ty(context);
    llvm::Metadata* fields[] = {llvm::ValueAsMetadata::get(&fn), llvm::MDString::get(context, "maxntidx"),
                                llvm::ValueAsMetadata::get(llvm::ConstantInt::get(i32, max_threads_per_block))};
    module.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(context, fields));
  } else {
    fn.setCallingConv(llvm::CallingConv::AMDGPU_KERNEL);
    fn.addFnAttr("amdgpu-flat-work-group-size", "1," + std::to_string(max_threads_per_block));
  }
}

void optimize_gpu_module(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  llvm::ModulePassManager pipeline = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  pipeline.run(module, modules);
}

void finalize_gpu_module(llvm::Module& module, llvm::TargetMachine& machine, Target target) {
  verify(module, "before linking its math library");
  const std::string arch = machine.getTargetCPU().str();
  if (target == Target::kCuda) nvptx_link_libdevice(module, std::stoi(arch.substr(3)) * 10);
  else amdgpu_link_device_libs(module, arch);
  // Only the kernel entries stay visible: the linked library code is inlined
  // into them or dropped.
  llvm::internalizeModule(module, [](const llvm::GlobalValue& value) {
    const auto* fn = llvm::dyn_cast<llvm::Function>(&value);
    return fn && (fn->getCallingConv() == llvm::CallingConv::PTX_Kernel ||
                  fn->getCallingConv() == llvm::CallingConv::AMDGPU_KERNEL);
  });
  optimize_gpu_module(module, machine);
  verify(module, "after optimization");
}

namespace {

llvm::SmallVector<char, 0> emit_file(llvm::Module& module, llvm::TargetMachine& machine,
                                     llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream os(bytes);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, os, nullptr, type))
    throw LowerError("LLVM cannot emit this file type for " + machine.getTargetTriple().str());
  passes.run(module);
  return bytes;
}

}  // namespace

std::string emit_gpu_assembly(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::SmallVector<char, 0> text = emit_file(module, machine, llvm::CodeGenFileType::AssemblyFile);
  return std::string(text.begin(), text.end());
}

std::vector<uint8_t> emit_gpu_object(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::SmallVector<char, 0> object = emit_file(module, machine, llvm::CodeGenFileType::ObjectFile);
  return std::vector<uint8_t>(object.begin(), object.end());
}

}  // namespace smelt::lower
