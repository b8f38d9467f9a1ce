#include "cli/compile_command.h"

#include <memory>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/emit_command.h"
#include "cli/format.h"
#include "cli/picture_files.h"
#include "tools/kernel_dot.h"
#include "tools/fusion_json.h"
#include "tools/fusion_report.h"
#include "smelt/smelt.h"

namespace smelt::cli {
namespace {

std::string microseconds(double us) { return formatted("%.2f us", us); }
std::string seconds(double s) { return formatted("%.3f s", s); }

std::string kernels(size_t n) { return std::to_string(n) + (n == 1 ? " kernel" : " kernels"); }

// --measure: one line per candidate timed.
void print_measured(const smelt::FusionResult& r) {
  std::cout << "measured on the host (timed side by side in interleaved rounds; over_pick: its time over the pick's, "
               "the median of the rounds' ratios):\n"
            << "  predicted_us   median_us  over_pick  kernels\n";
  for (const smelt::MeasuredCandidate& m : r.measured) {
    std::string notes;
    auto note = [&](bool on, const char* what) {
      if (on) notes += notes.empty() ? std::string("  ") + what : std::string(", ") + what;
    };
    note(m.model_pick, "model's pick");
    note(m.unfused, "unfused");
    note(m.chosen, "chosen (fastest)");
    std::printf("  %12.2f %11.2f  %9.3f  %7zu%s\n", m.predicted_us, m.timing.median_us, m.over_pick, m.kernels,
                notes.c_str());
  }
  std::cout << (r.model_pick_fastest ? "the model's pick measured fastest"
                                     : "the model's pick measured " + formatted("%.2fx", r.model_pick_vs_fastest) +
                                           " the fastest")
            << " (" << seconds(r.measure_s) << " measuring)\n";
}

}  // namespace

int compile_command(const CompileCommandOptions& options) {
  if (int usage = check_emit_options(options); usage != kOk) return usage;
  if (options.measure > 0 && options.target != "host") {
    std::cerr << "error: --measure times candidates on the host; it does not combine with --target "
              << options.target << "\n";
    return kUsage;
  }
  const ir::Graph g = smelt::load_graph(options.file);
  // A picture that cannot be written is found now, not after the saturation.
  if (const std::string problem = picture_files_problem(options.picture); !problem.empty()) {
    std::cerr << "error: " << problem << "\n";
    return kBadInput;
  }
  smelt::FuseOptions fuse;
  std::string profile_note;
  if (!options.profile.empty()) {
    try {
      fuse.profile = smelt::load_device_profile(options.profile, options.target);
    } catch (const std::runtime_error& e) {
      std::cerr << "error: " << e.what() << "\n";
      return kBadInput;
    }
  }
  if (options.profile.empty()) {
    // This CPU's profile; with no GPU here to name, the shipped profile of the
    // target's kind; said on stderr when it was not measured on this processor.
    smelt::TargetProfile chosen = smelt::profile_for_target(*smelt::parse_target(options.target), "");
    fuse.profile = std::move(chosen.profile);
    profile_note = std::move(chosen.note);
    if (!profile_note.empty()) std::cerr << "note: " << profile_note << "\n";
  }
  fuse.fusion = !options.no_fusion;
  fuse.threads = options.threads;
  fuse.rewrites = !options.no_rewrites;
  fuse.unsafe_fp = options.unsafe_fp;
  fuse.exact = options.exact;
  fuse.split_parts = !options.whole_program;
  fuse.limits.extraction_s = options.time_limit_s;
  fuse.limits.extraction_evaluations = options.search_budget;
  fuse.measure = options.measure;
  fuse.measure_budget_s = options.measure_s;
  smelt::FusionResult fused = smelt::fuse(g, fuse);
  fused.profile_note = profile_note;
  const smelt::FusionResult& r = fused;
  if (options.picture.any()) {
    if (const std::string problem = write_picture_files(options.picture, smelt::tools::kernel_program_dot(r.after));
        !problem.empty()) {
      std::cerr << "error: " << problem << "\n";
      return kBadInput;
    }
  }
  if (!options.emit.empty()) return emit_command(r, options);

  if (options.json) {
    std::cout << smelt::tools::fusion_json(r, {options.file, g.name(), options.threads}) << "\n";
  } else if (options.report) {
    std::cout << smelt::tools::fusion_report(r, options.file);
    if (options.measure > 0) {
      std::cout << "\n";
      print_measured(r);
    }
  } else {
    std::cout << options.file << ": " << kernels(r.kernels_after) << ", " << microseconds(r.predicted_us_after)
              << " predicted (unfused: " << kernels(r.kernels_before) << ", " << microseconds(r.predicted_us_before)
              << ")\n";
    // The limits that cut work short, where nobody asked for the report.
    if (r.extractor != "none" && !r.search_finished) {
      if (r.extraction_stop == "work limit")
        std::cerr << "note: the extraction stopped at its work limit (" << options.search_budget
                  << " programs costed); a larger --search-budget may find a faster program\n";
      else
        std::cerr << "note: the extraction stopped at its time limit (" << formatted("%g", options.time_limit_s)
                  << " s) before its work limit; a longer --time-limit may find a faster program, and the "
                     "program found depends on how busy the machine was\n";
    }
    if (r.index_validation.stopped_at_time_limit)
      std::cerr << "note: the index proofs stopped at their time limit; the kernels not proved keep their composed "
                   "index maps\n";
    if (options.measure > 0) print_measured(r);
  }
  return kOk;
}

Registered register_compile(CLI::App& app, SharedOptions& shared) {
  auto compile = std::make_shared<CompileCommandOptions>();
  CLI::App* compile_cmd = app.add_subcommand(
      "compile", "Fuse a .sg graph into kernels; print kernel counts and predicted times before and after");
  compile_cmd->add_option("file", compile->file, "The graph (.sg or .onnx)")->required();
  CLI::Option* report_flag =
      compile_cmd->add_flag("--report", compile->report, "Print the fused kernels and each one's predicted time");
  compile_cmd->add_flag("--json", compile->json, "Print one JSON object instead of text")->excludes(report_flag);
  compile_cmd->add_option("--profile", compile->profile, "Device profile (JSON) to cost kernels with (default: the one shipped for this CPU or GPU, "
                          "cost/profiles/)");
  compile_cmd->add_flag("--no-fusion", compile->no_fusion, "No fusion: one kernel per op");
  compile_cmd->add_flag("--no-rewrites", compile->no_rewrites, "Fuse the graph as given, without rewrite rules");
  compile_cmd->add_flag("--unsafe-fp", compile->unsafe_fp, kUnsafeFpHelp);
  compile_cmd->add_flag("--exact", compile->exact, "Exhaustive extraction (e-graphs of at most 200 classes)");
  compile_cmd->add_flag("--whole-program", compile->whole_program,
                        "Search the program as one part, not split where few values cross (slow on whole models: "
                        "what the parts' answer is compared with)");
  compile_cmd->add_option("--threads", compile->threads, "Host threads the program is costed for, and timed with under --measure (0: every core)");
  compile_cmd
      ->add_option("--measure", compile->measure,
                   "Ground truth: time the model's pick, up to K structurally different programs the extraction "
                   "costed (the fastest predicted of each number of kernels, the most fused among them) and the "
                   "unfused one, on the host with --threads threads; keep the fastest measured (host only)")
      ->check(CLI::Range(size_t{0}, size_t{1000}))
      ->default_val(0);
  compile_cmd
      ->add_option("--measure-s", compile->measure_s,
                   "Seconds of timing per candidate under --measure (at least 3 rounds are run whatever it says: "
                   "a whole model takes longer)")
      ->check(CLI::Range(0.01, 3600.0))
      ->default_val(FuseOptions{}.measure_budget_s);
  compile_cmd
      ->add_option("--search-budget", compile->search_budget,
                   "Programs the extraction may cost, all parts together: where the search stops, the same on a busy "
                   "machine (0: no limit)")
      ->default_val(smelt::Limits{}.extraction_evaluations);
  compile_cmd
      ->add_option("--time-limit", compile->time_limit_s,
                   "Seconds the extraction may search: a safety net behind --search-budget (the report says when it "
                   "fired)")
      ->check(CLI::PositiveNumber)
      ->default_val(smelt::Limits{}.extraction_s);
  compile_cmd->add_option("--target", compile->target, "Target of --emit: host, cuda or hip")
      ->check(CLI::IsMember({"host", "cuda", "hip"}))
      ->default_val("host");
  compile_cmd->add_option("--arch", compile->arch, "cuda: sm_80 | sm_90, hip: gfx90a | gfx942 (default: the first)");
  compile_cmd
      ->add_option("--emit", compile->emit,
                   "Write the fused program as kernels (readable), llvm (IR), asm (host asm | PTX | AMDGPU asm), "
                   "ptx (cuda) or hsaco (hip code object)")
      ->check(CLI::IsMember({"kernels", "llvm", "asm", "ptx", "hsaco"}))
      ->excludes(report_flag);
  compile_cmd->add_option("-o,--output", compile->output, "Where --emit writes (default or -: stdout; hsaco: a file)");
  compile_cmd->add_option("--dot", compile->picture.dot, "Also write the fused kernel program as a Graphviz picture (DOT)")
      ->type_name("OUT.dot");
  compile_cmd
      ->add_option("--svg", compile->picture.svg, "Also write the fused kernel program as an SVG picture (needs graphviz)")
      ->type_name("OUT.svg");
  add_memory_limit_option(compile_cmd, shared);

  return {compile_cmd, [compile] { return compile_command(*compile); }};
}

}  // namespace smelt::cli
