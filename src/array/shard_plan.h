// Planning reads and writes of sharded arrays: which inner chunks of a shard
// a selection touches, and where their share of it lies in the caller's
// block. Shared by the sharded read (shard_read.h) and write (shard_write.h)
// paths.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "codec/sharding_codec.h"
#include "turbozarr/metadata.h"
#include "turbozarr/selection.h"

namespace turbozarr::internal {

// The chain's sharding codec when the chain is one sharding_indexed codec
// with no other codec around it (the usual layout); else null, and reads and
// writes code whole shards through the chain.
const ShardingCodec* SoleShardingCodec(const CodecChain& chain);

// The inner-chunk projections of shard projection `sp` (a shard of array
// `m`, inner chunks of `inner_shape`), in C order of inner-chunk
// coordinates, with out_start moved into the caller's block. A shard at the
// array's edge is stored whole, but only its part inside the array can be
// selected; covers_chunk means every element of the inner chunk inside the
// array is selected.
std::vector<ChunkProjection> PlanInnerChunks(const ChunkProjection& sp,
                                             const ArrayMetadata& m,
                                             const std::vector<int64_t>& inner_shape);

// How many inner chunks PlanInnerChunks would return, without building them.
int64_t CountInnerChunks(const ChunkProjection& sp, const ArrayMetadata& m,
                         const std::vector<int64_t>& inner_shape);

// The C-order position of inner chunk `ip` in its shard.
int64_t InnerChunkLinear(const ChunkProjection& ip,
                         const std::vector<int64_t>& chunks_per_shard);

}  // namespace turbozarr::internal
