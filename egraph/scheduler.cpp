#include "egraph/scheduler.h"

#include <algorithm>

namespace smelt::egraph {

BackoffScheduler::RuleStats& BackoffScheduler::stats_for(std::size_t rule) {
  if (stats_.size() <= rule) stats_.resize(rule + 1);
  return stats_[rule];
}

std::size_t BackoffScheduler::threshold(const RuleStats& stats) const {
  const unsigned shift = static_cast<unsigned>(std::min<std::size_t>(stats.times_banned, 40));
  return default_match_limit_ << shift;
}

std::size_t BackoffScheduler::match_limit(std::size_t iteration, std::size_t rule) {
  const RuleStats& stats = stats_for(rule);
  if (iteration < stats.banned_until) return 0;
  return threshold(stats) + 1;  // one over the threshold is enough to know it was exceeded
}

bool BackoffScheduler::should_apply(std::size_t iteration, std::size_t rule, std::size_t matches) {
  RuleStats& stats = stats_for(rule);
  if (matches > threshold(stats)) {
    const unsigned shift = static_cast<unsigned>(std::min<std::size_t>(stats.times_banned, 40));
    stats.banned_until = iteration + (default_ban_length_ << shift);
    ++stats.times_banned;
    return false;
  }
  ++stats.times_applied;
  return true;
}

bool BackoffScheduler::can_stop(std::size_t iteration) {
  bool any_banned = false;
  for (RuleStats& stats : stats_) {
    if (iteration < stats.banned_until) {
      any_banned = true;
      stats.banned_until = iteration;  // lift the ban: saturation must not hide rules
    }
  }
  return !any_banned;
}

}  // namespace smelt::egraph
