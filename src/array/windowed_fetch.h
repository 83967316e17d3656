// Reading from remote stores in windows: items (chunks, shard indexes,
// merged ranges of shards) are fetched one read each, and a window of them
// (as many as the store keeps in flight) is asked for at once. The window is
// cut into kSlicesInFlight slices, each fetched with one GetMany on a thread
// of its own; as soon as the oldest slice is answered, the next slice is
// asked for and the answered one is handed to the caller. So the store's
// requests stay at about `window` while the caller decodes, instead of
// draining to the slowest request of a window before the next is asked for,
// and at most window x (1 + 1/kSlicesInFlight) items of fetched bytes are
// held.
//
// Array reads use it when the store serves more requests at once than there
// are reading threads (StoreCapabilities::requests_in_flight): chunks of an
// unsharded array, and the indexes and then the merged inner-chunk ranges of
// sharded ones (shard_read.h).
//
// Thread safety: FetchInWindows calls `read_of` and `use` on the calling
// thread only (`use` may run a ParallelFor); the store is called from
// background threads, several at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "turbozarr/buffer.h"
#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr::internal {

// Slices of a window in flight at once.
inline constexpr size_t kSlicesInFlight = 4;

// About the most fetched bytes one read holds at once: a window of items of
// `item_bytes` each (an upper bound, such as a chunk's decoded size) is cut
// to this (WindowFor), so that a read of large chunks over a store that
// keeps 64 requests in flight does not hold 64 of them twice over.
inline constexpr uint64_t kWindowBytes = uint64_t{256} << 20;

// The window for a store that keeps `in_flight` requests in flight and items
// of up to `item_bytes`: in_flight, or fewer so that a window holds about
// kWindowBytes, but never fewer than kSlicesInFlight (or in_flight if less).
size_t WindowFor(size_t in_flight, uint64_t item_bytes);

// The read that fetches item `i`.
using ReadOf = std::function<KeyRange(size_t i)>;
// Where item `i`'s whole value is read instead of a buffer of its own: the
// caller's memory, for a value that is the bytes the caller wants as they
// are (a raw chunk that is a contiguous part of a read's result), so that a
// remote store writes them there as they arrive. An empty view: a buffer.
using TargetOf = std::function<MutableByteView(size_t i)>;

// What a slice's reads found, item k for the slice's k-th read.
struct WindowAnswers {
  // The value, or nullopt when absent or read into its target.
  std::vector<std::optional<Buffer>> values;
  std::vector<uint64_t> versions;  // ReadAnswer::version of each
  // 1 when the whole value, exactly its target's size, is in its target
  // (TargetOf). A value of another size is read again into values[k],
  // for the caller to report as it reports any wrong chunk.
  std::vector<uint8_t> in_target;
};

// Works on the window of items [first, first + reads.size()): their reads
// and what each answered.
using UseWindow = std::function<Status(size_t first, const std::vector<KeyRange>& reads,
                                       WindowAnswers& got)>;

// Fetches items [0, n), about `window` (> 0) at a time, and hands them to
// `use` in order, a slice of window / kSlicesInFlight (at least 1) at a
// time; items with a target (`target_of`, when given) are read into it.
// Stops at the first failure: a failed fetch (its error prefixed with
// `where`) or a failed `use` (returned as it is). Returns only once no fetch
// is running.
Status FetchInWindows(Store& store, size_t n, size_t window, const ReadOf& read_of,
                      const UseWindow& use, std::string_view where,
                      const TargetOf& target_of = {});

}  // namespace turbozarr::internal
