#pragma once
// A fixed set of worker threads that split a range of work units between them
// and the calling thread. Kept alive across calls: a kernel launch must not pay
// for thread creation.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace smelt::runtime {

class ThreadPool {
 public:
  using RangeFn = std::function<void(int64_t begin, int64_t end)>;

  // `threads` counts the caller; 0 = std::thread::hardware_concurrency().
  explicit ThreadPool(unsigned threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }

  // Calls fn over disjoint [begin, end) chunks covering [0, units), each chunk
  // at least `min_chunk` units (the last may be smaller), and returns when all
  // are done. With one thread, or when the range is a single chunk, fn runs
  // inline on the caller. The first exception thrown by fn is rethrown here.
  // Callers on several threads take turns (programs loaded on one device share
  // its pool). Not reentrant: fn must not call parallel_for on the same pool.
  void parallel_for(int64_t units, int64_t min_chunk, const RangeFn& fn);

 private:
  void worker_loop(unsigned self);
  void run_chunks(unsigned self);
  // The next chunk thread `self` runs (-1: none left); mutex_ held.
  int64_t claim_chunk(unsigned self);

  std::vector<std::thread> workers_;
  // Held by the caller whose job the workers run, from set-up to its end.
  std::mutex job_mutex_;
  // Read without the lock by spinning workers: a worker that sleeps on the
  // condition variable takes tens of µs to wake (measured ~65 µs on a VM's
  // idle vCPU), more than many kernels take, so workers and the caller spin
  // a while before they block.
  std::atomic<uint64_t> generation_hint_{0};
  std::atomic<bool> stopping_hint_{false};
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  uint64_t generation_ = 0;
  bool stopping_ = false;
  // The job in progress (guarded by mutex_ except next_chunk_'s claims).
  const RangeFn* fn_ = nullptr;
  int64_t units_ = 0, chunk_ = 1, chunks_ = 0, finished_chunks_ = 0;
  // Chunks not yet claimed, by thread. Thread t starts with the t-th contiguous
  // block of chunks, so consecutive kernels over the same space give each thread
  // the rows it wrote before, still in its own cache (dynamic claiming made a
  // 3-kernel 2-thread program no faster than 1 thread); a thread that runs out
  // takes chunks from the end of the fullest block.
  struct ChunkRange {
    int64_t next = 0, end = 0;
  };
  std::vector<ChunkRange> remaining_;
  unsigned busy_workers_ = 0;
  std::exception_ptr error_;
};

}  // namespace smelt::runtime
