// Moving one chunk's share of a selection between a decoded chunk
// (ChunkArray) and the caller's C-contiguous block, for fixed-size and
// variable-length element types alike.
//
// Thread safety: pure functions; callers give each thread its own chunk.
#pragma once

#include <cstdint>

#include "array/chunk_region.h"
#include "turbozarr/codec.h"
#include "turbozarr/dtype.h"

namespace turbozarr {

// chunk -> block
void CopyChunkToBlock(const ChunkArray& chunk, const ChunkRegion& r, void* block);
// chunk -> block for a decoded chunk of fixed-size elements of `elem_size`
// bytes held at `chunk` (C order, the chunk's full shape).
void CopyChunkBytesToBlock(const std::byte* chunk, size_t elem_size, const ChunkRegion& r,
                           void* block);
// block -> chunk. REQUIRES: chunk holds dtype-sized storage for its shape.
void CopyBlockToChunk(const void* block, const ChunkRegion& r, ChunkArray& chunk);
// block -> chunk for a chunk of fixed-size elements of `elem_size` bytes held
// at `chunk` (C order, the chunk's full shape).
void CopyBlockToChunkBytes(const void* block, const ChunkRegion& r, size_t elem_size,
                           std::byte* chunk);
// block -> chunk for the elements whose byte in `mask` (one per element of
// the block, at the element's block offset) is nonzero; the others are left
// as they are. For masked writes (WriteOptions::mask).
void CopyBlockToChunkMasked(const void* block, const uint8_t* mask, const ChunkRegion& r,
                            ChunkArray& chunk);
void CopyBlockToChunkBytesMasked(const void* block, const uint8_t* mask,
                                 const ChunkRegion& r, size_t elem_size, std::byte* chunk);
// Fills the region of the block with `fill`.
void FillBlock(const DataType& dtype, const FillValue& fill, const ChunkRegion& r,
               void* block);

}  // namespace turbozarr
