#include "array/chunk_prefetch.h"

#include <unistd.h>

#include <algorithm>
#include <vector>

namespace turbozarr::internal {
namespace {

// Chunks hinted ahead of each reader at most and at least.
constexpr int kMaxDepth = 64;
constexpr int kMinDepth = 2;

// Bytes hinted ahead of all the readers of a read together: a virtual disk
// streams only while many megabytes are asked for at once (with 32 MiB
// ahead of each of two readers, 200 cold chunks of 5 MB took 1.4 times as
// long as with 128 MiB), yet hinted data must not crowd itself out of
// memory before it is read.
uint64_t BytesAhead() {
  static const uint64_t bytes = [] {
    constexpr uint64_t kMost = uint64_t{256} << 20;
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return kMost;
    return std::min(kMost,
                    static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 16);
  }();
  return bytes;
}

}  // namespace

int ChunkPrefetch::DepthFor(uint64_t chunk_bytes, int readers) {
  const uint64_t fit = BytesAhead() / static_cast<uint64_t>(std::max(readers, 1)) /
                       std::max<uint64_t>(chunk_bytes, 1);
  return static_cast<int>(std::clamp<uint64_t>(fit, kMinDepth, kMaxDepth));
}

ChunkPrefetch::ChunkPrefetch(Store& store, int64_t count, uint64_t chunk_bytes,
                             int readers, std::function<std::string(int64_t)> key_of)
    : store_(store),
      count_(count),
      depth_(DepthFor(chunk_bytes, readers)),
      key_of_(std::move(key_of)) {}

void ChunkPrefetch::Ahead(int64_t i) {
  if (count_ < 2 || !store_.WantsPrefetch()) return;
  std::call_once(made_, [&] {
    hinted_.reset(new std::atomic<uint8_t>[static_cast<size_t>(count_)]());
  });
  // Chunk i is being read: a hint for it would come too late.
  hinted_[i].store(1, std::memory_order_relaxed);
  // Top up only when the hinted run ahead has shrunk to half the depth, so
  // that hints go out in batches of about half the depth.
  const int64_t half = std::min(count_ - 1, i + (depth_ + 1) / 2);
  if (hinted_[half].load(std::memory_order_relaxed) != 0) return;
  std::vector<std::string> keys;
  const int64_t end = std::min(count_, i + 1 + depth_);
  for (int64_t j = i + 1; j < end; ++j) {
    if (hinted_[j].load(std::memory_order_relaxed) == 0 &&
        hinted_[j].exchange(1, std::memory_order_relaxed) == 0) {
      keys.push_back(key_of_(j));
    }
  }
  if (!keys.empty()) store_.Prefetch(keys);
}

}  // namespace turbozarr::internal
