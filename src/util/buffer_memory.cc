// The memory of Buffers (turbozarr/buffer.h): aligned blocks, the large ones
// recycled through a process-wide cache bounded in bytes.
#include <cstddef>
#include <map>
#include <mutex>
#include <new>
#include <vector>

#include "turbozarr/buffer.h"
#include "turbozarr/fork_safety.h"
#include "util/thread_annotations.h"

#if defined(__SANITIZE_ADDRESS__)
#define TZ_CACHE_BUFFERS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TZ_CACHE_BUFFERS 0
#endif
#endif
#ifndef TZ_CACHE_BUFFERS
#define TZ_CACHE_BUFFERS 1
#endif

namespace turbozarr::internal {
namespace {

// `n` rounded up to one of 8 sizes per power of two (at most 12.5% more),
// so that chunks of slightly different sizes share blocks.
size_t SizeClass(size_t n) {
  size_t top = size_t{1} << (63 - __builtin_clzll(n));
  const size_t step = top / 8;
  return (n + step - 1) / step * step;
}

// Freed large blocks by size, and their total. Only exact sizes are reused,
// so a small request never pins a much larger block. The lock is fork-safe
// and inner (turbozarr/fork_safety.h): stores free buffers under locks of their
// own, and a fork child must find the cache whole.
class BlockCache {
 public:
  std::byte* Take(size_t size) {
    std::lock_guard<ForkSafeMutex> lock(mu_);
    auto it = free_.find(size);
    if (it == free_.end() || it->second.empty()) return nullptr;
    std::byte* p = it->second.back();
    it->second.pop_back();
    bytes_ -= size;
    return p;
  }
  // False when the block does not fit within kBufferCacheBytes.
  bool Keep(std::byte* p, size_t size) {
    std::lock_guard<ForkSafeMutex> lock(mu_);
    if (bytes_ + size > kBufferCacheBytes) return false;
    free_[size].push_back(p);
    bytes_ += size;
    return true;
  }
  size_t bytes() {
    std::lock_guard<ForkSafeMutex> lock(mu_);
    return bytes_;
  }

 private:
  ForkSafeMutex mu_{ForkLockRank::kInner};
  std::map<size_t, std::vector<std::byte*>> free_ TZ_GUARDED_BY(mu_);
  size_t bytes_ TZ_GUARDED_BY(mu_) = 0;
};

// Never destroyed: Buffers held by static or thread-local objects may be
// freed after static destructors have run.
BlockCache& Cache() {
  static BlockCache* cache = new BlockCache;
  return *cache;
}

std::byte* NewBlock(size_t size) {
  return static_cast<std::byte*>(
      ::operator new[](size, std::align_val_t{kBufferAlignment}));
}

void DeleteBlock(std::byte* p) {
  ::operator delete[](p, std::align_val_t{kBufferAlignment});
}

}  // namespace

std::byte* AllocateBufferBytes(size_t& capacity) {
  if (!TZ_CACHE_BUFFERS || capacity < kPooledBufferBytes) return NewBlock(capacity);
  capacity = SizeClass(capacity);
  if (std::byte* p = Cache().Take(capacity)) return p;
  return NewBlock(capacity);
}

void FreeBufferBytes(std::byte* p, size_t capacity) noexcept {
  if (p == nullptr) return;
  if (TZ_CACHE_BUFFERS && capacity >= kPooledBufferBytes && Cache().Keep(p, capacity)) {
    return;
  }
  DeleteBlock(p);
}

size_t CachedBufferBytes() { return TZ_CACHE_BUFFERS ? Cache().bytes() : 0; }

}  // namespace turbozarr::internal
