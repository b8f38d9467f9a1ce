// smelt::fuse: saturate with the default rules, extract the term and the
// kernel boundaries together, and report both programs with their predicted times.
#include <algorithm>
#include <stdexcept>

#include "cost/predict.h"
#include "extract/fusion.h"
#include "extract/fusion_exact.h"
#include "ir/lower_to_kernels.h"
#include "rules/rule_library.h"
#include "rules/saturate.h"
#include "smelt/smelt.h"

namespace smelt {
namespace {

const std::vector<rules::CompiledRule>& default_compiled_rules() {
  static const std::vector<rules::Rule> rules = rules::default_rules();
  static const std::vector<rules::CompiledRule> compiled = rules::compile_rules(rules);
  return compiled;
}

void set_after(FusionResult& r, const ir::Graph& graph, ir::Lowering lowering, const cost::DeviceProfile& profile,
               bool simplify_indices) {
  r.graph = graph;
  r.materialized = std::move(lowering.materialized);
  r.after = std::move(lowering.program);
  if (simplify_indices) r.index_validation = verify::validate_and_simplify(r.after);
  r.kernels_after = r.after.kernels.size();
  r.predicted_us_after = cost::predict_program_us(r.after, profile);
  for (const ir::Kernel& k : r.after.kernels) r.after_kernel_costs.push_back(cost::predict(r.after, k, profile));
}

}  // namespace

FusionResult fuse(const ir::Graph& g, const FuseOptions& options) {
  const cost::DeviceProfile& profile = options.profile ? *options.profile : cost::default_host_profile();
  FusionResult r;
  ir::Lowering unfused = ir::lower_graph(g, ir::materialize_everything(g), {.merge_horizontally = false});
  r.before = unfused.program;
  r.kernels_before = r.before.kernels.size();
  r.predicted_us_before = cost::predict_program_us(r.before, profile);
  if (!options.fusion) {
    r.extractor = "none";
    set_after(r, g, std::move(unfused), profile, options.simplify_indices);
    return r;
  }

  const std::span<const rules::CompiledRule> rules =
      options.rewrites ? std::span<const rules::CompiledRule>(default_compiled_rules())
                       : std::span<const rules::CompiledRule>();
  rules::Saturation sat =
      rules::saturate(g, rules, options.saturation_limits ? *options.saturation_limits : rules::default_limits());
  r.stop_reason = std::string(egraph::to_string(sat.report.stop_reason));
  r.iterations = sat.report.iterations.size();
  r.egraph_nodes = sat.egraph.num_nodes();
  r.egraph_classes = sat.egraph.num_classes();
  r.saturation_s = sat.report.total_s;

  extract::FusionEvaluator evaluator(sat.egraph, sat.classes.outputs, profile);
  evaluator.name_classes(g, sat.classes);
  extract::FusionOptions heuristic_options;
  heuristic_options.time_limit_s = options.time_limit_s;
  heuristic_options.original = extract::original_choice(sat.egraph, g, sat.classes);
  extract::FusionExtraction chosen = extract::extract_fusion(evaluator, heuristic_options);
  r.extractor = "heuristic";
  if (options.exact && sat.egraph.num_classes() <= extract::FusionExactOptions{}.max_classes) {
    // The heuristic's answer stands where the exhaustive search runs out of time first.
    try {
      extract::FusionExtraction exact =
          extract::extract_fusion_exact(evaluator, {.time_limit_s = options.time_limit_s});
      exact.seconds += chosen.seconds;
      if (exact.finished || exact.cost.predicted_us < chosen.cost.predicted_us) {
        if (!exact.finished) exact.start = "exhaustive (unfinished)";
        chosen = std::move(exact);
        r.extractor = "exact";
      }
    } catch (const std::invalid_argument&) {
      // Out of time before a first complete term: the heuristic's answer stands.
    }
  }
  r.start = chosen.start;
  r.evaluations = evaluator.evaluations();
  r.search_finished = chosen.finished;
  r.extraction_s = chosen.seconds;
  set_after(r, chosen.term.graph, std::move(chosen.cost.lowering), profile, options.simplify_indices);
  r.graph.set_name(g.name());
  ir::validate(r.after);  // a malformed program here is a bug of the lowering, not of the input
  return r;
}

cost::DeviceProfile load_device_profile(const std::string& path) { return cost::load_profile(path); }

}  // namespace smelt
