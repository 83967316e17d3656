#include "array/copy_blocks.h"

#include <algorithm>
#include <numeric>

namespace turbozarr::internal {

std::vector<int64_t> PlanCopyBlock(const std::vector<int64_t>& shape,
                                   const std::vector<int64_t>& src_unit,
                                   const std::vector<int64_t>& dst_unit,
                                   uint64_t element_bytes, uint64_t budget_bytes) {
  const size_t rank = shape.size();
  // Beyond `cap` a block only covers space past the array's end.
  std::vector<int64_t> cap(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t extent = std::max<int64_t>(shape[d], 1);
    cap[d] = (extent + dst_unit[d] - 1) / dst_unit[d] * dst_unit[d];
  }
  auto bytes = [&](const std::vector<int64_t>& block) {
    uint64_t n = element_bytes;
    for (size_t d = 0; d < rank; ++d) {
      n *= static_cast<uint64_t>(std::min(block[d], std::max<int64_t>(shape[d], 1)));
    }
    return n;
  };
  std::vector<int64_t> block(rank);
  for (size_t d = 0; d < rank; ++d) {
    block[d] = std::min(std::lcm(src_unit[d], dst_unit[d]), cap[d]);
  }
  if (bytes(block) > budget_bytes) {
    for (size_t d = 0; d < rank; ++d) block[d] = std::min(dst_unit[d], cap[d]);
  }
  // Grow the innermost dimensions first: whole rows are contiguous in memory
  // and in C-ordered chunk grids.
  for (size_t d = rank; d-- > 0;) {
    while (block[d] < cap[d]) {
      std::vector<int64_t> bigger = block;
      bigger[d] = std::min(block[d] * 2, cap[d]);
      if (bytes(bigger) > budget_bytes) break;
      block = std::move(bigger);
    }
    if (block[d] < cap[d]) break;
  }
  return block;
}

uint64_t CopyBlockBudget(uint64_t memory, int threads, uint64_t src_chunk_bytes,
                         uint64_t dst_unit_bytes) {
  constexpr uint64_t kKeptPerThread = uint64_t{64} << 20;
  const uint64_t per_thread =
      2 * std::min(src_chunk_bytes, kKeptPerThread) + dst_unit_bytes;
  const uint64_t working = static_cast<uint64_t>(std::max(threads, 1)) * per_thread;
  return working >= memory ? 0 : (memory - working) / 2;
}

BlockGrid::BlockGrid(std::vector<int64_t> shape, std::vector<int64_t> block_shape)
    : shape_(std::move(shape)), block_(std::move(block_shape)) {
  for (size_t d = 0; d < shape_.size(); ++d) {
    counts_.push_back((shape_[d] + block_[d] - 1) / block_[d]);
    size_ *= counts_.back();
  }
}

Selection BlockGrid::Block(int64_t index) const {
  std::vector<DimRange> dims(shape_.size());
  for (size_t d = shape_.size(); d-- > 0;) {
    const int64_t start = index % counts_[d] * block_[d];
    index /= counts_[d];
    dims[d] = {start, std::min(start + block_[d], shape_[d]), 1};
  }
  return Selection(std::move(dims));
}

std::optional<std::unordered_set<std::string>> StoredChunkKeys(const Array& array) {
  Result<std::vector<std::string>> keys = array.store()->List(array.path());
  if (!keys.ok()) return std::nullopt;
  return std::unordered_set<std::string>(keys->begin(), keys->end());
}

bool BlockHasStoredChunk(const Array& array, const Selection& block,
                         const std::unordered_set<std::string>& stored) {
  const std::vector<int64_t>& unit = array.metadata().chunk_shape;
  const size_t rank = block.rank();
  std::vector<int64_t> first(rank), last(rank);
  for (size_t d = 0; d < rank; ++d) {
    first[d] = block.dims()[d].start / unit[d];
    last[d] = (block.dims()[d].stop - 1) / unit[d];
  }
  std::vector<int64_t> coords = first;
  while (true) {
    if (stored.count(array.ChunkKey(coords))) return true;
    size_t d = rank;
    while (d > 0) {
      --d;
      if (++coords[d] <= last[d]) break;
      coords[d] = first[d];
      if (d == 0) return false;
    }
    if (rank == 0) return false;
  }
}

}  // namespace turbozarr::internal
