#pragma once
// `smelt compile FILE [--report] [--json] [--profile PROFILE.json] [--no-fusion] [--measure K]
// [--dot OUT.dot] [--svg OUT.svg]`: fuses a .sg graph into kernels (smelt::fuse) and reports the
// kernel counts and predicted times before (unfused, one kernel per op) and after; with
// --measure, each candidate's predicted and measured time; --dot / --svg also write a
// picture of the fused kernel program.
#include <cstddef>
#include <string>

#include "cli/picture_files.h"
#include "smelt/options.h"

namespace smelt::cli {

struct CompileCommandOptions {
  std::string file;
  bool report = false;    // the fused kernels, readable, with each one's predicted time
  bool json = false;      // one JSON object
  std::string profile;    // a device profile (JSON); empty: the shipped host profile
  bool no_fusion = false;
  bool no_rewrites = false;
  bool unsafe_fp = false;  // also the rules exact only in real arithmetic (FuseOptions::unsafe_fp)
  bool exact = false;
  bool whole_program = false;  // FuseOptions::split_parts = false
  double time_limit_s = Limits{}.extraction_s;
  size_t search_budget = Limits{}.extraction_evaluations;
  unsigned threads = 0;   // host threads the program is costed for (0: every core)
  size_t measure = 0;     // time the K best costed programs and the unfused one on the host; keep the fastest
  double measure_s = FuseOptions{}.measure_budget_s;  // seconds of timing per candidate
  // --emit (cli/emit_command.h): the fused program as code for a target.
  std::string target = "host";  // host | cuda | hip
  std::string arch;             // "" = the target's default (cuda sm_80, hip gfx90a, host this CPU)
  std::string emit;             // kernels | llvm | asm | ptx | hsaco; "" = the fusion summary
  std::string output;           // -o: a file; "" or "-" = stdout
  PictureFiles picture;         // --dot / --svg: the fused kernel program drawn
};

// Without --report or --json: one summary line. A profile that cannot be read,
// or a picture that cannot be written, is bad input (exit 1, nothing on stdout).
int compile_command(const CompileCommandOptions& options);

}  // namespace smelt::cli
