#pragma once
// Timing until stable: what every measurement of `smelt calibrate` and of its
// validation uses, so predicted and measured times are taken the same way.
#include <functional>
#include <vector>

namespace smelt::cost {

struct Timing {
  double median_us = 0;
  double min_us = 0;
  double spread = 0;  // interquartile range / median of the samples
  int reps = 0;
  bool stable = false;  // false: the time budget ran out before the median settled
  // Timed side by side (several workloads): each round's batch median, in
  // round order, for paired_ratio.
  std::vector<double> round_us;
};

// `run(reps)` runs the work `reps` times (after its own warm-up) and returns
// each run's seconds.
using RunFn = std::function<std::vector<double>(int reps)>;

// Batches are run until the median of all samples moves by less than 1% from
// one batch to the next, or until `budget_s` seconds have been spent; at least
// 3 batches either way.
Timing measure_until_stable(const RunFn& run, double budget_s = 0.25);

// The same for several workloads side by side: in rounds of one batch each,
// until every median has settled or `budget_s` seconds per workload are spent
// (at least 3 rounds), so none gains or loses from being timed first or from the machine drifting.
std::vector<Timing> measure_until_stable(const std::vector<RunFn>& runs, double budget_s = 0.25);

// a's time over b's, two workloads timed side by side: the median over the
// rounds of a's batch median over b's in the same round (the medians' ratio
// where they have no rounds in common). Each pair ran seconds apart, so this
// VM's drift cancels: ResNet-50's fused and unfused programs, 3 rounds each
// in one process, had medians 1.14x and 0.97x apart from one process to the
// next (AMD EPYC, 2026-12-01, one thread), their medians moving by 10 % while
// the pairs moved together.
double paired_ratio(const Timing& a, const Timing& b);

// Median and spread of samples in seconds, as a Timing in microseconds.
Timing summarize(std::vector<double> seconds);

}  // namespace smelt::cost
