// ThreadPool: a fixed set of worker threads and ParallelFor over an index
// range, the one executor that array reads and writes share.
//
// ParallelFor hands out [0, n) in contiguous batches (guided scheduling:
// each claim takes a quarter of the remaining items' fair share per thread,
// at least one), so that 20,000 cheap items cost a few dozen claims on a
// shared counter while the last, small batches still balance uneven items.
// The calling thread works too, so a pool of N threads plus the caller never
// oversubscribes N+1 cores. Each item runs with the codec-thread budget of
// the parallelism policy (util/parallelism.h).
//
// The process-wide pool (Default()) is sized by turbozarr/config.h. An
// operation (a read, a write) takes it once and holds the pointer until it
// ends, so that SetThreads can put a new pool in its place at any time: the
// operations running finish on the old pool, whose threads stop when the
// last of them lets go.
//
// Thread safety: all methods may be called from any thread. ParallelFor may
// be nested: an inner call made from inside an item (on a worker or on the
// calling thread) runs inline instead of waiting on threads that are busy
// with the outer call, also when the inner call is on another pool.
// A pool must not be destroyed by one of its own workers, which cannot
// happen while whoever started an item holds the pool until it returns.
//
// Fork: in a child made by fork() the parent's workers are gone. The first
// ParallelFor in the child abandons them and their queue (turbozarr/fork_safety.h)
// and starts as many new workers; until then, and in a child that drops the
// pool unused, nothing waits for the parent's.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <string_view>
#include <thread>
#include <vector>

#include "turbozarr/status.h"
#include "turbozarr/fork_safety.h"
#include "util/thread_annotations.h"

namespace turbozarr {

class ThreadPool {
 public:
  // `threads` workers besides the caller; 0 runs everything inline. Throws
  // std::system_error when the system cannot start them (none is left
  // running then).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_.load(std::memory_order_relaxed); }
  // Threads that work on one ParallelFor: the workers and the caller.
  int concurrency() const { return num_threads() + 1; }

  // Calls fn(i) for every i in [0, n); returns the first failure (by index)
  // after all started work has finished. Stops starting items after a
  // failure.
  Status ParallelFor(int64_t n, const std::function<Status(int64_t)>& fn);

  // The process-wide pool, of turbozarr/config.h's Threads() (workers plus
  // the caller); made on first use. Hold it for the whole operation.
  static std::shared_ptr<ThreadPool> Default();
  // The pool an operation runs on: `chosen` (its options' pool), else the
  // process-wide one. Hold it for the whole operation.
  static std::shared_ptr<ThreadPool> OrDefault(
      const std::shared_ptr<ThreadPool>& chosen) {
    return chosen ? chosen : Default();
  }

 private:
  // Starts `threads` workers; throws as the constructor.
  void StartWorkers(int threads);
  void WorkerLoop();
  // Stops the workers and waits for them.
  void Stop();
  // In a fork child: drops the parent's workers, queue, lock and condition
  // variable without waiting for or destroying any of them.
  void AbandonParentThreads();
  // In a fork child: abandons the parent's threads, then starts as many
  // workers as the system allows, up to as many as before.
  void RenewAfterFork();

  std::mutex mu_;
  std::condition_variable cv_;
  std::queue<std::function<void()>> tasks_ TZ_GUARDED_BY(mu_);
  bool stopping_ TZ_GUARDED_BY(mu_) = false;
  // Started by the constructor (or a renewal after fork), joined by Stop;
  // not changed in between.
  std::vector<std::thread> workers_;
  // workers_.size(), readable while a fork child renews workers_.
  std::atomic<int> num_threads_{0};
  internal::ForkEpoch epoch_;
};

// A value of TURBOZARR_NUM_THREADS as a thread count: InvalidArgument,
// naming the variable and the value, unless it is a whole number from 1 to
// kMaxThreads (turbozarr/config.h) with nothing around it.
Result<int> ParseThreadCount(std::string_view value);

}  // namespace turbozarr
