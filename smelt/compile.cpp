#include "smelt/compile.h"

#include "kernel/mutation.h"

#include <stdexcept>

#include "runtime/device.h"
#include "runtime/executable.h"
#include "runtime/host_device.h"
#include "smelt/fusion.h"

namespace smelt {

const kernel::KernelProgram& Program::kernels() const { return executable_->program(); }
size_t Program::peak_bytes_before() const { return executable_->plan().unpooled_bytes; }
size_t Program::peak_bytes_after() const { return executable_->plan().arena_bytes; }
Target Program::target() const { return executable_->device().target(); }
std::string Program::device() const { return executable_->device().description(); }

std::vector<ir::HostTensor> Program::run(const std::vector<ir::HostTensor>& inputs) { return executable_->run(inputs); }

double Program::run_into(const std::vector<std::span<const uint8_t>>& inputs,
                         const std::vector<std::span<uint8_t>>& outputs) {
  return executable_->run_into(inputs, outputs);
}

std::vector<double> Program::benchmark(const std::vector<ir::HostTensor>& inputs, int reps, int warmup, double warmup_s) {
  return executable_->benchmark(inputs, reps, warmup, warmup_s);
}

std::vector<std::vector<double>> Program::benchmark_each_kernel(const std::vector<ir::HostTensor>& inputs, int reps,
                                                                int warmup, double warmup_s) {
  return executable_->benchmark_each_kernel(inputs, reps, warmup, warmup_s);
}

TargetProfile profile_for_target(Target target, const std::string& processor) {
  const std::string kind = runtime::target_name(target);
  if (target == Target::kHost) {
    cost::ChosenProfile chosen = cost::shipped_profile_for(kind, processor.empty() ? runtime::cpu_model() : processor);
    return {std::move(chosen.profile), std::move(chosen.note)};
  }
  const std::string& gpu_name = processor;
  try {
    cost::ChosenProfile chosen = cost::shipped_profile_for(kind, gpu_name.empty() ? kind : gpu_name);
    if (gpu_name.empty())  // no device to name (compile --emit): the shipped one of that kind
      chosen.note = "costing with the shipped " + kind + " profile (measured on " + chosen.profile.cpu +
                    "); --profile names another";
    return {std::move(chosen.profile), std::move(chosen.note)};
  } catch (const std::runtime_error&) {
    return {cost::default_host_profile(),
            "no " + kind + " cost profile ships with this smelt: kernels are costed with the host's numbers, which do "
            "not describe a GPU (measure one with `smelt calibrate --device " + kind + "`, pass it with --profile)"};
  }
}

Program compile(const ir::Graph& graph, const CompileOptions& options) {
  if (options.measure > 0 && options.target != lower::Target::kHost)
    throw std::invalid_argument("measure: candidates are timed on the host; the target is " +
                                runtime::target_name(options.target));
  // The device first: a missing GPU is reported before seconds of optimization.
  std::shared_ptr<runtime::Device> device =
      runtime::open_device(options.target, {.threads = options.threads, .arch = options.arch});
  Program program;
  // A processor is costed with the profile measured on it (cost/profiles/),
  // or the nearest shipped one of its kind, said in profile_note.
  CompileOptions costed = options;
  std::string note;
  if (!options.profile) {
    TargetProfile chosen = profile_for_target(options.target, device->processor());
    costed.profile = std::move(chosen.profile);
    note = std::move(chosen.note);
  }
  auto fusion = std::make_shared<FusionResult>(fuse(graph, costed));
  fusion->profile_note = note;
  if (!options.mutation.empty()) program.mutation_ = kernel::mutate(fusion->after, options.mutation);
  program.executable_ = std::make_shared<runtime::Executable>(fusion->after, std::move(device));
  program.fusion_ = std::move(fusion);
  return program;
}

}  // namespace smelt

namespace smelt {

std::string emit_kind_name(EmitKind kind) {
  switch (kind) {
    case EmitKind::kKernels: return "kernels";
    case EmitKind::kLlvm: return "llvm";
    case EmitKind::kAsm: return "asm";
    case EmitKind::kPtx: return "ptx";
    case EmitKind::kHsaco: return "hsaco";
  }
  return "?";
}

std::optional<EmitKind> parse_emit_kind(const std::string& name) {
  for (EmitKind k : {EmitKind::kKernels, EmitKind::kLlvm, EmitKind::kAsm, EmitKind::kPtx, EmitKind::kHsaco})
    if (emit_kind_name(k) == name) return k;
  return std::nullopt;
}

bool emit_kind_fits(EmitKind kind, lower::Target target) {
  if (kind == EmitKind::kPtx) return target == lower::Target::kCuda;
  if (kind == EmitKind::kHsaco) return target == lower::Target::kHip;
  return true;
}

std::string target_name(Target target) { return runtime::target_name(target); }

std::optional<lower::Target> parse_target(const std::string& name) {
  for (lower::Target t : {lower::Target::kHost, lower::Target::kCuda, lower::Target::kHip})
    if (runtime::target_name(t) == name) return t;
  return std::nullopt;
}

std::vector<uint8_t> emit(const kernel::KernelProgram& program, const lower::TargetOptions& target, EmitKind kind) {
  if (!emit_kind_fits(kind, target.target))
    throw std::invalid_argument("--emit " + emit_kind_name(kind) + " is for --target " +
                                (kind == EmitKind::kPtx ? "cuda" : "hip") + ", not " + runtime::target_name(target.target));
  auto text = [](const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); };
  switch (kind) {
    case EmitKind::kKernels: return text(kernel::print_program(program));
    case EmitKind::kLlvm: return text(lower::emit_llvm_ir(program, target));
    case EmitKind::kAsm:
    case EmitKind::kPtx: return text(lower::emit_assembly(program, target));
    case EmitKind::kHsaco: return lower::emit_binary(program, target);
  }
  return {};
}

}  // namespace smelt
