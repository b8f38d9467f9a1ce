#include "lower/host_target.h"

#include <mutex>
#include <unordered_map>

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>

#include "lower/host_kernel.h"
#include "lower/kernel_body.h"
#include "lower/host_vector_math.h"
#include "lower/lower.h"

namespace smelt::lower {

void initialize_host_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

std::unique_ptr<llvm::TargetMachine> host_target_machine(const std::string& cpu) {
  initialize_host_llvm();
  const std::string triple = llvm::sys::getProcessTriple();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) throw LowerError("host target " + triple + ": " + error);
  std::string cpu_name = cpu;
  llvm::SubtargetFeatures features;
  if (cpu.empty()) {
    cpu_name = llvm::sys::getHostCPUName().str();
    for (const auto& [feature, enabled] : llvm::sys::getHostCPUFeatures()) features.AddFeature(feature, enabled);
    // Strided reads (a stride-2 depthwise convolution's windows) as wide loads
    // and shuffles, not vector gathers: LLVM's vectorizer picked a masked
    // 16-lane gather for each tap of a stride-2 depthwise 3x3 (192 maps of
    // 28x28 -> 14x14: 153 us against 78 without; MobileNetV2 14.1 -> 11.7 ms,
    // ResNet-50 118-126 -> 108-112 ms at one thread; AMD EPYC Zen 4, 2026-12-02).
    if (triple.rfind("x86_64", 0) == 0) features.AddFeature("prefer-no-gather", true);
  } else {
    // Asked with the default CPU, so an unknown name is our error, not a warning on stderr.
    std::unique_ptr<llvm::MCSubtargetInfo> info(target->createMCSubtargetInfo(triple, "", ""));
    if (!info || !info->isCPUStringValid(cpu))
      throw LowerError("host: unknown CPU '" + cpu + "' for " + triple + " (leave the arch empty for this CPU)");
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu_name, features.getString(), options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine) throw LowerError("host: cannot create a target machine for " + triple + " / " + cpu_name);
  return machine;
}

VectorRegisters host_vector_registers(const llvm::TargetMachine& machine) {
  if (machine.getTargetTriple().getArch() != llvm::Triple::x86_64) return {32, 4};
  const llvm::MCSubtargetInfo& cpu = *machine.getMCSubtargetInfo();
  if (cpu.checkFeatures("+avx512f")) return {32, 16};
  if (cpu.checkFeatures("+avx")) return {16, 8};
  return {16, 4};
}

bool host_vector_math_available() {
  // glibc's vector math library: loaded into the process (for the JIT's symbol
  // lookups) once; without it exp / log / sin / cos stay scalar libm calls.
  static const bool loaded = [] {
    std::string error;
    return !llvm::sys::DynamicLibrary::LoadLibraryPermanently("libmvec.so.1", &error);
  }();
  return loaded;
}

namespace {
void optimize(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  // Vectorized loops call libmvec's exp / log / sin / cos / pow (registered
  // before the default analyses so that the vectorizer sees the mappings).
  llvm::TargetLibraryInfoImpl library(machine.getTargetTriple());
  if (machine.getTargetTriple().getArch() == llvm::Triple::x86_64 && host_vector_math_available())
    library.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, machine.getTargetTriple());
  functions.registerPass([&] { return llvm::TargetLibraryAnalysis(library); });
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder passes(&machine, tuning);
  passes.registerModuleAnalyses(modules);
  passes.registerCGSCCAnalyses(cgscc);
  passes.registerFunctionAnalyses(functions);
  passes.registerLoopAnalyses(loops);
  passes.crossRegisterProxies(loops, functions, cgscc, modules);
  passes.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, modules);
  inline_host_math(module);
}
}  // namespace

std::unique_ptr<llvm::Module> emit_host_module(llvm::LLVMContext& context, const kernel::KernelProgram& program,
                                               llvm::TargetMachine& machine) {
  try {
    kernel::validate(program);
  } catch (const std::exception& e) {
    throw LowerError(std::string("invalid kernel program: ") + e.what());
  }
  auto module = std::make_unique<llvm::Module>("smelt", context);
  module->setTargetTriple(machine.getTargetTriple().str());
  module->setDataLayout(machine.createDataLayout());
  auto for_this_cpu = [&](llvm::Function* f) {
    f->addFnAttr("target-cpu", machine.getTargetCPU());
    f->addFnAttr("target-features", machine.getTargetFeatureString());
  };
  // Kernels of one body (lower/kernel_body.h) share its function: each calls
  // it from a small function of its own symbol with its buffers, renumbered.
  std::vector<KernelBody> bodies;
  std::unordered_map<std::string, size_t> users;
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    bodies.push_back(kernel_body(program, k));
    ++users[bodies.back().key];
  }
  std::unordered_map<std::string, llvm::Function*> shared;
  const VectorRegisters registers = host_vector_registers(machine);
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const KernelBody& body = bodies[k];
    if (users.at(body.key) == 1) {
      for_this_cpu(emit_host_kernel(*module, program, k, registers));
      continue;
    }
    llvm::Function*& function = shared[body.key];
    if (!function) {
      function = emit_host_kernel(*module, body.program, 0, registers);
      function->setName("smelt_body" + std::to_string(shared.size() - 1));
      function->setLinkage(llvm::GlobalValue::InternalLinkage);
      function->addFnAttr(llvm::Attribute::NoInline);
      for_this_cpu(function);
    }
    for_this_cpu(emit_host_kernel_call(*module, program, k, body.buffers, function));
  }
  std::string problems;
  llvm::raw_string_ostream out(problems);
  if (llvm::verifyModule(*module, &out)) throw LowerError("internal error, invalid LLVM IR: " + problems);
  return module;
}

void optimize_host_module(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::LLVMContext& context = module.getContext();
  // LLVM reports a loop it was asked to vectorize and could not (a matmul
  // epilogue LLVM finds no reduction in) as a warning on stderr: smelt's
  // users would read LLVM's noise. Remarks and warnings are dropped; an error
  // is a LowerError.
  std::string llvm_errors;
  context.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo* info, void* errors) {
        if (info->getSeverity() != llvm::DS_Error) return;
        std::string text;
        llvm::raw_string_ostream stream(text);
        llvm::DiagnosticPrinterRawOStream printer(stream);
        info->print(printer);
        *static_cast<std::string*>(errors) += stream.str() + "\n";
      },
      &llvm_errors);
  optimize(module, machine);
  // Code generation (the JIT's, later) keeps the context: errors there still
  // go to stderr, the rest nowhere.
  context.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo* info, void*) {
        if (info->getSeverity() != llvm::DS_Error) return;
        llvm::DiagnosticPrinterRawOStream printer(llvm::errs());
        llvm::errs() << "LLVM error: ";
        info->print(printer);
        llvm::errs() << "\n";
      },
      nullptr);
  if (!llvm_errors.empty()) throw LowerError("LLVM: " + llvm_errors);
}

std::unique_ptr<llvm::Module> build_host_module(llvm::LLVMContext& context, const kernel::KernelProgram& program,
                                                llvm::TargetMachine& machine) {
  std::unique_ptr<llvm::Module> module = emit_host_module(context, program, machine);
  optimize_host_module(*module, machine);
  return module;
}

}  // namespace smelt::lower
