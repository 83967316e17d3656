// The geometry of a shard: where each inner chunk sits in the shard array,
// the order in which zarr-python lays inner chunks out in the shard's bytes
// (Morton / Z order), and row-wise copies between a shard and one inner
// chunk.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace turbozarr::internal {

// C-order coordinates of the `linear`-th cell of a grid of `shape`.
std::vector<int64_t> GridCoords(int64_t linear, const std::vector<int64_t>& shape);

// The C-order linear indices of a grid of `shape` sorted by Morton code,
// with bits interleaved axis 0 first and axes dropping out once their bits
// are used up: the order zarr-python writes inner chunks in, so that shards
// come out byte-identical.
std::vector<int64_t> MortonOrder(const std::vector<int64_t>& shape);

// Calls fn(outer_offset, inner_offset, count) for each contiguous row shared
// by an array of `outer` shape and the block of `inner` shape whose origin in
// it is `origin` (element offsets, C order; count elements per row). The
// block lies wholly inside the array.
template <typename Fn>
void ForEachBlockRow(const std::vector<int64_t>& outer, const std::vector<int64_t>& inner,
                     const std::vector<int64_t>& origin, Fn fn) {
  const size_t ndim = outer.size();
  if (ndim == 0) {
    fn(int64_t{0}, int64_t{0}, int64_t{1});
    return;
  }
  for (int64_t d : inner) {
    if (d <= 0) return;
  }
  std::vector<int64_t> stride(ndim, 1);
  for (size_t d = ndim - 1; d > 0; --d) stride[d - 1] = stride[d] * outer[d];
  int64_t outer_off = 0;
  for (size_t d = 0; d < ndim; ++d) outer_off += origin[d] * stride[d];
  const int64_t row = inner[ndim - 1];
  std::vector<int64_t> idx(ndim, 0);
  int64_t inner_off = 0;
  while (true) {
    fn(outer_off, inner_off, row);
    inner_off += row;
    int64_t d = static_cast<int64_t>(ndim) - 2;
    for (; d >= 0; --d) {
      outer_off += stride[d];
      if (++idx[d] < inner[d]) break;
      outer_off -= stride[d] * inner[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace turbozarr::internal
