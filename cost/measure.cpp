#include "cost/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace cost {
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

Timing measure_until_stable(const std::function<std::vector<double>(int reps)>& run, double budget_s) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  std::vector<double> samples = run(3);
  // Batches of about a fiftieth of the budget each.
  const double first = std::max(1e-7, *std::min_element(samples.begin(), samples.end()));
  const int batch = static_cast<int>(std::clamp(budget_s / 50 / first, 3.0, 2000.0));
  double previous = summarize(samples).median_us;
  int settled = 0, batches = 0;
  while (true) {
    const std::vector<double> more = run(batch);
    samples.insert(samples.end(), more.begin(), more.end());
    ++batches;
    const double median = summarize(samples).median_us;
    settled = std::fabs(median - previous) <= 0.01 * previous ? settled + 1 : 0;
    previous = median;
    const double spent = std::chrono::duration<double>(Clock::now() - start).count();
    if ((settled >= 2 && batches >= 3) || spent > budget_s) {
      Timing t = summarize(samples);
      t.stable = settled >= 2;
      return t;
    }
  }
}

}  // namespace cost
