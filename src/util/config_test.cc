// The thread-count setting (turbozarr/config.h) and the default pool it
// sizes: validation, the environment variable's parsing, and pools replaced
// while work runs on them.
#include "turbozarr/config.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "util/thread_pool.h"

namespace turbozarr {
namespace {

// Lets threads through once `n` of them wait at once; false after a timeout,
// so a test that expects more threads than run fails instead of hanging.
class Rendezvous {
 public:
  explicit Rendezvous(int n) : n_(n) {}
  bool Arrive() {
    std::unique_lock<std::mutex> lock(mu_);
    if (++arrived_ >= n_) cv_.notify_all();
    return cv_.wait_for(lock, std::chrono::seconds(20), [&] { return arrived_ >= n_; });
  }

 private:
  const int n_;
  std::mutex mu_;
  std::condition_variable cv_;
  int arrived_ = 0;
};

// The distinct threads that run the items of one ParallelFor on `pool`.
std::set<std::thread::id> ThreadsUsed(ThreadPool& pool, int64_t items) {
  std::mutex mu;
  std::set<std::thread::id> ids;
  EXPECT_TRUE(pool.ParallelFor(items,
                               [&](int64_t) {
                                 std::lock_guard<std::mutex> lock(mu);
                                 ids.insert(std::this_thread::get_id());
                                 return Status::OK();
                               })
                  .ok());
  return ids;
}

TEST(ConfigTest, CountsOutOfRangeAreInvalidAndChangeNothing) {
  ASSERT_TRUE(SetThreads(2).ok());
  for (int bad : {0, -1, -1000, kMaxThreads + 1}) {
    Status s = SetThreads(bad);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("from 1 to 1024, not " + std::to_string(bad)),
              std::string::npos)
        << s.message();
    EXPECT_EQ(Threads(), 2);
  }
}

TEST(ConfigTest, LaterOperationsTakeTheNewCount) {
  for (int n : {1, 3, 2}) {
    ASSERT_TRUE(SetThreads(n).ok());
    EXPECT_EQ(Threads(), n);
    std::shared_ptr<ThreadPool> pool = ThreadPool::Default();
    EXPECT_EQ(pool->concurrency(), n);
    EXPECT_EQ(pool->num_threads(), n - 1);
  }
  // Asking for the count in force keeps the pool (and its threads).
  std::shared_ptr<ThreadPool> before = ThreadPool::Default();
  ASSERT_TRUE(SetThreads(2).ok());
  EXPECT_EQ(ThreadPool::Default(), before);
}

TEST(ConfigTest, AnOperationKeepsThePoolItStartedWith) {
  ASSERT_TRUE(SetThreads(3).ok());
  std::shared_ptr<ThreadPool> held = ThreadPool::Default();
  // SetThreads from another thread while the items of a ParallelFor on the
  // held pool are running: all three of its threads must still meet.
  Rendezvous all_three(3);
  std::atomic<int> met{0};
  ASSERT_TRUE(held->ParallelFor(3,
                                [&](int64_t i) {
                                  if (i == 0) {
                                    std::thread setter(
                                        [] { EXPECT_TRUE(SetThreads(1).ok()); });
                                    setter.join();
                                  }
                                  if (all_three.Arrive()) ++met;
                                  return Status::OK();
                                })
                  .ok());
  EXPECT_EQ(met.load(), 3);
  EXPECT_EQ(Threads(), 1);
  EXPECT_EQ(held->concurrency(), 3);
  // The held pool still runs on three threads; the new default on one.
  Rendezvous again(3);
  std::atomic<int> met_again{0};
  ASSERT_TRUE(held->ParallelFor(3,
                                [&](int64_t) {
                                  if (again.Arrive()) ++met_again;
                                  return Status::OK();
                                })
                  .ok());
  EXPECT_EQ(met_again.load(), 3);
  EXPECT_EQ(ThreadsUsed(*ThreadPool::Default(), 100).size(), 1u);
  ASSERT_TRUE(SetThreads(2).ok());
}

TEST(ConfigTest, ReplacingThePoolWhileOthersUseItIsSafe) {
  // Pools come and go under work that takes the default again and again;
  // ASan reports any use of a pool after it was freed.
  std::atomic<bool> stop{false};
  std::thread setter([&] {
    for (int k = 0; !stop.load(); ++k) EXPECT_TRUE(SetThreads(1 + k % 4).ok());
  });
  for (int round = 0; round < 200; ++round) {
    std::shared_ptr<ThreadPool> pool = ThreadPool::Default();
    std::atomic<int64_t> sum{0};
    ASSERT_TRUE(pool->ParallelFor(500,
                                  [&](int64_t i) {
                                    sum += i;
                                    return Status::OK();
                                  })
                    .ok());
    ASSERT_EQ(sum.load(), 500 * 499 / 2);
  }
  stop = true;
  setter.join();
  ASSERT_TRUE(SetThreads(2).ok());
}

TEST(ConfigTest, TheEnvironmentVariableMustBeAWholeNumberInRange) {
  EXPECT_EQ(*ParseThreadCount("1"), 1);
  EXPECT_EQ(*ParseThreadCount("12"), 12);
  EXPECT_EQ(*ParseThreadCount("1024"), kMaxThreads);
  for (const char* bad : {"", "0", "-2", "x", "3x", " 3", "3 ", "+3", "2.5", "1025",
                          "99999999999999999999"}) {
    Result<int> r = ParseThreadCount(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().message(), "TURBOZARR_NUM_THREADS='" + std::string(bad) +
                                        "' is not a whole number from 1 to 1024");
  }
}

}  // namespace
}  // namespace turbozarr
