// The write pipeline: for each chunk a selection touches (in parallel on the
// shared pool), build the chunk's new contents and encode them by the
// cheapest route (chunk_encode.h): straight from the caller's block when the
// selection covers the chunk and it is one contiguous run of the block, else
// through a reused per-thread scratch buffer, reading and decoding the
// stored chunk first when the selection covers only part of it. The chunk is
// then stored whole with one commit of the chunk's update (a
// read-modify-write that loses no concurrent writer's update, see
// Store::BeginUpdates); a chunk equal to the fill value is erased instead
// unless write_empty_chunks is set. A masked write (WriteOptions::mask)
// merges only its masked elements into every chunk it touches. Sharded
// arrays plan and encode
// their inner chunks across all touched shards at once (shard_write.h). A
// rectilinear grid encodes each chunk at its own shape (Array::ChunkChain).
#include <memory>
#include <string>

#include "array/chunk_encode.h"
#include "array/shard_write.h"
#include "turbozarr/array.h"
#include "util/thread_pool.h"

namespace turbozarr {

Status Array::Write(const Selection& selection, const void* src,
                    const WriteOptions& options) {
  Status valid = selection.Validate(metadata_.shape);
  if (!valid.ok()) return valid.WithContext(Describe());
  if (selection.num_elements() == 0) return Status::OK();
  if (!store_->Capabilities().writable) {
    return Status::InvalidArgument(Describe() + ": the store is read-only");
  }

  // Held to the end: SetThreads may put another pool in its place meanwhile.
  const std::shared_ptr<ThreadPool> pool = ThreadPool::OrDefault(options.pool);
  if (ShardedChain::Of(chain_)) {
    return internal::WriteShardedSelection(*this, selection, src, options, *pool);
  }
  // Each chunk is encoded by the chain for its shape (ChunkChain: chain_
  // but on a rectilinear grid whose chunks differ within the array).
  std::vector<ChunkProjection> plan = PlanChunks(selection, metadata_.shape, grid_);
  // A masked write keeps stored elements wherever the mask is clear, so
  // every chunk it touches is read and merged, as if partly covered.
  if (options.mask != nullptr) {
    for (ChunkProjection& p : plan) p.covers_chunk = false;
  }
  const std::vector<int64_t> block_shape = selection.shape();

  return pool->ParallelFor(static_cast<int64_t>(plan.size()), [&](int64_t i) -> Status {
    const ChunkProjection& p = plan[i];
    const std::string key = ChunkKey(p.chunk_coords);
    const Result<const CodecChain*> chain = ChunkChain(p.chunk_coords);
    const Status s = chain.ok() ? internal::UpdateChunkFromBlock(
                                      *store_, key, **chain, p, block_shape, src,
                                      options.write_empty_chunks, options.mask)
                                : chain.status();
    return s.WithContext(Describe() + ", chunk '" + key + "'");
  });
}

}  // namespace turbozarr
