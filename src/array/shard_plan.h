// Planning reads and writes over the inner grid of shards: which inner
// chunks of a shard a selection touches, and where their share of it lies
// in the caller's block. The array pipeline reads and writes a sharded
// array as chunks of that grid (shard_read.h, shard_write.h); with nested
// sharding the same planning applies again inside each inner shard.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "turbozarr/chunk_grid.h"
#include "turbozarr/selection.h"

namespace turbozarr::internal {

// The extent of the chunk at `coords` of a grid of `chunk_shape` over a
// region of `extent` (the array, or an outer shard as clipped by the
// array's edge): the chunk's shape, clipped where the region ends.
std::vector<int64_t> ChunkExtent(const std::vector<int64_t>& coords,
                                 const std::vector<int64_t>& chunk_shape,
                                 const std::vector<int64_t>& extent);

// The same for the chunk at `coords` of `grid` (regular or rectilinear).
std::vector<int64_t> ChunkExtent(const std::vector<int64_t>& coords, const ChunkGrid& grid,
                                 const std::vector<int64_t>& extent);

// The inner-chunk projections of shard projection `sp`, a shard whose part
// inside the array is `shard_extent`, over inner chunks of `inner_shape`, in
// C order of inner-chunk coordinates, with out_start moved into the caller's
// block. A shard at the array's edge is stored whole, but only its part
// inside the array can be selected; covers_chunk means every element of the
// inner chunk inside the array is selected.
std::vector<ChunkProjection> PlanInnerChunks(const ChunkProjection& sp,
                                             const std::vector<int64_t>& shard_extent,
                                             const std::vector<int64_t>& inner_shape);

// How many inner chunks PlanInnerChunks would return, without building them.
int64_t CountInnerChunks(const ChunkProjection& sp,
                         const std::vector<int64_t>& shard_extent,
                         const std::vector<int64_t>& inner_shape);

}  // namespace turbozarr::internal
