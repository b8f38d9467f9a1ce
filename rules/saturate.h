#pragma once
// Equality saturation of tensor graphs with .rules rules: each rule an
// egraph::Rewrite (rules/tensor_rewrite.h) run by egraph::Runner, the one
// loop (search every rule on one frozen snapshot per iteration, apply,
// rebuild once), with its limits, stop reasons, statistics and scheduler.
#include <memory>
#include <span>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/runner.h"
#include "egraph/scheduler.h"
#include "ir/graph.h"
#include "rules/compiled_rule.h"
#include "rules/graph_io.h"
#include "rules/rule_ast.h"

namespace smelt::rules {

// egraph::RunnerLimits' defaults (every example graph's saturation well under
// a second), the memory at most the process's memory limit (error/memory_limit.h).
smelt::egraph::RunnerLimits default_limits();

std::vector<CompiledRule> compile_rules(std::span<const Rule> rules);

// What each rule did over a run (by rule index).
struct RuleStats {
  size_t matches = 0;  // matches applied
  size_t unions = 0;   // unions that changed the e-graph
  size_t skipped = 0;  // iterations the scheduler skipped or refused it
  double search_s = 0;
};

// Runs the rules on a tensor e-graph until saturation or a limit, with
// `scheduler` (which sees the Rewrites: a group template's instances are one).
// A rule that fails at run time (RuleApplicationError, or a type conflict found
// while applying it) is rethrown as RuleApplicationError naming the rule. With
// `per_rule`, also counts what each rule did (resized to rules.size()).
smelt::egraph::RunReport run_rules(smelt::egraph::EGraph& graph, std::span<const CompiledRule> rules,
                                   const smelt::egraph::RunnerLimits& limits, smelt::egraph::Scheduler& scheduler,
                                   std::vector<RuleStats>* per_rule = nullptr);

struct Saturation {
  smelt::egraph::EGraph egraph;
  GraphClasses classes;  // the classes of the original graph's values and outputs
  smelt::egraph::RunReport report;
  std::vector<RuleStats> rule_stats;  // by rule index
};

// A new tensor e-graph holding `graph`, saturated with `rules` under egg's
// backoff scheduler, multi-pattern and group rules confined to the first
// iteration (rules/multi_pattern_gate.h). report.rules: by Rewrite.
// kSimple: egg's SimpleScheduler (every match of every rule each iteration),
// the multi-pattern and group rules still only in the first iteration.
enum class SchedulerKind { kBackoff, kSimple };
Saturation saturate(const ir::Graph& graph, std::span<const Rule> rules,
                    const smelt::egraph::RunnerLimits& limits = default_limits());
// `explanations`: the e-graph records why classes merged (explain_equivalence).
Saturation saturate(const ir::Graph& graph, std::span<const CompiledRule> rules,
                    const smelt::egraph::RunnerLimits& limits = default_limits(),
                    SchedulerKind scheduler = SchedulerKind::kBackoff, bool explanations = false);

}  // namespace smelt::rules
