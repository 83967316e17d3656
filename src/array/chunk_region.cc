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

}  // namespace turbozarr
