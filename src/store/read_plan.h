// ReadPlanned: how a store serves a batch of byte-range reads by fetching
// merged ranges and cutting each read's answer back out of them. The HTTP
// store, the S3 store and the shard store (src/codec/sharding) all serve
// their batches with it; they differ only in how they fetch.
//
// PlanReads groups the reads by key and merges bounded ranges of one key
// that lie at most `max_gap` bytes apart into one fetch of at most
// `max_bytes` bytes (util/range_merge.h, the rule sharded reads apply to the
// inner chunks of a shard too); every other read (whole values, suffixes,
// open ends) is a fetch of its own, and an empty read only asks whether the
// key exists (`head`). DeliverFetched cuts one read's bytes out of what a
// fetch brought back and hands them to the read's target: a fetch that
// serves one read alone hands its buffer over without a copy, and a whole
// value read alone into the caller's memory may be fetched straight into it
// (PlannedRead::into, FetchedBytes::in_place).
//
// Thread safety: plain values and functions; `fetch` is called on the
// calling thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "turbozarr/buffer.h"
#include "turbozarr/store.h"
#include "util/range_merge.h"

namespace turbozarr::internal {

// One fetch that serves one or more reads of the same key.
struct PlannedRead {
  std::string_view key;         // points into the reads planned
  ByteRange range;              // what to fetch (Full: the whole value)
  bool head = false;            // only whether the key exists
  std::vector<size_t> members;  // indices of the reads it serves
  ReadHint hint;                // a whole-value fetch's: its read's hint
  // A whole value read alone into the caller's memory (kCallerMemory): the
  // fetch may write the value there as it arrives (FetchedBytes::in_place)
  // instead of into a buffer of its own. Empty otherwise.
  MutableByteView into;
};

// The fetches that serve `reads`, keys in order of first appearance.
std::vector<PlannedRead> PlanReads(std::span<const ReadRequest> reads,
                                   const MergeLimits& limits);

// What one fetch brought back for a present key.
struct FetchedBytes {
  Buffer body;
  uint64_t first = 0;  // offset of body[0] in the value
  bool whole = false;  // the body is the entire value
  uint64_t version = 0;  // ReadAnswer::version of what was fetched
  // Set when the fetch wrote the whole value to PlannedRead::into instead
  // of `body` (which is then empty): the value's length. A length above
  // into.size() means the value did not fit and `into` holds nothing
  // useful; the read's answer tells its caller so.
  std::optional<uint64_t> in_place;
};

// Cuts the bytes `request` asks for out of `f` (a range past the body's end
// lies past the value's end, and is cut short) and hands them to its
// target; takes f's buffer (no copy) when `take`.
ReadAnswer DeliverFetched(FetchedBytes& f, const ReadRequest& request, bool take);

// Fetches plan[i] into out[i]: nullopt when the key is absent.
using FetchPlanned = std::function<Status(std::span<const PlannedRead> plan,
                                          std::span<std::optional<FetchedBytes>> out)>;

// Serves `requests` (answers[i] for requests[i]): plans them by `limits`,
// fetches the plan through `fetch` at most `window` fetches at a time (so
// that a huge batch never holds more than a window of bodies), and delivers
// each request's part. The first error of `fetch` fails the batch.
Status ReadPlanned(std::span<const ReadRequest> requests, std::span<ReadAnswer> answers,
                   const MergeLimits& limits, size_t window, const FetchPlanned& fetch);

}  // namespace turbozarr::internal
