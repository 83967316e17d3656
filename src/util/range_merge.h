// Merging byte ranges of one value into fewer, larger reads: the one rule
// that the sharded read path (the inner chunks of a shard) and the stores
// that read over HTTP (the ranges of one key in a batched Read) both apply, each
// with its own limits.
//
// Ranges sorted by offset are cut into runs of consecutive ranges. A range
// joins the run before it when it starts at most `max_gap` bytes past the
// run's end (overlapping ranges always qualify) and the run, with it, still
// spans at most `max_bytes`; otherwise it starts a run of its own, so one
// range larger than `max_bytes` is a run alone. One read of a run's bytes
// [begin, end) serves every range in it, gaps included.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace turbozarr {

// Bytes [offset, offset + length) of a value.
struct ByteSpan {
  uint64_t offset = 0;
  uint64_t length = 0;
};

struct MergeLimits {
  uint64_t max_gap = 0;    // bytes between two ranges that one read may span
  uint64_t max_bytes = 0;  // the most bytes one read spans, unless one range is more
};

// One read that serves spans[first, last).
struct MergedRun {
  uint64_t begin = 0;
  uint64_t end = 0;
  size_t first = 0;
  size_t last = 0;
};

// The runs of `spans`, in order; every span is in exactly one run.
// REQUIRES: spans sorted by offset; offset + length does not overflow.
std::vector<MergedRun> MergeSortedSpans(std::span<const ByteSpan> spans,
                                        const MergeLimits& limits);

}  // namespace turbozarr
