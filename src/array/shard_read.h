// Partial reads of sharded arrays (one box, or the many boxes of a gather
// at once), as chunk reads from shard stores
// (codec/sharding/shard_store.h): each shard the selection touches is
// opened as a store of its inner chunks (its index fetched with one ranged
// read), and the inner chunks the selection touches are read and decoded by
// the ordinary chunk routes (chunk_decode.h), with byte ranges that lie
// close together in a shard merged into one read (ShardStore::MergeRuns).
// When the inner chunks are shards again (nested sharding), the inner
// shards the selection touches are opened in turn, reading their indexes
// from inside the outer shard, and so on down to chunks that are not
// shards: a partial read of a nested shard fetches only what it needs.
//
//   open (in parallel over shards): fetch and decode each index; fill the
//     selection's share of missing shards and of missing inner chunks;
//   merging (caller): per shard, sort the needed byte ranges and merge
//     neighbours into runs;
//   runs (in parallel): fetch each run's bytes with one read, decode each
//     of its inner chunks into the caller's block (in place when it maps
//     onto a contiguous run of the block).
//
// Local stores take one Get per index and per run, one per pool thread at a
// time, and a run's inner chunks decode on the thread that fetched it.
// Remote stores (StoreCapabilities::requests_in_flight above the pool's threads)
// take GetMany windows (windowed_fetch.h): the indexes of a window of shards
// in one GetMany, then the runs in windows of as many reads, the inner
// chunks of a fetched window decoding in parallel while the next window is
// on its way. A shard of chunks that are not shards, which the selection
// covers whole (at most kMaxGroupBytes decoded), is fetched whole in the
// index window instead: one round trip rather than two.
//
// Thread safety: as Array::Read.
#pragma once

#include <cstdint>
#include <span>

#include "array/remote_read.h"
#include "codec/sharding/sharded_chain.h"
#include "turbozarr/array.h"
#include "util/thread_pool.h"

namespace turbozarr::internal {

// On local stores, merged reads grow up to max(kMinGroupBytes, needed bytes
// / (4 x threads)), never past kMaxGroupBytes, so that a large selection
// still leaves several runs per thread to balance over, while small
// selections are one read per shard. On remote stores, where the inner
// chunks of a fetched window are the parallel items, reads grow to
// kMaxGroupBytes: the HTTP and S3 stores' own merging (at its default 64 KiB
// gap and 16 MiB size) then finds nothing left to join and hands each
// answer over without a copy.
inline constexpr uint64_t kMinGroupBytes = uint64_t{1} << 20;
inline constexpr uint64_t kMaxGroupBytes = uint64_t{16} << 20;

// What reading a chunk or shard that is not stored gives when
// ReadOptions::fill_missing_chunks is false (the caller adds the key).
Status MissingChunkError();

// Reads `selection` of `array`, whose chain is one sharding codec, into
// `out` (as Array::Read), on `pool`. On a rectilinear grid each shard shape
// has its chain (Array::ChunkChain), all with the same inner chunks. Inner
// chunks whose index entry is empty read as the fill value; missing shards
// too, or, unless `fill_missing_shards`, give MissingChunkError. Errors name
// the array, the shard's key and, for an inner chunk, its coordinates in
// the shard (in each shard down, for nested sharding).
// REQUIRES: selection is valid for the array and not empty.
Status ReadShardedSelection(const Array& array, const Selection& selection, void* out,
                            ThreadPool& pool, bool fill_missing_shards = true);

// The same for many boxes at once (a gather's): each shard any box touches
// is opened once, and the inner chunks that all boxes need of a shard are
// fetched together, neighbours merged into one read as for one box (an
// inner chunk two boxes need is fetched once and decoded into each).
// REQUIRES: every selection is valid for the array; empty ones are skipped.
Status ReadShardedBoxes(const Array& array, std::span<const BoxToRead> boxes,
                        ThreadPool& pool, bool fill_missing_shards = true);

}  // namespace turbozarr::internal
