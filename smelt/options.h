#pragma once
// How smelt optimizes a graph: the options smelt::fuse takes, and
// smelt::compile with them (CompileOptions adds the target). One definition
// of every default: the saturation's are egraph::RunnerLimits'.
#include <cstddef>
#include <optional>
#include <string>

#include "cost/device_profile.h"
#include "egraph/runner.h"

namespace smelt {

// How long the optimizer may search.
struct Limits {
  size_t iterations = egraph::RunnerLimits{}.iterations;  // saturation iterations
  size_t nodes = egraph::RunnerLimits{}.nodes;            // e-nodes in the e-graph
  double saturation_s = egraph::RunnerLimits{}.seconds;   // seconds of saturation
  // The extraction's work budget: programs it may price, all parts together
  // (0: no limit). It decides where the search stops, so a busy machine gets
  // the same program; extraction_s is the safety net (FusionResult::extraction_stop).
  size_t extraction_evaluations = 20000;
  // Seconds the extraction may search: far enough above what the budget takes
  // that a busy machine does not change the answer. Quiet on the 2-core AMD
  // EPYC (2026-11-30) every whole model of bench/models finished in 0.05-0.75 s
  // (at most 4,000 programs priced) and the ten towers in 0.9 s (1,983); at 2 s
  // the towers' search was cut short at load 4-5 (7 kernels, not 5). The
  // towers price about 2,200 programs a second, so their whole budget would
  // take 9 s: the net sits just above it.
  double extraction_s = 10;
  // Seconds of Z3 proofs of simplified index maps, all kernels together; slots
  // not proved by then keep the composed form (FusionResult::index_validation says so).
  double index_proofs_s = 2;
};

struct FuseOptions {
  std::optional<cost::DeviceProfile> profile{};  // what kernels are costed for; empty: the host profile
  Limits limits{};
  bool fusion = true;    // false: no fusion, one kernel per op (after = before)
  bool rewrites = true;  // false: fuse the graph as given, without equality saturation
  // Also rewrite with the rules exact only in real arithmetic (:unsafe-fp in
  // rules/*.rules: reassociation, distribution, a per-map scale folded into a
  // convolution's weights, which folds batch-norm): results may differ from
  // the graph's in the last bits, as with a compiler's fast-math.
  bool unsafe_fp = false;
  bool exact = false;    // exhaustive extraction where the e-graph has <= 200 classes
  // The extraction searches the program in parts where few values cross
  // (identical parts once); false: as one part, as it did before (slow on
  // whole models; what the parts' answers are compared with).
  bool split_parts = true;
  unsigned threads = 0;  // host threads the program runs on, the caller's included (0: every core)
  // Simplify every kernel's index maps and masks, each simplification proved
  // equal to the composed form by Z3 (unproved ones keep the composed form).
  bool simplify_indices = true;
  // Ground truth: > 0 keeps the `measure` distinct programs of least predicted
  // time the extraction costed, times each and the unfused one on the host
  // with `threads` threads (cost::time_host_program, until the median is
  // stable) and returns the fastest measured as `after` (FusionResult::measured).
  size_t measure = 0;
  double measure_budget_s = 0.25;  // seconds of timing per candidate
};

// A device profile from JSON (docs/cost.md); throws std::runtime_error naming
// the file and the bad field, or the device when it is not `expected_device`
// ("host", "cuda", "hip"; "" accepts any).
cost::DeviceProfile load_device_profile(const std::string& path, const std::string& expected_device = "");

}  // namespace smelt
