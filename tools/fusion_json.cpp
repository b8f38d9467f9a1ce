#include "tools/fusion_json.h"

#include <nlohmann/json.hpp>

#include "smelt/fusion.h"

namespace smelt::tools {

std::string fusion_json(const FusionResult& r, const FusionSource& source) {
  nlohmann::ordered_json out = {{"kernels_before", r.kernels_before},
                                {"kernels_after", r.kernels_after},
                                {"predicted_us_before", r.predicted_us_before},
                                {"predicted_us_after", r.predicted_us_after}};
  if (!source.file.empty()) out["file"] = source.file;
  out["graph"] = source.graph;
  out["profile"] = r.profile_name;  // which processor's numbers priced it (cost/profiles/)
  if (!r.profile_note.empty()) out["profile_note"] = r.profile_note;
  out["extractor"] = r.extractor;
  out["search_finished"] = r.search_finished;
  if (!r.search_finished && !r.extraction_stop.empty()) out["extraction_stop"] = r.extraction_stop;
  out["egraph_nodes"] = r.egraph_nodes;
  out["egraph_classes"] = r.egraph_classes;
  out["saturation_stop"] = r.stop_reason;
  out["saturation_s"] = r.saturation_s;
  out["extraction_s"] = r.extraction_s;
  out["index_exprs_proved"] = r.index_validation.count(verify::IndexOutcome::kProved);
  out["index_exprs_fell_back"] = r.index_validation.count(verify::IndexOutcome::kCounterexample) +
                                 r.index_validation.count(verify::IndexOutcome::kUnknown);
  out["index_proofs_stopped"] = r.index_validation.stopped_at_time_limit;
  nlohmann::ordered_json fired = nlohmann::ordered_json::object();
  for (const auto& [name, unions] : r.rules_fired) fired[name] = unions;
  out["rules_fired"] = std::move(fired);
  if (!r.parts.empty()) {
    nlohmann::ordered_json parts = nlohmann::ordered_json::array();
    for (const fusion::PartReport& p : r.parts) {
      nlohmann::ordered_json part = {{"values", {p.first_value, p.last_value}},
                                     {"ops", p.ops},
                                     {"classes", p.classes},
                                     {"decided", p.decided}};
      if (p.decided == "looked up") part["same_as"] = p.same_as;
      part["evaluations"] = p.evaluations;
      part["predicted_us"] = p.predicted_us;
      part["seconds"] = p.seconds;
      parts.push_back(std::move(part));
    }
    out["parts"] = std::move(parts);
  }
  if (!r.measured.empty()) {
    nlohmann::ordered_json measured = nlohmann::ordered_json::array();
    for (const MeasuredCandidate& m : r.measured)
      measured.push_back({{"predicted_us", m.predicted_us},
                          {"median_us", m.timing.median_us},
                          {"min_us", m.timing.min_us},
                          {"reps", m.timing.reps},
                          {"stable", m.timing.stable},
                          {"over_pick", m.over_pick},
                          {"round_us", m.timing.round_us},
                          {"kernels", m.kernels},
                          {"model_pick", m.model_pick},
                          {"unfused", m.unfused},
                          {"chosen", m.chosen}});
    out["measured"] = std::move(measured);
    out["model_pick_fastest"] = r.model_pick_fastest;
    out["model_pick_vs_fastest"] = r.model_pick_vs_fastest;
    out["threads"] = source.threads;
    out["measure_s"] = r.measure_s;
  }
  return out.dump();
}

}  // namespace smelt::tools
