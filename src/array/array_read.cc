// The read pipeline: plan the chunks a selection touches, then for each (in
// parallel on the shared pool) fetch it and decode its share into the
// caller's block, straight into place when the chunk is one contiguous run
// of the block (see chunk_decode.h). Missing chunks read as the fill value.
// Sharded arrays read each shard's index and only the inner chunks needed
// (see shard_read.h); remote stores fetch chunks in windows (remote_read.h).
// A rectilinear grid decodes each chunk with the chain
// for its own shape (Array::ChunkChain).
#include <algorithm>
#include <memory>
#include <string>

#include "array/chunk_copy.h"
#include "array/chunk_decode.h"
#include "array/chunk_prefetch.h"
#include "array/chunk_region.h"
#include "array/remote_read.h"
#include "array/shard_read.h"
#include "turbozarr/array.h"
#include "util/thread_pool.h"

namespace turbozarr {

Status Array::Read(const Selection& selection, ElementSpan destination,
                   const ReadOptions& options) const {
  Status valid = selection.Validate(metadata_.shape);
  if (valid.ok()) valid = destination.CheckHolds(metadata_.dtype, selection.num_elements());
  if (!valid.ok()) return valid.WithContext(Describe());
  if (selection.num_elements() == 0) return Status::OK();
  void* const out = destination.data();

  // Held to the end: SetThreads may put another pool in its place meanwhile.
  const std::shared_ptr<ThreadPool> pool = ThreadPool::OrDefault(options.pool);
  if (ShardedChain::Of(chain_)) {
    return internal::ReadShardedSelection(*this, selection, out, *pool,
                                          options.fill_missing_chunks);
  }
  // Remote stores answer many requests at once but each takes a round trip:
  // windows of chunks fetched with GetMany, the next window while this one
  // decodes, instead of one request per pool thread (remote_read.h).
  if (store_->Capabilities().requests_in_flight > pool->concurrency()) {
    const internal::BoxToRead box{&selection, out};
    return internal::ReadRemotely(*this, {&box, 1}, *pool, options.fill_missing_chunks);
  }
  const std::vector<ChunkProjection> plan = PlanChunks(selection, metadata_.shape, grid_);
  // A rectilinear grid whose chunks differ within the array decodes each
  // chunk with the chain for its shape, looked up once here; on every other
  // grid all chunks share chain_ and nothing is looked up.
  std::vector<const CodecChain*> chains;
  if (!regular_grid_) {
    chains.resize(plan.size());
    for (size_t i = 0; i < plan.size(); ++i) {
      Result<const CodecChain*> chain = ChunkChain(plan[i].chunk_coords);
      if (!chain.ok()) {
        return chain.status().WithContext(Describe() + ", chunk '" +
                                          ChunkKey(plan[i].chunk_coords) + "'");
      }
      chains[i] = *chain;
    }
  }
  auto chain_of = [&](size_t i) -> const CodecChain& {
    return chains.empty() ? chain_ : *chains[i];
  };
  const std::vector<int64_t> block_shape = selection.shape();
  const int threads = pool->concurrency();

  auto in_context = [&](const Status& s, const std::string& key) {
    return s.WithContext(Describe() + ", chunk '" + key + "'");
  };
  // A chunk that is not stored: the fill value, or the caller's error.
  auto missing = [&](size_t i) -> Status {
    const ChunkProjection& p = plan[i];
    if (!options.fill_missing_chunks) {
      return in_context(internal::MissingChunkError(), ChunkKey(p.chunk_coords));
    }
    FillBlock(metadata_.dtype, metadata_.fill_value,
              ChunkRegion::Make(p, chain_of(i).spec().shape, block_shape), out);
    return Status::OK();
  };
  // Fewer chunks than threads, all read straight into the result (a few huge
  // uncompressed chunks): every chunk split into ranged parts, and all the
  // (chunk, part) pairs read in one ParallelFor, so that every core copies
  // out of the page cache.
  bool few_straight_chunks = static_cast<int64_t>(plan.size()) < threads;
  int parts = threads;
  for (size_t i = 0; few_straight_chunks && i < plan.size(); ++i) {
    few_straight_chunks = internal::CanReadStraightIntoBlock(chain_of(i), plan[i], block_shape);
    parts = std::min(parts, internal::StraightReadParts(chain_of(i), threads));
  }
  if (few_straight_chunks) {
    std::vector<char> found(plan.size() * parts, 0);
    TZ_RETURN_NOT_OK(pool->ParallelFor(
        static_cast<int64_t>(found.size()), [&](int64_t item) -> Status {
          const size_t i = static_cast<size_t>(item / parts);
          const std::string key = ChunkKey(plan[i].chunk_coords);
          Result<bool> got = internal::ReadStraightIntoBlockPart(
              *store_, key, chain_of(i), plan[i], block_shape, out,
              static_cast<int>(item % parts), parts);
          if (!got.ok()) return in_context(got.status(), key);
          found[item] = *got;
          return Status::OK();
        }));
    for (size_t i = 0; i < plan.size(); ++i) {
      const auto first = found.begin() + i * parts;
      const auto present = std::count(first, first + parts, 1);
      if (present == 0) TZ_RETURN_NOT_OK(missing(i));
      if (present > 0 && present < parts) {
        return in_context(Status::IOError("the chunk was erased while it was being read"),
                          ChunkKey(plan[i].chunk_coords));
      }
    }
    return Status::OK();
  }

  // When reads wait on a disk, hints keep more of them in flight than there
  // are readers (see chunk_prefetch.h).
  internal::ChunkPrefetch prefetch(
      *store_, static_cast<int64_t>(plan.size()),
      static_cast<uint64_t>(chain_.spec().num_elements()) * metadata_.dtype.size(),
      threads, [&](int64_t j) { return ChunkKey(plan[j].chunk_coords); });
  return pool->ParallelFor(static_cast<int64_t>(plan.size()), [&](int64_t i) -> Status {
    prefetch.Ahead(i);
    const ChunkProjection& p = plan[i];
    const std::string key = ChunkKey(p.chunk_coords);
    const CodecChain& chain = chain_of(i);
    if (internal::CanReadStraightIntoBlock(chain, p, block_shape)) {
      Result<bool> found =
          internal::ReadStraightIntoBlock(*store_, key, chain, p, block_shape, out);
      if (!found.ok()) return in_context(found.status(), key);
      return *found ? Status::OK() : missing(i);
    }
    if (internal::CanReadStraightIntoBlockChecked(chain, p, block_shape)) {
      Result<bool> found =
          internal::ReadStraightIntoBlockChecked(*store_, key, chain, p, block_shape, out);
      if (!found.ok()) return in_context(found.status(), key);
      return *found ? Status::OK() : missing(i);
    }
    Result<bool> found =
        internal::FetchAndDecodeChunkToBlock(*store_, key, chain, p, block_shape, out);
    if (!found.ok()) return in_context(found.status(), key);
    return *found ? Status::OK() : missing(i);
  });
}

}  // namespace turbozarr
