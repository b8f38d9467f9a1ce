// The `smelt` command line.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "cli/calibrate_command.h"
#include "cli/commands.h"
#include "cli/compile_command.h"
#include "cli/extract_command.h"
#include "cli/npy.h"
#include "cli/run_command.h"
#include "cli/saturate_command.h"
#include "cli/import_command.h"
#include "cli/onnx_test_command.h"
#include "cli/verify_command.h"
#include "smelt/compile.h"
#include "tools/extract_serialized.h"
#include "smelt/memory.h"
#include "smelt/smelt.h"

namespace {

const char* kDescription =
    "smelt: an equality-saturation superoptimizer for tensor programs (kernel fusion).\n"
    "Exit codes: 0 ok, 1 bad input, 2 usage error, 3 internal error.";

const char* kUnsafeFpHelp =
    "Also rewrite with the rules exact only in real arithmetic (reassociation, distribution, batch-norm scales "
    "folded into convolution weights): outputs may differ from the graph's in the last bits, as with fast-math";

// --memory-limit, on the commands that read graphs and allocate tensors.
void add_memory_limit_option(CLI::App* command, std::string& limit) {
  command
      ->add_option("--memory-limit", limit,
                   "Most memory tensors and input files may take, in bytes or with a unit (K, M, G, T: binary): "
                   "a graph that needs more is an error before allocating (default: half the physical memory, " +
                       smelt::format_bytes(smelt::default_memory_limit()) + " here)")
      ->type_name("BYTES")
      ->check(CLI::Validator(
          [](std::string& text) {
            return smelt::parse_byte_count(text) ? std::string() : "'" + text + "' is not a byte count (e.g. 8G, 512MiB)";
          },
          ""));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{kDescription, "smelt"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print help for every subcommand and exit");
  std::string memory_limit;

  smelt::cli::CheckOptions check;
  CLI::App* check_cmd = app.add_subcommand(
      "check", "Parse and shape-check a .sg graph; print a one-line summary");
  check_cmd->add_option("file", check.file, "The graph (.sg)")->required();
  check_cmd->add_flag("--json", check.json, "Print one JSON object instead of text");
  add_memory_limit_option(check_cmd, memory_limit);

  smelt::cli::RunOptions run;
  smelt::cli::RunTimingOptions run_timing;
  CLI::App* run_cmd = app.add_subcommand(
      "run",
      "Compile a .sg graph and run it (default: on the host); print each output's type and checksum; "
      "with --reps, the measured time beside the cost model's prediction");
  run_cmd->add_option("file", run.file, "The graph (.sg or .onnx)")->required();
  run_cmd->add_option("--inputs", run.inputs,
                      "Where inputs come from: random, or a folder with one <input name>.npy per graph input")
      ->check(CLI::IsMember({"random"}) | CLI::ExistingDirectory)
      ->default_val("random");
  run_cmd->add_option("--seed", run.seed, "Seed of the random inputs")->default_val(0);
  run_cmd->add_flag("--json", run.json, "Print one JSON object instead of text");
  run_cmd->add_option("--target", run.target,
                      "host (compiled, the default), cuda, hip, or reference (the interpreter, no compilation)")
      ->check(CLI::IsMember({"host", "cuda", "hip", "reference"}))
      ->default_val("host");
  run_cmd->add_option("--arch", run.arch, "cuda: sm_80 | sm_90, hip: gfx90a | gfx942 (default: the device's)");
  run_cmd->add_flag("--check", run.check,
                    "Compare every output with the reference interpreter (tolerance by dtype); exit 1 on a mismatch");
  run_cmd->add_flag("--no-fusion", run.no_fusion, "Run unfused: one kernel per op");
  run_cmd->add_flag("--unsafe-fp", run.unsafe_fp, kUnsafeFpHelp);
  run_cmd->add_option("--outputs", run.outputs,
                      "Write each output into this folder (created if missing) as <output name>.npy "
                      "(characters other than letters, digits, _ - . in a name become _)");
  run_cmd->add_option("--threads", run.threads, "Host threads (0: every core)")
      ->check(CLI::Range(0u, 1024u))
      ->default_val(0);
  CLI::Option* reps_option = run_cmd->add_option(
      "--reps", run_timing.reps,
      "Time the kernels: --warmup runs, then N timed runs (N >= 1); print their median and min in us, the cost "
      "model's predicted time and measured/predicted (not with --target reference)");
  CLI::Option* warmup_option = run_cmd->add_option("--warmup", run_timing.warmup,
                                                   "Untimed runs before the --reps timed ones (a process's first "
                                                   "runs fault in pages and pack weights)")
                                   ->default_val(1);
  run_cmd->add_flag("--per-kernel", run_timing.per_kernel,
                    "With --reps: time each kernel too; print each one's median beside its predicted time and "
                    "its share of the run (a profile: where the time goes)");
  run_cmd->add_option("--profile", run_timing.profile,
                      "Device profile (JSON) to cost kernels with, as in `smelt compile --profile` "
                      "(default: the shipped host profile)");
  add_memory_limit_option(run_cmd, memory_limit);

  smelt::cli::ExtractCommandOptions extract;
  CLI::App* extract_cmd = app.add_subcommand(
      "extract", "Extract from a serialized e-graph (egraph-serialize JSON); print one JSON line of costs");
  extract_cmd->add_option("file", extract.file, "The e-graph (.json)")->required();
  extract_cmd->add_option("--extractor", extract.extractor, "Which extractor")
      ->required()
      ->check(CLI::IsMember(smelt::tools::extractor_names()));
  extract_cmd->add_option("--time-limit", extract.time_limit_s, "Seconds the searching extractors may take")
      ->check(CLI::PositiveNumber)
      ->default_val(60);

  smelt::cli::CompileCommandOptions compile;
  CLI::App* compile_cmd = app.add_subcommand(
      "compile", "Fuse a .sg graph into kernels; print kernel counts and predicted times before and after");
  compile_cmd->add_option("file", compile.file, "The graph (.sg)")->required();
  CLI::Option* report_flag =
      compile_cmd->add_flag("--report", compile.report, "Print the fused kernels and each one's predicted time");
  compile_cmd->add_flag("--json", compile.json, "Print one JSON object instead of text")->excludes(report_flag);
  compile_cmd->add_option("--profile", compile.profile, "Device profile (JSON) to cost kernels with");
  compile_cmd->add_flag("--no-fusion", compile.no_fusion, "No fusion: one kernel per op");
  compile_cmd->add_flag("--no-rewrites", compile.no_rewrites, "Fuse the graph as given, without rewrite rules");
  compile_cmd->add_flag("--unsafe-fp", compile.unsafe_fp, kUnsafeFpHelp);
  compile_cmd->add_flag("--exact", compile.exact, "Exhaustive extraction (e-graphs of at most 200 classes)");
  compile_cmd->add_option("--threads", compile.threads, "Host threads the program is costed for, and timed with under --measure (0: every core)");
  compile_cmd
      ->add_option("--measure", compile.measure,
                   "Ground truth: time the K distinct programs of least predicted time the extraction costed, and "
                   "the unfused one, on the host with --threads threads; keep the fastest measured (host only)")
      ->check(CLI::Range(size_t{0}, size_t{1000}))
      ->default_val(0);
  compile_cmd->add_option("--time-limit", compile.time_limit_s, "Seconds the extraction may search")
      ->check(CLI::PositiveNumber)
      ->default_val(2);
  compile_cmd->add_option("--target", compile.target, "Target of --emit: host, cuda or hip")
      ->check(CLI::IsMember({"host", "cuda", "hip"}))
      ->default_val("host");
  compile_cmd->add_option("--arch", compile.arch, "cuda: sm_80 | sm_90, hip: gfx90a | gfx942 (default: the first)");
  compile_cmd
      ->add_option("--emit", compile.emit,
                   "Write the fused program as kernels (readable), llvm (IR), asm (host asm | PTX | AMDGPU asm), "
                   "ptx (cuda) or hsaco (hip code object)")
      ->check(CLI::IsMember({"kernels", "llvm", "asm", "ptx", "hsaco"}))
      ->excludes(report_flag);
  compile_cmd->add_option("-o,--output", compile.output, "Where --emit writes (default or -: stdout; hsaco: a file)");
  compile_cmd->add_option("--dot", compile.picture.dot, "Also write the fused kernel program as a Graphviz picture (DOT)")
      ->type_name("OUT.dot");
  compile_cmd
      ->add_option("--svg", compile.picture.svg, "Also write the fused kernel program as an SVG picture (needs graphviz)")
      ->type_name("OUT.svg");
  add_memory_limit_option(compile_cmd, memory_limit);

  smelt::cli::SaturateCommandOptions saturate;
  CLI::App* saturate_cmd = app.add_subcommand(
      "saturate",
      "Saturate a graph (.sg or .onnx) with rewrite rules; print a table per iteration, the stop reason, what each "
      "rule did and the term the fusion extraction picks");
  saturate_cmd->add_option("file", saturate.file, "The graph (.sg or .onnx)")->required();
  saturate_cmd->add_option("--rules", saturate.rule_files, "Rule files (.rules) to run instead of the default rules");
  saturate_cmd->add_option("--iterations", saturate.iterations, "Most saturation iterations (default 12)")
      ->check(CLI::PositiveNumber);
  saturate_cmd->add_option("--nodes", saturate.nodes, "Most e-nodes (default 20000)")->check(CLI::PositiveNumber);
  saturate_cmd->add_option("--time-limit", saturate.time_limit_s, "Seconds of saturation (default 2)")
      ->check(CLI::PositiveNumber);
  saturate_cmd
      ->add_option("--scheduler", saturate.scheduler,
                   "backoff (egg's: a rule with too many matches is banned for a while) or simple (every match "
                   "every iteration); multi-pattern and group rules run in the first iteration only")
      ->check(CLI::IsMember({"backoff", "simple"}))
      ->default_val("backoff");
  saturate_cmd->add_flag("--json", saturate.json, "Print one JSON object instead of text");
  saturate_cmd->add_flag("--explain", saturate.explain,
                         "For each output, the rule applications that turn the graph into the picked term");
  saturate_cmd->add_option("--serialize", saturate.serialize,
                           "Write the saturated e-graph as egraph-serialize JSON (node costs: compute ns from the "
                           "cost model), for `smelt extract` and extraction-gym");
  saturate_cmd->add_option("--dot", saturate.picture.dot,
                           "Also write the e-graph as a Graphviz picture (DOT): e-classes as clusters, the graph as "
                           "given in blue, the picked term in gold")
      ->type_name("OUT.dot");
  saturate_cmd->add_option("--svg", saturate.picture.svg, "Also write that picture as SVG (needs graphviz)")
      ->type_name("OUT.svg");
  saturate_cmd->add_option("--profile", saturate.profile, "Device profile (JSON) to cost nodes and kernels with");
  saturate_cmd->add_option("--threads", saturate.threads, "Host threads the kernels are costed for (0: every core)");
  add_memory_limit_option(saturate_cmd, memory_limit);

  smelt::cli::VerifyRulesOptions verify_rules;
  smelt::cli::CalibrateCommandOptions calibrate;
  CLI::App* calibrate_cmd = app.add_subcommand(
      "calibrate",
      "Measure the cost model's device profile by running the kernels smelt emits; validate it on held-out "
      "kernels and programs; write PROFILE.json and a predicted-vs-measured scatter PNG beside it");
  calibrate_cmd->add_option("--device", calibrate.device,
                            "host, or a GPU (cuda, hip: measured on the device through the kernels smelt emits for it; "
                            "a missing driver or device: exit 1)")
      ->check(CLI::IsMember({"host", "cuda", "hip"}))
      ->default_val("host");
  calibrate_cmd->add_option("-o,--output", calibrate.output,
                            "The profile to write (the plot: same name, .png); default profile.json, for a GPU "
                            "<its name>.json (nvidia-h200.json), the name it ships under in cost/profiles/");
  calibrate_cmd->add_option("--arch", calibrate.arch, "cuda / hip: the architecture to emit for (default: the device's)");
  calibrate_cmd->add_flag("--quick", calibrate.quick, "Fewer sizes, shapes and validation graphs: under a minute");
  calibrate_cmd->add_option("--threads", calibrate.threads, "Calibrate 1, 2, 4, ... up to N threads (0: every core)")
      ->check(CLI::Range(0u, 1024u))
      ->default_val(0);
  calibrate_cmd->add_option("--validate", calibrate.validate, "More graphs (.sg / .onnx) to validate on")
      ->check(CLI::ExistingFile);
  calibrate_cmd->add_option("--random", calibrate.random, "Random graphs to validate on (0: 60, --quick: 16)")
      ->check(CLI::Range(0, 100000))
      ->default_val(0);
  calibrate_cmd->add_option("--seed", calibrate.seed, "Seed of the random validation graphs")->default_val(1);
  calibrate_cmd->add_option("--save-graphs", calibrate.save_graphs,
                            "Write the random validation graphs into this folder as .sg (to reproduce a point)")
      ->check(CLI::ExistingDirectory);
  calibrate_cmd->add_option("--validate-only", calibrate.validate_only,
                            "Validate this profile instead of measuring a new one (writes only the plot)");
  calibrate_cmd->add_flag("--json", calibrate.json, "Print the validation summary as one JSON object");

  CLI::App* verify_cmd = app.add_subcommand(
      "verify-rules", "Prove rewrite rules sound with Z3; one line per rule, a counterexample for each failure");
  verify_cmd->add_option("--rules", verify_rules.files, "Rule files (.rules); default: every shipped rule file")
      ->expected(1, -1);
  verify_cmd->add_flag("--json", verify_rules.json, "Print one JSON object instead of text");
  verify_cmd->add_option("--jobs", verify_rules.jobs, "Rules proved at a time (0: one per hardware thread)")
      ->default_val(0);
  verify_cmd->add_option("--timeout", verify_rules.timeout_ms, "Milliseconds per Z3 query (a timeout is UNKNOWN)")
      ->check(CLI::PositiveNumber)
      ->default_val(10000);

  smelt::cli::ImportCommandOptions import_options;
  CLI::App* import_cmd = app.add_subcommand("import", "Import an ONNX model (opset 13+) and write it as a .sg graph");
  import_cmd->add_option("file", import_options.file, "The model (.onnx)")->required();
  import_cmd->add_option("-o,--output", import_options.output, "The .sg file to write (default: stdout)");
  import_cmd->add_flag("--initializers-as-inputs", import_options.initializers_as_inputs,
                       "Initializers become graph inputs instead of constants");
  add_memory_limit_option(import_cmd, memory_limit);

  smelt::cli::OnnxTestCommandOptions onnx_test;
  CLI::App* test_cmd = app.add_subcommand(
      "test", "Run one ONNX backend test directory (model.onnx + test_data_set_*); per output the max errors");
  test_cmd->add_option("dir", onnx_test.dir, "The test directory")->required();
  test_cmd->add_option("--target", onnx_test.target, "Where to run: reference, host or all")
      ->check(CLI::IsMember({"reference", "host", "all"}))
      ->default_val("all");
  test_cmd->add_option("--rtol", onnx_test.rtol, "Relative tolerance")->check(CLI::NonNegativeNumber)->default_val(1e-3);
  test_cmd->add_option("--atol", onnx_test.atol, "Absolute tolerance")->check(CLI::NonNegativeNumber)->default_val(1e-7);
  add_memory_limit_option(test_cmd, memory_limit);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? smelt::cli::kOk : smelt::cli::kUsage;
  }

  if (!memory_limit.empty()) smelt::set_memory_limit(*smelt::parse_byte_count(memory_limit));

  try {
    if (check_cmd->parsed()) return smelt::cli::check_command(check);
    if (run_cmd->parsed()) {
      run_timing.reps_given = reps_option->count() > 0;
      run_timing.warmup_given = warmup_option->count() > 0;
      return smelt::cli::run_subcommand(run, run_timing);
    }
    if (extract_cmd->parsed()) return smelt::cli::extract_command(extract);
    if (compile_cmd->parsed()) return smelt::cli::compile_command(compile);
    if (saturate_cmd->parsed()) return smelt::cli::saturate_command(saturate);
    if (verify_cmd->parsed()) return smelt::cli::verify_rules_command(verify_rules);
    if (calibrate_cmd->parsed()) return smelt::cli::calibrate_command(calibrate);
    if (import_cmd->parsed()) return smelt::cli::import_command(import_options);
    if (test_cmd->parsed()) return smelt::cli::onnx_test_command(onnx_test);
  } catch (const smelt::Error& e) {
    return smelt::cli::report_error(e);
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return smelt::cli::kInternalError;
  }
  return smelt::cli::kUsage;
}
