// Reading and checking the stored chunks of the arrays `verify` walks
// (turbozarr/verify.h), at about the codecs' speed and with a bounded
// amount of bytes in memory:
// - from a local store (no requests in flight to fill) each thread reads
//   the chunk it decodes next, into a buffer it keeps, so reads overlap
//   decoding and at most one stored chunk per thread is held;
// - from a remote store chunks are fetched in windows of batched reads
//   (windowed_fetch.h: about 256 MiB at most) while the slice fetched
//   before is decoded on the pool.
// A sharded array with fewer shards than threads, or with shards of more
// than 64 MiB decoded, is read shard by shard, each shard's inner chunks
// decoded on all threads.
//
// Thread safety: CheckArrayChunks runs on the calling thread and the pool;
// a VerifyRun is shared by the threads of one Verify.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

#include "array/verify_walk.h"
#include "turbozarr/verify.h"
#include "util/thread_pool.h"

namespace turbozarr::internal {

// The progress of one Verify, and whether it must stop.
class VerifyRun {
 public:
  VerifyRun(const VerifyOptions& options, uint64_t chunks_total);

  // Counts a chunk checked (or found absent) and its stored bytes, and
  // reports progress now and then.
  void ChunkDone(uint64_t stored_bytes);
  // Records that something was found (stopping, when the options ask to).
  void Found();
  // True once the walk should end: cancelled, or stopping at a finding.
  bool stopping() const { return stop_.load(std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }
  // The last progress report, with everything counted.
  void Finish();

 private:
  void Report(bool final);

  const VerifyOptions& options_;
  const uint64_t total_;
  std::atomic<uint64_t> chunks_{0};
  std::atomic<uint64_t> bytes_{0};
  std::atomic<bool> stop_{false};
  std::atomic<bool> cancelled_{false};
  std::mutex report_mu_;  // one progress call at a time
  std::chrono::steady_clock::time_point last_report_{};
};

// Reads and checks every key of `target.chunk_keys`, adding to its report
// (chunks, bytes, findings in key order). Errors only when the store fails
// for a remote store (a local read error is a finding).
Status CheckArrayChunks(Store& store, ArrayTarget& target, ThreadPool& pool, VerifyRun& run);

}  // namespace turbozarr::internal
