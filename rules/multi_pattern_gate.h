#pragma once
// A scheduler that lets multi-pattern rules (two left roots) run only in the
// first iterations of a saturation and defers everything else to another
// scheduler. Pairwise batching rules feed on their own results (two matmuls
// sharing X become a third one sharing X, ...) and would fill any e-graph with
// every ordered subset of the operands; TENSAT bounds them the same way.
#include <cstddef>
#include <memory>
#include <vector>

#include "egraph/scheduler.h"

namespace smelt::rules {

class MultiPatternGate final : public smelt::egraph::Scheduler {
 public:
  // is_multi[r]: rule r has several left roots (a multi-pattern or a group rule's
  // instance). They run in iterations [0, iterations).
  MultiPatternGate(std::unique_ptr<smelt::egraph::Scheduler> inner, std::vector<bool> is_multi, size_t iterations)
      : inner_(std::move(inner)), is_multi_(std::move(is_multi)), iterations_(iterations) {}

  size_t match_limit(size_t iteration, size_t rule) override {
    if (rule < is_multi_.size() && is_multi_[rule] && iteration >= iterations_) return 0;
    return inner_->match_limit(iteration, rule);
  }
  bool should_apply(size_t iteration, size_t rule, size_t matches) override {
    return inner_->should_apply(iteration, rule, matches);
  }
  bool can_stop(size_t iteration) override { return inner_->can_stop(iteration); }

 private:
  std::unique_ptr<smelt::egraph::Scheduler> inner_;
  std::vector<bool> is_multi_;
  size_t iterations_;
};

}  // namespace smelt::rules
