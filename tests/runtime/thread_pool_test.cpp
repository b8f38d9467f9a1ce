#include "runtime/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>

namespace {

// Every unit is covered exactly once, whatever the thread count and grain.
TEST(ThreadPool, CoversEveryUnitOnce) {
  for (unsigned threads : {1u, 2u, 4u}) {
    runtime::ThreadPool pool(threads);
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
  runtime::ThreadPool pool(4);
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

TEST(ThreadPool, SmallRangesRunInlineOnTheCaller) {
  runtime::ThreadPool pool(4);
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
  runtime::ThreadPool pool(2);
  EXPECT_THROW(pool.parallel_for(1000, 1,
                                 [](int64_t begin, int64_t) {
                                   if (begin == 0) throw std::runtime_error("boom");
                                 }),
               std::runtime_error);
  std::atomic<int64_t> sum = 0;
  pool.parallel_for(1000, 1, [&](int64_t begin, int64_t end) { sum += end - begin; });
  EXPECT_EQ(sum.load(), 1000);
}

TEST(ThreadPool, ManyBackToBackCallsFinish) {
  runtime::ThreadPool pool(3);
  std::atomic<int64_t> total = 0;
  for (int call = 0; call < 2000; ++call)
    pool.parallel_for(64, 1, [&](int64_t begin, int64_t end) { total += end - begin; });
  EXPECT_EQ(total.load(), 2000 * 64);
}

}  // namespace
