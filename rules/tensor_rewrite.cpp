#include "rules/tensor_rewrite.h"

#include <chrono>
#include <stdexcept>

#include "rules/group_apply.h"
#include "rules/rule_query.h"
#include "rules/rhs_builder.h"

namespace smelt::rules {

using smelt::egraph::EGraph;
using smelt::egraph::Justification;
using smelt::egraph::RuleStep;
using smelt::egraph::Scheduler;
using smelt::egraph::StepControl;

using Clock = std::chrono::steady_clock;
using smelt::egraph::seconds_since;

std::string rule_location(const CompiledRule& rule) {
  return rule.file + ":" + std::to_string(rule.pos.line) + ":" + std::to_string(rule.pos.col) + ": rule " + rule.name;
}

RuleStep TensorRewrite::step(EGraph& graph, const StepControl& control) const {
  RuleStep step;
  try {
    const Clock::time_point search_start = Clock::now();
    std::vector<RuleMatch> matches;
    step.found = find_matches(graph, rule_, control.limit, matches, control.deadline);
    step.search_s = seconds_since(search_start);
    if (control.limit != Scheduler::kUnlimited && !control.accept(step.found)) {
      step.refused = true;
      return step;
    }
    const Clock::time_point apply_start = Clock::now();
    const Justification why = Justification::by_rule(control.rule_id);
    for (const RuleMatch& m : matches) step.unions += apply_match(graph, rule_, m, why);
    step.applied = matches.size();
    step.apply_s = seconds_since(apply_start);
  } catch (const RuleApplicationError&) {
    throw;
  } catch (const std::logic_error& e) {  // an expression type error, a type conflict in a union
    throw RuleApplicationError(rule_location(rule_) + ": " + e.what());
  }
  return step;
}

GroupRewrite::GroupRewrite(std::vector<const CompiledRule*> instances)
    : instances_(std::move(instances)), stats_(instances_.size()) {
  if (instances_.empty() || !instances_.front()->group)
    throw std::invalid_argument("GroupRewrite: instances of a group template, at least one");
}

RuleStep GroupRewrite::step(EGraph& graph, const StepControl& control) const {
  RuleStep step;
  std::vector<Justification> why;
  for (const CompiledRule* instance : instances_) why.push_back(Justification::by_rule(graph.intern_rule(instance->name)));
  const Clock::time_point start = Clock::now();
  GroupApplication applied;
  try {
    applied = apply_groups(graph, instances_, why, control.deadline);
  } catch (const RuleApplicationError&) {
    throw;
  } catch (const std::logic_error& e) {
    throw RuleApplicationError(rule_location(*instances_.front()) + ": " + e.what());
  }
  // The group search and its applications are one pass: counted as applying.
  step.apply_s = seconds_since(start);
  for (std::size_t i = 0; i < instances_.size(); ++i) {
    stats_[i].matches += applied.applied[i];
    stats_[i].unions += applied.unions[i];
    step.found += applied.applied[i];
    step.applied += applied.applied[i];
    step.unions += applied.unions[i];
  }
  return step;
}

}  // namespace smelt::rules
