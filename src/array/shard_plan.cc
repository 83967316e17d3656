#include "array/shard_plan.h"

#include <algorithm>

namespace turbozarr::internal {
namespace {

// The selection `sp` makes inside its shard, and the shard's extent inside
// the array.
void LocalSelection(const ChunkProjection& sp, const ArrayMetadata& m,
                    std::vector<DimRange>& local, std::vector<int64_t>& local_shape) {
  const size_t rank = m.shape.size();
  local.resize(rank);
  local_shape.resize(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t origin = sp.chunk_coords[d] * m.chunk_shape[d];
    local_shape[d] = std::min(m.chunk_shape[d], m.shape[d] - origin);
    local[d] = {sp.chunk_start[d], sp.chunk_start[d] + (sp.count[d] - 1) * sp.step[d] + 1,
                sp.step[d]};
  }
}

}  // namespace

const ShardingCodec* SoleShardingCodec(const CodecChain& chain) {
  if (!chain.array_to_array().empty() || !chain.bytes_to_bytes().empty()) return nullptr;
  return dynamic_cast<const ShardingCodec*>(chain.array_to_bytes().get());
}

std::vector<ChunkProjection> PlanInnerChunks(const ChunkProjection& sp,
                                             const ArrayMetadata& m,
                                             const std::vector<int64_t>& inner_shape) {
  std::vector<DimRange> local;
  std::vector<int64_t> local_shape;
  LocalSelection(sp, m, local, local_shape);
  std::vector<ChunkProjection> plan =
      PlanChunks(Selection(local), local_shape, inner_shape);
  for (ChunkProjection& ip : plan) {
    for (size_t d = 0; d < local.size(); ++d) ip.out_start[d] += sp.out_start[d];
  }
  return plan;
}

int64_t CountInnerChunks(const ChunkProjection& sp, const ArrayMetadata& m,
                         const std::vector<int64_t>& inner_shape) {
  std::vector<DimRange> local;
  std::vector<int64_t> local_shape;
  LocalSelection(sp, m, local, local_shape);
  // The N-d plan is the product of the per-dimension ones.
  int64_t n = 1;
  for (size_t d = 0; d < local.size(); ++d) {
    n *= static_cast<int64_t>(PlanChunks(Selection(std::vector<DimRange>{local[d]}),
                                         {local_shape[d]}, {inner_shape[d]})
                                  .size());
  }
  return n;
}

int64_t InnerChunkLinear(const ChunkProjection& ip,
                         const std::vector<int64_t>& chunks_per_shard) {
  int64_t linear = 0;
  for (size_t d = 0; d < chunks_per_shard.size(); ++d) {
    linear = linear * chunks_per_shard[d] + ip.chunk_coords[d];
  }
  return linear;
}

}  // namespace turbozarr::internal
