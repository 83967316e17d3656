// Planning a streamed copy of one array into another, for copies that cannot
// go storage unit by storage unit (array_copy.h): the shape of the blocks it
// moves, the memory each block may take, the grid of those blocks, and
// which blocks the source stores nothing for (they are skipped: they read as
// the fill value, which the destination shares).
//
// Thread safety: pure functions and immutable values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "turbozarr/array.h"
#include "turbozarr/selection.h"

namespace turbozarr::internal {

// The shape of the blocks a copy reads and writes: a multiple of
// `dst_unit` (so that no destination chunk is written twice), preferably of
// the least common multiple with `src_unit` too (so that no source chunk is
// decoded twice), grown (innermost dimensions first) while it stays within
// `budget_bytes`, and never past the array's extent rounded up to whole
// destination units.
std::vector<int64_t> PlanCopyBlock(const std::vector<int64_t>& shape,
                                   const std::vector<int64_t>& src_unit,
                                   const std::vector<int64_t>& dst_unit,
                                   uint64_t element_bytes, uint64_t budget_bytes);

// The bytes each of the two blocks of a copy may take (PlanCopyBlock's
// budget) when the whole copy is to stay within `memory`: what is left after
// the working buffers of `threads` threads, each holding up to a source
// chunk's bytes as read and as decoded (`src_chunk_bytes`, each capped at the
// 64 MiB a thread keeps between chunks) and a destination unit as encoded
// (`dst_unit_bytes`), split in two. 0 when nothing is left (the blocks are
// then one destination unit each).
uint64_t CopyBlockBudget(uint64_t memory, int threads, uint64_t src_chunk_bytes,
                         uint64_t dst_unit_bytes);

// The blocks of `block_shape` that tile `shape`, numbered in C order and
// computed on demand (an array of a million chunks has a million blocks).
class BlockGrid {
 public:
  BlockGrid(std::vector<int64_t> shape, std::vector<int64_t> block_shape);
  // Zero when some extent is zero; one for a zero-dimensional array.
  int64_t size() const { return size_; }
  Selection Block(int64_t index) const;

 private:
  std::vector<int64_t> shape_;
  std::vector<int64_t> block_;
  std::vector<int64_t> counts_;
  int64_t size_ = 1;
};

// The keys of `array`'s stored chunks, to skip blocks that hold none;
// nullopt when its store cannot list (then nothing is skipped).
std::optional<std::unordered_set<std::string>> StoredChunkKeys(const Array& array);

// Whether any chunk of `array`'s grid that meets `block` is among `stored`.
bool BlockHasStoredChunk(const Array& array, const Selection& block,
                         const std::unordered_set<std::string>& stored);

}  // namespace turbozarr::internal
