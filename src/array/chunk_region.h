// ChunkRegion: the pointers and byte strides that move one chunk's share of
// a selection between the decoded chunk and the caller's block, computed once
// from a ChunkProjection so that the copy itself is one strided-kernel call.
//
// Thread safety: a value.
#pragma once

#include <cstdint>
#include <vector>

#include "turbozarr/selection.h"

namespace turbozarr {

struct ChunkRegion {
  // Offsets (in elements) of the first selected element in the chunk and
  // in the caller's block.
  int64_t chunk_offset = 0;
  int64_t block_offset = 0;
  // Strides in elements, per dimension, of the selected elements.
  std::vector<int64_t> chunk_strides;
  std::vector<int64_t> block_strides;
  std::vector<int64_t> count;

  // `chunk_shape`: the decoded chunk's full shape; `block_shape`: the
  // selection's shape (the caller's C-contiguous block).
  static ChunkRegion Make(const ChunkProjection& p, const std::vector<int64_t>& chunk_shape,
                          const std::vector<int64_t>& block_shape);

  // Strides scaled to bytes for elements of `elem_size`.
  static std::vector<int64_t> InBytes(const std::vector<int64_t>& strides, size_t elem_size);
};

// The element offset in the block (C order, `block_shape`) where `p`'s first
// selected element lands.
int64_t BlockOffset(const ChunkProjection& p, const std::vector<int64_t>& block_shape);

// True when `p` selects every element of a chunk of `chunk_shape` (not
// clipped by the array's edge), in order, and those elements fill one
// contiguous run of the block: then the decoded chunk is that run byte for
// byte and can be decoded straight into it.
bool IsContiguousWholeChunk(const ChunkProjection& p,
                            const std::vector<int64_t>& chunk_shape,
                            const std::vector<int64_t>& block_shape);

}  // namespace turbozarr
