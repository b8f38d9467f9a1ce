#pragma once
// smelt's public C++ API: load a graph, make inputs, run it through the
// reference interpreter; fuse, extract, prove rules; compile and run it on a
// device (smelt/compile.h: smelt::compile, smelt::Program, whose runs may come
// from several threads at once and take turns).
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>


#include "cost/device_profile.h"
#include "cost/measure.h"
#include "cost/predict.h"
#include "egraph/runner.h"
#include "error/error.h"
#include "ir/builder.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "ir/interpreter.h"
#include "ir/kernel.h"
#include "ir/tensor_compare.h"
#include "ir/text_format.h"
#include "smelt/onnx.h"
#include "verify/index_validation.h"
#include "verify/rule_prover.h"

namespace smelt {

// The vocabulary of the API, from the IR: a graph built with the builder
// functions (ir/builder.h: input, matmul, slice_axis, ...; found by argument-
// dependent lookup, so `input(g, "x", DType::F32, {4})` needs no prefix), its
// tensors on the host, and the reference comparison every test uses.
using ir::DType;
using ir::Graph;
using ir::HostTensor;
using ir::compare_outputs;    // "" when every output is within its dtype's tolerance, else what differs
using ir::default_tolerance;  // the relative tolerance compiled outputs are checked with

// Loads a graph from a .sg file. Throws ir::ParseError (FILE:LINE:COL) on bad input.
// A .onnx file is imported (smelt::import_onnx; throws importer::ImportError).
ir::Graph load_graph(const std::string& path);

// One random tensor per graph input, reproducible from `seed`.
std::vector<ir::HostTensor> random_inputs(const ir::Graph& g, uint64_t seed);

// Evaluates the graph's outputs with the reference interpreter.
std::vector<ir::HostTensor> run_reference(const ir::Graph& g,
                                          const std::vector<ir::HostTensor>& inputs);

// --- Extraction from a serialized e-graph (egraph-serialize JSON, the extraction-gym format).

// A file that cannot be extracted from: unreadable, malformed (the message names the
// place, "FILE:LINE:COL: ..."), a negative cost, a root with no acyclic term.
class ExtractInputError : public Error {
 public:
  explicit ExtractInputError(const std::string& message) : Error(ErrorKind::kExtractInput, message) {}
};

struct ExtractionReport {
  std::string file, extractor;
  double tree = 0;                    // tree cost, as extraction-gym defines it
  double dag = 0;                     // sum of the costs of the distinct chosen nodes
  long long micros = 0;               // the extraction alone, after the file is read
  std::optional<double> lower_bound;  // a proven lower bound on the optimal DAG cost (exact extractor)
  bool optimal = false;               // lower_bound equals dag
  std::string note;                   // why the search stopped short, if it did
};

// The extractors extract_serialized accepts: bottom-up, greedy-dag, local-search, exact.
std::vector<std::string> extractor_names();

// Reads the file and extracts with the named extractor; `time_limit_s` bounds the
// searching ones. Throws ExtractInputError (bad file) or std::invalid_argument
// (unknown extractor). The extraction is checked (roots covered, acyclic) before it is reported.
ExtractionReport extract_serialized(const std::string& path, const std::string& extractor, double time_limit_s = 60);

// --- Fusion: a graph saturated with the default rules, then the term and the
// kernel boundaries chosen together for the least predicted time (smelt/fusion.cpp).

struct FuseOptions {
  std::optional<cost::DeviceProfile> profile;  // what kernels are costed for; empty: the host profile
  bool fusion = true;       // false: no fusion, one kernel per op (after = before)
  bool rewrites = true;     // false: fuse the graph as given, without equality saturation
  bool exact = false;       // exhaustive extraction where the e-graph has <= 200 classes
  unsigned threads = 0;     // host threads the program runs on (0: every core): what kernels are costed for
  double time_limit_s = 2;  // for the extraction's search
  // Simplify every kernel's index maps and masks, each simplification proved
  // equal to the composed form by Z3 (unproved ones keep the composed form).
  bool simplify_indices = true;
  // Seconds for those proofs, all kernels together; slots not proved by then
  // keep the composed form (FusionResult::index_validation says so).
  double index_proofs_time_limit_s = 2;
  // Limits of the equality saturation; empty: rules::default_limits().
  std::optional<egraph::RunnerLimits> saturation_limits;
  // Ground truth: > 0 keeps the `measure` distinct programs of least predicted
  // time the extraction costed, times each and the unfused one on the host
  // with `threads` threads (cost::time_host_program, until the median is
  // stable) and returns the fastest measured as `after` (FusionResult::measured).
  size_t measure = 0;
  double measure_budget_s = 0.25;  // seconds of timing per candidate
};

// One candidate program timed by FuseOptions::measure.
struct MeasuredCandidate {
  double predicted_us = 0;  // the cost model's time
  cost::Timing timing;      // measured on the host (median_us, min_us, spread, reps)
  size_t kernels = 0;
  bool model_pick = false;  // the extraction's choice: `after` without measuring
  bool unfused = false;     // `before`
  bool chosen = false;      // the least measured median: `after`
};

struct FusionResult {
  ir::Graph graph;                  // the chosen term: what the fused kernels compute
  std::vector<bool> materialized;   // by ValueId of `graph`: the values a kernel writes
  ir::KernelProgram before, after;  // unfused (every value its own kernel) and fused
  size_t kernels_before = 0, kernels_after = 0;
  double predicted_us_before = 0, predicted_us_after = 0;
  std::vector<cost::KernelCost> after_kernel_costs;  // by kernel of `after`
  // Saturation.
  std::string stop_reason;
  size_t iterations = 0, egraph_nodes = 0, egraph_classes = 0;
  double saturation_s = 0;
  // The rules whose matches changed the e-graph, with how many unions, in
  // rule order (what the chosen program uses is a subset).
  std::vector<std::pair<std::string, size_t>> rules_fired;
  // Extraction.
  std::string extractor;         // "heuristic", "exact" or "none"
  std::string start;             // the starting term the answer came from
  size_t evaluations = 0;        // programs lowered and predicted
  bool search_finished = false;  // heuristic: a local optimum; exact: the space exhausted (optimal)
  double extraction_s = 0;
  // Translation validation of `after`'s index simplification (empty when off).
  verify::ValidationReport index_validation;
  // FuseOptions::measure: the candidates timed, by predicted time ascending
  // (empty when not measured); whether the model's pick measured fastest and
  // its median over the fastest median (>= 1); seconds spent measuring.
  std::vector<MeasuredCandidate> measured;
  bool model_pick_fastest = true;
  double model_pick_vs_fastest = 1;
  double measure_s = 0;
};

// Both programs take the graph's inputs in order and give its outputs in order.
FusionResult fuse(const ir::Graph& g, const FuseOptions& options = {});

// A device profile from JSON (docs/cost.md); throws std::runtime_error naming
// the file and the bad field, or the device when it is not `expected_device`
// ("host", "cuda", "hip"; "" accepts any).
cost::DeviceProfile load_device_profile(const std::string& path, const std::string& expected_device = "");

// --- Rule soundness (verify/rule_prover.h): every rule proved with Z3.

// Proves every rule of the given .rules files, or of every shipped rule file
// (rules/*.rules as embedded at build time) when `files` is empty; results in
// file order. Throws rules::RuleError for a file that cannot be read or parsed
// or a rule name defined twice. `jobs` rules are proved at a time (0: one per
// hardware thread).
std::vector<verify::RuleResult> verify_rules(const std::vector<std::string>& files,
                                             const verify::ProverOptions& options = {}, unsigned jobs = 0,
                                             const verify::ProgressFn& on_progress = {});

}  // namespace smelt

// smelt::compile, smelt::Program: fused, lowered and loaded on a device.
#include "smelt/compile.h"  // IWYU pragma: export
// smelt::calibrate: device profiles measured and validated.
#include "smelt/calibrate.h"  // IWYU pragma: export
