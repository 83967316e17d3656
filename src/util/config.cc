// The process-wide thread pool behind turbozarr/config.h: one shared_ptr
// slot under a mutex. ThreadPool::Default() copies the pointer (once per
// operation, so the lock is never hot) and SetThreads swaps in a new pool;
// the old one is destroyed by whoever drops the last pointer to it, which is
// SetThreads itself when no operation holds it. The mutex is fork-safe
// (turbozarr/fork_safety.h): a fork child finds the slot whole, and the pool in it
// starts new workers at its first use there.
#include "turbozarr/config.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "turbozarr/fork_safety.h"
#include "util/thread_pool.h"

namespace turbozarr {
namespace {

constexpr const char* kEnvironmentVariable = "TURBOZARR_NUM_THREADS";

// Never destroyed, like the pool it guards (operations on other threads may
// outlive static destructors).
internal::ForkSafeMutex& PoolMutex() {
  static auto* mu = new internal::ForkSafeMutex(internal::ForkLockRank::kOuter);
  return *mu;
}

// REQUIRES: PoolMutex() held.
std::shared_ptr<ThreadPool>& PoolSlot() {
  static std::shared_ptr<ThreadPool> pool;
  return pool;
}

int CoreCount() {
  return std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1,
                    kMaxThreads);
}

// The size of the first pool: TURBOZARR_NUM_THREADS if usable, else the
// cores, with a warning when the variable is set but not usable (as OpenMP
// runtimes treat OMP_NUM_THREADS).
int DefaultThreads() {
  const char* env = std::getenv(kEnvironmentVariable);
  if (env == nullptr || *env == '\0') return CoreCount();
  Result<int> n = ParseThreadCount(env);
  if (n.ok()) return *n;
  std::fprintf(stderr, "turbozarr: warning: %s; using one thread per core (%d)\n",
               n.status().message().c_str(), CoreCount());
  return CoreCount();
}

}  // namespace

Result<int> ParseThreadCount(std::string_view value) {
  int n = 0;
  const char* end = value.data() + value.size();
  auto [stop, ec] = std::from_chars(value.data(), end, n);
  if (value.empty() || ec != std::errc() || stop != end || n < 1 || n > kMaxThreads) {
    return Status::InvalidArgument(
        std::string(kEnvironmentVariable) + "='" + std::string(value) +
        "' is not a whole number from 1 to " + std::to_string(kMaxThreads));
  }
  return n;
}

std::shared_ptr<ThreadPool> ThreadPool::Default() {
  std::lock_guard<internal::ForkSafeMutex> lock(PoolMutex());
  std::shared_ptr<ThreadPool>& slot = PoolSlot();
  if (!slot) {
    const int threads = DefaultThreads();
    try {
      slot = std::make_shared<ThreadPool>(threads - 1);
    } catch (const std::system_error& e) {
      // Reads and writes still work, on the calling thread alone.
      std::fprintf(stderr,
                   "turbozarr: warning: cannot start %d threads (%s); using one\n",
                   threads - 1, e.what());
      slot = std::make_shared<ThreadPool>(0);
    }
  }
  return slot;
}

int Threads() { return ThreadPool::Default()->concurrency(); }

namespace {

Status CheckThreadCount(int threads) {
  if (threads >= 1 && threads <= kMaxThreads) return Status::OK();
  return Status::InvalidArgument("the thread count must be from 1 to " +
                                 std::to_string(kMaxThreads) + ", not " +
                                 std::to_string(threads));
}

Result<std::shared_ptr<ThreadPool>> StartPool(int threads) {
  try {
    return std::make_shared<ThreadPool>(threads - 1);
  } catch (const std::system_error& e) {
    return Status::IOError("cannot start " + std::to_string(threads - 1) +
                           " worker threads: " + e.what());
  }
}

}  // namespace

Result<std::shared_ptr<ThreadPool>> MakeThreadPool(int threads) {
  TZ_RETURN_NOT_OK(CheckThreadCount(threads));
  return StartPool(threads);
}

Status SetThreads(int threads) {
  TZ_RETURN_NOT_OK(CheckThreadCount(threads));
  {
    std::lock_guard<internal::ForkSafeMutex> lock(PoolMutex());
    const std::shared_ptr<ThreadPool>& slot = PoolSlot();
    if (slot && slot->concurrency() == threads) return Status::OK();
  }
  // Started outside the lock, so that operations starting meanwhile do not
  // wait for the new threads.
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<ThreadPool> fresh, StartPool(threads));
  std::shared_ptr<ThreadPool> old;
  {
    std::lock_guard<internal::ForkSafeMutex> lock(PoolMutex());
    old = std::exchange(PoolSlot(), std::move(fresh));
  }
  // `old` is released here, outside the lock: if no operation holds it, its
  // threads are joined on this thread without keeping Default() waiting.
  return Status::OK();
}

}  // namespace turbozarr
