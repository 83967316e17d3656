#include "array/shard_plan.h"

#include <algorithm>

namespace turbozarr::internal {
namespace {

// The selection `sp` makes inside its shard.
std::vector<DimRange> LocalSelection(const ChunkProjection& sp) {
  std::vector<DimRange> local(sp.chunk_start.size());
  for (size_t d = 0; d < local.size(); ++d) {
    local[d] = {sp.chunk_start[d], sp.chunk_start[d] + (sp.count[d] - 1) * sp.step[d] + 1,
                sp.step[d]};
  }
  return local;
}

}  // namespace

std::vector<int64_t> ChunkExtent(const std::vector<int64_t>& coords,
                                 const std::vector<int64_t>& chunk_shape,
                                 const std::vector<int64_t>& extent) {
  std::vector<int64_t> out(coords.size());
  for (size_t d = 0; d < coords.size(); ++d) {
    out[d] = std::min(chunk_shape[d], extent[d] - coords[d] * chunk_shape[d]);
  }
  return out;
}

std::vector<int64_t> ChunkExtent(const std::vector<int64_t>& coords, const ChunkGrid& grid,
                                 const std::vector<int64_t>& extent) {
  std::vector<int64_t> out(coords.size());
  for (size_t d = 0; d < coords.size(); ++d) {
    out[d] = std::min(grid.ChunkLength(d, coords[d]),
                      extent[d] - grid.ChunkBegin(d, coords[d]));
  }
  return out;
}

std::vector<ChunkProjection> PlanInnerChunks(const ChunkProjection& sp,
                                             const std::vector<int64_t>& shard_extent,
                                             const std::vector<int64_t>& inner_shape) {
  const std::vector<DimRange> local = LocalSelection(sp);
  std::vector<ChunkProjection> plan =
      PlanChunks(Selection(local), shard_extent, inner_shape);
  for (ChunkProjection& ip : plan) {
    for (size_t d = 0; d < local.size(); ++d) ip.out_start[d] += sp.out_start[d];
  }
  return plan;
}

int64_t CountInnerChunks(const ChunkProjection& sp,
                         const std::vector<int64_t>& shard_extent,
                         const std::vector<int64_t>& inner_shape) {
  const std::vector<DimRange> local = LocalSelection(sp);
  // The N-d plan is the product of the per-dimension ones.
  int64_t n = 1;
  for (size_t d = 0; d < local.size(); ++d) {
    n *= static_cast<int64_t>(PlanChunks(Selection(std::vector<DimRange>{local[d]}),
                                         {shard_extent[d]}, {inner_shape[d]})
                                  .size());
  }
  return n;
}

}  // namespace turbozarr::internal
