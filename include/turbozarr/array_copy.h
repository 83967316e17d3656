// Copying all of one array's elements into another, storage unit by storage
// unit: the form a re-encode takes (new codecs, new format, shards added or
// dropped) when the destination's shards (or chunks, when it has no shards)
// are made of whole chunks of the source.
//
// Each destination unit is read from the source into memory of its own and
// written to the destination whole, one unit per thread of the shared pool:
// every chunk of either array is decoded or encoded once, no block bigger
// than a unit is ever put together, and the threads never wait for one
// another between units (a read and a write of blocks would end each block
// with all threads but one idle). When a unit per thread does not fit the
// memory budget, units are copied one at a time, each spread over the pool.
//
// Thread safety: as Array::Read on the source and Array::Write on the
// destination; the destination must not be written by anyone else meanwhile.
#pragma once

#include <cstdint>
#include <functional>

#include "turbozarr/array.h"
#include "turbozarr/status.h"

namespace turbozarr {

struct CopyOptions {
  WriteOptions write;
  // Decoded bytes that the units in flight may hold at once.
  uint64_t memory_budget = uint64_t{256} << 20;
  // Called after each unit with the bytes of elements copied so far; one call
  // at a time, from whichever thread finished the unit.
  std::function<void(uint64_t)> progress;
};

// True when CopyByUnits can copy `source` into `dest`: the same shape and
// data type, every shard (else chunk) of `dest` made of whole decoding
// units of `source` (its inner chunks when sharded, else its chunks), and a
// source store that wants no more requests in flight than the pool has
// threads (Store::PreferredRequestsInFlight; remote stores want more, and
// are read faster in blocks).
bool CanCopyByUnits(const Array& source, const Array& dest);

// Copies every element of `source` into `dest`. A unit whose elements all
// equal the destination's fill value is erased instead of stored, unless
// options.write.write_empty_chunks. InvalidArgument (naming both arrays)
// unless CanCopyByUnits; otherwise the errors of Array::Read and
// Array::Write. After a failure, units already copied stay copied.
Status CopyByUnits(const Array& source, Array& dest, const CopyOptions& options = {});

}  // namespace turbozarr
