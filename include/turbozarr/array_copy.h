// Copying all of one array's elements into another: the form a re-encode
// takes (new codecs, new format, rechunking, shards added or dropped).
// CopyArray is the one entry point (Python's `dest[...] = source` and the
// CLI's `cp` call it); it copies storage unit by storage unit when it can
// (CopyByUnits), else in streamed blocks.
//
// Unit by unit, when the destination's shards (or chunks, when it has no
// shards) are made of whole chunks of the source: each destination unit is
// read from the source into memory of its own and
// written to the destination whole, one unit per thread of the shared pool:
// every chunk of either array is decoded or encoded once, no block bigger
// than a unit is ever put together, and the threads never wait for one
// another between units (a read and a write of blocks would end each block
// with all threads but one idle). When a unit per thread does not fit the
// memory budget, units are copied one at a time, each spread over the pool.
//
// In streamed blocks, otherwise: blocks aligned to the destination's shards
// (or chunks), so no destination chunk is written twice, and to the source's
// chunks too where such a block fits, so none is decoded twice; the next
// block is read while the last one is written, and the two blocks with the
// threads' working buffers stay within the memory budget. Blocks over which
// the source stores no chunk are skipped: they read as the fill value, which
// the destination shares.
//
// Thread safety: as Array::Read on the source and Array::Write on the
// destination; the destination must not be written by anyone else meanwhile.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "turbozarr/array.h"
#include "turbozarr/status.h"

namespace turbozarr {

struct CopyOptions {
  WriteOptions write;
  // Bytes the copy may hold at once. Unit by unit, half of it goes to the
  // units in flight (decoded) and half is left for their encoded forms; in
  // blocks, it holds two blocks and the threads' working buffers.
  uint64_t memory_budget = uint64_t{512} << 20;
  // Called after each unit (or block) with the bytes of elements copied so
  // far; one call at a time, from whichever thread finished it.
  std::function<void(uint64_t)> progress;
};

// What a copy did.
struct CopyReport {
  enum class Route { kUnits, kBlocks };
  Route route = Route::kUnits;
  // Units (or blocks) written, of all there are; blocks over which the
  // source stores nothing are not written.
  int64_t written = 0;
  int64_t total = 0;
};

// Copies every element of `source` into `dest`, unit by unit when
// CanCopyByUnits, else in streamed blocks. InvalidArgument (naming both
// arrays) unless they have the same shape and data type; otherwise the
// errors of Array::Read and Array::Write. After a failure, what was copied
// stays copied.
Result<CopyReport> CopyArray(const Array& source, Array& dest,
                             const CopyOptions& options = {});

// The shape of the blocks CopyArray's streamed route moves when it copies
// `source` into `dest` within options.memory_budget; also for callers that
// stream a copy of their own (converting types on the way). The arrays have
// the same rank.
std::vector<int64_t> CopyBlockShape(const Array& source, const Array& dest,
                                    const CopyOptions& options = {});

// True when CopyByUnits can copy `source` into `dest`: the same shape and
// data type, every shard (else chunk) of `dest` made of whole decoding
// units of `source` (its inner chunks when sharded, else its chunks), and a
// source store that wants no more requests in flight than the pool has
// threads (StoreCapabilities::requests_in_flight; remote stores want more, and
// are read faster in blocks).
bool CanCopyByUnits(const Array& source, const Array& dest);

// Copies every element of `source` into `dest` unit by unit. A unit whose
// elements all equal the destination's fill value is erased instead of
// stored, unless options.write.write_empty_chunks. InvalidArgument (naming both arrays)
// unless CanCopyByUnits; otherwise the errors of Array::Read and
// Array::Write. After a failure, units already copied stay copied.
Status CopyByUnits(const Array& source, Array& dest, const CopyOptions& options = {});

}  // namespace turbozarr
