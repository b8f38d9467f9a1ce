#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/Support/Error.h>

#include "lower/host_target.h"
#include "lower/lower.h"

namespace smelt::lower {

struct HostJit::State {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::vector<KernelFn> kernels;
};

namespace {
template <typename T>
T take(llvm::Expected<T> value, const std::string& what) {
  if (!value) throw LowerError("host JIT: " + what + ": " + llvm::toString(value.takeError()));
  return std::move(*value);
}
void check(llvm::Error error, const std::string& what) {
  if (error) throw LowerError("host JIT: " + what + ": " + llvm::toString(std::move(error)));
}
}  // namespace

HostJit::HostJit(std::unique_ptr<State> state) : state_(std::move(state)) {}
HostJit::~HostJit() = default;

std::unique_ptr<HostJit> HostJit::compile(const kernel::KernelProgram& program) {
  initialize_host_llvm();
  std::unique_ptr<llvm::TargetMachine> machine = host_target_machine("");
  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module = build_host_module(*context, program, *machine);

  llvm::orc::JITTargetMachineBuilder target(machine->getTargetTriple());
  target.setCPU(machine->getTargetCPU().str());
  target.addFeatures({machine->getTargetFeatureString().str()});
  target.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto state = std::make_unique<State>();
  state->jit = take(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(target)).create(), "create");
  // Kernels call libm / libmvec (expf, _ZGV*_expf, ...) from this process.
  const char prefix = state->jit->getDataLayout().getGlobalPrefix();
  state->jit->getMainJITDylib().addGenerator(
      take(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix), "process symbols"));
  check(state->jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))), "add module");
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    llvm::orc::ExecutorAddr address = take(state->jit->lookup(kernel_symbol(program, k)), "kernel " + std::to_string(k));
    state->kernels.push_back(address.toPtr<KernelFn>());
  }
  return std::unique_ptr<HostJit>(new HostJit(std::move(state)));
}

HostJit::KernelFn HostJit::kernel(size_t i) const {
  if (i >= state_->kernels.size())
    throw LowerError("host JIT: kernel " + std::to_string(i) + " of " + std::to_string(state_->kernels.size()));
  return state_->kernels[i];
}

size_t HostJit::num_kernels() const { return state_->kernels.size(); }

}  // namespace smelt::lower
