// Reads of unsharded arrays from remote stores (StoreCapabilities::
// requests_in_flight above the pool's threads), for one box or the many
// boxes of a gather at once: the chunks of every box are fetched together
// in windows of batched reads (windowed_fetch.h), the next window while this
// one decodes, each chunk once however many boxes it serves, and decoded
// into each of them on the pool. One request per pool thread at a time
// would leave a read waiting on round trips.
//
// Thread safety: as Array::Read.
#pragma once

#include <span>

#include "turbozarr/array.h"
#include "turbozarr/selection.h"
#include "util/thread_pool.h"

namespace turbozarr::internal {

// One box of a read: its selection, and the C-ordered block of
// selection->shape() elements it is read into.
struct BoxToRead {
  const Selection* selection;
  void* out;
};

// Reads `boxes` of `array`, whose chunks are not shards, as Array::Read
// does: a chunk that is not stored gives the fill value, or, unless
// `fill_missing_chunks`, MissingChunkError; errors name the array and the
// chunk's key. REQUIRES: every selection is valid for the array; empty ones
// are skipped.
Status ReadRemotely(const Array& array, std::span<const BoxToRead> boxes, ThreadPool& pool,
                    bool fill_missing_chunks);

}  // namespace turbozarr::internal
