#include <optional>

#include <llvm/ExecutionEngine/ObjectCache.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/Support/Error.h>

#include "lower/host_object_cache.h"
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

// The object LLJIT compiles the module into (one module: one object), kept for
// the on-disk cache.
struct KeptObject : llvm::ObjectCache {
  std::string object;
  void notifyObjectCompiled(const llvm::Module*, llvm::MemoryBufferRef buffer) override {
    object.append(buffer.getBufferStart(), buffer.getBufferSize());
  }
  std::unique_ptr<llvm::MemoryBuffer> getObject(const llvm::Module*) override { return nullptr; }
};
}  // namespace

HostJit::HostJit(std::unique_ptr<State> state) : state_(std::move(state)) {}
HostJit::~HostJit() = default;

std::unique_ptr<HostJit> HostJit::compile(const kernel::KernelProgram& program) {
  initialize_host_llvm();
  std::unique_ptr<llvm::TargetMachine> machine = host_target_machine("");
  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module = emit_host_module(*context, program, *machine);
  // A program compiled before (host_object_cache.h) is loaded, not optimized and compiled again.
  const std::string cache = host_object_cache_folder();
  const std::string key = cache.empty() ? "" : host_object_key(*module, *machine);
  std::optional<std::string> object = cache.empty() ? std::nullopt : load_host_object(cache, key);
  if (!object) optimize_host_module(*module, *machine);

  llvm::orc::JITTargetMachineBuilder target(machine->getTargetTriple());
  target.setCPU(machine->getTargetCPU().str());
  target.addFeatures({machine->getTargetFeatureString().str()});
  target.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto state = std::make_unique<State>();
  KeptObject kept;
  llvm::orc::LLJITBuilder builder;
  builder.setJITTargetMachineBuilder(std::move(target));
  if (!cache.empty() && !object) {
    builder.setCompileFunctionCreator([&kept](llvm::orc::JITTargetMachineBuilder machine_builder)
                                          -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
      return std::make_unique<llvm::orc::ConcurrentIRCompiler>(std::move(machine_builder), &kept);
    });
  }
  state->jit = take(builder.create(), "create");
  // Kernels call libm / libmvec (expf, _ZGV*_expf, ...) from this process.
  const char prefix = state->jit->getDataLayout().getGlobalPrefix();
  state->jit->getMainJITDylib().addGenerator(
      take(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix), "process symbols"));
  if (object)
    check(state->jit->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(*object, "smelt-cached")), "add cached object");
  else
    check(state->jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))), "add module");
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    llvm::orc::ExecutorAddr address = take(state->jit->lookup(kernel_symbol(program, k)), "kernel " + std::to_string(k));
    state->kernels.push_back(address.toPtr<KernelFn>());
  }
  // The lookups compiled the module: its object is stored for the next compile.
  if (!kept.object.empty()) store_host_object(cache, key, kept.object);
  return std::unique_ptr<HostJit>(new HostJit(std::move(state)));
}

HostJit::KernelFn HostJit::kernel(size_t i) const {
  if (i >= state_->kernels.size())
    throw LowerError("host JIT: kernel " + std::to_string(i) + " of " + std::to_string(state_->kernels.size()));
  return state_->kernels[i];
}

size_t HostJit::num_kernels() const { return state_->kernels.size(); }

}  // namespace smelt::lower
