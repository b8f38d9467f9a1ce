#include "egraph/runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

namespace smelt::egraph {

using Clock = std::chrono::steady_clock;

std::string_view to_string(StopReason reason) {
  switch (reason) {
    case StopReason::kSaturated: return "saturated";
    case StopReason::kIterationLimit: return "iteration limit";
    case StopReason::kNodeLimit: return "node limit";
    case StopReason::kTimeLimit: return "time limit";
    case StopReason::kMemoryLimit: return "memory limit";
  }
  return "unknown";
}

double RunReport::search_s() const {
  double total = 0;
  for (const IterationStats& it : iterations) total += it.search_s;
  return total;
}
double RunReport::apply_s() const {
  double total = 0;
  for (const IterationStats& it : iterations) total += it.apply_s;
  return total;
}
double RunReport::rebuild_s() const {
  double total = 0;
  for (const IterationStats& it : iterations) total += it.rebuild_s;
  return total;
}

std::string RunReport::summary() const {
  std::string out = "stop reason: " + std::string(to_string(stop_reason)) + "\n";
  char line[256];
  for (const IterationStats& it : iterations) {
    std::snprintf(line, sizeof line,
                  "iter %zu: matches=%zu unions=%zu nodes=%zu classes=%zu search=%.4fs apply=%.4fs "
                  "rebuild=%.4fs\n",
                  it.iteration, it.matches, it.unions, it.nodes, it.classes, it.search_s, it.apply_s,
                  it.rebuild_s);
    out += line;
  }
  return out;
}

Runner::Runner(EGraph& graph, RunnerLimits limits)
    : graph_(graph), limits_(limits), scheduler_(std::make_unique<SimpleScheduler>()) {}

Runner& Runner::with_scheduler(std::unique_ptr<Scheduler> scheduler) {
  scheduler_ = std::move(scheduler);
  return *this;
}

bool Runner::limit_hit(double elapsed_s, StopReason& reason) const {
  if (graph_.num_nodes() > limits_.nodes) {
    reason = StopReason::kNodeLimit;
  } else if (elapsed_s > limits_.seconds) {
    reason = StopReason::kTimeLimit;
  } else if (graph_.memory_bytes() > limits_.memory_bytes) {
    reason = StopReason::kMemoryLimit;
  } else {
    return false;
  }
  return true;
}

RunReport Runner::run(std::span<const PatternRewrite> rules) {
  std::vector<const Rewrite*> pointers;
  for (const PatternRewrite& rule : rules) pointers.push_back(&rule);
  return run(std::span<const Rewrite* const>(pointers));
}

RunReport Runner::run(std::span<const Rewrite* const> rules) {
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::min(limits_.seconds, 1e7)));
  RunReport report;
  std::vector<std::uint32_t> rule_ids;
  for (const Rewrite* rule : rules) {
    rule_ids.push_back(graph_.intern_rule(rule->name()));
    report.rules.push_back({.name = std::string(rule->name())});
  }
  graph_.rebuild();

  for (std::size_t iteration = 0;; ++iteration) {
    StopReason reason{};
    if (iteration >= limits_.iterations) {
      report.stop_reason = StopReason::kIterationLimit;
      break;
    }
    if (limit_hit(seconds_since(start), reason)) {
      report.stop_reason = reason;
      break;
    }
    IterationStats stats;
    stats.iteration = iteration;
    const std::uint64_t version_before = graph_.version();
    bool stopping = false;
    graph_.index();  // the snapshot every rule of this iteration searches
    std::optional<EGraph::IndexReadGuard> frozen(std::in_place, graph_);

    for (std::size_t r = 0; r < rules.size() && !stopping; ++r) {
      RuleRunStats& rule_stats = report.rules[r];
      StepControl control;
      control.limit = scheduler_->match_limit(iteration, r);
      if (control.limit == 0) {
        ++rule_stats.skipped;
        continue;
      }
      control.accept = [&](std::size_t found) { return scheduler_->should_apply(iteration, r, found); };
      control.stop = [&] { return stopping = limit_hit(seconds_since(start), reason); };
      control.deadline = deadline;
      control.rule_id = rule_ids[r];
      const std::size_t nodes_before = graph_.num_nodes();
      const RuleStep step = rules[r]->step(graph_, control);
      if (step.found > 0) stats.rules.push_back({r, step.found, step.applied, step.unions});
      stats.matches += step.applied;
      stats.unions += step.unions;
      stats.search_s += step.search_s;
      stats.apply_s += step.apply_s;
      rule_stats.found += step.found;
      rule_stats.matches += step.applied;
      rule_stats.unions += step.unions;
      rule_stats.skipped += step.refused;
      rule_stats.search_s += step.search_s;
      rule_stats.apply_s += step.apply_s;
      rule_stats.nodes_added += graph_.num_nodes() - std::min(graph_.num_nodes(), nodes_before);
      stopping = stopping || limit_hit(seconds_since(start), reason);
    }

    frozen.reset();
    // Always rebuild, even when stopping: the e-graph is left consistent.
    const Clock::time_point rebuild_start = Clock::now();
    graph_.rebuild();
    stats.rebuild_s = seconds_since(rebuild_start);
    stats.nodes = graph_.num_nodes();
    stats.classes = graph_.num_classes();
    stats.memory_bytes = graph_.memory_bytes();
    report.iterations.push_back(stats);
    if (stopping) {
      report.stop_reason = reason;
      break;
    }
    if (graph_.version() == version_before && scheduler_->can_stop(iteration)) {
      report.stop_reason = StopReason::kSaturated;
      break;
    }
  }
  report.total_s = seconds_since(start);
  return report;
}

}  // namespace smelt::egraph
