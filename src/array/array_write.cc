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
// their inner chunks across all touched shards at once (shard_write.h).
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
  if (const std::optional<ShardedChain> sharding = ShardedChain::Of(chain_)) {
    return internal::WriteShardedSelection(*this, *sharding, selection, src, options,
                                           *pool);
  }

  std::vector<ChunkProjection> plan =
      PlanChunks(selection, metadata_.shape, metadata_.chunk_shape);
  // A masked write keeps stored elements wherever the mask is clear, so
  // every chunk it touches is read and merged, as if partly covered.
  if (options.mask != nullptr) {
    for (ChunkProjection& p : plan) p.covers_chunk = false;
  }
  const std::vector<int64_t> block_shape = selection.shape();

  return pool->ParallelFor(static_cast<int64_t>(plan.size()), [&](int64_t i) -> Status {
    const ChunkProjection& p = plan[i];
    const std::string key = ChunkKey(p.chunk_coords);
    auto fail = [&](const Status& s) {
      return s.WithContext(Describe() + ", chunk '" + key + "'");
    };

    // The chunk is rewritten under its update (Store::BeginUpdates): no other
    // writer's update of it commits between the read of what the write keeps
    // and the store of the result. A store that checks at commit instead of
    // locking answers false when one did: read again and build again.
    Result<std::unique_ptr<KeyUpdate>> update = store_->BeginUpdate(key);
    if (!update.ok()) return fail(update.status());
    for (;;) {
      std::optional<Buffer> old;
      if (!p.covers_chunk) {
        Result<std::optional<Buffer>> got = (*update)->Read();
        if (!got.ok()) return fail(got.status());
        old = std::move(*got);
      }
      // Kept by the thread between its chunks, so that an encoded chunk is
      // built in memory already touched rather than in a fresh allocation
      // that the kernel must fault in and zero for every chunk; the store
      // copies the bytes before the next chunk reuses it.
      thread_local internal::EncodedChunk chunk;
      Status encoded = internal::EncodeChunkFromBlock(
          chain_, p, block_shape, src,
          old ? std::optional<ByteView>(old->view()) : std::nullopt,
          options.write_empty_chunks, chunk, options.mask);
      if (!encoded.ok()) return fail(encoded);
      // A chunk that was read and found missing needs no erasing.
      Result<bool> committed =
          chunk.empty ? (p.covers_chunk || old ? (*update)->Commit(std::nullopt)
                                               : Result<bool>(true))
                      : (*update)->Commit(chunk.bytes);
      internal::TrimScratch(chunk.storage);
      if (!committed.ok()) return fail(committed.status());
      if (*committed) return Status::OK();
    }
  });
}

}  // namespace turbozarr
