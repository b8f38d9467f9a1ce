#pragma once
// smelt::compile: a graph fused (smelt::fuse), lowered for a target and loaded
// on its device, ready to run:
//   smelt::Program prog = smelt::compile(graph);  // CompileOptions: the host, every default
//   std::vector<smelt::ir::HostTensor> outputs = prog.run(inputs);
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "kernel/kernel.h"
#include "lower/lower.h"
#include "runtime/tensor_bytes.h"
#include "smelt/options.h"

namespace smelt::runtime {
class Executable;  // the loaded program (runtime/executable.h)
}  // namespace smelt::runtime

namespace smelt {

using lower::Target;  // kHost (the default), kCuda, kHip

struct FusionResult;

// smelt::compile's options: how to optimize (FuseOptions: profile, limits,
// fusion, rewrites, exact, threads, measure, ...; measure is for the host only)
// and where to run.
struct CompileOptions : FuseOptions {
  Target target = Target::kHost;
  std::string arch{};  // cuda: sm_80 | sm_90, hip: gfx90a | gfx942; "" = the device's
  // For testing the checks, never for use: a deliberate bug put into the fused
  // kernels before they are lowered (kernel/mutation.h; `smelt run --mutate`).
  std::string mutation{};
};

// A compiled graph on its device. Thread safety: every member may be called
// from several threads at once; the runs (run, run_into, benchmark*) of one
// program and of its copies take turns, since they share its buffers and its
// device's threads (runtime/executable.h). For runs in parallel, compile one
// Program per thread.
class Program {
 public:
  // Inputs in the order of the graph's inputs, with exactly their types;
  // outputs in the order of its outputs. Throws a smelt::Error of kind kInput
  // (runtime::InputError) for inputs that do not fit.
  std::vector<ir::HostTensor> run(const std::vector<ir::HostTensor>& inputs);
  // Runs on caller memory, without copies or allocation (serving): inputs and
  // outputs as raw bytes in the layout of runtime/tensor_bytes.h, in graph
  // order (runtime::Executable::run_into). Returns the kernels' seconds.
  double run_into(const std::vector<std::span<const uint8_t>>& inputs, const std::vector<std::span<uint8_t>>& outputs);
  // Seconds of each of `reps` runs of the kernels (after `warmup` runs and
  // more until `warmup_s` seconds have passed; the inputs are copied in once):
  // wall clock on the host, events on a GPU (runtime::Executable::benchmark).
  std::vector<double> benchmark(const std::vector<ir::HostTensor>& inputs, int reps, int warmup = 1,
                                double warmup_s = 0);
  // As benchmark, timing each kernel of kernels(): seconds[rep][kernel].
  std::vector<std::vector<double>> benchmark_each_kernel(const std::vector<ir::HostTensor>& inputs, int reps,
                                                         int warmup = 1, double warmup_s = 0);

  // What fusion did and chose (smelt/fusion.h).
  const FusionResult& fusion() const { return *fusion_; }
  // The kernels that run (fusion().after).
  const kernel::KernelProgram& kernels() const;
  // Intermediate memory: the sum of every intermediate's bytes (no reuse) and
  // the arena the buffer plan needs (reuse of dead intermediates).
  size_t peak_bytes_before() const;
  size_t peak_bytes_after() const;
  Target target() const;
  std::string device() const;  // e.g. "host (AVX-512, 2 threads)"
  // Where CompileOptions::mutation put its bug ("kernel 3 'k3': ..."); "" when
  // none was asked for or the program has no site for it.
  const std::string& mutation() const { return mutation_; }

 private:
  friend Program compile(const ir::Graph&, const CompileOptions&);
  std::shared_ptr<const FusionResult> fusion_;
  std::shared_ptr<runtime::Executable> executable_;
  std::string mutation_;
};

// Tensors as the raw bytes of the memory layout every target uses
// (runtime/tensor_bytes.h): storage_bytes(type), to_bytes(tensor), from_bytes(type, bytes).
using runtime::from_bytes;
using runtime::storage_bytes;
using runtime::to_bytes;

// What `smelt compile --emit` writes: the fused kernels (readable, any
// target), optimized LLVM IR, assembly (host asm | PTX | AMDGPU asm), PTX
// (cuda), an AMDGPU code object (hip).
enum class EmitKind { kKernels, kLlvm, kAsm, kPtx, kHsaco };
// "kernels", "llvm", ...; parse_emit_kind returns nullopt for an unknown name.
std::string emit_kind_name(EmitKind kind);
std::optional<EmitKind> parse_emit_kind(const std::string& name);
// Whether `kind` exists for `target` (ptx: cuda only; hsaco: hip only).
bool emit_kind_fits(EmitKind kind, lower::Target target);
// The artifact for `program` (text, except hsaco). Throws std::invalid_argument
// where the kind does not fit the target, lower::LowerError.
std::vector<uint8_t> emit(const kernel::KernelProgram& program, const lower::TargetOptions& target, EmitKind kind);
// "host" | "cuda" | "hip" → Target; nullopt for anything else.
std::optional<lower::Target> parse_target(const std::string& name);
std::string target_name(Target target);  // parse_target's inverse

// The profile that costs kernels for `target` when none is given: the one
// measured on `processor` (a GPU's name; for the host, empty: this CPU's
// model) where it ships in cost/profiles/, else the nearest shipped one of its
// kind, else (a GPU kind with no profile) the host's. `note` says in one line
// when it is not the processor's own (empty when it is).
struct TargetProfile {
  cost::DeviceProfile profile;
  std::string note;
};
TargetProfile profile_for_target(Target target, const std::string& processor);

// Fuses, lowers and loads `graph`. Throws a smelt::Error: kDeviceUnavailable
// (the target cannot run here: one line saying what is missing), kLower,
// kDevice; std::invalid_argument for `measure` on a target other than the host.
Program compile(const ir::Graph& graph, const CompileOptions& options = {});

}  // namespace smelt
