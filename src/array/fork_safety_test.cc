// Reads and writes in a child made by fork() after the parent used the
// library: the process-wide pool, a pool of the caller's own, local and
// memory stores, an HTTP store whose driver thread and connections the
// parent started, and a block iterator the parent left half consumed. Each
// child runs under alarm(), so a regression (a child waiting for one of the
// parent's threads or locks) fails the test instead of hanging it.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "testing/int32_array_fixtures.h"
#include "testing/nginx_server.h"
#include "turbozarr/array.h"
#include "turbozarr/block_iterator.h"
#include "turbozarr/config.h"
#include "turbozarr/remote_store.h"
#include "turbozarr/store_wrappers.h"
#include "turbozarr/fork_safety.h"

namespace turbozarr {
namespace {

using namespace fixtures;  // NOLINT: the shared test fixtures
namespace fs = std::filesystem;

// Seconds a child may take before SIGALRM ends it.
constexpr unsigned kChildDeadline = 30;

#if defined(__SANITIZE_ADDRESS__)
// Waits (up to 10 s) until every other thread of this process has been
// asleep for a few samples in a row. GCC 12's AddressSanitizer takes no
// allocator locks around fork(): a child forked while another thread is
// inside malloc waits forever on the copy of its lock. The library's own
// fork handling is what these tests check, not the sanitizer's, so under
// it they fork only once the parent's threads are parked.
void WaitUntilOtherThreadsSleep() {
  const std::string self = std::to_string(::gettid());
  int quiet_samples = 0;
  for (int i = 0; i < 1000 && quiet_samples < 5; ++i) {
    bool all_asleep = true;
    for (const auto& task : fs::directory_iterator("/proc/self/task")) {
      if (task.path().filename() == self) continue;
      std::FILE* f = std::fopen((task.path() / "stat").c_str(), "r");
      if (f == nullptr) continue;  // the thread has just ended
      char line[512] = {};
      const size_t n = std::fread(line, 1, sizeof(line) - 1, f);
      std::fclose(f);
      // The state follows the ")" that closes the thread's name.
      const char* close = std::strrchr(line, ')');
      if (n == 0 || close == nullptr || close[1] == '\0' || close[2] != 'S') {
        all_asleep = false;
        break;
      }
    }
    quiet_samples = all_asleep ? quiet_samples + 1 : 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}
#endif

// Runs `body` in a forked child: "" is success, anything else a failure the
// child prints. The child leaves with _exit, as multiprocessing's do: static
// destructors would also stop the parent's nginx. Returns "" or why the
// child failed.
std::string InChild(const std::function<std::string()>& body) {
  std::fflush(nullptr);  // nothing buffered is written twice
#if defined(__SANITIZE_ADDRESS__)
  WaitUntilOtherThreadsSleep();
#endif
  const pid_t pid = ::fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    ::alarm(kChildDeadline);
    const std::string failure = body();
    if (!failure.empty()) std::fprintf(stderr, "child: %s\n", failure.c_str());
    ::_exit(failure.empty() ? 0 : 1);
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return "waitpid failed";
  if (WIFSIGNALED(status)) {
    return WTERMSIG(status) == SIGALRM
               ? "the child hung"
               : "the child died of signal " + std::to_string(WTERMSIG(status));
  }
  if (WEXITSTATUS(status) != 0) return "the child failed (see its message above)";
  return "";
}

// Why `a` does not hold `expected` everywhere, read on `pool` (null: the
// process-wide one), or "".
std::string CheckRead(const Array& a, const std::vector<int32_t>& expected,
                      std::shared_ptr<ThreadPool> pool = nullptr) {
  std::vector<int32_t> got(expected.size(), 0);
  ReadOptions options;
  options.pool = std::move(pool);
  Status s = a.Read(Selection::All(a.shape()), got, options);
  if (!s.ok()) return s.ToString();
  if (got != expected) return a.Describe() + ": read values that differ";
  return "";
}

// Writes `values` to all of `a` on `pool`, then reads them back.
std::string WriteAndCheck(Array& a, const std::vector<int32_t>& values,
                          std::shared_ptr<ThreadPool> pool = nullptr) {
  WriteOptions options;
  options.pool = pool;
  Status s = a.Write(Selection::All(a.shape()), values.data(), options);
  if (!s.ok()) return s.ToString();
  return CheckRead(a, values, std::move(pool));
}

const std::vector<int64_t> kShape = {96, 80};  // 12 x 10 chunks of 8 x 8

std::shared_ptr<Array> MakeArray(std::shared_ptr<Store> store, const std::string& path,
                                 const std::vector<int32_t>& values) {
  auto a = Array::Create(std::move(store), path,
                         Int32Metadata(kShape, {8, 8}, json::array({kLittle, kZstd})));
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  if (!a.ok()) return nullptr;
  EXPECT_TRUE((*a)->Write(Selection::All(kShape), values.data()).ok());
  return *a;
}

class ForkSafetyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(SetThreads(4).ok());
    dir_ = fs::temp_directory_path() / ("tz-fork-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    auto local = MakeLocalStore(dir_.string());
    ASSERT_TRUE(local.ok()) << local.status().ToString();
    local_ = *local;
    memory_ = MakeMemoryStore();
    auto pool = MakeThreadPool(3);
    ASSERT_TRUE(pool.ok());
    pool_ = *pool;
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  std::shared_ptr<Store> local_;
  std::shared_ptr<Store> memory_;
  std::shared_ptr<ThreadPool> pool_;
};

TEST_F(ForkSafetyTest, ChildReadsAndWritesOnTheDefaultPoolAndItsOwn) {
  const std::vector<int32_t> before = Pattern(NumElements(kShape), 1);
  const std::vector<int32_t> after = Pattern(NumElements(kShape), 2);
  auto local = MakeArray(local_, "a", before);
  auto memory = MakeArray(memory_, "a", before);
  ASSERT_TRUE(local && memory);
  // Both pools have run work, so their workers wait for more.
  ASSERT_EQ(CheckRead(*local, before), "");
  ASSERT_EQ(CheckRead(*memory, before, pool_), "");

  EXPECT_EQ(InChild([&]() -> std::string {
              for (Array* a : {local.get(), memory.get()}) {
                for (const auto& pool : {std::shared_ptr<ThreadPool>(), pool_}) {
                  if (auto why = CheckRead(*a, before, pool); !why.empty()) return why;
                }
              }
              if (Threads() != 4) return "the pool lost its size";
              if (auto why = WriteAndCheck(*local, after); !why.empty()) return why;
              if (auto why = WriteAndCheck(*memory, after, pool_); !why.empty()) {
                return why;
              }
              // A grandchild renews the renewed objects once more.
              return InChild([&] {
                if (auto why = CheckRead(*memory, after); !why.empty()) return why;
                return WriteAndCheck(*local, before, pool_);
              });
            }),
            "");

  // The parent's memory store is its own; the directory is shared, and the
  // grandchild wrote `before` back last.
  EXPECT_EQ(CheckRead(*memory, before, pool_), "");
  EXPECT_EQ(CheckRead(*local, before), "");
  EXPECT_EQ(WriteAndCheck(*memory, after), "");
}

TEST_F(ForkSafetyTest, ChildFindsNoLockHeldByThreadsBusyAtTheFork) {
#if defined(__SANITIZE_ADDRESS__)
  // GCC 12's AddressSanitizer has no fork handlers for its allocator: a
  // child whose fork caught another thread inside malloc waits forever.
  GTEST_SKIP() << "the sanitizer's allocator is not fork-safe";
#endif
  const std::vector<int32_t> values = Pattern(NumElements(kShape), 3);
  auto memory = MakeArray(memory_, "a", values);
  auto cached = MakeArray(MakeCachingStore(local_, 1 << 20), "b", values);
  ASSERT_TRUE(memory && cached);
  // Two threads read and write through both pools, the stores' locks and
  // the buffer cache while the main thread forks, so that some forks find
  // them inside their locks.
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> busy;
  for (int t = 0; t < 2; ++t) {
    busy.emplace_back([&, t] {
      Array& a = t == 0 ? *memory : *cached;
      auto pool = t == 0 ? pool_ : nullptr;
      while (!stop.load()) {
        if (!WriteAndCheck(a, values, pool).empty()) ++failures;
      }
    });
  }
  for (int i = 0; i < 20; ++i) {
    const std::string failure = InChild([&]() -> std::string {
      if (auto why = WriteAndCheck(*memory, values); !why.empty()) return why;
      return WriteAndCheck(*cached, values, pool_);
    });
    EXPECT_EQ(failure, "") << "fork " << i;
    if (!failure.empty()) break;
  }
  stop = true;
  for (std::thread& t : busy) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(ForkSafetyTest, ChildGoesOnWithAHalfConsumedBlockIterator) {
  const std::vector<int32_t> values = Pattern(NumElements(kShape), 4);
  auto a = MakeArray(local_, "a", values);
  ASSERT_TRUE(a);
  IterateOptions options;
  options.block_shape = {8, 80};  // 12 blocks of one row of chunks
  options.readahead_bytes = 3 * 8 * 80 * 4;
  auto made = BlockIterator::Make(a, Selection::All(kShape), options);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  BlockIterator& it = *made;
  ASSERT_EQ(it.num_blocks(), 12);

  // Whether the next `count` blocks (all if -1) hold the array's values.
  auto consume = [&](int count) -> std::string {
    for (int i = 0; count < 0 || i < count; ++i) {
      Result<std::optional<Block>> next = it.Next();
      if (!next.ok()) return next.status().ToString();
      if (!next->has_value()) return count < 0 ? "" : "ended early";
      const Block& b = **next;
      const int64_t row0 = b.selection.dims()[0].start;
      const int32_t* got = reinterpret_cast<const int32_t*>(b.data.data());
      if (!std::equal(got, got + 8 * 80, values.begin() + row0 * 80)) {
        return "block " + std::to_string(b.index) + " differs";
      }
    }
    return "";
  };
  ASSERT_EQ(consume(6), "");
  // In the child the lanes are gone, with whatever they were reading.
  EXPECT_EQ(InChild([&] { return consume(-1); }), "");
  // The parent's copy goes on with its own lanes.
  EXPECT_EQ(consume(-1), "");
}

TEST_F(ForkSafetyTest, ChildDropsWhatHoldsTheParentsThreadsWithoutWaiting) {
  const std::vector<int32_t> values = Pattern(NumElements(kShape), 5);
  auto a = MakeArray(local_, "a", values);
  ASSERT_TRUE(a);
  ASSERT_EQ(CheckRead(*a, values, pool_), "");
  IterateOptions options;
  options.readahead_bytes = 8 * 80 * 4;
  options.block_shape = {8, 80};
  auto made = BlockIterator::Make(a, Selection::All(kShape), options);
  ASSERT_TRUE(made.ok());
  std::optional<BlockIterator> it(std::move(*made));
  ASSERT_TRUE(it->Next().ok());
  // Unused in the child, each still holds the parent's threads: a join, or
  // a wait for the condition variables they sleep on, would never return.
  EXPECT_EQ(InChild([&] {
              it.reset();
              pool_.reset();
              // Drops the process-wide pool of four.
              if (!SetThreads(2).ok()) return std::string("SetThreads failed");
              return CheckRead(*a, values);
            }),
            "");
  EXPECT_EQ(CheckRead(*a, values, pool_), "");
}

TEST_F(ForkSafetyTest, ChildReadsThroughTheParentsHttpStore) {
  Result<NginxServer*> nginx = SharedNginx();
  ASSERT_TRUE(nginx.ok()) << nginx.status().ToString();
  std::string dir = (*nginx)->root() + "/fork-XXXXXX";
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  auto served = MakeLocalStore(dir);
  ASSERT_TRUE(served.ok());
  const std::vector<int32_t> values = Pattern(NumElements(kShape), 6);
  ASSERT_TRUE(MakeArray(*served, "a", values));
  auto http = MakeHttpStore((*nginx)->url() + "/" + fs::path(dir).filename().string());
  ASSERT_TRUE(http.ok()) << http.status().ToString();
  auto a = Array::Open(*http, "a");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  // The driver thread runs and keeps connections open to nginx.
  ASSERT_EQ(CheckRead(**a, values), "");

  EXPECT_EQ(InChild([&]() -> std::string {
              if (auto why = CheckRead(**a, values, pool_); !why.empty()) return why;
              return CheckRead(**a, values);
            }),
            "");
  // The parent's connections were left alone.
  EXPECT_EQ(CheckRead(**a, values), "");
}

// A mutex held by another thread at the fork: fork waits for it, so the
// child's copy is unlocked (a plain std::mutex would stay locked there).
TEST(ForkSafeMutexTest, ForkWaitsForAHolderAndTheChildCanLock) {
  internal::ForkSafeMutex mu;
  std::atomic<bool> held{false};
  int value = 0;
  std::thread holder([&] {
    std::lock_guard<internal::ForkSafeMutex> lock(mu);
    held = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    value = 42;  // written under the lock, so the child must see it
  });
  while (!held) std::this_thread::yield();
  EXPECT_EQ(InChild([&]() -> std::string {
              std::lock_guard<internal::ForkSafeMutex> lock(mu);
              return value == 42 ? "" : "the fork copied the data mid-change";
            }),
            "");
  holder.join();
  // And the parent's is unlocked again.
  EXPECT_TRUE(mu.try_lock());
  mu.unlock();
}

}  // namespace
}  // namespace turbozarr
