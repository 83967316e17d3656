// Partial reads of sharded arrays. A shard is read the way a store of inner
// chunks would be: its index is fetched once with one ranged read, then only
// the inner chunks the selection touches, with byte ranges that lie close
// together in the shard merged into one read (util/range_merge.h).
//
//   indexes (in parallel over shards): fetch and decode each index, plan the
//     inner chunks the selection touches, fill the missing ones;
//   merging (caller): per shard, sort the needed byte ranges and merge
//     neighbours into range groups;
//   ranges (in parallel): fetch each group's bytes with one read, decode
//     each of its inner chunks into the caller's block (in place when it
//     maps onto a contiguous run of the block).
//
// Local stores take one Get per index and per group, one per pool thread at
// a time, and a group's inner chunks decode on the thread that fetched it.
// Remote stores (Store::PreferredRequestsInFlight above the pool's threads)
// take GetMany windows (windowed_fetch.h): the indexes of a window of
// shards in one GetMany, then the groups in windows of as many reads, the
// inner chunks of a fetched window decoding in parallel while the next
// window is on its way. A shard the selection covers whole (at most
// kMaxGroupBytes decoded) is fetched whole in the index window instead: one
// round trip rather than two.
//
// Thread safety: as Array::Read.
#pragma once

#include <cstdint>

#include "array/shard_plan.h"
#include "codec/sharding_codec.h"
#include "turbozarr/array.h"
#include "util/thread_pool.h"

namespace turbozarr::internal {

// Two needed byte ranges of a shard whose gap is at most this are fetched
// with one read, gap included. A read costs a system call and an open on a
// local store (several microseconds, the time to copy ~32-64 KiB from the
// page cache), a round trip on a remote one (milliseconds, the time to
// receive megabytes); below 64 KiB the wasted bytes never cost much more
// than the read they save, and they save far more on anything but a warm
// page cache.
inline constexpr uint64_t kMaxMergeGap = uint64_t{64} << 10;

// On local stores, merged reads grow up to max(kMinGroupBytes, needed bytes
// / (4 x threads)), never past kMaxGroupBytes, so that a large selection
// still leaves several groups per thread to balance over, while small
// selections are one read per shard. On remote stores, where the inner
// chunks of a fetched window are the parallel items, reads grow to
// kMaxGroupBytes: the HTTP and S3 stores' own merging (at its default 64 KiB
// gap and 16 MiB size) then finds nothing left to join and hands each
// answer over without a copy.
inline constexpr uint64_t kMinGroupBytes = uint64_t{1} << 20;
inline constexpr uint64_t kMaxGroupBytes = uint64_t{16} << 20;

// Reads `selection` of `array`, whose chain is `codec` alone, into `out` (as
// Array::Read), on `pool`. Missing shards and inner chunks whose index entry
// is empty read as the fill value. Errors name the array, the shard's key
// and, for an inner chunk, its coordinates in the shard.
// REQUIRES: selection is valid for the array and not empty.
Status ReadShardedSelection(const Array& array, const ShardingCodec& codec,
                            const Selection& selection, void* out, ThreadPool& pool);

}  // namespace turbozarr::internal
