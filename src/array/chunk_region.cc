#include "array/chunk_region.h"

namespace turbozarr {
namespace {

std::vector<int64_t> ElementStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = s;
    s *= shape[d];
  }
  return strides;
}

}  // namespace

ChunkRegion ChunkRegion::Make(const ChunkProjection& p,
                              const std::vector<int64_t>& chunk_shape,
                              const std::vector<int64_t>& block_shape) {
  ChunkRegion r;
  const size_t rank = chunk_shape.size();
  std::vector<int64_t> chunk_elem = ElementStrides(chunk_shape);
  std::vector<int64_t> block_elem = ElementStrides(block_shape);
  r.chunk_strides.resize(rank);
  r.block_strides = block_elem;
  r.count = p.count;
  for (size_t d = 0; d < rank; ++d) {
    r.chunk_offset += p.chunk_start[d] * chunk_elem[d];
    r.block_offset += p.out_start[d] * block_elem[d];
    r.chunk_strides[d] = chunk_elem[d] * p.step[d];
  }
  return r;
}

std::vector<int64_t> ChunkRegion::InBytes(const std::vector<int64_t>& strides,
                                          size_t elem_size) {
  std::vector<int64_t> out(strides.size());
  for (size_t d = 0; d < strides.size(); ++d) {
    out[d] = strides[d] * static_cast<int64_t>(elem_size);
  }
  return out;
}

int64_t BlockOffset(const ChunkProjection& p, const std::vector<int64_t>& block_shape) {
  int64_t offset = 0;
  for (size_t d = 0; d < block_shape.size(); ++d) {
    offset = offset * block_shape[d] + p.out_start[d];
  }
  return offset;
}

bool IsContiguousWholeChunk(const ChunkProjection& p,
                            const std::vector<int64_t>& chunk_shape,
                            const std::vector<int64_t>& block_shape) {
  const size_t rank = chunk_shape.size();
  for (size_t d = 0; d < rank; ++d) {
    if (p.chunk_start[d] != 0 || p.count[d] != chunk_shape[d]) return false;
    if (p.count[d] > 1 && p.step[d] != 1) return false;
  }
  // Past the first dimension with more than one element, the chunk must span
  // the block's full extent, so that its rows follow one another there too.
  size_t d = 0;
  while (d < rank && p.count[d] == 1) ++d;
  for (++d; d < rank; ++d) {
    if (p.count[d] != block_shape[d]) return false;
  }
  return true;
}

}  // namespace turbozarr
