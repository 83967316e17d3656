// Checking one stored chunk for `verify` (turbozarr/verify.h): its bytes
// decoded in full by the array's codecs, checksums checked and the decoded
// size the chunk's; a shard (a chain whose one codec is sharding_indexed)
// checked part by part, so that a damaged shard says which part is wrong:
// its index (size, crc32c), the byte ranges of its inner chunks (inside the
// shard's data and not overlapping one another), then every inner chunk,
// nested shards in turn.
//
// Thread safety: may run on many threads at once; each thread keeps its
// own scratch buffer between chunks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "turbozarr/buffer.h"
#include "turbozarr/codec.h"
#include "util/thread_pool.h"

namespace turbozarr::internal {

// At most this many problems are listed per stored chunk (a shard whose
// inner chunks all fail says so once more, with the count).
inline constexpr size_t kMaxProblemsPerChunk = 16;

struct ChunkCheck {
  uint64_t decoded_bytes = 0;
  // What is wrong, one message each; the caller names the chunk's key.
  std::vector<std::string> problems;
};

// Checks `bytes`, the stored value of a chunk coded by `chain`. A shard's
// inner chunks are decoded on `pool` (inline when called from one of its
// items).
ChunkCheck CheckStoredChunk(const CodecChain& chain, ByteView bytes, ThreadPool& pool);

}  // namespace turbozarr::internal
