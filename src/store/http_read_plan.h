// How the stores that read over HTTP (the HTTP store, the S3 store) turn a
// batch of byte-range reads into requests and the answers back into reads.
//
// PlanReads groups the reads by key and merges bounded ranges of one key that
// lie at most `coalesce_gap` bytes apart into one request of at most
// `coalesce_max` bytes (util/range_merge.h, the rule sharded reads apply to
// the inner chunks of a shard too); every other read (whole values, suffixes, open ends)
// is a request of its own, and an empty read only asks whether the key
// exists (HEAD). FetchedFromResponse reads a successful GET or HEAD answer
// (2xx, or 416 for a range past the end of a present value), and
// SliceFetched cuts each read's bytes out of it.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "store/http_message.h"
#include "turbozarr/buffer.h"
#include "turbozarr/store.h"

namespace turbozarr {

// One request that serves one or more reads of the same key.
struct PlannedRead {
  std::string_view key;         // points into the reads planned
  ByteRange range;              // what to request (Full: no Range header)
  bool head = false;            // only whether the key exists
  std::vector<size_t> members;  // indices of the reads it serves
};

// The requests that serve `reads`, keys in order of first appearance.
std::vector<PlannedRead> PlanReads(std::span<const KeyRange> reads, uint64_t coalesce_gap,
                                   uint64_t coalesce_max);

// What one request brought back for a present key.
struct FetchedBytes {
  Buffer body;
  uint64_t first = 0;  // offset of body[0] in the value
  bool whole = false;  // the body is the entire value
};

// The bytes a successful answer to `request` carries: a 2xx (206 checked by
// the transport against the range asked for), or 416 (the range starts past
// the end of a value that exists). REQUIRES: status is 2xx or 416.
FetchedBytes FetchedFromResponse(const HttpRequest& request, HttpResponse&& response);

// The bytes of `asked` out of `f`; takes f's buffer (no copy) when `take`.
Buffer SliceFetched(FetchedBytes& f, const ByteRange& asked, bool take);

}  // namespace turbozarr
