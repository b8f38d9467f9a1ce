#include "cli/saturate_command.h"

#include <memory>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/format.h"
#include "error/output_file.h"
#include "smelt/memory.h"
#include "tools/saturation.h"
#include "smelt/smelt.h"

namespace smelt::cli {
namespace {

using smelt::egraph::IterationStats;
using smelt::egraph::RuleRunStats;
using smelt::egraph::RunReport;

// Writes `text` to `path` whole, or nothing (error/output_file.h).
bool write_file(const std::string& path, const std::string& text, const char* what) {
  if (const std::string problem = write_output_file(path, text); !problem.empty()) {
    std::cerr << "error: " << problem << " (" << what << ")\n";
    return false;
  }
  return true;
}

// Rules by search time, slowest first.
std::vector<size_t> by_search_time(const RunReport& report) {
  std::vector<size_t> order(report.rules.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return report.rules[a].search_s + report.rules[a].apply_s > report.rules[b].search_s + report.rules[b].apply_s;
  });
  return order;
}

std::vector<std::string> never_matched(const RunReport& report) {
  std::vector<std::string> names;
  for (const RuleRunStats& r : report.rules)
    if (r.found == 0) names.push_back(r.name);
  return names;
}

void print_text(const SaturateCommandOptions& options, const ir::Graph& graph, const smelt::tools::SaturateResult& r,
                const smelt::egraph::RunnerLimits& limits, const smelt::tools::SerializedSaturation* serialized) {
  const RunReport& report = r.saturation.report;
  std::cout << options.file << ": graph " << (graph.name().empty() ? "(unnamed)" : graph.name()) << ", "
            << report.rules.size() << " rules" << (options.rule_files.empty() ? " (the default rules)" : "") << ", "
            << options.scheduler << " scheduler\n\n";
  std::printf("%4s %9s %9s %8s %7s %9s %9s %9s  %s\n", "iter", "e-nodes", "e-classes", "applied", "unions",
              "search_s", "apply_s", "rebuild_s", "rules that matched (found/applied)");
  for (const IterationStats& it : report.iterations) {
    std::string matched;
    for (const IterationStats::RuleMatches& m : it.rules) {
      std::string entry = report.rules[m.rule].name + " " + std::to_string(m.found) + "/" + std::to_string(m.applied);
      if (matched.size() + entry.size() > 100) {
        matched += ", ...";
        break;
      }
      matched += (matched.empty() ? "" : ", ") + entry;
    }
    std::printf("%4zu %9zu %9zu %8zu %7zu %9.4f %9.4f %9.4f  %s\n", it.iteration, it.nodes, it.classes, it.matches,
                it.unions, it.search_s, it.apply_s, it.rebuild_s, matched.empty() ? "-" : matched.c_str());
  }
  std::cout << "\nstopped: " << smelt::egraph::to_string(report.stop_reason) << " after " << report.iterations.size()
            << " iterations, " << formatted("%.3f s", report.total_s) << " (limits: " << limits.iterations
            << " iterations, " << limits.nodes << " e-nodes, " << formatted("%g s", limits.seconds) << ", "
            << format_bytes(limits.memory_bytes) << ")\n";
  std::cout << "e-graph: " << r.saturation.egraph.num_nodes() << " e-nodes, " << r.saturation.egraph.num_classes()
            << " e-classes, " << format_bytes(r.saturation.egraph.memory_bytes()) << "\n\n";

  std::cout << "rules by time (search + apply):\n";
  std::printf("  %-32s %8s %8s %8s %9s %9s %9s %8s\n", "rule", "found", "applied", "unions", "e-nodes+", "search_s",
              "apply_s", "skipped");
  size_t shown = 0;
  for (size_t i : by_search_time(report)) {
    const RuleRunStats& s = report.rules[i];
    // Rules that matched, and rules that searched long without a match.
    if ((s.found == 0 && s.search_s + s.apply_s < 1e-4) || ++shown > 15) continue;
    std::printf("  %-32s %8zu %8zu %8zu %9zu %9.4f %9.4f %8zu\n", s.name.c_str(), s.found, s.matches, s.unions,
                s.nodes_added, s.search_s, s.apply_s, s.skipped);
  }
  if (shown > 15) std::cout << "  ... " << shown - 15 << " more rules (--json lists every rule)\n";
  const std::vector<std::string> idle = never_matched(report);
  std::cout << "never matched: " << idle.size() << " of " << report.rules.size() << " rules";
  for (size_t i = 0; i < idle.size() && i < 12; ++i) std::cout << (i ? ", " : ": ") << idle[i];
  if (idle.size() > 12) std::cout << ", ...";
  std::cout << "\n\n";

  std::cout << "picked (fusion extraction): " << r.picked_kernels << (r.picked_kernels == 1 ? " kernel, " : " kernels, ")
            << formatted("%.2f us", r.picked_us) << " predicted (the graph as given, fused: "
            << formatted("%.2f us", r.input_us) << "), " << formatted("%.3f s", r.extraction_s)
            << (r.extraction_finished ? "" : ", stopped at its time limit") << "\n";
  if (serialized)
    std::cout << "serialized: " << options.serialize << " (" << serialized->nodes << " e-nodes, "
              << serialized->classes << " e-classes, costs: compute ns per node); " << serialized->extractor
              << " DAG cost here " << formatted("%.6g", serialized->dag_cost) << " (smelt extract " << options.serialize
              << " --extractor " << serialized->extractor << " reports the same)\n";
  if (options.explain) {
    std::cout << "\nwhy the picked term equals the graph (" << formatted("%.3f s", r.explain_s) << "):\n";
    for (size_t o = 0; o < r.explanations.size(); ++o) {
      const std::string& name = graph.node(graph.outputs()[o]).name;
      std::cout << "output " << (name.empty() ? std::to_string(o) : name) << ": "
                << (r.explanations[o].empty() ? "the same term (no rewrite)\n" : "\n" + r.explanations[o]);
    }
  }
}

nlohmann::ordered_json to_json(const SaturateCommandOptions& options, const ir::Graph& graph,
                               const smelt::tools::SaturateResult& r, const smelt::tools::SerializedSaturation* serialized) {
  const RunReport& report = r.saturation.report;
  nlohmann::ordered_json out = {{"file", options.file},
                                {"graph", graph.name()},
                                {"scheduler", options.scheduler},
                                {"stop_reason", smelt::egraph::to_string(report.stop_reason)},
                                {"seconds", report.total_s},
                                {"egraph_nodes", r.saturation.egraph.num_nodes()},
                                {"egraph_classes", r.saturation.egraph.num_classes()},
                                {"memory_bytes", r.saturation.egraph.memory_bytes()}};
  nlohmann::ordered_json iterations = nlohmann::ordered_json::array();
  for (const IterationStats& it : report.iterations) {
    nlohmann::ordered_json matched = nlohmann::ordered_json::array();
    for (const IterationStats::RuleMatches& m : it.rules)
      matched.push_back({{"rule", report.rules[m.rule].name}, {"found", m.found}, {"applied", m.applied},
                         {"unions", m.unions}});
    iterations.push_back({{"iteration", it.iteration}, {"nodes", it.nodes}, {"classes", it.classes},
                          {"applied", it.matches}, {"unions", it.unions}, {"search_s", it.search_s},
                          {"apply_s", it.apply_s}, {"rebuild_s", it.rebuild_s}, {"rules", std::move(matched)}});
  }
  out["iterations"] = std::move(iterations);
  nlohmann::ordered_json rules = nlohmann::ordered_json::array();
  for (const RuleRunStats& s : report.rules)
    rules.push_back({{"name", s.name}, {"found", s.found}, {"applied", s.matches}, {"unions", s.unions},
                     {"nodes_added", s.nodes_added}, {"search_s", s.search_s}, {"apply_s", s.apply_s},
                     {"skipped", s.skipped}});
  out["rules"] = std::move(rules);
  out["never_matched"] = never_matched(report);
  out["picked"] = {{"kernels", r.picked_kernels},
                   {"predicted_us", r.picked_us},
                   {"input_predicted_us", r.input_us},
                   {"extraction_s", r.extraction_s},
                   {"finished", r.extraction_finished}};
  if (serialized)
    out["serialized"] = {{"file", options.serialize}, {"nodes", serialized->nodes}, {"classes", serialized->classes},
                         {"extractor", serialized->extractor}, {"dag_cost", serialized->dag_cost}};
  if (options.explain) {
    nlohmann::ordered_json explanations = nlohmann::ordered_json::array();
    for (size_t o = 0; o < r.explanations.size(); ++o)
      explanations.push_back({{"output", graph.node(graph.outputs()[o]).name}, {"steps", r.explanations[o]}});
    out["explanations"] = std::move(explanations);
    out["explain_s"] = r.explain_s;
  }
  return out;
}

}  // namespace

int saturate_command(const SaturateCommandOptions& options) {
  const ir::Graph graph = smelt::load_graph(options.file);
  // A picture that cannot be written is found now, not after the saturation.
  if (const std::string problem = picture_files_problem(options.picture); !problem.empty()) {
    std::cerr << "error: " << problem << "\n";
    return kBadInput;
  }
  smelt::tools::SaturateOptions settings;
  settings.rule_files = options.rule_files;
  if (options.iterations > 0) settings.limits.iterations = options.iterations;
  if (options.nodes > 0) settings.limits.nodes = options.nodes;
  if (options.time_limit_s > 0) settings.limits.seconds = options.time_limit_s;
  settings.scheduler = options.scheduler == "simple" ? rules::SchedulerKind::kSimple : rules::SchedulerKind::kBackoff;
  settings.explain = options.explain;
  settings.threads = options.threads;
  if (!options.profile.empty()) {
    try {
      settings.profile = smelt::load_device_profile(options.profile, "host");
    } catch (const std::runtime_error& e) {
      std::cerr << "error: " << e.what() << "\n";
      return kBadInput;
    }
  } else {
    // This CPU's profile, as compile and run price with.
    smelt::TargetProfile chosen = smelt::profile_for_target(smelt::Target::kHost, "");
    settings.profile = std::move(chosen.profile);
    if (!chosen.note.empty()) std::cerr << "note: " << chosen.note << "\n";
  }
  const smelt::tools::SaturateResult result = smelt::tools::saturate_graph(graph, settings);  // errors: main's report_error
  std::optional<smelt::tools::SerializedSaturation> serialized;
  if (!options.serialize.empty()) {
    serialized = smelt::tools::serialize_saturation(result, settings);
    if (!write_file(options.serialize, serialized->json, "the e-graph")) return kBadInput;
  }
  if (options.picture.any()) {
    if (const std::string problem = write_picture_files(options.picture, smelt::tools::saturation_dot(result));
        !problem.empty()) {
      std::cerr << "error: " << problem << "\n";
      return kBadInput;
    }
  }
  if (options.json) {
    std::cout << to_json(options, graph, result, serialized ? &*serialized : nullptr).dump() << "\n";
  } else {
    print_text(options, graph, result, settings.limits, serialized ? &*serialized : nullptr);
  }
  return kOk;
}

Registered register_saturate(CLI::App& app, SharedOptions& shared) {
  auto saturate = std::make_shared<SaturateCommandOptions>();
  CLI::App* saturate_cmd = app.add_subcommand(
      "saturate",
      "Saturate a graph (.sg or .onnx) with rewrite rules; print a table per iteration, the stop reason, what each "
      "rule did and the term the fusion extraction picks");
  saturate_cmd->add_option("file", saturate->file, "The graph (.sg or .onnx)")->required();
  saturate_cmd->add_option("--rules", saturate->rule_files, "Rule files (.rules) to run instead of the default rules");
  saturate_cmd->add_option("--iterations", saturate->iterations, "Most saturation iterations (default 12)")
      ->check(CLI::PositiveNumber);
  saturate_cmd->add_option("--nodes", saturate->nodes, "Most e-nodes (default 20000)")->check(CLI::PositiveNumber);
  saturate_cmd->add_option("--time-limit", saturate->time_limit_s, "Seconds of saturation (default 2)")
      ->check(CLI::PositiveNumber);
  saturate_cmd
      ->add_option("--scheduler", saturate->scheduler,
                   "backoff (egg's: a rule with too many matches is banned for a while) or simple (every match "
                   "every iteration); multi-pattern and group rules run in the first iteration only")
      ->check(CLI::IsMember({"backoff", "simple"}))
      ->default_val("backoff");
  saturate_cmd->add_flag("--json", saturate->json, "Print one JSON object instead of text");
  saturate_cmd->add_flag("--explain", saturate->explain,
                         "For each output, the rule applications that turn the graph into the picked term");
  saturate_cmd->add_option("--serialize", saturate->serialize,
                           "Write the saturated e-graph as egraph-serialize JSON (node costs: compute ns from the "
                           "cost model), for `smelt extract` and extraction-gym");
  saturate_cmd->add_option("--dot", saturate->picture.dot,
                           "Also write the e-graph as a Graphviz picture (DOT): e-classes as clusters, the graph as "
                           "given in blue, the picked term in gold")
      ->type_name("OUT.dot");
  saturate_cmd->add_option("--svg", saturate->picture.svg, "Also write that picture as SVG (needs graphviz)")
      ->type_name("OUT.svg");
  saturate_cmd->add_option("--profile", saturate->profile, "Device profile (JSON) to cost nodes and kernels with (default: the one shipped for this CPU)");
  saturate_cmd->add_option("--threads", saturate->threads, "Host threads the kernels are costed for (0: every core)");
  add_memory_limit_option(saturate_cmd, shared);

  return {saturate_cmd, [saturate] { return saturate_command(*saturate); }};
}

}  // namespace smelt::cli
