#include "fusion/part_search.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <unordered_map>

#include "extract/deadline.h"
#include "fusion/part_shape.h"

namespace smelt::fusion {

using egraph::Id;
using egraph::kNoId;

namespace {

size_t count_ops(const ir::Graph& g, size_t first, size_t last) {
  size_t ops = 0;
  for (size_t v = first; v <= last; ++v) {
    const ir::OpClass cls = ir::op_class(g.node(static_cast<ir::ValueId>(v)).op);
    ops += cls != ir::OpClass::Source;
  }
  return ops;
}

std::string decided(const FusionExtraction& x) {
  return x.finished ? "searched" : "searched, stopped at the " + x.stopped_by;
}

// One part: its roots and leaves in the e-graph, its canonical shape, and
// what was decided for it.
struct PartPlan {
  std::vector<Id> roots;
  std::vector<ClassBoundary> boundary;       // by class id
  std::vector<ClassBoundary> open_boundary;  // the same without kOutside (the fallback)
  PartShape shape;
  FusionCandidate candidate;  // whole e-graph sized
  std::optional<FusionTerm> term;
};

}  // namespace

PartsExtraction extract_by_parts(FusionEvaluator& whole, const ir::Graph& original, const rules::GraphClasses& classes,
                                 const FusionOptions& options, const PartOptions& split) {
  const auto started = std::chrono::steady_clock::now();
  const egraph::EGraph& graph = whole.egraph();
  const std::vector<ProgramPart> parts = split_program(original, split);
  PartsExtraction result;
  if (parts.size() <= 1) {
    result.program = extract_fusion(whole, options);
    const size_t last = original.size() == 0 ? 0 : original.size() - 1;
    result.parts.push_back({0, last, count_ops(original, 0, last), graph.num_classes(), decided(result.program), 0,
                            result.program.evaluations, result.program.cost.predicted_us, result.program.seconds});
    return result;
  }
  std::optional<StartingChoices> made;
  if (!options.starts) made = starting_choices(graph, whole.profile());
  const StartingChoices& starts = options.starts ? *options.starts : *made;

  // Each part's roots (what it stores for later parts and the graph's
  // outputs), leaves (what earlier parts store) and shape.
  std::vector<PartPlan> plans(parts.size());
  std::vector<bool> stored(graph.num_ids(), false);
  const std::vector<bool> free = free_values(original);
  auto class_of = [&](size_t v) { return graph.find(classes.values.at(v)); };
  std::unordered_map<std::string, size_t> first_of_shape;
  std::vector<size_t> searched_as(parts.size());
  for (size_t p = 0; p < parts.size(); ++p) {
    PartPlan& plan = plans[p];
    for (ir::ValueId v : parts[p].outputs) {
      const Id cls = graph.find(classes.values.at(static_cast<size_t>(v)));
      if (!stored[cls] && std::find(plan.roots.begin(), plan.roots.end(), cls) == plan.roots.end())
        plan.roots.push_back(cls);
    }
    // Outside: what other parts compute and do not store (a rule's
    // alternative node can reach back into the previous block); a term of
    // this part must not recompute it, or every part would hold all before it.
    std::vector<bool> inside(graph.num_ids(), false);
    for (size_t v = 0; v < original.size(); ++v)
      if (free[v] || (v >= static_cast<size_t>(parts[p].first) && v <= static_cast<size_t>(parts[p].last)))
        inside[class_of(v)] = true;
    plan.boundary.assign(graph.num_ids(), ClassBoundary::kInside);
    for (size_t v = 0; v < original.size(); ++v)
      if (!inside[class_of(v)]) plan.boundary[class_of(v)] = ClassBoundary::kOutside;
    plan.open_boundary.assign(graph.num_ids(), ClassBoundary::kInside);
    for (size_t c = 0; c < stored.size(); ++c)
      if (stored[c]) plan.boundary[c] = plan.open_boundary[c] = ClassBoundary::kLeaf;
    plan.shape = part_shape(graph, plan.roots, plan.boundary);
    // Leaves it does not reach are not its inputs.
    std::vector<bool> reached(graph.num_ids(), false);
    for (Id cls : plan.shape.classes) reached[cls] = true;
    for (size_t c = 0; c < stored.size(); ++c)
      if (stored[c] && !reached[c]) plan.boundary[c] = ClassBoundary::kOutside;
    for (Id root : plan.roots) stored[root] = true;
    searched_as[p] = first_of_shape.emplace(plan.shape.key, p).first->second;
  }
  // The budget, shared by the parts searched in proportion to their size.
  size_t searched_classes = 0;
  for (size_t p = 0; p < parts.size(); ++p)
    if (searched_as[p] == p) searched_classes += plans[p].shape.classes.size();
  auto budget = [&](size_t p) -> size_t {
    if (options.max_evaluations == 0) return 0;
    return std::max<size_t>(1, options.max_evaluations * plans[p].shape.classes.size() /
                                   std::max<size_t>(1, searched_classes));
  };

  const extract::Deadline deadline(options.time_limit_s);
  FusionCandidate joined{rules::TermChoice(graph.num_ids(), kNoId), std::vector<bool>(graph.num_ids(), false)};
  std::vector<bool> joined_set(graph.num_ids(), false);
  FusionExtraction& program = result.program;
  size_t searched = 0, looked_up = 0;
  bool finished = true;
  for (size_t p = 0; p < parts.size(); ++p) {
    const auto part_started = std::chrono::steady_clock::now();
    PartPlan& plan = plans[p];
    PartReport report{static_cast<size_t>(parts[p].first), static_cast<size_t>(parts[p].last),
                      count_ops(original, static_cast<size_t>(parts[p].first), static_cast<size_t>(parts[p].last)),
                      plan.shape.classes.size(), "", 0, 0, 0, 0};
    if (plan.roots.empty()) {
      report.decided = "nothing to compute";
      result.parts.push_back(report);
      continue;
    }
    // Where no starting term keeps out of the other parts (rules merged one
    // of its values with an earlier part's: the class's original node is the
    // earlier one), the part may recompute what they do not store.
    std::optional<FusionEvaluator> evaluator;
    evaluator.emplace(graph, plan.roots, std::move(plan.boundary), whole.profile());
    const size_t s = searched_as[p];
    if (s != p && plans[s].term) {  // an isomorphic part was searched: its answer, carried over
      plan.candidate = {starts.work, std::vector<bool>(graph.num_ids(), false)};
      carry_choices(plans[s].shape, plan.shape, plans[s].candidate.choice, plans[s].candidate.materialized,
                    plan.candidate.choice, plan.candidate.materialized);
      plan.term = evaluator->read(plan.candidate.choice);
      if (plan.term) {
        report.decided = "looked up";
        report.same_as = s;
        report.predicted_us = result.parts[s].predicted_us;
        ++looked_up;
      }
    }
    if (!plan.term) {
      FusionOptions part_options = options;
      part_options.max_evaluations = budget(p);
      part_options.time_limit_s = deadline.seconds_left();
      part_options.starts = &starts;
      FusionExtraction x;
      try {
        x = extract_fusion(*evaluator, part_options);
      } catch (const std::invalid_argument&) {
        evaluator.emplace(graph, plan.roots, std::move(plan.open_boundary), whole.profile());
        part_options.time_limit_s = deadline.seconds_left();
        x = extract_fusion(*evaluator, part_options);
      }
      report.decided = decided(x);
      report.evaluations = x.evaluations;
      report.predicted_us = x.cost.predicted_us;
      program.evaluations += x.evaluations;
      program.improvements += x.improvements;
      if (!x.finished) {
        finished = false;
        if (program.stopped_by.empty()) program.stopped_by = x.stopped_by;
      }
      plan.candidate = std::move(x.candidate);
      plan.term = std::move(x.term);
      ++searched;
    }
    // Joined: the first part whose term holds a class decides it.
    for (size_t v = 0; v < plan.term->graph.size(); ++v) {
      const Id cls = plan.term->value_class[v];
      if (plan.term->graph.node(static_cast<ir::ValueId>(v)).op == ir::Op::Input || cls == kNoId || joined_set[cls])
        continue;
      joined_set[cls] = true;
      joined.choice[cls] = plan.candidate.choice[cls];
      joined.materialized[cls] = plan.candidate.materialized[cls];
    }
    for (Id root : plan.roots) joined.materialized[root] = true;
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - part_started).count();
    result.parts.push_back(report);
  }

  std::optional<FusionTerm> term = whole.read(joined.choice);
  if (!term) throw std::logic_error("extract_by_parts: the parts' choices do not join into one program");
  program.cost = whole.cost(*term, whole.value_flags(*term, joined.materialized));
  whole.store_flags(*term, program.cost.lowering.materialized, joined.materialized);
  program.candidate = std::move(joined);
  program.term = std::move(*term);
  program.start = std::to_string(parts.size()) + " parts: " + std::to_string(searched) + " searched, " +
                  std::to_string(looked_up) + " looked up";
  program.finished = finished;
  program.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace smelt::fusion
