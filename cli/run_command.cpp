#include "cli/run_command.h"

#include "kernel/mutation.h"

#include <memory>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <thread>

#include "cli/command.h"
#include "cli/format.h"
#include "cli/npy.h"
#include "ir/interpreter.h"
#include "tools/check_json.h"
#include "smelt/compile.h"
#include "smelt/smelt.h"

namespace smelt::cli {
namespace {

using nlohmann::ordered_json;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string bytes_text(size_t bytes) {
  if (bytes >= (1u << 20)) return formatted("%.1f MiB", bytes / 1048576.0);
  if (bytes >= (1u << 10)) return formatted("%.1f KiB", bytes / 1024.0);
  return std::to_string(bytes) + " B";
}

// --reps: the N timed runs of the kernels, in microseconds.
struct RunTiming {
  double median_us = 0, min_us = 0;
  int reps = 0;
  std::vector<double> samples_us;  // in the order run
  std::vector<double> kernel_median_us;  // --per-kernel: by kernel, in program order
};

RunTiming summarize(std::vector<double> seconds) {
  std::vector<double> samples_us;
  for (double s : seconds) samples_us.push_back(s * 1e6);
  std::sort(seconds.begin(), seconds.end());
  const size_t n = seconds.size();
  const double median_s = n % 2 == 1 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2;
  return {median_s * 1e6, seconds.front() * 1e6, static_cast<int>(n), std::move(samples_us), {}};
}

// --per-kernel: a run's time is the sum of its kernels' (the clock is read
// between kernels); each kernel's median is over the same runs.
RunTiming summarize_each_kernel(const std::vector<std::vector<double>>& seconds) {
  std::vector<double> totals;
  for (const std::vector<double>& run : seconds) {
    double total = 0;
    for (double s : run) total += s;
    totals.push_back(total);
  }
  RunTiming timing = summarize(totals);
  const size_t kernels = seconds.empty() ? 0 : seconds.front().size();
  for (size_t k = 0; k < kernels; ++k) {
    std::vector<double> column;
    for (const std::vector<double>& run : seconds) column.push_back(run[k]);
    timing.kernel_median_us.push_back(summarize(column).median_us);
  }
  return timing;
}

// Microseconds for the timing line: one decimal from 10 us up, three
// significant digits below (a small kernel takes well under 1 us).
// "  max abs err 2e-06; worst [3,1]: error 2e-06 <= bound 4.1e-05 (rtol 0.0001 x scale 0.41): ok"
void check_line(std::ostream& out, const ir::HostTensor& got, const ir::OutputDifference& d) {
  out << formatted("  max abs err %.3g", d.max_abs);
  if (d.worst >= 0)
    out << "; worst " << ir::element_index(got.type.shape, d.worst) << formatted(": error %.3g", d.worst_error)
        << (d.worst_error <= d.worst_bound ? " <= " : " > ") << formatted("bound %.3g", d.worst_bound)
        << formatted(" (rtol %g", d.rtol) << formatted(" x scale %.3g)", d.worst_scale);
  if (d.failed > 0) out << "; " << d.failed << " of " << got.numel() << " elements outside";
  if (d.unchecked > 0) out << "; " << d.unchecked << " unchecked";
  out << (d.ok ? ": ok" : ": MISMATCH");
}

std::string us_text(double us) { return formatted(us >= 10 ? "%.1f us" : "%.3g us", us); }

// The host threads the kernels run on: --threads, or every core as
// runtime::ThreadPool counts them (runtime/thread_pool.cpp). GPU targets: none.
std::optional<unsigned> host_threads(const smelt::Program& program, unsigned requested) {
  if (program.target() != lower::Target::kHost) return std::nullopt;
  return requested != 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
}

// --per-kernel's table: each kernel's median, its prediction, and its share
// of the summed medians, in program order.
void print_kernel_times(const kernel::KernelProgram& kernels, const std::vector<cost::KernelCost>& costs,
                        const RunTiming& measured) {
  double total = 0;
  for (double us : measured.kernel_median_us) total += us;
  int width = 6;
  for (const kernel::Kernel& k : kernels.kernels) width = std::max(width, static_cast<int>(std::min<size_t>(k.name.size(), 48)));
  char line[256];
  std::snprintf(line, sizeof line, "  %-*s %11s %11s %9s %6s\n", width, "kernel", "measured", "predicted", "meas/pred",
                "share");
  std::cout << "per kernel (medians of the same runs):\n" << line;
  for (size_t k = 0; k < measured.kernel_median_us.size(); ++k) {
    std::string name = kernels.kernels[k].name;
    if (name.size() > 48) name = name.substr(0, 45) + "...";
    const double us = measured.kernel_median_us[k];
    const double predicted = k < costs.size() ? costs[k].total_us : 0;
    const std::string ratio = predicted > 0 ? formatted("%.3gx", us / predicted) : "-";
    std::snprintf(line, sizeof line, "  %-*s %11s %11s %9s %5.1f%%\n", width, name.c_str(), us_text(us).c_str(),
                  us_text(predicted).c_str(), ratio.c_str(), total > 0 ? 100 * us / total : 0.0);
    std::cout << line;
  }
}

}  // namespace

void save_outputs(const ir::Graph& g, const std::vector<ir::HostTensor>& outputs, const std::string& dir) {
  if (dir.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw NpyError(dir + ": cannot create the folder (" + error.message() + ")");
  for (size_t i = 0; i < outputs.size(); ++i)
    write_npy((std::filesystem::path(dir) / npy_file_name(value_name(g, g.outputs()[i]))).string(), outputs[i]);
}

std::vector<ir::HostTensor> run_inputs(const ir::Graph& g, const RunOptions& options) {
  if (options.inputs == "random") return smelt::random_inputs(g, options.seed);
  std::vector<ir::HostTensor> inputs;
  for (ir::ValueId v : g.inputs()) {
    const std::string name = value_name(g, v);
    const std::string path = (std::filesystem::path(options.inputs) / (name + ".npy")).string();
    if (!std::filesystem::exists(path)) throw NpyError(path + ": missing (input " + name + " is " + ir::type_str(g.type(v)) + ")");
    inputs.push_back(read_npy(path, g.type(v), "input " + name));
  }
  return inputs;
}

int run_compiled_command(const RunOptions& options, const RunTimingOptions& timing) {
  const ir::Graph g = smelt::load_graph(options.file);
  const std::vector<ir::HostTensor> inputs = run_inputs(g, options);
  // --check runs the reference after the compiled program: its work is refused
  // before anything runs (the compiled program's own is checked as it starts).
  if (options.check) ir::check_interpreter_work(g, /*error_scales=*/true);

  smelt::CompileOptions compile_options;
  if (!timing.profile.empty()) {
    try {
      compile_options.profile = smelt::load_device_profile(timing.profile, options.target);
    } catch (const std::runtime_error& e) {
      std::cerr << "error: " << e.what() << "\n";
      return kBadInput;
    }
  }
  compile_options.target = *smelt::parse_target(options.target);
  compile_options.arch = options.arch;
  compile_options.fusion = !options.no_fusion;
  compile_options.unsafe_fp = options.unsafe_fp;
  compile_options.threads = options.threads;
  compile_options.mutation = options.mutation;
  const auto compile_start = std::chrono::steady_clock::now();
  smelt::Program program = smelt::compile(g, compile_options);  // a missing device: DeviceUnavailable, exit 1
  const double compile_s = seconds_since(compile_start);
  if (!program.fusion().profile_note.empty()) std::cerr << "note: " << program.fusion().profile_note << "\n";
  if (!options.mutation.empty())
    std::cerr << "mutation " << options.mutation << ": "
              << (program.mutation().empty() ? "no site in this program (it runs unchanged)" : program.mutation()) << "\n";
  const auto run_start = std::chrono::steady_clock::now();
  const std::vector<ir::HostTensor> outputs = program.run(inputs);
  const double run_s = seconds_since(run_start);
  save_outputs(g, outputs, options.outputs);
  // The same compiled program (its --threads, --profile, fusion) is timed and predicted.
  std::optional<RunTiming> measured;
  if (timing.reps > 0)
    measured = timing.per_kernel
                   ? summarize_each_kernel(program.benchmark_each_kernel(inputs, timing.reps, timing.warmup, timing.warmup_s))
                   : summarize(program.benchmark(inputs, timing.reps, timing.warmup, timing.warmup_s));
  const std::vector<cost::KernelCost>& kernel_costs = program.fusion().after_kernel_costs;
  const double predicted_us = program.fusion().predicted_us_after;
  const std::optional<unsigned> threads = host_threads(program, options.threads);

  std::vector<ir::OutputDifference> errors;
  bool all_ok = true;
  if (options.check) {
    const ir::Reference want = smelt::reference(g, inputs);
    for (size_t i = 0; i < outputs.size(); ++i) {
      errors.push_back(ir::compare_output(want.values[i], outputs[i], &want.error_scales[i]));
      all_ok = all_ok && errors.back().ok;
    }
  }

  const std::string inputs_text = options.inputs == "random" ? "random, seed " + std::to_string(options.seed) : options.inputs;
  if (options.json) {
    ordered_json list = ordered_json::array();
    for (size_t i = 0; i < outputs.size(); ++i) {
      ordered_json entry = {{"name", value_name(g, g.outputs()[i])},
                            {"dtype", std::string(ir::dtype_name(outputs[i].type.dtype))},
                            {"shape", outputs[i].type.shape},
                            {"checksum", ir::checksum(outputs[i])}};
      if (options.check) {
        entry.update(ordered_json::parse(smelt::tools::output_check_json(outputs[i].type.shape, errors[i])));
      }
      list.push_back(entry);
    }
    ordered_json out = {{"file", options.file},
                        {"graph", g.name()},
                        {"target", options.target},
                        {"device", program.device()},
                        {"profile", program.fusion().profile_name},
                        {"inputs", options.inputs},
                        {"seed", options.seed},
                        {"fusion", !options.no_fusion},
                        {"kernels", program.kernels().kernels.size()},
                        {"peak_bytes_before", program.peak_bytes_before()},
                        {"peak_bytes_after", program.peak_bytes_after()},
                        {"compile_seconds", compile_s},
                        {"seconds", run_s},
                        {"outputs", list}};
    if (!program.fusion().profile_note.empty()) out["profile_note"] = program.fusion().profile_note;
    if (options.check) out["check"] = all_ok ? "ok" : "mismatch";
    if (!options.mutation.empty())
      out["mutation"] = {{"name", options.mutation},
                         {"site", program.mutation().empty() ? ordered_json(nullptr) : ordered_json(program.mutation())}};
    if (measured) {
      out["reps"] = measured->reps;
      out["warmup"] = timing.warmup;
      out["warmup_s"] = timing.warmup_s;
      out["median_us"] = measured->median_us;
      out["min_us"] = measured->min_us;
      out["samples_us"] = measured->samples_us;
      out["predicted_us"] = predicted_us;
      out["measured_over_predicted"] =
          predicted_us > 0 ? ordered_json(measured->median_us / predicted_us) : ordered_json(nullptr);
      out["threads"] = threads ? ordered_json(*threads) : ordered_json(nullptr);
      if (timing.per_kernel) {
        ordered_json each = ordered_json::array();
        for (size_t k = 0; k < measured->kernel_median_us.size(); ++k) {
          const double predicted = k < kernel_costs.size() ? kernel_costs[k].total_us : 0;
          const kernel::Kernel& kern = program.kernels().kernels[k];
          const cost::KernelCost* c = k < kernel_costs.size() ? &kernel_costs[k] : nullptr;
          each.push_back({{"name", kern.name},
                          {"space", kern.space},
                          {"reduction", kern.reduction},
                          {"flops", c ? c->flops : 0.0},
                          {"bytes", c ? c->bytes_read + c->bytes_written : 0.0},
                          {"median_us", measured->kernel_median_us[k]},
                          {"predicted_us", predicted},
                          {"measured_over_predicted",
                           predicted > 0 ? ordered_json(measured->kernel_median_us[k] / predicted) : ordered_json(nullptr)}});
        }
        out["kernel_times"] = each;
      }
    }
    std::cout << out.dump() << "\n";
  } else {
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::cout << value_name(g, g.outputs()[i]) << ": " << ir::type_str(outputs[i].type)
                << " checksum=" << formatted("%.9g", ir::checksum(outputs[i]));
      if (options.check) check_line(std::cout, outputs[i], errors[i]);
      std::cout << "\n";
    }
    const size_t kernels = program.kernels().kernels.size();
    std::cout << "ran " << kernels << (kernels == 1 ? " kernel" : " kernels") << (options.no_fusion ? " (unfused)" : "")
              << " on " << program.device() << " in " << formatted("%.3f ms", run_s * 1e3) << " (compiled in "
              << formatted("%.3f s", compile_s) << "; inputs: " << inputs_text << ")\n"
              << "intermediate memory: " << bytes_text(program.peak_bytes_before()) << " without reuse, "
              << bytes_text(program.peak_bytes_after()) << " planned\n";
    if (measured) {
      std::cout << "timing: median " << us_text(measured->median_us) << ", min " << us_text(measured->min_us)
                << " over " << measured->reps << (measured->reps == 1 ? " run" : " runs") << "; predicted "
                << us_text(predicted_us);
      if (predicted_us > 0) std::cout << formatted(" (measured/predicted %.3gx)", measured->median_us / predicted_us);
      std::cout << "\n";
      if (timing.per_kernel) print_kernel_times(program.kernels(), kernel_costs, *measured);
    }
    if (options.check)
      std::cout << (all_ok ? "check: every output matches the reference interpreter\n"
                           : "check: MISMATCH with the reference interpreter\n");
  }
  return all_ok ? kOk : kBadInput;
}

int run_subcommand(const RunOptions& options, const RunTimingOptions& timing) {
  if (timing.reps_given && timing.reps < 1) {
    std::cerr << "error: --reps must be at least 1 (got " << timing.reps << "): the number of timed runs\n";
    return kUsage;
  }
  if (timing.warmup_given && (!timing.reps_given || timing.warmup < 0)) {
    std::cerr << "error: --warmup N (N >= 0) is the untimed runs before --reps' timed ones: give --reps too\n";
    return kUsage;
  }
  if (timing.warmup_s_given && (!timing.reps_given || !(timing.warmup_s >= 0) || timing.warmup_s > 3600)) {
    std::cerr << "error: --warmup-s S (0 <= S <= 3600) keeps the untimed runs before --reps' timed ones going for S "
                 "seconds: give --reps too\n";
    return kUsage;
  }
  if (timing.per_kernel && !timing.reps_given) {
    std::cerr << "error: --per-kernel times each kernel of the --reps timed runs: give --reps too\n";
    return kUsage;
  }
  if (options.target == "reference") {
    if (timing.reps_given) {
      std::cerr << "error: --reps times compiled kernels; the reference interpreter is not timed "
                   "(use --target host|cuda|hip)\n";
      return kUsage;
    }
    if (!timing.profile.empty()) {
      std::cerr << "error: --profile costs compiled kernels; the reference interpreter compiles nothing "
                   "(use --target host|cuda|hip)\n";
      return kUsage;
    }
    return run_command(options);
  }
  return run_compiled_command(options, timing);
}

Registered register_run(CLI::App& app, SharedOptions& shared) {
  auto run = std::make_shared<RunOptions>();
  auto run_timing = std::make_shared<RunTimingOptions>();
  CLI::App* run_cmd = app.add_subcommand(
      "run",
      "Compile a .sg graph and run it (default: on the host); print each output's type and checksum; "
      "with --reps, the measured time beside the cost model's prediction");
  run_cmd->add_option("file", run->file, "The graph (.sg or .onnx)")->required();
  run_cmd->add_option("--inputs", run->inputs,
                      "Where inputs come from: random, or a folder with one <input name>.npy per graph input")
      ->check(CLI::IsMember({"random"}) | CLI::ExistingDirectory)
      ->default_val("random");
  run_cmd->add_option("--seed", run->seed, "Seed of the random inputs")->default_val(0);
  run_cmd->add_flag("--json", run->json, "Print one JSON object instead of text");
  run_cmd->add_option("--target", run->target,
                      "host (compiled, the default), cuda, hip, or reference (the interpreter, no compilation)")
      ->check(CLI::IsMember({"host", "cuda", "hip", "reference"}))
      ->default_val("host");
  run_cmd->add_option("--arch", run->arch, "cuda: sm_80 | sm_90, hip: gfx90a | gfx942 (default: the device's)");
  run_cmd->add_flag("--check", run->check,
                    "Compare every output with the reference interpreter, element by element: |want - got| <= rtol "
                    "x max(|want|, the size of the terms that produced it), rtol by dtype (1e-4 f32, 1e-2 f16, "
                    "2e-2 bf16, integers exact); exit 1 on a mismatch");
  std::string mutation_help = "Testing the checks: put a deliberate bug into the compiled kernels (with --check, it "
                              "must be reported wherever it changes an output). One of:";
  for (const smelt::kernel::Mutation& m : smelt::kernel::mutations())
    mutation_help += "\n  " + std::string(m.name) + ": " + std::string(m.what);
  run_cmd->add_option("--mutate", run->mutation, mutation_help)
      ->check(CLI::IsMember([] {
        std::vector<std::string> names;
        for (const smelt::kernel::Mutation& m : smelt::kernel::mutations()) names.emplace_back(m.name);
        return names;
      }()));
  run_cmd->add_flag("--no-fusion", run->no_fusion, "Run unfused: one kernel per op");
  run_cmd->add_flag("--unsafe-fp", run->unsafe_fp, kUnsafeFpHelp);
  run_cmd->add_option("--outputs", run->outputs,
                      "Write each output into this folder (created if missing) as <output name>.npy "
                      "(characters other than letters, digits, _ - . in a name become _)");
  run_cmd->add_option("--threads", run->threads, "Host threads (0: every core)")
      ->check(CLI::Range(0u, 1024u))
      ->default_val(0);
  CLI::Option* reps_option = run_cmd->add_option(
      "--reps", run_timing->reps,
      "Time the kernels: --warmup runs, then N timed runs (N >= 1); print their median and min in us, the cost "
      "model's predicted time and measured/predicted (not with --target reference)");
  CLI::Option* warmup_option = run_cmd->add_option("--warmup", run_timing->warmup,
                                                   "Untimed runs before the --reps timed ones (a process's first "
                                                   "runs fault in pages and pack weights)")
                                   ->default_val(1);
  CLI::Option* warmup_s_option =
      run_cmd->add_option("--warmup-s", run_timing->warmup_s,
                          "Untimed runs go on (after --warmup's) until S seconds have passed: memory a process has "
                          "just allocated can run slower for a while (a model streaming 115 MB of weights on a VM: "
                          "1.6x for its first 0.2 s)")
          ->default_val(0);
  run_cmd->add_flag("--per-kernel", run_timing->per_kernel,
                    "With --reps: time each kernel too; print each one's median beside its predicted time and "
                    "its share of the run (a profile: where the time goes)");
  run_cmd->add_option("--profile", run_timing->profile,
                      "Device profile (JSON) to cost kernels with, as in `smelt compile --profile` "
                      "(default: the one shipped for this CPU or GPU, cost/profiles/)");
  add_memory_limit_option(run_cmd, shared);
  add_work_limit_option(run_cmd, shared);

  return {run_cmd, [run, run_timing, reps_option, warmup_option, warmup_s_option] {
    run_timing->reps_given = reps_option->count() > 0;
    run_timing->warmup_given = warmup_option->count() > 0;
    run_timing->warmup_s_given = warmup_s_option->count() > 0;
    return run_subcommand(*run, *run_timing);
  }};
}

}  // namespace smelt::cli
