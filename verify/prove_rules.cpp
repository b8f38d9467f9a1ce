// Many rules at once: each in its own Z3 context, on a few threads.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "verify/rule_prover.h"

namespace smelt::verify {

std::vector<RuleResult> prove_rules(std::span<const rules::Rule> rules, const ProverOptions& options,
                                    unsigned jobs, const ProgressFn& on_progress) {
  std::vector<RuleResult> results(rules.size());
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, static_cast<unsigned>(std::max<size_t>(rules.size(), 1)));
  std::atomic<size_t> next{0};
  std::mutex progress_mutex;
  size_t done = 0;
  auto work = [&] {
    for (size_t i = next++; i < rules.size(); i = next++) {
      results[i] = prove_rule(rules[i], options);
      if (!on_progress) continue;
      std::lock_guard lock(progress_mutex);
      on_progress(++done, rules.size());
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  return results;
}

}  // namespace smelt::verify
