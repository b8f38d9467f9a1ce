// smelt::fuse: saturate with the default rules, extract the term and the
// kernel boundaries together, and report both programs with their predicted times.
#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

#include "cost/calibrate.h"
#include "cost/predict.h"
#include "fusion/fusion_search.h"
#include "fusion/part_search.h"
#include "fusion/exact_search.h"
#include "fusion/concat_tree.h"
#include "kernel/constant_folding.h"
#include "fusion/kernelize.h"
#include "rules/rule_library.h"
#include "rules/saturate.h"
#include "smelt/fusion.h"

namespace smelt {
namespace {

// The shipped rules, compiled once: the default set, or with the :unsafe-fp
// ones too (FuseOptions::unsafe_fp).
const std::vector<rules::CompiledRule>& shipped_compiled_rules(bool unsafe_fp) {
  // The rules outlive their compiled forms (group rules instantiate from them);
  // each set is compiled on first use only.
  if (unsafe_fp) {
    static const std::vector<rules::Rule> every_rule = rules::all_rules();
    static const std::vector<rules::CompiledRule> every = rules::compile_rules(every_rule);
    return every;
  }
  static const std::vector<rules::Rule> exact_rules = rules::default_rules();
  static const std::vector<rules::CompiledRule> exact = rules::compile_rules(exact_rules);
  return exact;
}

void set_after(FusionResult& r, const ir::Graph& graph, fusion::Kernelization lowering, const cost::DeviceProfile& profile,
               const FuseOptions& options) {
  r.graph = graph;
  r.materialized = std::move(lowering.materialized);
  r.after = kernel::fold_constant_kernels(std::move(lowering.program));
  if (options.simplify_indices) {
    const kernel::KernelProgram unsimplified = r.after;
    r.index_validation = verify::validate_and_simplify(r.after, {.time_limit_s = options.limits.index_proofs_s});
    // A simplified kernel is kept where the cost model prices it no dearer:
    // the extraction compared programs priced unsimplified, and a constant
    // index can price a few ps above the read it replaces (x[0] for x[i]
    // under i < 1: a pad of one element, 4 ps, the 2026-11-30 AMD EPYC
    // profile), which made a pick predicted slower than one kernel per op.
    for (size_t k = 0; k < r.after.kernels.size(); ++k) {
      const cost::KernelCost simplified = cost::predict(r.after, r.after.kernels[k], profile);
      const cost::KernelCost as_built = cost::predict(unsimplified, unsimplified.kernels[k], profile);
      if (simplified.total_us > as_built.total_us) r.after.kernels[k] = unsimplified.kernels[k];
      r.after_kernel_costs.push_back(simplified.total_us > as_built.total_us ? as_built : simplified);
    }
  } else {
    for (const kernel::Kernel& k : r.after.kernels) r.after_kernel_costs.push_back(cost::predict(r.after, k, profile));
  }
  r.kernels_after = r.after.kernels.size();
  r.predicted_us_after = cost::predict_program_us(r.after, profile);
}

// A program FuseOptions::measure times: a term and its kernels.
struct Candidate {
  ir::Graph graph;
  fusion::Kernelization lowering;
  std::string text;  // kernel::print_program of the unsimplified kernels
  bool model_pick = false, unfused = false;
};

// Times every candidate on the host (each simplified as `after` would be) and
// makes the fastest measured one `after`; the rest of `r` stays.
void measure_candidates(FusionResult& r, std::vector<Candidate> candidates, const cost::DeviceProfile& profile,
                        const FuseOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<FusionResult> programs(candidates.size());
  size_t pick = 0;
  for (size_t i = 0; i < candidates.size(); ++i)
    set_after(programs[i], candidates[i].graph, std::move(candidates[i].lowering), profile, options);
  // Timed side by side in interleaved rounds: the order is no advantage.
  std::vector<const kernel::KernelProgram*> compiled;
  for (const FusionResult& p : programs) compiled.push_back(&p.after);
  const std::vector<cost::Timing> timings = cost::time_host_programs(compiled, options.threads, options.measure_budget_s);
  for (size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].model_pick) pick = i;
  size_t fastest = pick;  // on a tie, the pick
  // Compared with the pick round by round: medians taken over the whole
  // measurement moved 10 % with this VM's speed.
  for (size_t i = 0; i < candidates.size(); ++i) {
    MeasuredCandidate m;
    m.predicted_us = programs[i].predicted_us_after;
    m.kernels = programs[i].kernels_after;
    m.model_pick = candidates[i].model_pick;
    m.unfused = candidates[i].unfused;
    m.timing = timings[i];
    m.over_pick = i == pick ? 1.0 : cost::paired_ratio(timings[i], timings[pick]);
    r.measured.push_back(m);
  }
  for (size_t i = 0; i < r.measured.size(); ++i)
    if (r.measured[i].over_pick < r.measured[fastest].over_pick) fastest = i;
  r.measured[fastest].chosen = true;
  r.model_pick_fastest = fastest == pick;
  r.model_pick_vs_fastest = r.measured[fastest].over_pick > 0 ? 1 / r.measured[fastest].over_pick : 1;
  FusionResult& best = programs[fastest];
  r.graph = std::move(best.graph);
  r.materialized = std::move(best.materialized);
  r.after = std::move(best.after);
  r.index_validation = std::move(best.index_validation);
  r.kernels_after = best.kernels_after;
  r.predicted_us_after = best.predicted_us_after;
  r.after_kernel_costs = std::move(best.after_kernel_costs);
  std::stable_sort(r.measured.begin(), r.measured.end(),
                   [](const MeasuredCandidate& a, const MeasuredCandidate& b) { return a.predicted_us < b.predicted_us; });
  r.measure_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

}  // namespace

FusionResult fuse(const ir::Graph& input, const FuseOptions& options) {
  const ir::Graph g = fusion::split_wide_concats(input);
  // Costed for the threads the program will run on (0: every core).
  const cost::DeviceProfile profile =
      (options.profile ? *options.profile : cost::default_host_profile()).for_threads(options.threads);
  FusionResult r;
  fusion::Kernelization unfused = fusion::kernelize(g, fusion::materialize_everything(g), fusion::KernelizeOptions::unmerged());
  r.before = kernel::fold_constant_kernels(unfused.program);
  r.kernels_before = r.before.kernels.size();
  r.predicted_us_before = cost::predict_program_us(r.before, profile);
  r.profile_name = profile.name;
  if (!options.fusion) {
    r.extractor = "none";
    if (options.measure > 0) {
      measure_candidates(r, {{g, std::move(unfused), "", true, true}}, profile, options);
    } else {
      set_after(r, g, std::move(unfused), profile, options);
    }
    return r;
  }

  const std::span<const rules::CompiledRule> rules =
      options.rewrites ? std::span<const rules::CompiledRule>(shipped_compiled_rules(options.unsafe_fp))
                       : std::span<const rules::CompiledRule>();
  egraph::RunnerLimits saturation_limits = rules::default_limits();  // the memory limit with them
  saturation_limits.iterations = options.limits.iterations;
  saturation_limits.nodes = options.limits.nodes;
  saturation_limits.seconds = options.limits.saturation_s;
  rules::Saturation sat = rules::saturate(g, rules, saturation_limits);
  r.stop_reason = std::string(egraph::to_string(sat.report.stop_reason));
  r.iterations = sat.report.iterations.size();
  r.egraph_nodes = sat.egraph.num_nodes();
  r.egraph_classes = sat.egraph.num_classes();
  r.saturation_s = sat.report.total_s;
  for (size_t i = 0; i < rules.size() && i < sat.rule_stats.size(); ++i)
    if (sat.rule_stats[i].unions > 0) r.rules_fired.emplace_back(rules[i].name, sat.rule_stats[i].unions);

  fusion::FusionEvaluator evaluator(sat.egraph, sat.classes.outputs, profile);
  evaluator.name_classes(g, sat.classes);
  evaluator.keep_best(options.measure);
  fusion::FusionOptions heuristic_options;
  heuristic_options.max_evaluations = options.limits.extraction_evaluations;
  heuristic_options.time_limit_s = options.limits.extraction_s;
  heuristic_options.original = fusion::original_choice(sat.egraph, g, sat.classes);
  fusion::PartOptions split;
  if (!options.split_parts) split.min_ops = std::numeric_limits<size_t>::max();  // no cut: one part
  fusion::PartsExtraction by_parts = fusion::extract_by_parts(evaluator, g, sat.classes, heuristic_options, split);
  fusion::FusionExtraction chosen = std::move(by_parts.program);
  r.parts = std::move(by_parts.parts);
  r.extractor = "heuristic";
  if (options.exact && sat.egraph.num_classes() <= fusion::FusionExactOptions{}.max_classes) {
    // The heuristic's answer stands where the exhaustive search runs out of time first.
    try {
      fusion::FusionExtraction exact =
          fusion::extract_fusion_exact(evaluator, {.time_limit_s = options.limits.extraction_s});
      exact.seconds += chosen.seconds;
      exact.evaluations += chosen.evaluations;
      if (exact.finished || exact.cost.predicted_us < chosen.cost.predicted_us) {
        if (!exact.finished) {
          exact.start = "exhaustive (unfinished)";
          exact.stopped_by = "time limit";
        }
        chosen = std::move(exact);
        r.extractor = "exact";
      }
    } catch (const std::invalid_argument&) {
      // Out of time before a first complete term: the heuristic's answer stands.
    }
  }
  r.start = chosen.start;
  r.evaluations = chosen.evaluations;
  r.search_finished = chosen.finished;
  r.extraction_stop = chosen.stopped_by;
  r.extraction_s = chosen.seconds;
  if (options.measure > 0) {
    // The model's pick, the other kept programs by predicted time, and the
    // unfused program, each once.
    std::vector<Candidate> candidates;
    auto add = [&](const ir::Graph& graph, const fusion::Kernelization& lowering, bool model_pick, bool is_unfused) {
      std::string text = kernel::print_program(lowering.program);
      for (Candidate& c : candidates)
        if (c.text == text) {
          c.unfused = c.unfused || is_unfused;
          return;
        }
      candidates.push_back({graph, lowering, std::move(text), model_pick, is_unfused});
    };
    add(chosen.term.graph, chosen.cost.lowering, true, false);
    for (const fusion::KeptProgram* k : evaluator.kept()) add(k->term.graph, k->lowering, false, false);
    add(g, unfused, false, true);
    measure_candidates(r, std::move(candidates), profile, options);
  } else if (r.predicted_us_before < chosen.cost.predicted_us) {
    // One kernel per op can price below every fused program the search tried
    // when it folds a constant-only op that fusion would compute per run.
    r.start = "unfused (predicted faster than \"" + r.start + "\")";
    set_after(r, g, std::move(unfused), profile, options);
  } else {
    set_after(r, chosen.term.graph, std::move(chosen.cost.lowering), profile, options);
  }
  r.graph.set_name(g.name());
  kernel::validate(r.after);  // a malformed program here is a bug of the lowering, not of the input
  return r;
}

cost::DeviceProfile load_device_profile(const std::string& path, const std::string& expected_device) {
  return cost::load_profile(path, expected_device);
}

}  // namespace smelt
