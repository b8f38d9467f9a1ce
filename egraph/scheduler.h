#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace smelt::egraph {

// Decides, per iteration and rule, how many matches to collect and whether
// to apply them (egg's RewriteScheduler).
class Scheduler {
 public:
  static constexpr std::size_t kUnlimited = std::numeric_limits<std::size_t>::max();
  virtual ~Scheduler() = default;
  // 0: skip the rule this iteration. kUnlimited: apply every match as found.
  // Otherwise the search stops after that many matches and should_apply decides.
  virtual std::size_t match_limit(std::size_t iteration, std::size_t rule) = 0;
  virtual bool should_apply(std::size_t iteration, std::size_t rule, std::size_t matches) = 0;
  // Asked when an iteration changed nothing: may the runner stop? (A backoff
  // scheduler un-bans its rules and says no, as egg's does.)
  virtual bool can_stop(std::size_t iteration) {
    (void)iteration;
    return true;
  }
};

// Applies every match of every rule, every iteration.
class SimpleScheduler final : public Scheduler {
 public:
  std::size_t match_limit(std::size_t, std::size_t) override { return kUnlimited; }
  bool should_apply(std::size_t, std::size_t, std::size_t) override { return true; }
};

// egg's BackoffScheduler: a rule producing more than its match limit is
// banned for a while; each ban doubles the rule's limit and ban length.
class BackoffScheduler final : public Scheduler {
 public:
  explicit BackoffScheduler(std::size_t match_limit = 1000, std::size_t ban_length = 5)
      : default_match_limit_(match_limit), default_ban_length_(ban_length) {}

  std::size_t match_limit(std::size_t iteration, std::size_t rule) override;
  bool should_apply(std::size_t iteration, std::size_t rule, std::size_t matches) override;
  bool can_stop(std::size_t iteration) override;

  struct RuleStats {
    std::size_t times_applied = 0;
    std::size_t banned_until = 0;
    std::size_t times_banned = 0;
  };
  const RuleStats& stats(std::size_t rule) { return stats_for(rule); }
  bool is_banned(std::size_t iteration, std::size_t rule) { return iteration < stats_for(rule).banned_until; }

 private:
  RuleStats& stats_for(std::size_t rule);
  std::size_t threshold(const RuleStats& stats) const;

  std::size_t default_match_limit_;
  std::size_t default_ban_length_;
  std::vector<RuleStats> stats_;
};

}  // namespace smelt::egraph
