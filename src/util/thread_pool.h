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
// Thread safety: all methods may be called from any thread. ParallelFor may
// be nested: an inner call made from inside an item (on a worker or on the
// calling thread) runs inline instead of waiting on threads that are busy
// with the outer call.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

#include "turbozarr/status.h"

namespace turbozarr {

class ThreadPool {
 public:
  // `threads` workers besides the caller; 0 runs everything inline.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()); }

  // Calls fn(i) for every i in [0, n); returns the first failure (by index)
  // after all started work has finished. Stops starting items after a
  // failure.
  Status ParallelFor(int64_t n, const std::function<Status(int64_t)>& fn);

  // The process-wide pool, sized from TURBOZARR_NUM_THREADS or the number of
  // cores (minus one for the calling thread).
  static ThreadPool& Default();
  // Total threads that work on a ParallelFor (workers + caller).
  static int DefaultConcurrency();
  // Replaces the default pool's size; REQUIRES: no work in flight.
  static void SetDefaultConcurrency(int threads);

 private:
  void WorkerLoop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::queue<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace turbozarr
