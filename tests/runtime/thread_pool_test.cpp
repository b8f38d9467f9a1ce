#include "runtime/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <mutex>
#include <set>
#include <stdexcept>
#include <vector>

namespace {

// Every unit is covered exactly once, whatever the thread count and grain.
TEST(ThreadPool, CoversEveryUnitOnce) {
  for (unsigned threads : {1u, 2u, 4u}) {
    smelt::runtime::ThreadPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (int64_t units : {0, 1, 7, 1000, 100003}) {
      for (int64_t grain : {1, 16, 5000}) {
        std::vector<std::atomic<int>> hits(units);
        pool.parallel_for(units, grain, [&](int64_t begin, int64_t end) {
          ASSERT_LE(0, begin);
          ASSERT_LE(begin, end);
          ASSERT_LE(end, units);
          for (int64_t i = begin; i < end; ++i) hits[i]++;
        });
        for (int64_t i = 0; i < units; ++i) ASSERT_EQ(hits[i].load(), 1) << threads << " " << units << " " << grain;
      }
    }
  }
}

TEST(ThreadPool, ChunksRespectTheMinimumAndUseSeveralThreads) {
  smelt::runtime::ThreadPool pool(4);
  std::mutex mutex;
  std::set<std::thread::id> ids;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  pool.parallel_for(1 << 20, 1000, [&](int64_t begin, int64_t end) {
    volatile double sink = 0;
    for (int64_t i = begin; i < end; ++i) sink = sink + 1;  // enough work for others to join
    std::lock_guard lock(mutex);
    ids.insert(std::this_thread::get_id());
    chunks.emplace_back(begin, end);
  });
  for (auto [begin, end] : chunks) {
    if (end != (1 << 20)) {
      EXPECT_GE(end - begin, 1000);
    }
  }
  EXPECT_GT(chunks.size(), 1u);
  EXPECT_GE(ids.size(), 1u);
}

// Each thread starts on its own contiguous block of chunks, so consecutive
// kernels over one space give a thread the rows it wrote before; a thread that
// runs out takes chunks from the end of another's block. 8 chunks of 10 ms on
// 2 threads: the caller owns chunks 0-3, the worker 4-7; the caller could take
// chunk 4 only after 70 ms, far beyond the worker's wake-up.
TEST(ThreadPool, EachThreadStartsOnItsOwnBlock) {
  smelt::runtime::ThreadPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  std::mutex mutex;
  std::vector<std::thread::id> ran_on(8);
  pool.parallel_for(8, 1, [&](int64_t begin, int64_t end) {
    ASSERT_EQ(end, begin + 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::lock_guard lock(mutex);
    ran_on[static_cast<size_t>(begin)] = std::this_thread::get_id();
  });
  EXPECT_EQ(ran_on[0], caller);
  EXPECT_NE(ran_on[4], caller);
}

// A thread that finishes its block helps with the others': one slow chunk in
// the worker's block does not leave the caller idle.
TEST(ThreadPool, IdleThreadsTakeChunksFromOthers) {
  smelt::runtime::ThreadPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  std::mutex mutex;
  std::vector<std::thread::id> ran_on(8);
  pool.parallel_for(8, 1, [&](int64_t begin, int64_t) {
    if (begin == 4) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::lock_guard lock(mutex);
    ran_on[static_cast<size_t>(begin)] = std::this_thread::get_id();
  });
  EXPECT_EQ(ran_on[7], caller);  // taken from the end of the worker's block
}

TEST(ThreadPool, SmallRangesRunInlineOnTheCaller) {
  smelt::runtime::ThreadPool pool(4);
  std::thread::id seen;
  int calls = 0;
  pool.parallel_for(100, 1000, [&](int64_t begin, int64_t end) {
    seen = std::this_thread::get_id();
    ++calls;
    EXPECT_EQ(begin, 0);
    EXPECT_EQ(end, 100);
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, std::this_thread::get_id());
}

TEST(ThreadPool, RethrowsTheFirstErrorAndStaysUsable) {
  smelt::runtime::ThreadPool pool(2);
  EXPECT_THROW(pool.parallel_for(1000, 1,
                                 [](int64_t begin, int64_t) {
                                   if (begin == 0) throw std::runtime_error("boom");
                                 }),
               std::runtime_error);
  std::atomic<int64_t> sum = 0;
  pool.parallel_for(1000, 1, [&](int64_t begin, int64_t end) { sum += end - begin; });
  EXPECT_EQ(sum.load(), 1000);
}

// Callers on several threads share one pool (programs loaded on one device):
// each call covers its own range exactly once.
TEST(ThreadPool, CallsFromSeveralThreadsAtOnceEachCoverTheirRange) {
  smelt::runtime::ThreadPool pool(2);
  constexpr int kCallers = 4, kCalls = 200;
  std::vector<int64_t> wrong(kCallers, 0);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&, c] {
      for (int call = 0; call < kCalls; ++call) {
        const int64_t units = 1000 + c;
        std::vector<std::atomic<int>> hits(static_cast<size_t>(units));
        pool.parallel_for(units, 16, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) hits[static_cast<size_t>(i)]++;
        });
        for (const std::atomic<int>& hit : hits) wrong[c] += hit.load() != 1;
      }
    });
  for (std::thread& caller : callers) caller.join();
  for (int c = 0; c < kCallers; ++c) EXPECT_EQ(wrong[c], 0) << "caller " << c;
}

TEST(ThreadPool, ManyBackToBackCallsFinish) {
  smelt::runtime::ThreadPool pool(3);
  std::atomic<int64_t> total = 0;
  for (int call = 0; call < 2000; ++call)
    pool.parallel_for(64, 1, [&](int64_t begin, int64_t end) { total += end - begin; });
  EXPECT_EQ(total.load(), 2000 * 64);
}

}  // namespace
