#pragma once
// `smelt run` on a compiled target (host | cuda | hip): fuse, lower, run, and
// with --check compare every output with the reference interpreter; with
// --reps time the kernels against the cost model's prediction.
#include <string>
#include <vector>

#include "cli/commands.h"
#include "smelt/smelt.h"

namespace smelt::cli {

// The options of `smelt run` that only a compiled target takes.
struct RunTimingOptions {
  int reps = 0;         // timed runs (Program::benchmark) after `warmup` untimed ones; 0 = not timed
  bool reps_given = false;  // --reps was on the command line (then it must be >= 1)
  int warmup = 1;
  bool warmup_given = false;  // --warmup was on the command line (then --reps must be too)
  double warmup_s = 0;        // --warmup-s: untimed runs go on until this many seconds have passed
  bool warmup_s_given = false;
  bool per_kernel = false;    // --per-kernel: time each kernel too (then --reps must be given)
  std::string profile;  // device profile (JSON) the kernels are costed with; "" = the shipped one
};

// The graph's inputs: random (reproducible from options.seed) or one
// `<input name>.npy` per input from the folder options.inputs. A missing or
// mismatching file throws NpyError naming it.
std::vector<ir::HostTensor> run_inputs(const ir::Graph& g, const RunOptions& options);

// Writes each output to DIR/<npy_file_name(name)> (`smelt run --outputs DIR`;
// nothing when `dir` is empty). Throws NpyError naming what failed.
void save_outputs(const ir::Graph& g, const std::vector<ir::HostTensor>& outputs, const std::string& dir);

// A missing device is bad input (exit 1) with one line saying what is
// missing; a mismatch under --check is exit 1 too; an unreadable --profile
// is exit 1 with the loader's message (it names the file).
int run_compiled_command(const RunOptions& options, const RunTimingOptions& timing = {});

// `smelt run` as parsed: --reps < 1, and --reps or --profile with
// --target reference, are usage errors (exit 2); the reference target runs
// the interpreter (run_command), the others run_compiled_command.
int run_subcommand(const RunOptions& options, const RunTimingOptions& timing);

}  // namespace smelt::cli
