#pragma once
// smelt::compile: a graph fused (smelt::fuse), lowered for a target and loaded
// on its device, ready to run:
//   smelt::Program prog = smelt::compile(graph, {.target = smelt::lower::Target::kHost});
//   std::vector<smelt::ir::HostTensor> outputs = prog.run(inputs);
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cost/device_profile.h"
#include "egraph/runner.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "lower/lower.h"
#include "runtime/device.h"
#include "runtime/executable.h"
#include "runtime/tensor_bytes.h"

namespace smelt {

using lower::Target;  // kHost (the default), kCuda, kHip

struct FusionResult;

// How long the optimizer may search. Defaults: egraph::RunnerLimits' for the
// saturation (one definition), FuseOptions' for the extraction and proofs.
struct Limits {
  size_t iterations = egraph::RunnerLimits{}.iterations;  // saturation iterations
  size_t nodes = egraph::RunnerLimits{}.nodes;            // e-nodes in the e-graph
  double saturation_s = egraph::RunnerLimits{}.seconds;   // seconds of saturation
  double extraction_s = 2;    // seconds the extraction may search
  double index_proofs_s = 2;  // seconds of Z3 proofs of simplified index maps (the rest keep the composed form)
};

struct CompileOptions {
  lower::Target target = lower::Target::kHost;
  std::string arch{};                          // cuda: sm_80 | sm_90, hip: gfx90a | gfx942; "" = the device's
  std::optional<cost::DeviceProfile> profile{};  // what kernels are costed for; empty: the host profile
  Limits limits{};
  bool fusion = true;    // false: one kernel per op
  bool rewrites = true;  // false: fuse the graph as given, without equality saturation
  bool exact = false;    // exhaustive extraction on small e-graphs
  unsigned threads = 0;  // host: threads including the caller; 0 = every core
  // Host only: time the `measure` best programs the extraction costed and the
  // unfused one with `threads` threads, and run the fastest (FuseOptions::measure).
  size_t measure = 0;
};

// A compiled graph on its device. Thread safety: every member may be called
// from several threads at once; the runs (run, run_into, benchmark*) of one
// program and of its copies take turns, since they share its buffers and its
// device's threads (runtime/executable.h). For runs in parallel, compile one
// Program per thread.
class Program {
 public:
  // Inputs in the order of the graph's inputs, with exactly their types;
  // outputs in the order of its outputs. Throws runtime::InputError.
  std::vector<ir::HostTensor> run(const std::vector<ir::HostTensor>& inputs);
  // Runs on caller memory, without copies or allocation (serving): inputs and
  // outputs as raw bytes in the layout of runtime/tensor_bytes.h, in graph
  // order (runtime::Executable::run_into). Returns the kernels' seconds.
  double run_into(const std::vector<std::span<const uint8_t>>& inputs, const std::vector<std::span<uint8_t>>& outputs);
  // Seconds of each of `reps` runs of the kernels (after `warmup` runs; the
  // inputs are copied in once): wall clock on the host, events on a GPU.
  std::vector<double> benchmark(const std::vector<ir::HostTensor>& inputs, int reps, int warmup = 1);
  // As benchmark, timing each kernel of kernels(): seconds[rep][kernel].
  std::vector<std::vector<double>> benchmark_each_kernel(const std::vector<ir::HostTensor>& inputs, int reps,
                                                         int warmup = 1);

  const FusionResult& fusion() const { return *fusion_; }
  // The kernels that run (fusion().after).
  const ir::KernelProgram& kernels() const { return executable_->program(); }
  // Intermediate memory: the sum of every intermediate's bytes (no reuse) and
  // the arena the buffer plan needs (reuse of dead intermediates).
  size_t peak_bytes_before() const { return executable_->plan().unpooled_bytes; }
  size_t peak_bytes_after() const { return executable_->plan().arena_bytes; }
  lower::Target target() const { return executable_->device().target(); }
  std::string device() const { return executable_->device().description(); }

 private:
  friend Program compile(const ir::Graph&, const CompileOptions&);
  std::shared_ptr<const FusionResult> fusion_;
  std::shared_ptr<runtime::Executable> executable_;
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
std::vector<uint8_t> emit(const ir::KernelProgram& program, const lower::TargetOptions& target, EmitKind kind);
// "host" | "cuda" | "hip" → Target; nullopt for anything else.
std::optional<lower::Target> parse_target(const std::string& name);

// Fuses, lowers and loads `graph`. Throws runtime::DeviceUnavailable (the
// target cannot run here: one line saying what is missing), lower::LowerError,
// runtime::DeviceError; std::invalid_argument for `measure` on a target other
// than the host.
Program compile(const ir::Graph& graph, const CompileOptions& options = {});

}  // namespace smelt
