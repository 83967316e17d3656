// ReadMany (turbozarr/array_read_many.h): the boxes of a gather on one pool.
#include "turbozarr/array_read_many.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "array/chunk_copy.h"
#include "array/chunk_decode.h"
#include "array/chunk_region.h"
#include "array/shard_read.h"
#include "array/windowed_fetch.h"
#include "util/thread_pool.h"

namespace turbozarr {
namespace {

// How many chunks of the finest grid (the inner chunks of a sharded array:
// the units a read decodes) `selection` spans, the unselected between its
// first and last element included.
int64_t ChunksSpanned(const Selection& selection, const std::vector<int64_t>& chunk_shape) {
  int64_t chunks = 1;
  for (size_t d = 0; d < selection.rank(); ++d) {
    const DimRange& r = selection.dims()[d];
    if (r.count() == 0) return 0;
    const int64_t last = r.start + (r.count() - 1) * r.step;
    chunks *= last / chunk_shape[d] - r.start / chunk_shape[d] + 1;
  }
  return chunks;
}

// The boxes of an unsharded array over a remote store: the chunks of every
// box are fetched together, in windows of GetMany as Array::Read fetches
// one box's (windowed_fetch.h), each chunk once however many boxes it
// serves, and decoded into each of them. Read box by box, a gather's
// requests would wait on one round trip per pool thread at a time.
Status ReadRemotely(const Array& array, std::span<const Selection> selections,
                    std::span<const ElementSpan> outs, const ReadOptions& options,
                    ThreadPool& pool) {
  struct Share {  // one box's share of a chunk
    size_t box;
    ChunkProjection proj;
    const CodecChain* chain;
  };
  std::vector<std::string> keys;
  std::vector<std::vector<Share>> shares;  // per key
  std::map<std::string, size_t> index;
  for (size_t b = 0; b < selections.size(); ++b) {
    if (selections[b].num_elements() == 0) continue;
    for (ChunkProjection& p : PlanChunks(selections[b], array.shape(), array.chunk_grid())) {
      std::string key = array.ChunkKey(p.chunk_coords);
      Result<const CodecChain*> chain = array.ChunkChain(p.chunk_coords);
      if (!chain.ok()) {
        return chain.status().WithContext(array.Describe() + ", chunk '" + key + "'");
      }
      auto [it, added] = index.emplace(key, keys.size());
      if (added) {
        keys.push_back(std::move(key));
        shares.emplace_back();
      }
      shares[it->second].push_back({b, std::move(p), *chain});
    }
  }
  const ArrayMetadata& m = array.metadata();
  auto place = [&](const Share& s, const std::string& key,
                   const std::optional<Buffer>& bytes) -> Status {
    const std::vector<int64_t> block_shape = selections[s.box].shape();
    void* out = outs[s.box].data();
    Status done;
    if (bytes.has_value()) {
      done = internal::DecodeChunkToBlock(*s.chain, bytes->view(), s.proj, block_shape, out);
    } else if (!options.fill_missing_chunks) {
      done = internal::MissingChunkError();
    } else {
      FillBlock(m.dtype, m.fill_value, ChunkRegion::Make(s.proj, s.chain->spec().shape, block_shape),
                out);
    }
    return done.ok() ? done : done.WithContext(array.Describe() + ", chunk '" + key + "'");
  };
  const size_t window = internal::WindowFor(
      static_cast<size_t>(array.store()->Capabilities().requests_in_flight),
      static_cast<uint64_t>(array.codec_chain().spec().num_elements()) * m.dtype.size());
  return internal::FetchInWindows(
      *array.store(), keys.size(), window,
      [&](size_t i) { return KeyRange{keys[i], ByteRange::Full()}; },
      [&](size_t first, const std::vector<KeyRange>& reads,
          std::vector<std::optional<Buffer>>& answers, const std::vector<uint64_t>&) {
        std::vector<std::pair<size_t, const Share*>> items;  // (answer, share)
        for (size_t k = 0; k < reads.size(); ++k) {
          for (const Share& s : shares[first + k]) items.emplace_back(k, &s);
        }
        return pool.ParallelFor(static_cast<int64_t>(items.size()), [&](int64_t i) {
          const auto [k, share] = items[i];
          return place(*share, reads[k].key, answers[k]);
        });
      },
      array.Describe());
}

}  // namespace

Status ReadMany(const Array& array, std::span<const Selection> selections,
                std::span<const ElementSpan> outs, const ReadOptions& options) {
  if (selections.size() != outs.size()) {
    return Status::InvalidArgument(array.Describe() + ": " +
                                   std::to_string(selections.size()) + " boxes but " +
                                   std::to_string(outs.size()) + " destinations");
  }
  const std::vector<int64_t> grid =
      array.metadata().InnerChunkShape().value_or(array.metadata().chunk_shape);
  int64_t widest = 0;
  for (size_t i = 0; i < selections.size(); ++i) {
    Status valid = selections[i].Validate(array.shape());
    if (valid.ok()) {
      valid = outs[i].CheckHolds(array.dtype(), selections[i].num_elements());
    }
    if (!valid.ok()) {
      return valid.WithContext(array.Describe() + ", box " + std::to_string(i) + " " +
                               selections[i].ToString());
    }
    widest = std::max(widest, ChunksSpanned(selections[i], grid));
  }

  // Held to the end: SetThreads may put another pool in its place meanwhile.
  const std::shared_ptr<ThreadPool> pool = ThreadPool::OrDefault(options.pool);
  ReadOptions each = options;
  each.pool = pool;
  const auto n = static_cast<int64_t>(selections.size());
  if (n > 1 && ShardedChain::Of(array.codec_chain())) {
    // A gather's boxes are many and small and fall into few shards: read
    // as one, each shard is opened once and the inner chunks of all boxes
    // are fetched together (shard_read.h).
    std::vector<internal::BoxToRead> boxes;
    boxes.reserve(selections.size());
    for (size_t i = 0; i < selections.size(); ++i) {
      boxes.push_back({&selections[i], outs[i].data()});
    }
    return internal::ReadShardedBoxes(array, boxes, *pool, options.fill_missing_chunks);
  }
  if (n > 1 && array.store()->Capabilities().requests_in_flight > pool->concurrency()) {
    return ReadRemotely(array, selections, outs, options, *pool);
  }
  auto read = [&](int64_t i) { return array.Read(selections[i], outs[i], each); };
  if (n > 1 && (n >= pool->concurrency() || widest <= 1)) {
    // A read inside an item runs its own ParallelFor inline (thread_pool.h).
    return pool->ParallelFor(n, read);
  }
  for (int64_t i = 0; i < n; ++i) {
    TZ_RETURN_NOT_OK(read(i));
  }
  return Status::OK();
}

}  // namespace turbozarr
