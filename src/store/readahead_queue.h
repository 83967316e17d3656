// ReadaheadQueue: keys whose values a store should start reading in the
// background, and the few threads that start them.
//
// Starting a read of a file the page cache does not hold blocks on the
// disk: opening it may read its directory entry and inode, and only then
// can the kernel be asked to read the data ahead (posix_fadvise WILLNEED,
// which returns without waiting for the data). Done by the reading threads,
// those waits add up one after the other; done here, on threads that use
// no CPU while they wait, many of them overlap. The threads start with the
// first key pushed, so a process whose reads find their data cached never
// has them.
//
// Keys come in batches, and one batch wakes the threads once: a thread
// woken per key would cost about as much CPU as the key's own work when the
// files' metadata is cached. A full queue drops new keys: a hint is
// optional, and one that waits long would come after its read anyway.
//
// In a fork child the parent's threads are gone: the first Push there drops
// them and the keys they had queued (turbozarr/fork_safety.h), and starts threads
// anew.
//
// Thread safety: Push may be called from many threads at once. The
// destructor drops the keys still queued and waits for those being started.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "turbozarr/fork_safety.h"
#include "util/thread_annotations.h"

namespace turbozarr::internal {

class ReadaheadQueue {
 public:
  // `start` runs on the queue's threads, each key on one of them.
  ReadaheadQueue(int threads, size_t capacity,
                 std::function<void(std::string_view)> start);
  ~ReadaheadQueue();
  ReadaheadQueue(const ReadaheadQueue&) = delete;
  ReadaheadQueue& operator=(const ReadaheadQueue&) = delete;

  void Push(std::span<const std::string> keys);

 private:
  void Work();
  // In a fork child: forgets the parent's threads and keys without waiting
  // for or destroying them; the next Push starts threads again.
  void AbandonParentThreads();

  const int threads_;
  const size_t capacity_;
  const std::function<void(std::string_view)> start_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> keys_ TZ_GUARDED_BY(mu_);
  bool stopping_ TZ_GUARDED_BY(mu_) = false;
  bool started_ TZ_GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_ TZ_GUARDED_BY(mu_);
  ForkEpoch epoch_;
};

}  // namespace turbozarr::internal
