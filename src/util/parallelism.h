// The one parallelism policy: how the threads of a read or write are split
// between its items (chunks, or the inner chunks of shards) and the insides
// of a codec call (blosc's internal threads).
//
// With P threads in the pool (workers plus the calling thread, see
// ThreadPool::concurrency; turbozarr/config.h sets P for the default pool)
// and a ParallelFor over n items:
//
//  - items come first: min(n, P) items run at once, one per thread;
//  - when n < P, the threads that would sit idle go to the codecs: each item
//    may use floor(P / n) threads inside one codec call; with n >= P, one;
//  - a nested ParallelFor runs inline on the thread that called it (see
//    ThreadPool) and its items keep the budget of the item around them, so
//    nothing ever runs more than P threads at once.
//
// So a write of one big blosc chunk compresses with P blosc threads, a write
// of two such chunks with P/2 each, and a write of thousands of chunks, or
// of one shard's many inner chunks (planned as items of one ParallelFor),
// with one thread per chunk and no codec threads at all.
//
// ThreadPool::ParallelFor applies the policy; codecs ask for their budget
// with CodecThreads() and may use fewer threads when a call is too small to
// pay for starting them (blosc needs several blocks per thread).
// Independent ParallelFor calls from several application threads at once
// each assume the whole pool; that is the caller's oversubscription.
//
// Thread safety: the budget is per thread (thread_local); the functions are
// safe to call from any thread.
#pragma once

#include <cstdint>

namespace turbozarr {

// The threads a codec may use inside one call made from this thread: set by
// ThreadPool::ParallelFor for the item it runs; 1 outside any ParallelFor.
int CodecThreads();

// The budget each of `items` items gets when they run on `concurrency`
// threads: max(1, concurrency / items).
int CodecThreadsPerItem(int64_t items, int concurrency);

// Sets this thread's codec budget for the life of the object (for
// ParallelFor, and for tests).
class ScopedCodecThreads {
 public:
  explicit ScopedCodecThreads(int threads);
  ~ScopedCodecThreads();
  ScopedCodecThreads(const ScopedCodecThreads&) = delete;
  ScopedCodecThreads& operator=(const ScopedCodecThreads&) = delete;

 private:
  int saved_;
};

}  // namespace turbozarr
