#include "runtime/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace smelt::runtime {
namespace {

// How long a worker spins for the next job, and the caller for the last
// chunk, before sleeping (OpenMP runtimes spin for a similar while).
constexpr std::chrono::microseconds kSpin{1000};

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  remaining_.resize(threads);
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    stopping_hint_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::parallel_for(int64_t units, int64_t min_chunk, const RangeFn& fn) {
  if (units <= 0) return;
  min_chunk = std::max<int64_t>(1, min_chunk);
  // About four chunks per thread balances uneven chunks without much overhead.
  const int64_t target_chunks = static_cast<int64_t>(threads()) * 4;
  const int64_t chunk = std::max(min_chunk, (units + target_chunks - 1) / target_chunks);
  const int64_t chunks = (units + chunk - 1) / chunk;
  if (workers_.empty() || chunks <= 1) {
    fn(0, units);
    return;
  }
  std::lock_guard job(job_mutex_);
  {
    std::lock_guard lock(mutex_);
    fn_ = &fn;
    units_ = units;
    chunk_ = chunk;
    chunks_ = chunks;
    const int64_t n = threads();
    for (int64_t t = 0; t < n; ++t) remaining_[t] = {chunks * t / n, chunks * (t + 1) / n};
    finished_chunks_ = 0;
    error_ = nullptr;
    ++generation_;
    generation_hint_.store(generation_, std::memory_order_release);
  }
  wake_.notify_all();
  run_chunks(0);
  std::unique_lock lock(mutex_);
  // Wait for every chunk and for every worker to have left the job, so fn_
  // is not touched after we return: spinning first, then asleep.
  auto done = [&] { return finished_chunks_ == chunks_ && busy_workers_ == 0; };
  const auto until = std::chrono::steady_clock::now() + kSpin;
  while (!done() && std::chrono::steady_clock::now() < until) {
    lock.unlock();
    for (int i = 0; i < 64; ++i) cpu_relax();
    lock.lock();
  }
  done_.wait(lock, done);
  fn_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

int64_t ThreadPool::claim_chunk(unsigned self) {
  ChunkRange& own = remaining_[self];
  if (own.next < own.end) return own.next++;
  // Out of its own chunks: take the last chunk of the thread with the most left.
  ChunkRange* victim = nullptr;
  for (ChunkRange& r : remaining_)
    if (r.end - r.next > 0 && (!victim || r.end - r.next > victim->end - victim->next)) victim = &r;
  return victim ? --victim->end : -1;
}

void ThreadPool::run_chunks(unsigned self) {
  std::unique_lock lock(mutex_);
  for (int64_t c = claim_chunk(self); c >= 0; c = claim_chunk(self)) {
    const int64_t begin = c * chunk_, end = std::min(units_, begin + chunk_);
    const RangeFn* fn = fn_;
    lock.unlock();
    std::exception_ptr error;
    try {
      (*fn)(begin, end);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error && !error_) error_ = error;
    ++finished_chunks_;
  }
  if (finished_chunks_ == chunks_) done_.notify_all();
}

void ThreadPool::worker_loop(unsigned self) {
  uint64_t seen = 0;
  std::unique_lock lock(mutex_);
  while (true) {
    lock.unlock();
    const auto until = std::chrono::steady_clock::now() + kSpin;
    while (generation_hint_.load(std::memory_order_acquire) == seen && !stopping_hint_.load(std::memory_order_relaxed) &&
           std::chrono::steady_clock::now() < until)
      cpu_relax();
    lock.lock();
    wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_) return;
    seen = generation_;
    ++busy_workers_;
    lock.unlock();
    run_chunks(self);
    lock.lock();
    --busy_workers_;
    if (busy_workers_ == 0) done_.notify_all();
  }
}

}  // namespace smelt::runtime
