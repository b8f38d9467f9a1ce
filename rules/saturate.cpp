#include "rules/saturate.h"

#include <algorithm>
#include <memory>

#include "error/memory_limit.h"
#include "rules/multi_pattern_gate.h"
#include "rules/tensor_analysis.h"
#include "rules/tensor_rewrite.h"

namespace smelt::rules {

using smelt::egraph::EGraph;
using smelt::egraph::RunnerLimits;
using smelt::egraph::RunReport;
using smelt::egraph::Scheduler;

namespace {

// The Rewrites of `rules` in order: one TensorRewrite per rule, one
// GroupRewrite per group template (at its first instance), and by rewrite
// whether it is a multi-pattern or group rule (MultiPatternGate).
struct TensorRewrites {
  std::vector<std::unique_ptr<smelt::egraph::Rewrite>> owned;
  std::vector<const smelt::egraph::Rewrite*> rewrites;
  std::vector<bool> multi;
  std::vector<std::vector<std::size_t>> rules_of;  // by rewrite: its compiled rules' indices
};

TensorRewrites make_rewrites(std::span<const CompiledRule> rules) {
  TensorRewrites t;
  std::vector<bool> placed(rules.size(), false);
  for (std::size_t r = 0; r < rules.size(); ++r) {
    if (placed[r]) continue;
    const CompiledRule& rule = rules[r];
    std::vector<std::size_t> members{r};
    if (rule.group) {
      for (std::size_t k = r + 1; k < rules.size(); ++k)
        if (rules[k].group && rules[k].group->name == rule.group->name) members.push_back(k);
      std::vector<const CompiledRule*> instances;
      for (std::size_t k : members) {
        placed[k] = true;
        instances.push_back(&rules[k]);
      }
      t.owned.push_back(std::make_unique<GroupRewrite>(std::move(instances)));
    } else {
      t.owned.push_back(std::make_unique<TensorRewrite>(rule));
    }
    t.rewrites.push_back(t.owned.back().get());
    t.multi.push_back(rule.roots.size() > 1 || rule.group.has_value());
    t.rules_of.push_back(std::move(members));
  }
  return t;
}

// egg's backoff (a rule with an explosive number of matches is banned for a
// while instead of flooding the e-graph), with multi-pattern and group rules
// confined to the first iteration (MultiPatternGate).
std::unique_ptr<Scheduler> default_scheduler(std::vector<bool> multi) {
  return std::make_unique<MultiPatternGate>(
      std::make_unique<smelt::egraph::BackoffScheduler>(/*match_limit=*/1000, /*ban_length=*/3), std::move(multi),
      /*iterations=*/1);
}

RunReport run(EGraph& graph, std::span<const CompiledRule> rules, const RunnerLimits& limits, Scheduler* scheduler,
              std::vector<RuleStats>* per_rule) {
  const TensorRewrites t = make_rewrites(rules);
  smelt::egraph::Runner runner(graph, limits);
  if (!scheduler) runner.with_scheduler(default_scheduler(t.multi));
  // A caller's scheduler is borrowed: the runner owns a forwarding one.
  struct Borrowed final : Scheduler {
    explicit Borrowed(Scheduler& s) : s_(s) {}
    std::size_t match_limit(std::size_t it, std::size_t r) override { return s_.match_limit(it, r); }
    bool should_apply(std::size_t it, std::size_t r, std::size_t m) override { return s_.should_apply(it, r, m); }
    bool can_stop(std::size_t it) override { return s_.can_stop(it); }
    Scheduler& s_;
  };
  if (scheduler) runner.with_scheduler(std::make_unique<Borrowed>(*scheduler));
  RunReport report = runner.run(std::span<const smelt::egraph::Rewrite* const>(t.rewrites));
  if (per_rule) {
    per_rule->assign(rules.size(), RuleStats{});
    for (std::size_t w = 0; w < t.rewrites.size(); ++w) {
      const smelt::egraph::RuleRunStats& run_stats = report.rules[w];
      const auto* group = dynamic_cast<const GroupRewrite*>(t.rewrites[w]);
      for (std::size_t i = 0; i < t.rules_of[w].size(); ++i) {
        RuleStats& stats = (*per_rule)[t.rules_of[w][i]];
        stats.skipped = run_stats.skipped;
        stats.matches = group ? group->instance_stats()[i].matches : run_stats.matches;
        stats.unions = group ? group->instance_stats()[i].unions : run_stats.unions;
        stats.search_s = group ? 0 : run_stats.search_s;
      }
    }
  }
  return report;
}

}  // namespace

RunnerLimits default_limits() {
  RunnerLimits limits;
  // The e-graph counts against the process's memory limit (--memory-limit) too.
  limits.memory_bytes = std::min<std::size_t>(limits.memory_bytes, memory_limit());
  return limits;
}

std::vector<CompiledRule> compile_rules(std::span<const Rule> rules) {
  std::vector<CompiledRule> compiled;
  compiled.reserve(rules.size());
  for (const Rule& r : rules) compiled.push_back(compile_rule(r));
  return compiled;
}

RunReport run_rules(EGraph& graph, std::span<const CompiledRule> rules, const RunnerLimits& limits,
                    Scheduler& scheduler, std::vector<RuleStats>* per_rule) {
  return run(graph, rules, limits, &scheduler, per_rule);
}

Saturation saturate(const ir::Graph& graph, std::span<const Rule> rules, const RunnerLimits& limits) {
  const std::vector<CompiledRule> compiled = compile_rules(rules);
  return saturate(graph, std::span<const CompiledRule>(compiled), limits);
}

Saturation saturate(const ir::Graph& graph, std::span<const CompiledRule> rules, const RunnerLimits& limits,
                    SchedulerKind scheduler, bool explanations) {
  Saturation s{make_tensor_egraph({.explanations = explanations}), {}, {}, {}};
  s.classes = add_graph(s.egraph, graph);
  if (scheduler == SchedulerKind::kSimple) {
    MultiPatternGate simple(std::make_unique<smelt::egraph::SimpleScheduler>(), make_rewrites(rules).multi, 1);
    s.report = run(s.egraph, rules, limits, &simple, &s.rule_stats);
  } else {
    s.report = run(s.egraph, rules, limits, nullptr, &s.rule_stats);
  }
  return s;
}

}  // namespace smelt::rules
