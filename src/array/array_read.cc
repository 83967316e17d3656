// The read pipeline: plan the chunks a selection touches, then for each (in
// parallel on the shared pool) fetch it and decode its share into the
// caller's block, straight into place when the chunk is one contiguous run
// of the block (see chunk_decode.h). Missing chunks read as the fill value.
// Sharded arrays read each shard's index and only the inner chunks needed
// (see shard_read.h).
#include <string>

#include "array/chunk_copy.h"
#include "array/chunk_decode.h"
#include "array/chunk_region.h"
#include "array/shard_read.h"
#include "turbozarr/array.h"
#include "util/thread_pool.h"

namespace turbozarr {

Status Array::Read(const Selection& selection, void* out, const ReadOptions&) const {
  Status valid = selection.Validate(metadata_.shape);
  if (!valid.ok()) return valid.WithContext(Describe());
  if (selection.num_elements() == 0) return Status::OK();

  if (const ShardingCodec* sharding = internal::SoleShardingCodec(chain_)) {
    return internal::ReadShardedSelection(*this, *sharding, selection, out);
  }

  const std::vector<ChunkProjection> plan =
      PlanChunks(selection, metadata_.shape, metadata_.chunk_shape);
  const std::vector<int64_t> block_shape = selection.shape();
  // Fewer chunks than threads: split each straight read so all cores copy.
  const int threads = ThreadPool::DefaultConcurrency();
  const int parts_per_chunk = static_cast<int64_t>(plan.size()) < threads ? threads : 1;

  return ThreadPool::Default().ParallelFor(
      static_cast<int64_t>(plan.size()), [&](int64_t i) -> Status {
        const ChunkProjection& p = plan[i];
        const std::string key = ChunkKey(p.chunk_coords);
        if (internal::CanReadStraightIntoBlock(chain_, p, block_shape)) {
          Result<bool> found = internal::ReadStraightIntoBlock(
              *store_, key, chain_, p, block_shape, out, parts_per_chunk);
          if (!found.ok()) {
            return found.status().WithContext(Describe() + ", chunk '" + key + "'");
          }
          if (!*found) {
            FillBlock(metadata_.dtype, metadata_.fill_value,
                      ChunkRegion::Make(p, metadata_.chunk_shape, block_shape), out);
          }
          return Status::OK();
        }
        Result<std::optional<Buffer>> bytes = store_->Get(key);
        if (!bytes.ok()) {
          return bytes.status().WithContext(Describe() + ", chunk '" + key + "'");
        }
        if (!bytes->has_value()) {
          FillBlock(metadata_.dtype, metadata_.fill_value,
                    ChunkRegion::Make(p, metadata_.chunk_shape, block_shape), out);
          return Status::OK();
        }
        Status s =
            internal::DecodeChunkToBlock(chain_, (*bytes)->view(), p, block_shape, out);
        if (!s.ok()) return s.WithContext(Describe() + ", chunk '" + key + "'");
        return Status::OK();
      });
}

}  // namespace turbozarr
