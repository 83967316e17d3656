// BlockIterator: streams a selection of an Array as chunk-aligned blocks,
// reading ahead in the background within a budget of bytes, so that a scan of
// an array larger than memory runs at the speed of a full read in bounded
// memory.
//
// Blocks. The selection is cut along a grid of cells in array coordinates
// (block_shape(), the same grid for every block, like a chunk grid); a block
// is the part of the selection inside one cell, and cells without selected
// elements are skipped. Blocks come in C order of their cells and cover the
// selection exactly once. Unless IterateOptions::block_shape gives the cell,
// it is made of whole chunks (for a sharded array, whole shards or whole
// inner chunks), chosen so:
//   1. Contiguous first: k chunks along dimension s, one along the
//      dimensions before s, the whole array along those after it, for the
//      smallest s at which one chunk along s fits half the budget (so that
//      one block is read while the caller holds another). s is 0 unless a
//      row of chunks is too big: each block is then k whole rows of chunks,
//      one contiguous run of the result.
//   2. Shards before inner chunks when the shard-aligned cell fits a quarter
//      of the budget (a block that cuts shards fetches each shard's index
//      again); otherwise the first of them that fits half.
//   3. k grows while a block stays within a quarter of the budget, so that
//      several blocks are in flight and per-block costs are amortised; it is
//      1 when one unit is over a quarter.
//   4. When nothing fits half the budget, the same search against the whole
//      budget (blocks then read one at a time, without overlap); when not
//      even one chunk's share of the selection fits, Make fails with
//      InvalidArgument rather than break the bound.
//
// Readahead. Blocks ahead of the caller are read in order by background
// threads ("lanes": two, one when the pool is a single thread), each
// calling Array::Read for one block, which spreads that block's chunks over
// the shared ThreadPool. Two lanes let the next block's chunks keep the pool
// busy while the previous block's last chunk finishes; with one, every
// block would end with all threads but one idle. A lane works on its own
// read like any caller of ThreadPool::ParallelFor, so while reads are
// pending the pool's workers and up to two lanes run: one thread more than
// the cores (two while the caller computes), against zero for a plain
// Array::Read, whose caller works too. Nothing is read while the budget is
// full. Each block's read takes the pool in force when it starts, so
// SetThreads (turbozarr/config.h) during a scan applies from the next block
// read on; the number of lanes stays as it was when the iterator was made.
//
// Budget. The bytes of blocks being read or read and not yet handed out,
// plus the bytes of the block handed out last, never exceed
// readahead_bytes. The block handed out last counts until the next call to
// Next(); blocks the caller keeps beyond that are its own memory. So a loop
// that drops each block before asking for the next holds at most
// readahead_bytes, and one that drops it on reassignment (`b = it.Next()`) at
// most readahead_bytes plus one block. Decoding a chunk that a block selects
// only in part needs a chunk-sized scratch buffer per pool thread, as any
// Array::Read does.
//
// Each block is a fresh buffer (the caller keeps it); one of 4 MiB or more
// asks for transparent huge pages, as numpy does for its arrays, since
// faulting a fresh block in 4 KiB pages costs about as much CPU as decoding
// it. Handing a block out moves its buffer (no copy). The first error (a failed
// or corrupt chunk) is returned by the Next() that would have returned that
// block, naming the block, the array and the chunk; blocks before it are
// handed out normally and every later Next() returns the same error.
// Destroying the iterator stops reading more blocks and waits for the block
// reads already running (at most two) to finish.
//
// Variable-length strings and bytes are not supported (Make returns
// Unsupported): their decoded size is unknown until read, so a byte budget
// could not be honoured.
//
// After fork(), the child's copy of an iterator goes on from where the
// parent's was: its first Next() there starts new background reads, which
// read again the blocks whose reads the parent had running. The parent's
// copy is unaffected.
//
// Thread safety: one BlockIterator is used by one thread at a time; the
// background reads share only the Array, which is safe to read concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "turbozarr/array.h"
#include "turbozarr/buffer.h"
#include "turbozarr/config.h"
#include "turbozarr/selection.h"
#include "turbozarr/status.h"

namespace turbozarr {

struct IterateOptions {
  // Bytes of decoded blocks that may be in memory at once (see above).
  uint64_t readahead_bytes = uint64_t{256} << 20;
  // The cell shape in array elements, one entry >= 1 per dimension; empty
  // chooses chunk-aligned cells by the policy above. Cells that are not
  // multiples of the chunk shape work but decode a chunk once per block that
  // touches it.
  std::vector<int64_t> block_shape;
  // The threads each block's read runs on (turbozarr/config.h); null: the
  // process-wide pool, taken anew for each block.
  std::shared_ptr<ThreadPool> pool;
};

struct Block {
  // 0, 1, ... in the order blocks are handed out.
  int64_t index = 0;
  // The block's elements in array coordinates (normalised: stop is one past
  // the last element); Array::Read of it gives the same values.
  Selection selection;
  // Where the block lies in the result of the iterated selection: element k
  // of dimension d is element origin[d] + k of the result.
  std::vector<int64_t> origin;
  // selection.num_elements() elements, C order, native byte order.
  Buffer data;

  std::vector<int64_t> shape() const { return selection.shape(); }
};

class BlockIterator {
 public:
  // InvalidArgument for a selection outside the array, a bad block_shape or
  // a budget smaller than one block; Unsupported for variable-length types.
  static Result<BlockIterator> Make(std::shared_ptr<const Array> array,
                                    Selection selection, IterateOptions options = {});

  BlockIterator(BlockIterator&&) noexcept;
  BlockIterator& operator=(BlockIterator&&) noexcept;
  ~BlockIterator();

  // The next block, or nullopt after the last. Waits for its read to finish.
  // REQUIRES: not moved from.
  Result<std::optional<Block>> Next();

  // Number of blocks the selection makes.
  int64_t num_blocks() const;
  // The cell shape in array elements (the chosen one when options left it
  // empty).
  const std::vector<int64_t>& block_shape() const;
  // The most bytes one block can hold.
  uint64_t max_block_bytes() const;

 private:
  struct Impl;
  explicit BlockIterator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace turbozarr
