#include "util/thread_pool.h"

#include <atomic>
#include <vector>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace turbozarr
