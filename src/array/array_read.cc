// The read pipeline: plan the chunks a selection touches, then for each (in
// parallel on the shared pool) fetch it and decode its share into the
// caller's block, straight into place when the chunk is one contiguous run
// of the block (see chunk_decode.h). Missing chunks read as the fill value.
// Sharded arrays read each shard's index and only the inner chunks needed
// (see shard_read.h).
#include <algorithm>
#include <functional>
#include <future>
#include <string>

#include "array/chunk_copy.h"
#include "array/chunk_decode.h"
#include "array/chunk_prefetch.h"
#include "array/chunk_region.h"
#include "array/shard_read.h"
#include "turbozarr/array.h"
#include "util/thread_pool.h"

namespace turbozarr {

namespace {

using PlaceChunk = std::function<Status(const ChunkProjection&, const std::string&,
                                        const std::optional<Buffer>&)>;

// Reads the chunks of `plan` in windows of `window` keys, one GetMany each,
// fetching the next window while the pool decodes this one.
Status ReadInWindows(const Array& array, const std::vector<ChunkProjection>& plan,
                     size_t window, const PlaceChunk& place) {
  struct Window {
    size_t begin = 0, end = 0;
    std::vector<KeyRange> reads;
  };
  auto make_window = [&](size_t begin) {
    auto w = std::make_shared<Window>();
    w->begin = begin;
    w->end = std::min(plan.size(), begin + window);
    for (size_t i = w->begin; i < w->end; ++i) {
      w->reads.push_back({array.ChunkKey(plan[i].chunk_coords), ByteRange::Full()});
    }
    return std::shared_ptr<const Window>(std::move(w));
  };
  // The fetch owns its window; a future from std::async waits for it when
  // destroyed, so an early return never leaves a fetch running.
  Store* store = array.store().get();
  auto start_fetch = [store](std::shared_ptr<const Window> w) {
    return std::async(std::launch::async,
                      [store, w] { return store->GetMany(w->reads); });
  };

  std::shared_ptr<const Window> current = make_window(0);
  auto pending = start_fetch(current);
  while (true) {
    Result<std::vector<std::optional<Buffer>>> fetched = pending.get();
    if (!fetched.ok()) return fetched.status().WithContext(array.Describe());
    std::shared_ptr<const Window> next;
    if (current->end < plan.size()) {
      next = make_window(current->end);
      pending = start_fetch(next);
    }
    TZ_RETURN_NOT_OK(ThreadPool::Default().ParallelFor(
        static_cast<int64_t>(current->end - current->begin), [&](int64_t k) -> Status {
          return place(plan[current->begin + k], current->reads[k].key, (*fetched)[k]);
        }));
    if (!next) return Status::OK();
    current = std::move(next);
  }
}

}  // namespace

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
  const int threads = ThreadPool::DefaultConcurrency();

  auto in_context = [&](const Status& s, const std::string& key) {
    return s.WithContext(Describe() + ", chunk '" + key + "'");
  };
  // The fetched bytes of one chunk, decoded into its share of `out`.
  auto place = [&](const ChunkProjection& p, const std::string& key,
                   const std::optional<Buffer>& bytes) -> Status {
    if (!bytes.has_value()) {
      FillBlock(metadata_.dtype, metadata_.fill_value,
                ChunkRegion::Make(p, metadata_.chunk_shape, block_shape), out);
      return Status::OK();
    }
    Status s = internal::DecodeChunkToBlock(chain_, bytes->view(), p, block_shape, out);
    return s.ok() ? s : in_context(s, key);
  };

  // Remote stores answer many requests at once but each takes a round trip:
  // fetch windows of chunks with GetMany, the next window while this one
  // decodes, instead of one request per pool thread.
  if (const int in_flight = store_->PreferredRequestsInFlight(); in_flight > threads) {
    return ReadInWindows(*this, plan, static_cast<size_t>(in_flight), place);
  }

  // Fewer chunks than threads, all read straight into the result (a few huge
  // uncompressed chunks): one chunk after another, each split into ranged
  // reads on every thread, so that all cores copy out of the page cache.
  const bool few_straight_chunks =
      static_cast<int64_t>(plan.size()) < threads &&
      std::all_of(plan.begin(), plan.end(), [&](const ChunkProjection& p) {
        return internal::CanReadStraightIntoBlock(chain_, p, block_shape);
      });
  const int parts_per_chunk = few_straight_chunks ? threads : 1;
  // When reads wait on a disk, hints keep more of them in flight than there
  // are readers (see chunk_prefetch.h); a few huge chunks need none.
  internal::ChunkPrefetch prefetch(
      *store_, few_straight_chunks ? 0 : static_cast<int64_t>(plan.size()),
      static_cast<uint64_t>(chain_.spec().num_elements()) * metadata_.dtype.size(),
      threads, [&](int64_t j) { return ChunkKey(plan[j].chunk_coords); });
  auto read_chunk = [&](int64_t i) -> Status {
    prefetch.Ahead(i);
    const ChunkProjection& p = plan[i];
    const std::string key = ChunkKey(p.chunk_coords);
    if (internal::CanReadStraightIntoBlock(chain_, p, block_shape)) {
      Result<bool> found = internal::ReadStraightIntoBlock(
          *store_, key, chain_, p, block_shape, out, parts_per_chunk);
      if (!found.ok()) return in_context(found.status(), key);
      if (!*found) {
        FillBlock(metadata_.dtype, metadata_.fill_value,
                  ChunkRegion::Make(p, metadata_.chunk_shape, block_shape), out);
      }
      return Status::OK();
    }
    Result<std::optional<Buffer>> bytes = store_->Get(key);
    if (!bytes.ok()) return in_context(bytes.status(), key);
    return place(p, key, *bytes);
  };
  if (few_straight_chunks) {
    for (size_t i = 0; i < plan.size(); ++i) TZ_RETURN_NOT_OK(read_chunk(i));
    return Status::OK();
  }
  return ThreadPool::Default().ParallelFor(static_cast<int64_t>(plan.size()), read_chunk);
}

}  // namespace turbozarr
