// ChunkPrefetch: hints to the store about the chunks a read reaches next, so
// that a store whose reads wait on a device (a local disk with a cold page
// cache) keeps many requests in flight while each of the pool's few threads
// waits on one.
//
// The pool hands the chunks of a plan out in contiguous runs (guided
// batches, see util/thread_pool.h), so a reader about to read chunk i will
// most likely read i+1, i+2, ... next: Ahead(i) keeps the chunks up to
// `depth` past i hinted, in batches (a new one when fewer than half the
// depth are left hinted ahead), each chunk once per read, whichever reader
// gets there first. Hints are prepared only while the store wants them
// (Store::WantsPrefetch), so a read of cached data pays one cheap call per
// chunk and no key is formatted.
//
// Thread safety: Ahead may be called from many threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "turbozarr/store.h"

namespace turbozarr::internal {

class ChunkPrefetch {
 public:
  // Chunks 0..count-1 of a read by `readers` threads, chunk j stored under
  // key_of(j), each about `chunk_bytes` bytes when decoded (which bounds
  // what is hinted ahead: fewer big chunks than small ones).
  ChunkPrefetch(Store& store, int64_t count, uint64_t chunk_bytes, int readers,
                std::function<std::string(int64_t)> key_of);

  // Called by a reader about to read chunk i.
  void Ahead(int64_t i);

  // Chunks hinted ahead of each reader.
  int depth() const { return depth_; }

  // Chunks ahead of each of `readers` readers for chunks of `chunk_bytes`
  // bytes: 2 to 64, as many as fit a share of a budget of bytes for the
  // whole read (256 MiB, or 1/16 of the memory if that is less).
  static int DepthFor(uint64_t chunk_bytes, int readers);

 private:
  Store& store_;
  const int64_t count_;
  const int depth_;
  const std::function<std::string(int64_t)> key_of_;
  // hinted_[j] != 0 once chunk j was hinted or reached; made on first use.
  std::once_flag made_;
  std::unique_ptr<std::atomic<uint8_t>[]> hinted_;
};

}  // namespace turbozarr::internal
