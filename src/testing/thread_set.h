// ThreadSet: the distinct threads that passed a point, for tests that check
// which pool an operation ran on.
//
// Thread safety: every method may be called from many threads at once.
#pragma once

#include <mutex>
#include <set>
#include <thread>

namespace turbozarr::testing {

class ThreadSet {
 public:
  // Records the calling thread.
  void Add() {
    std::lock_guard<std::mutex> lock(mu_);
    threads_.insert(std::this_thread::get_id());
  }
  size_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return threads_.size();
  }
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    threads_.clear();
  }

 private:
  std::mutex mu_;
  std::set<std::thread::id> threads_;
};

}  // namespace turbozarr::testing
