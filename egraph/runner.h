#pragma once
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/rewrite.h"
#include "egraph/scheduler.h"

namespace smelt::egraph {

enum class StopReason {
  kSaturated,       // an iteration changed nothing
  kIterationLimit,
  kNodeLimit,
  kTimeLimit,
  kMemoryLimit,
};
std::string_view to_string(StopReason reason);

// Checked before each iteration and after each rule; a run that hits one
// stops applying, still rebuilds, and reports the reason. The one definition
// of smelt's default saturation limits (rules::default_limits adds the
// process's memory limit; smelt::Limits starts from these).
struct RunnerLimits {
  std::size_t iterations = 12;
  std::size_t nodes = 20'000;                        // canonical e-nodes
  double seconds = 2.0;
  std::size_t memory_bytes = std::size_t{4} << 30;   // EGraph::memory_bytes()
};

struct IterationStats {
  std::size_t iteration = 0;
  std::size_t matches = 0;   // matches handed to appliers (before conditions)
  std::size_t unions = 0;    // unions by rules that changed the e-graph
  std::size_t nodes = 0;     // after rebuild
  std::size_t classes = 0;
  std::size_t memory_bytes = 0;
  double search_s = 0;
  double apply_s = 0;
  double rebuild_s = 0;
  // The rules that found matches this iteration.
  struct RuleMatches {
    std::size_t rule = 0;  // index in the run's rules (RunReport::rules)
    std::size_t found = 0, applied = 0, unions = 0;
  };
  std::vector<RuleMatches> rules;
};

// What one rule did over a whole run.
struct RuleRunStats {
  std::string name;
  std::size_t found = 0;        // matches its searches found
  std::size_t matches = 0;      // matches applied
  std::size_t unions = 0;       // unions that changed the e-graph
  std::size_t skipped = 0;      // iterations the scheduler skipped it or refused its matches
  std::size_t nodes_added = 0;  // e-nodes its applications added (before rebuilds)
  double search_s = 0, apply_s = 0;
};

struct RunReport {
  StopReason stop_reason = StopReason::kSaturated;
  std::vector<IterationStats> iterations;
  std::vector<RuleRunStats> rules;  // by rule, in the order run
  double total_s = 0;

  double search_s() const;
  double apply_s() const;
  double rebuild_s() const;
  std::string summary() const;
};

// Equality saturation (egg's Runner): each iteration searches every rule on
// the rebuilt e-graph, applies the matches the scheduler allows, rebuilds.
class Runner {
 public:
  explicit Runner(EGraph& graph, RunnerLimits limits = {});
  Runner& with_scheduler(std::unique_ptr<Scheduler> scheduler);
  // Rules are searched and applied in this order every iteration; the
  // scheduler sees them by this index. Exceptions from a rule propagate.
  RunReport run(std::span<const Rewrite* const> rules);
  RunReport run(std::span<const PatternRewrite> rules);

 private:
  bool limit_hit(double elapsed_s, StopReason& reason) const;

  EGraph& graph_;
  RunnerLimits limits_;
  std::unique_ptr<Scheduler> scheduler_;
};

}  // namespace smelt::egraph
