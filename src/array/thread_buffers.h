// Buffers that each thread keeps between chunks, so that a read, write or
// verify of thousands of chunks allocates (and page-faults in) a buffer once
// per thread rather than once per chunk. A chunk larger than
// kKeepThreadBufferBytes gets a buffer of its own, or the kept one is
// dropped after it (TrimThreadBuffer), so that one huge chunk does not pin
// its size in memory for the life of the thread.
//
// Each use names its buffer with a tag type of its own, so that no use finds
// another's contents under it: a partial write decodes the stored chunk
// while its own scratch is in use.
//
// Thread safety: each thread has its own buffers.
#pragma once

#include <cstddef>

#include "turbozarr/buffer.h"

namespace turbozarr::internal {

inline constexpr size_t kKeepThreadBufferBytes = size_t{64} << 20;

// This thread's buffer for `Use`.
template <typename Use>
Buffer& ThreadBuffer() {
  thread_local Buffer buffer;
  return buffer;
}

// Frees `buffer`'s memory when it has grown past what is kept.
inline void TrimThreadBuffer(Buffer& buffer) {
  if (buffer.capacity() > kKeepThreadBufferBytes) buffer = Buffer();
}

}  // namespace turbozarr::internal
