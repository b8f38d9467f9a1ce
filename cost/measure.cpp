#include "cost/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace smelt::cost {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(at));
  const size_t hi = std::min(sorted.size() - 1, lo + 1);
  return sorted[lo] + (at - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

Timing summarize(std::vector<double> seconds) {
  Timing t;
  if (seconds.empty()) return t;
  std::sort(seconds.begin(), seconds.end());
  t.reps = static_cast<int>(seconds.size());
  t.median_us = quantile(seconds, 0.5) * 1e6;
  t.min_us = seconds.front() * 1e6;
  t.spread = t.median_us > 0 ? (quantile(seconds, 0.75) - quantile(seconds, 0.25)) * 1e6 / t.median_us : 0;
  return t;
}

std::vector<Timing> measure_until_stable(const std::vector<RunFn>& runs, double budget_s) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const size_t n = runs.size();
  std::vector<std::vector<double>> samples(n);
  std::vector<int> batch(n);
  std::vector<double> previous(n);
  std::vector<int> settled(n, 0);
  std::vector<std::vector<double>> round_us(n);
  for (size_t i = 0; i < n; ++i) {
    samples[i] = runs[i](3);
    // Batches of about a fiftieth of the budget each.
    const double first = std::max(1e-7, *std::min_element(samples[i].begin(), samples[i].end()));
    batch[i] = static_cast<int>(std::clamp(budget_s / 50 / first, 3.0, 2000.0));
    previous[i] = summarize(samples[i]).median_us;
  }
  for (int rounds = 1;; ++rounds) {
    // One batch of each workload per round: none is favoured by its place.
    for (size_t i = 0; i < n; ++i) {
      const std::vector<double> more = runs[i](batch[i]);
      round_us[i].push_back(summarize(more).median_us);
      samples[i].insert(samples[i].end(), more.begin(), more.end());
      const double median = summarize(samples[i]).median_us;
      settled[i] = std::fabs(median - previous[i]) <= 0.01 * previous[i] ? settled[i] + 1 : 0;
      previous[i] = median;
    }
    const bool all_settled = std::all_of(settled.begin(), settled.end(), [](int s) { return s >= 2; });
    const double spent = std::chrono::duration<double>(Clock::now() - start).count();
    // At least 3 rounds either way: a paired ratio (paired_ratio) is the
    // median of the rounds', and a budget a whole model overruns in its first
    // round left GPT-2 with 2 (2026-12-01).
    if (rounds >= 3 && (all_settled || spent > budget_s * static_cast<double>(n))) {
      std::vector<Timing> timings;
      for (size_t i = 0; i < n; ++i) {
        timings.push_back(summarize(std::move(samples[i])));
        timings.back().stable = settled[i] >= 2;
        if (n > 1) timings.back().round_us = std::move(round_us[i]);
      }
      return timings;
    }
  }
}

double paired_ratio(const Timing& a, const Timing& b) {
  std::vector<double> ratios;
  for (size_t r = 0; r < std::min(a.round_us.size(), b.round_us.size()); ++r)
    if (b.round_us[r] > 0) ratios.push_back(a.round_us[r] / b.round_us[r]);
  if (ratios.empty()) return b.median_us > 0 ? a.median_us / b.median_us : 1;
  std::sort(ratios.begin(), ratios.end());
  return quantile(ratios, 0.5);
}

Timing measure_until_stable(const RunFn& run, double budget_s) { return measure_until_stable(std::vector<RunFn>{run}, budget_s)[0]; }

}  // namespace smelt::cost
