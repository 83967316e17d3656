// Writes to sharded arrays. The inner chunks of every shard a selection
// touches are the items of one ParallelFor, so a write of one shard keeps
// every core busy and a write of many shards does too, with no nested
// parallelism; each shard is stored with one Set as soon as its last inner
// chunk is encoded.
//
//   planning (caller): per touched shard, how many inner chunks the
//     selection touches (their projections are built later, per shard);
//   items (in parallel, shard after shard): the first item of a shard to run
//     plans its inner chunks and, when the selection covers only part of the
//     shard, reads the stored shard with one Get and opens it
//     (ShardStore::FromBytes); each item encodes one touched inner chunk
//     (chunk_encode.h), decoding its stored bytes first when the selection
//     covers only part of it;
//   assembly (by whichever item of a shard finishes last): the shard's
//     ShardWriter (codec/sharding/shard_writer.h) keeps the untouched inner
//     chunks' stored bytes as they are and takes the touched ones' new bytes
//     (none when all fill value, unless write_empty_chunks); the shard is
//     stored with one Set, or erased when no inner chunk is left.
//
// Memory: a shard's old bytes and encoded inner chunks live only from its
// first item to its assembly; since threads take contiguous runs of items,
// only a few shards per thread are in flight at once.
//
// A partial write reads the whole stored shard in one Get rather than its
// index and then the inner chunks it keeps: the new shard needs the bytes of
// every untouched inner chunk, which is nearly all of them in a partial
// write, so the ranged reads would fetch almost the same bytes with at least
// one more round trip.
//
// Nested sharding (inner chunks that are shards again) is written inner
// shard by inner shard, each coded whole by its chain.
//
// Errors name the array, the shard's key and, for an inner chunk, its
// coordinates in the shard. A failure stops the write; a shard with a failed
// inner chunk is never stored, so no shard is left half written (shards
// finished before the failure stay written, as chunks do in an unsharded
// array).
//
// Thread safety: as Array::Write.
#pragma once

#include "codec/sharding/sharded_chain.h"
#include "turbozarr/array.h"
#include "util/thread_pool.h"

namespace turbozarr::internal {

// Writes `src` into `selection` of `array`, whose chain is one sharding
// codec (as Array::Write), on `pool`. On a rectilinear grid each shard shape
// has its chain (Array::ChunkChain), all with the same inner chunks.
// REQUIRES: selection is valid for the array and not empty, and the store is
// writable.
Status WriteShardedSelection(const Array& array, const Selection& selection, const void* src,
                             const WriteOptions& options, ThreadPool& pool);

}  // namespace turbozarr::internal
