#include "rules/saturate.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "ir/memory_limit.h"
#include "rules/group_apply.h"
#include "rules/matcher.h"
#include "rules/multi_pattern_gate.h"
#include "rules/rhs_builder.h"
#include "rules/tensor_analysis.h"

namespace rules {

using smelt::egraph::EGraph;
using smelt::egraph::IterationStats;
using smelt::egraph::RunnerLimits;
using smelt::egraph::RunReport;
using smelt::egraph::Scheduler;
using smelt::egraph::StopReason;

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

bool limit_hit(const EGraph& graph, const RunnerLimits& limits, double elapsed_s, StopReason& reason) {
  if (graph.num_nodes() > limits.nodes) {
    reason = StopReason::kNodeLimit;
  } else if (elapsed_s > limits.seconds) {
    reason = StopReason::kTimeLimit;
  } else if (graph.memory_bytes() > limits.memory_bytes) {
    reason = StopReason::kMemoryLimit;
  } else {
    return false;
  }
  return true;
}

std::string where(const CompiledRule& rule) {
  return rule.file + ":" + std::to_string(rule.pos.line) + ":" + std::to_string(rule.pos.col) + ": rule " + rule.name;
}

// By rule: the index of the first rule of its group template (itself if none).
std::vector<std::size_t> first_of_group(std::span<const CompiledRule> rules) {
  std::vector<std::size_t> first(rules.size());
  for (std::size_t r = 0; r < rules.size(); ++r) {
    first[r] = r;
    if (!rules[r].group) continue;
    for (std::size_t k = 0; k < r; ++k)
      if (rules[k].group && rules[k].group->name == rules[r].group->name) {
        first[r] = k;
        break;
      }
  }
  return first;
}

// Applies the instances `members` of one group template (rules/group_apply.h).
void run_group(EGraph& graph, std::span<const CompiledRule> rules, const std::vector<std::size_t>& members,
               const std::vector<std::uint32_t>& rule_ids, std::vector<RuleStats>& rule_stats, IterationStats& stats,
               Clock::time_point start, const RunnerLimits& limits) {
  std::vector<const CompiledRule*> instances;
  std::vector<smelt::egraph::Justification> why;
  for (std::size_t k : members) {
    instances.push_back(&rules[k]);
    why.push_back(smelt::egraph::Justification::by_rule(rule_ids[k]));
  }
  const Clock::time_point search_start = Clock::now();
  const auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limits.seconds));
  GroupApplication applied;
  try {
    applied = apply_groups(graph, instances, why, deadline);
  } catch (const RuleApplicationError&) {
    throw;
  } catch (const std::logic_error& e) {
    throw RuleApplicationError(where(rules[members[0]]) + ": " + e.what());
  }
  stats.apply_s += seconds_since(search_start);
  for (std::size_t i = 0; i < members.size(); ++i) {
    rule_stats[members[i]].matches += applied.applied[i];
    rule_stats[members[i]].unions += applied.unions[i];
    stats.matches += applied.applied[i];
    stats.unions += applied.unions[i];
  }
}

}  // namespace

RunnerLimits default_limits() {
  RunnerLimits limits;
  limits.iterations = 12;
  limits.nodes = 20'000;
  limits.seconds = 2.0;
  // The e-graph counts against the process's memory limit (--memory-limit) too.
  limits.memory_bytes = std::min<std::size_t>(limits.memory_bytes, ir::memory_limit());
  return limits;
}

std::unique_ptr<Scheduler> default_scheduler(std::span<const CompiledRule> rules) {
  std::vector<bool> is_multi;
  for (const CompiledRule& r : rules) is_multi.push_back(r.roots.size() > 1 || r.group.has_value());
  return std::make_unique<MultiPatternGate>(
      std::make_unique<smelt::egraph::BackoffScheduler>(/*match_limit=*/1000, /*ban_length=*/3), std::move(is_multi),
      /*iterations=*/1);
}

std::vector<CompiledRule> compile_rules(std::span<const Rule> rules) {
  std::vector<CompiledRule> compiled;
  compiled.reserve(rules.size());
  for (const Rule& r : rules) compiled.push_back(compile_rule(r));
  return compiled;
}

RunReport run_rules(EGraph& graph, std::span<const CompiledRule> rules, const RunnerLimits& limits,
                    Scheduler& scheduler, std::vector<RuleStats>* per_rule) {
  const Clock::time_point start = Clock::now();
  std::vector<RuleStats> local;
  std::vector<RuleStats>& rule_stats = per_rule ? *per_rule : local;
  rule_stats.assign(rules.size(), RuleStats{});
  RunReport report;
  std::vector<std::uint32_t> rule_ids;
  for (const CompiledRule& rule : rules) rule_ids.push_back(graph.intern_rule(rule.name));
  const std::vector<std::size_t> group_first = first_of_group(rules);
  std::vector<RuleMatch> matches;
  graph.rebuild();

  for (std::size_t iteration = 0;; ++iteration) {
    StopReason reason{};
    if (iteration >= limits.iterations) {
      report.stop_reason = StopReason::kIterationLimit;
      break;
    }
    if (limit_hit(graph, limits, seconds_since(start), reason)) {
      report.stop_reason = reason;
      break;
    }
    IterationStats stats;
    stats.iteration = iteration;
    const std::uint64_t version_before = graph.version();
    bool stopping = false;
    graph.index();  // the snapshot every rule of this iteration searches
    std::optional<EGraph::IndexReadGuard> frozen(std::in_place, graph);

    for (std::size_t r = 0; r < rules.size() && !stopping; ++r) {
      const CompiledRule& rule = rules[r];
      const std::size_t limit = scheduler.match_limit(iteration, r);
      if (limit == 0) {
        ++rule_stats[r].skipped;
        continue;
      }
      if (rule.group) {
        // The instances of one template run together, at the first of them.
        if (group_first[r] != r) continue;
        std::vector<std::size_t> members;
        for (std::size_t k = r; k < rules.size(); ++k)
          if (group_first[k] == r && (k == r || scheduler.match_limit(iteration, k) > 0)) members.push_back(k);
        run_group(graph, rules, members, rule_ids, rule_stats, stats, start, limits);
        stopping = limit_hit(graph, limits, seconds_since(start), reason);
        continue;
      }
      try {
        const Clock::time_point search_start = Clock::now();
        matches.clear();
        const auto deadline =
            start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limits.seconds));
        const std::size_t found = find_matches(graph, rule, limit, matches, deadline);
        const double search_s = seconds_since(search_start);
        stats.search_s += search_s;
        rule_stats[r].search_s += search_s;
        if (limit != Scheduler::kUnlimited && !scheduler.should_apply(iteration, r, found)) {
          ++rule_stats[r].skipped;
          continue;
        }
        const Clock::time_point apply_start = Clock::now();
        const auto why = smelt::egraph::Justification::by_rule(rule_ids[r]);
        size_t unions = 0;
        for (const RuleMatch& m : matches) unions += apply_match(graph, rule, m, why);
        stats.unions += unions;
        stats.matches += matches.size();
        rule_stats[r].unions += unions;
        rule_stats[r].matches += matches.size();
        stats.apply_s += seconds_since(apply_start);
      } catch (const RuleApplicationError&) {
        throw;
      } catch (const std::logic_error& e) {  // an expression type error, a type conflict in a union
        throw RuleApplicationError(where(rule) + ": " + e.what());
      }
      stopping = limit_hit(graph, limits, seconds_since(start), reason);
    }

    frozen.reset();
    // Always rebuild, even when stopping: the e-graph is left consistent.
    const Clock::time_point rebuild_start = Clock::now();
    graph.rebuild();
    stats.rebuild_s = seconds_since(rebuild_start);
    stats.nodes = graph.num_nodes();
    stats.classes = graph.num_classes();
    stats.memory_bytes = graph.memory_bytes();
    report.iterations.push_back(stats);
    if (stopping) {
      report.stop_reason = reason;
      break;
    }
    if (graph.version() == version_before && scheduler.can_stop(iteration)) {
      report.stop_reason = StopReason::kSaturated;
      break;
    }
  }
  report.total_s = seconds_since(start);
  return report;
}

Saturation saturate(const ir::Graph& graph, std::span<const Rule> rules, const RunnerLimits& limits) {
  const std::vector<CompiledRule> compiled = compile_rules(rules);
  return saturate(graph, std::span<const CompiledRule>(compiled), limits);
}

Saturation saturate(const ir::Graph& graph, std::span<const CompiledRule> rules, const RunnerLimits& limits) {
  Saturation s{make_tensor_egraph(), {}, {}, {}};
  s.classes = add_graph(s.egraph, graph);
  auto scheduler = default_scheduler(rules);
  s.report = run_rules(s.egraph, rules, limits, *scheduler, &s.rule_stats);
  return s;
}

}  // namespace rules
