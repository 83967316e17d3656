// The read pipeline: plan the chunks a selection touches, then for each (in
// parallel on the shared pool) fetch, decode and copy its share into the
// caller's block. Missing chunks read as the fill value.
#include <string>

#include "array/chunk_copy.h"
#include "array/chunk_region.h"
#include "turbozarr/array.h"
#include "util/thread_pool.h"

namespace turbozarr {

Status Array::Read(const Selection& selection, void* out, const ReadOptions&) const {
  Status valid = selection.Validate(metadata_.shape);
  if (!valid.ok()) return valid.WithContext(Describe());
  if (selection.num_elements() == 0) return Status::OK();

  const std::vector<ChunkProjection> plan =
      PlanChunks(selection, metadata_.shape, metadata_.chunk_shape);
  const std::vector<int64_t> block_shape = selection.shape();

  return ThreadPool::Default().ParallelFor(
      static_cast<int64_t>(plan.size()), [&](int64_t i) -> Status {
        const ChunkProjection& p = plan[i];
        const ChunkRegion region = ChunkRegion::Make(p, metadata_.chunk_shape, block_shape);
        const std::string key = ChunkKey(p.chunk_coords);
        Result<std::optional<Buffer>> bytes = store_->Get(key);
        if (!bytes.ok()) {
          return bytes.status().WithContext(Describe() + ", chunk '" + key + "'");
        }
        if (!bytes->has_value()) {
          FillBlock(metadata_.dtype, metadata_.fill_value, region, out);
          return Status::OK();
        }
        Result<ChunkArray> chunk = chain_.Decode((*bytes)->view());
        if (!chunk.ok()) {
          return chunk.status().WithContext(Describe() + ", chunk '" + key + "'");
        }
        CopyChunkToBlock(*chunk, region, out);
        return Status::OK();
      });
}

}  // namespace turbozarr
