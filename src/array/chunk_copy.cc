#include "array/chunk_copy.h"

#include <cstring>
#include <string>
#include <vector>

#include "util/strided_copy.h"

namespace turbozarr {

void CopyChunkToBlock(const ChunkArray& chunk, const ChunkRegion& r, void* block) {
  const int rank = static_cast<int>(r.count.size());
  if (chunk.dtype.is_variable_length()) {
    auto* dst = static_cast<std::string*>(block) + r.block_offset;
    CopyStridedStrings(chunk.strings.data() + r.chunk_offset, r.chunk_strides.data(), dst,
                       r.block_strides.data(), r.count.data(), rank);
    return;
  }
  CopyChunkBytesToBlock(chunk.bytes.data(), chunk.dtype.size(), r, block);
}

void CopyChunkBytesToBlock(const std::byte* chunk, size_t elem, const ChunkRegion& r,
                           void* block) {
  const int rank = static_cast<int>(r.count.size());
  auto src_strides = ChunkRegion::InBytes(r.chunk_strides, elem);
  auto dst_strides = ChunkRegion::InBytes(r.block_strides, elem);
  CopyStrided(chunk + r.chunk_offset * elem, src_strides.data(),
              static_cast<std::byte*>(block) + r.block_offset * elem, dst_strides.data(),
              r.count.data(), rank, elem);
}

void CopyBlockToChunk(const void* block, const ChunkRegion& r, ChunkArray& chunk) {
  const int rank = static_cast<int>(r.count.size());
  if (chunk.dtype.is_variable_length()) {
    const auto* src = static_cast<const std::string*>(block) + r.block_offset;
    CopyStridedStrings(src, r.block_strides.data(), chunk.strings.data() + r.chunk_offset,
                       r.chunk_strides.data(), r.count.data(), rank);
    return;
  }
  CopyBlockToChunkBytes(block, r, chunk.dtype.size(), chunk.bytes.data());
}

void CopyBlockToChunkBytes(const void* block, const ChunkRegion& r, size_t elem,
                           std::byte* chunk) {
  const int rank = static_cast<int>(r.count.size());
  auto src_strides = ChunkRegion::InBytes(r.block_strides, elem);
  auto dst_strides = ChunkRegion::InBytes(r.chunk_strides, elem);
  CopyStrided(static_cast<const std::byte*>(block) + r.block_offset * elem,
              src_strides.data(), chunk + r.chunk_offset * elem, dst_strides.data(),
              r.count.data(), rank, elem);
}

namespace {

// Calls copy(block_offset, chunk_offset) for every element of the region
// whose mask byte is set, offsets in elements.
template <typename Copy>
void ForEachMasked(const uint8_t* mask, const ChunkRegion& r, Copy&& copy) {
  const size_t rank = r.count.size();
  for (int64_t n : r.count) {
    if (n == 0) return;
  }
  std::vector<int64_t> at(rank, 0);
  int64_t b = r.block_offset, c = r.chunk_offset;
  for (;;) {
    if (mask[b]) copy(b, c);
    // The odometer: the last dimension fastest, as C order.
    size_t d = rank;
    while (d > 0) {
      --d;
      if (++at[d] < r.count[d]) {
        b += r.block_strides[d];
        c += r.chunk_strides[d];
        break;
      }
      b -= (r.count[d] - 1) * r.block_strides[d];
      c -= (r.count[d] - 1) * r.chunk_strides[d];
      at[d] = 0;
      if (d == 0) return;
    }
    if (rank == 0) return;
  }
}

}  // namespace

void CopyBlockToChunkMasked(const void* block, const uint8_t* mask, const ChunkRegion& r,
                            ChunkArray& chunk) {
  if (chunk.dtype.is_variable_length()) {
    const auto* src = static_cast<const std::string*>(block);
    ForEachMasked(mask, r, [&](int64_t b, int64_t c) { chunk.strings[c] = src[b]; });
    return;
  }
  CopyBlockToChunkBytesMasked(block, mask, r, chunk.dtype.size(), chunk.bytes.data());
}

void CopyBlockToChunkBytesMasked(const void* block, const uint8_t* mask,
                                 const ChunkRegion& r, size_t elem, std::byte* chunk) {
  const auto* src = static_cast<const std::byte*>(block);
  ForEachMasked(mask, r, [&](int64_t b, int64_t c) {
    std::memcpy(chunk + c * static_cast<int64_t>(elem), src + b * static_cast<int64_t>(elem),
                elem);
  });
}

void FillBlock(const DataType& dtype, const FillValue& fill, const ChunkRegion& r,
               void* block) {
  const int rank = static_cast<int>(r.count.size());
  if (dtype.is_variable_length()) {
    FillStridedStrings(static_cast<std::string*>(block) + r.block_offset,
                       r.block_strides.data(), r.count.data(), rank,
                       std::string(fill.bytes.chars()));
    return;
  }
  const size_t elem = dtype.size();
  auto dst_strides = ChunkRegion::InBytes(r.block_strides, elem);
  FillStrided(static_cast<std::byte*>(block) + r.block_offset * elem, dst_strides.data(),
              r.count.data(), rank, fill.bytes.data(), elem);
}

}  // namespace turbozarr
