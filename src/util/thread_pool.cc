#include "util/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>

namespace turbozarr {
namespace {

thread_local bool tls_in_worker = false;

std::mutex& DefaultMutex() {
  static std::mutex mu;
  return mu;
}
std::unique_ptr<ThreadPool>& DefaultSlot() {
  static std::unique_ptr<ThreadPool> pool;
  return pool;
}

int ConcurrencyFromEnvironment() {
  if (const char* env = std::getenv("TURBOZARR_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n >= 1) return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::WorkerLoop() {
  tls_in_worker = true;
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
  if (workers_.empty() || n == 1 || tls_in_worker) {
    for (int64_t i = 0; i < n; ++i) TZ_RETURN_NOT_OK(fn(i));
    return Status::OK();
  }

  // Shared state for this call: workers and the caller claim items from
  // `next`; the first failure (lowest index) is kept.
  struct Shared {
    std::atomic<int64_t> next{0};
    std::atomic<bool> failed{false};
    std::mutex mu;
    std::condition_variable done_cv;
    int active = 0;
    int64_t error_index = INT64_MAX;
    Status error;
  };
  auto shared = std::make_shared<Shared>();
  auto run = [shared, n, &fn] {
    for (;;) {
      if (shared->failed.load(std::memory_order_relaxed)) break;
      int64_t i = shared->next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n) break;
      Status s = fn(i);
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(shared->mu);
        if (i < shared->error_index) {
          shared->error_index = i;
          shared->error = std::move(s);
        }
        shared->failed = true;
      }
    }
  };

  int helpers = static_cast<int>(std::min<int64_t>(num_threads(), n - 1));
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

ThreadPool& ThreadPool::Default() {
  std::lock_guard<std::mutex> lock(DefaultMutex());
  auto& slot = DefaultSlot();
  if (!slot) slot = std::make_unique<ThreadPool>(ConcurrencyFromEnvironment() - 1);
  return *slot;
}

int ThreadPool::DefaultConcurrency() { return Default().num_threads() + 1; }

void ThreadPool::SetDefaultConcurrency(int threads) {
  std::lock_guard<std::mutex> lock(DefaultMutex());
  DefaultSlot() = std::make_unique<ThreadPool>(std::max(1, threads) - 1);
}

}  // namespace turbozarr
