// Reading from remote stores in windows: items (chunks, shard indexes,
// merged ranges of shards) are fetched one read each, a window of them with
// one GetMany (which a remote store keeps in flight together), and the next
// window is already being fetched, on a thread of its own, while the caller
// works on the current one. So round trips overlap decoding instead of
// adding to it, and at most two windows of fetched bytes are held.
//
// Array reads use it when the store serves more requests at once than there
// are reading threads (Store::PreferredRequestsInFlight): chunks of an
// unsharded array, and the indexes and then the merged inner-chunk ranges of
// sharded ones (shard_read.h).
//
// Thread safety: FetchInWindows calls `read_of` and `use` on the calling
// thread only (`use` may run a ParallelFor); the store is called from a
// background thread.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "turbozarr/buffer.h"
#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr::internal {

// The read that fetches item `i`.
using ReadOf = std::function<KeyRange(size_t i)>;
// Works on the window of items [first, first + reads.size()): their reads
// and what each answered.
using UseWindow = std::function<Status(size_t first, const std::vector<KeyRange>& reads,
                                       std::vector<std::optional<Buffer>>& answers)>;

// Fetches items [0, n) in windows of `window` (> 0) in order and hands each
// window to `use`. Stops at the first failure: a failed fetch (its error
// prefixed with `where`) or a failed `use` (returned as it is). Returns only
// once no fetch is running.
Status FetchInWindows(Store& store, size_t n, size_t window, const ReadOf& read_of,
                      const UseWindow& use, std::string_view where);

}  // namespace turbozarr::internal
