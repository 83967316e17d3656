// Re-encoding a shard inner chunk by inner chunk, for copies between two
// sharded arrays with the same shards, the same inner chunks and the same
// fill value (array_copy.h): each stored inner chunk of the source is decoded
// into a small reused buffer and encoded from there with the destination's
// codecs, and the encoded chunks are laid out as the destination's shard.
// The shard's elements are never put together in memory, so neither the
// scatter of inner chunks into a shard-sized buffer nor the gather back out
// of it is paid, and a thread holds one inner chunk decoded.
//
// What is stored is what Array::Write of the shard's elements stores: inner
// chunks missing from the source, or all fill value (unless
// write_empty_chunks), are left out, and a shard left with none is erased.
//
// Thread safety: safe to call from many threads at once for different
// shards; each thread keeps its own read and decode buffers.
#pragma once

#include "turbozarr/array.h"
#include "turbozarr/selection.h"
#include "turbozarr/status.h"

namespace turbozarr::internal {

// True when `source` and `dest` are both sharded (one sharding codec each)
// with the same shard shape, inner chunk shape, fixed-size data type and
// fill value bytes.
bool CanTranscodeShards(const Array& source, const Array& dest);

// Copies the shard `shard` (a projection of the whole array onto one shard,
// as PlanChunks gives it) from `source` to `dest`. Errors name the array and
// the shard's key (and the inner chunk, for a codec's error).
// REQUIRES: CanTranscodeShards(source, dest).
Status TranscodeShard(const Array& source, const Array& dest, const ChunkProjection& shard,
                      const WriteOptions& options);

}  // namespace turbozarr::internal
