#include "store/readahead_queue.h"

#include <system_error>

namespace turbozarr::internal {

ReadaheadQueue::ReadaheadQueue(int threads, size_t capacity,
                               std::function<void(std::string_view)> start)
    : threads_(threads), capacity_(capacity), start_(std::move(start)) {}

ReadaheadQueue::~ReadaheadQueue() {
  if (epoch_.Forked()) {
    AbandonParentThreads();
    return;
  }
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    keys_.clear();
    workers.swap(workers_);
  }
  cv_.notify_all();
  for (std::thread& t : workers) t.join();
}

void ReadaheadQueue::AbandonParentThreads() {
  // The threads wait on cv_, whose destructor would wait for them.
  ReplaceWithoutDestroying(workers_);
  ReplaceWithoutDestroying(keys_);
  ReplaceWithoutDestroying(mu_);
  ReplaceWithoutDestroying(cv_);
  stopping_ = false;
  started_ = false;
}

void ReadaheadQueue::Push(std::span<const std::string> keys) {
  epoch_.RenewIfForked([this] { AbandonParentThreads(); });
  size_t queued = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    for (const std::string& key : keys) {
      if (keys_.size() >= capacity_) break;
      keys_.push_back(key);
      ++queued;
    }
    if (queued == 0) return;
    if (!started_) {
      started_ = true;
      for (int i = 0; i < threads_; ++i) {
        try {
          workers_.emplace_back([this] { Work(); });
        } catch (const std::system_error&) {
          break;  // hints are optional; the threads started will do
        }
      }
    }
  }
  if (queued == 1) {
    cv_.notify_one();
  } else {
    cv_.notify_all();
  }
}

void ReadaheadQueue::Work() {
  for (;;) {
    std::string key;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !keys_.empty(); });
      if (stopping_) return;
      key = std::move(keys_.front());
      keys_.pop_front();
    }
    start_(key);
  }
}

}  // namespace turbozarr::internal
