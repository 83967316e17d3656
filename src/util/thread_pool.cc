#include "util/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <system_error>

#include "util/parallelism.h"

namespace turbozarr {
namespace {

// How many ParallelFor items this thread is inside; a ParallelFor called
// from inside one runs inline.
thread_local int tls_item_depth = 0;

// Marks the running thread as inside a ParallelFor item and gives it the
// item's codec budget.
class ItemScope {
 public:
  explicit ItemScope(int codec_threads) : budget_(codec_threads) { ++tls_item_depth; }
  ~ItemScope() { --tls_item_depth; }

 private:
  ScopedCodecThreads budget_;
};

}  // namespace

ThreadPool::ThreadPool(int threads) {
  try {
    StartWorkers(threads);
  } catch (...) {
    // A destructor does not run for an object whose constructor threw.
    Stop();
    throw;
  }
}

ThreadPool::~ThreadPool() {
  // In a fork child the parent's workers can be neither stopped nor joined.
  if (epoch_.Forked()) {
    AbandonParentThreads();
    return;
  }
  Stop();
}

void ThreadPool::StartWorkers(int threads) {
  for (int i = 0; i < threads; ++i) {
    workers_.emplace_back([this] { WorkerLoop(); });
    num_threads_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  }
}

void ThreadPool::AbandonParentThreads() {
  // Each may be mid-change by a thread the child does not have, and each
  // refers to threads that are not here: the workers wait on cv_ (whose
  // destructor would wait for them), and the tasks queued for them capture
  // the state of ParallelFor calls that their callers wait on in the parent.
  internal::ReplaceWithoutDestroying(workers_);
  internal::ReplaceWithoutDestroying(tasks_);
  internal::ReplaceWithoutDestroying(mu_);
  internal::ReplaceWithoutDestroying(cv_);
  stopping_ = false;
  num_threads_.store(0, std::memory_order_relaxed);
}

void ThreadPool::RenewAfterFork() {
  const int threads = num_threads();
  AbandonParentThreads();
  try {
    StartWorkers(threads);
  } catch (const std::system_error&) {
    // Fewer workers (or none, and then the caller alone) do the same work.
  }
}

void ThreadPool::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop();
    }
    task();
  }
}

Status ThreadPool::ParallelFor(int64_t n, const std::function<Status(int64_t)>& fn) {
  if (n <= 0) return Status::OK();
  epoch_.RenewIfForked([this] { RenewAfterFork(); });
  if (tls_item_depth > 0) {
    // Nested: the outer item's thread does the work, with the outer item's
    // codec budget.
    for (int64_t i = 0; i < n; ++i) TZ_RETURN_NOT_OK(fn(i));
    return Status::OK();
  }
  const int codec_threads = CodecThreadsPerItem(n, num_threads() + 1);
  if (num_threads() == 0 || n == 1) {
    ItemScope scope(codec_threads);
    for (int64_t i = 0; i < n; ++i) TZ_RETURN_NOT_OK(fn(i));
    return Status::OK();
  }

  const int helpers = static_cast<int>(std::min<int64_t>(num_threads(), n - 1));
  // Shared state for this call: workers and the caller claim batches from
  // `next`, in increasing order. After a failure at index f, no batch past f
  // is claimed and no item past f started, but every item below f that was
  // claimed still runs: so the failure returned is always the lowest failing
  // index, as a serial loop would report it.
  struct Shared {
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> error_index{INT64_MAX};
    std::mutex mu;
    std::condition_variable done_cv;
    int active = 0;
    Status error;
  };
  auto shared = std::make_shared<Shared>();
  const int64_t participants = helpers + 1;
  auto run = [shared, n, participants, codec_threads, &fn] {
    ItemScope scope(codec_threads);
    for (;;) {
      int64_t begin = shared->next.load(std::memory_order_relaxed);
      int64_t take = 0;
      do {
        if (begin >= std::min(n, shared->error_index.load(std::memory_order_relaxed))) {
          return;
        }
        take = std::max<int64_t>(1, (n - begin) / (4 * participants));
      } while (!shared->next.compare_exchange_weak(begin, begin + take,
                                                   std::memory_order_relaxed));
      for (int64_t i = begin; i < begin + take; ++i) {
        if (i > shared->error_index.load(std::memory_order_relaxed)) return;
        Status s = fn(i);
        if (!s.ok()) {
          std::lock_guard<std::mutex> lock(shared->mu);
          if (i < shared->error_index.load(std::memory_order_relaxed)) {
            shared->error_index = i;
            shared->error = std::move(s);
          }
          return;
        }
      }
    }
  };

  {
    std::lock_guard<std::mutex> lock(shared->mu);
    shared->active = helpers;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int h = 0; h < helpers; ++h) {
      tasks_.push([shared, run] {
        run();
        std::lock_guard<std::mutex> lock(shared->mu);
        if (--shared->active == 0) shared->done_cv.notify_all();
      });
    }
  }
  cv_.notify_all();
  run();
  std::unique_lock<std::mutex> lock(shared->mu);
  shared->done_cv.wait(lock, [&] { return shared->active == 0; });
  return shared->error;
}

}  // namespace turbozarr
