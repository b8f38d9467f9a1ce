#pragma once
// lower-private (LLVM types): the target machines of the two GPU targets and
// the steps from a module of kernels to PTX text / an AMDGPU code object.
//
//  cuda (nvptx_backend.cpp): nvptx64-nvidia-cuda, sm_80 (default) | sm_90,
//    PTX ISA 8.0 (accepted by CUDA >= 12.0 drivers and CUDA 13's ptxas).
//    Kernels use the ptx_kernel calling convention (LLVM 19 emits `.entry`
//    for it). libdevice (/usr/local/cuda/nvvm/libdevice/libdevice.10.bc, or
//    $SMELT_LIBDEVICE) is linked only-needed when the module calls __nv_*,
//    its __nvvm_reflect queries answered (__CUDA_FTZ = 0: no flush to zero,
//    __CUDA_ARCH = 800 / 900), everything but the kernels internalized.
//  hip (amdgpu_backend.cpp): amdgcn-amd-amdhsa, gfx90a (default) | gfx942,
//    amdgpu_kernel calling convention, code object version 5 (module flag
//    amdhsa_code_object_version = 500): the default of ROCm >= 6.0's HIP
//    runtime and loadable by ROCm 5.x runtimes from 5.3 on. Math comes from
//    ocml (Debian's rocm-device-libs) when installed, else from the
//    intrinsics the AMDGPU backend lowers itself (see gpu_math.h). The object
//    is linked into a shared-object code object by `ld.lld-19 -shared`.
#include <memory>
#include <string>
#include <vector>

#include "lower/lower.h"

namespace llvm {
class Function;
class Module;
class TargetMachine;
}  // namespace llvm

namespace smelt::lower {

// The arch to compile for: "" gives the default, unknown archs a LowerError
// listing the supported ones.
std::string gpu_arch(const TargetOptions& options);

// A target machine for a GPU target (cuda or hip) at its arch.
std::unique_ptr<llvm::TargetMachine> gpu_target_machine(const TargetOptions& options);

// Sets the module's triple, data layout (before any alloca is emitted: AMDGPU
// allocas live in address space 5) and target module flags.
void configure_gpu_module(llvm::Module& module, llvm::TargetMachine& machine, Target target);

// Makes `fn` a kernel entry of the target, launched with at most
// `max_threads_per_block` threads per block (nothing for kHost: the host
// emulation's kernels are plain functions, gpu_lower.h).
void mark_gpu_kernel(llvm::Function& fn, Target target, unsigned max_threads_per_block);

// Links the math library the module calls (libdevice / ocml), internalizes
// everything but the kernel entries and runs LLVM's O3 pipeline for the
// target. Throws LowerError when a needed library is missing or broken.
void finalize_gpu_module(llvm::Module& module, llvm::TargetMachine& machine, Target target);

// PTX text (cuda) or AMDGPU assembly (hip) of a finalized module.
std::string emit_gpu_assembly(llvm::Module& module, llvm::TargetMachine& machine);
// The relocatable ELF object of a finalized module (hip).
std::vector<uint8_t> emit_gpu_object(llvm::Module& module, llvm::TargetMachine& machine);
// Links an AMDGPU object into a code object with `ld.lld-19 -shared` (or
// $SMELT_LD_LLD) in a temporary directory. LowerError when the linker is
// missing or fails (with its output).
std::vector<uint8_t> link_amdgpu_code_object(const std::vector<uint8_t>& object);

// The folder holding ocml.bc and the oclc control libraries for `arch`
// ($SMELT_ROCM_DEVICE_LIBS, then Debian's and ROCm's usual places), or ""
// when rocm-device-libs is not installed (or lacks the arch's ISA library).
std::string amdgpu_device_libs_dir(const std::string& arch);

// Steps of finalize_gpu_module, one backend each.
void nvptx_link_libdevice(llvm::Module& module, int sm_version);
void amdgpu_link_device_libs(llvm::Module& module, const std::string& arch);
void optimize_gpu_module(llvm::Module& module, llvm::TargetMachine& machine);

}  // namespace smelt::lower
