// The GPU targets' entry points: a module with one kernel per smelt::kernel::Kernel,
// finalized for the target, printed or emitted (gpu_lower.h).
#include "lower/gpu_lower.h"

#include <stdexcept>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "lower/gpu_backend.h"
#include "lower/gpu_kernel.h"
#include "lower/gpu_math.h"
#include "lower/host_target.h"

namespace smelt::lower {
namespace {

void require_gpu(const TargetOptions& options) {
  if (options.target != Target::kCuda && options.target != Target::kHip)
    throw LowerError("the GPU lowering was asked for the host target");
}

// Builds and finalizes the module of every kernel; the caller prints or emits it.
class GpuModule {
 public:
  GpuModule(const kernel::KernelProgram& program, const TargetOptions& options)
      : machine_(gpu_target_machine(options)), module_(std::make_unique<llvm::Module>("smelt", context_)) {
    require_gpu(options);
    try {
      kernel::validate(program);
    } catch (const std::invalid_argument& e) {
      throw LowerError(std::string("invalid kernel program: ") + e.what());
    }
    configure_gpu_module(*module_, *machine_, options.target);
    const std::unique_ptr<MathHooks> math = gpu_math_hooks(options.target, gpu_arch(options));
    for (size_t k = 0; k < program.kernels.size(); ++k) emit_gpu_kernel(*module_, program, k, options.target, *math);
    finalize_gpu_module(*module_, *machine_, options.target);
  }

  llvm::Module& module() { return *module_; }
  llvm::TargetMachine& machine() { return *machine_; }

 private:
  std::unique_ptr<llvm::TargetMachine> machine_;
  llvm::LLVMContext context_;
  std::unique_ptr<llvm::Module> module_;
};

}  // namespace

std::string gpu_emit_llvm_ir(const kernel::KernelProgram& program, const TargetOptions& options) {
  GpuModule gpu(program, options);
  std::string text;
  llvm::raw_string_ostream out(text);
  gpu.module().print(out, nullptr);
  return text;
}

std::string gpu_emit_assembly(const kernel::KernelProgram& program, const TargetOptions& options) {
  GpuModule gpu(program, options);
  return emit_gpu_assembly(gpu.module(), gpu.machine());
}

std::vector<uint8_t> gpu_emit_binary(const kernel::KernelProgram& program, const TargetOptions& options) {
  GpuModule gpu(program, options);
  if (options.target == Target::kCuda) {
    const std::string ptx = emit_gpu_assembly(gpu.module(), gpu.machine());
    return std::vector<uint8_t>(ptx.begin(), ptx.end());
  }
  return link_amdgpu_code_object(emit_gpu_object(gpu.module(), gpu.machine()));
}

LaunchConfig gpu_launch_config(const kernel::Kernel& kernel, const TargetOptions& options) {
  require_gpu(options);
  gpu_arch(options);  // an unknown arch is an error here too
  return gpu_launch_config(plan_gpu_kernel(kernel, gpu_matrix_units(options.target)));
}

std::string gpu_emulation_llvm_ir(const kernel::KernelProgram& program) {
  try {
    kernel::validate(program);
  } catch (const std::invalid_argument& e) {
    throw LowerError(std::string("invalid kernel program: ") + e.what());
  }
  std::unique_ptr<llvm::TargetMachine> machine = host_target_machine("");
  llvm::LLVMContext context;
  llvm::Module module("smelt_gpu_emulation", context);
  module.setDataLayout(machine->createDataLayout());
  const HostMathHooks math;
  for (size_t k = 0; k < program.kernels.size(); ++k) emit_gpu_kernel(module, program, k, Target::kHost, math);
  optimize_gpu_module(module, *machine);
  module.setDataLayout("");
  std::string text;
  llvm::raw_string_ostream out(text);
  module.print(out, nullptr);
  return text;
}

}  // namespace smelt::lower
