#include "util/thread_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "util/parallelism.h"

namespace turbozarr {
namespace {

TEST(ThreadPoolTest, VisitsEveryIndexOnce) {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> hits(1000);
  ASSERT_TRUE(pool.ParallelFor(1000, [&](int64_t i) {
                    hits[i]++;
                    return Status::OK();
                  }).ok());
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
}

TEST(ThreadPoolTest, ReportsLowestFailingIndex) {
  ThreadPool pool(2);
  Status s = pool.ParallelFor(100, [&](int64_t i) {
    if (i == 7 || i == 50) return Status::IOError("item " + std::to_string(i));
    return Status::OK();
  });
  EXPECT_EQ(s.code(), StatusCode::kIOError);
  EXPECT_EQ(s.message(), "item 7");
}

TEST(ThreadPoolTest, NestedCallsRunInline) {
  ThreadPool pool(2);
  std::atomic<int> total{0};
  ASSERT_TRUE(pool.ParallelFor(4, [&](int64_t) {
                    return pool.ParallelFor(10, [&](int64_t) {
                      total++;
                      return Status::OK();
                    });
                  }).ok());
  EXPECT_EQ(total.load(), 40);
}

TEST(ThreadPoolTest, ZeroWorkersRunsOnCaller) {
  ThreadPool pool(0);
  int sum = 0;
  ASSERT_TRUE(pool.ParallelFor(5, [&](int64_t i) {
                    sum += static_cast<int>(i);
                    return Status::OK();
                  }).ok());
  EXPECT_EQ(sum, 10);
}

TEST(ThreadPoolTest, ManyItemsAreVisitedOnceInFewClaims) {
  ThreadPool pool(3);
  const int64_t n = 100000;
  std::vector<std::atomic<int>> hits(n);
  // Batches are contiguous: count the items that start a new run on a thread.
  std::mutex mu;
  std::set<int64_t> run_starts;
  thread_local int64_t last = -2;
  ASSERT_TRUE(pool.ParallelFor(n,
                               [&](int64_t i) {
                                 hits[i]++;
                                 if (i != last + 1) {
                                   std::lock_guard<std::mutex> lock(mu);
                                   run_starts.insert(i);
                                 }
                                 last = i;
                                 return Status::OK();
                               })
                  .ok());
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  // Guided batches: a few dozen claims per thread, not one per item.
  EXPECT_LT(run_starts.size(), 400u);
}

TEST(ThreadPoolTest, LowestFailingIndexWinsWhateverTheTiming) {
  ThreadPool pool(3);
  for (int round = 0; round < 50; ++round) {
    const int64_t first_bad = 500 + 37 * round;
    Status s = pool.ParallelFor(20000, [&](int64_t i) {
      if (i >= first_bad && i % 5 == first_bad % 5) {
        return Status::IOError("item " + std::to_string(i));
      }
      return Status::OK();
    });
    ASSERT_EQ(s.message(), "item " + std::to_string(first_bad));
  }
}

TEST(ThreadPoolTest, NestedCallsFromTheCallerRunInlineToo) {
  ThreadPool pool(2);
  std::atomic<int> off_thread{0};
  ASSERT_TRUE(pool.ParallelFor(3,
                               [&](int64_t) {
                                 const std::thread::id outer = std::this_thread::get_id();
                                 return pool.ParallelFor(50, [&](int64_t) {
                                   if (std::this_thread::get_id() != outer) off_thread++;
                                   return Status::OK();
                                 });
                               })
                  .ok());
  EXPECT_EQ(off_thread.load(), 0);
}

TEST(ThreadPoolTest, ItemsGetTheCodecBudgetOfThePolicy) {
  ThreadPool pool(3);  // 4 threads with the caller
  EXPECT_EQ(CodecThreads(), 1);
  auto budgets = [&](int64_t n) {
    std::mutex mu;
    std::set<int> seen;
    EXPECT_TRUE(pool.ParallelFor(n,
                                 [&](int64_t) {
                                   std::lock_guard<std::mutex> lock(mu);
                                   seen.insert(CodecThreads());
                                   return Status::OK();
                                 })
                    .ok());
    return seen;
  };
  EXPECT_EQ(budgets(1), std::set<int>{4});
  EXPECT_EQ(budgets(2), std::set<int>{2});
  EXPECT_EQ(budgets(3), std::set<int>{1});
  EXPECT_EQ(budgets(1000), std::set<int>{1});
  // A nested call keeps the budget of the item around it.
  std::atomic<int> inner_budget{0};
  ASSERT_TRUE(pool.ParallelFor(1,
                               [&](int64_t) {
                                 return pool.ParallelFor(8, [&](int64_t) {
                                   inner_budget = CodecThreads();
                                   return Status::OK();
                                 });
                               })
                  .ok());
  EXPECT_EQ(inner_budget.load(), 4);
  EXPECT_EQ(CodecThreads(), 1);
  ThreadPool serial(0);
  EXPECT_TRUE(serial
                  .ParallelFor(1,
                               [](int64_t) {
                                 EXPECT_EQ(CodecThreads(), 1);
                                 return Status::OK();
                               })
                  .ok());
}

TEST(ParallelismTest, BudgetSplitsTheSpareThreads) {
  EXPECT_EQ(CodecThreadsPerItem(1, 8), 8);
  EXPECT_EQ(CodecThreadsPerItem(3, 8), 2);
  EXPECT_EQ(CodecThreadsPerItem(8, 8), 1);
  EXPECT_EQ(CodecThreadsPerItem(100, 8), 1);
  EXPECT_EQ(CodecThreadsPerItem(1, 1), 1);
  {
    ScopedCodecThreads scope(6);
    EXPECT_EQ(CodecThreads(), 6);
  }
  EXPECT_EQ(CodecThreads(), 1);
}

}  // namespace
}  // namespace turbozarr
