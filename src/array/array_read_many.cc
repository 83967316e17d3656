// ReadMany (turbozarr/array_read_many.h): the boxes of a gather on one pool.
#include "turbozarr/array_read_many.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "array/shard_read.h"
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
  const bool sharded = ShardedChain::Of(array.codec_chain()).has_value();
  if (n > 1 && (sharded || array.store()->Capabilities().requests_in_flight >
                               pool->concurrency())) {
    // A gather's boxes are many and small and meet in few shards or wait
    // on round trips: read as one, each shard is opened once and the
    // chunks (inner chunks) of all boxes are fetched together
    // (shard_read.h, remote_read.h).
    std::vector<internal::BoxToRead> boxes;
    boxes.reserve(selections.size());
    for (size_t i = 0; i < selections.size(); ++i) {
      boxes.push_back({&selections[i], outs[i].data()});
    }
    return sharded ? internal::ReadShardedBoxes(array, boxes, *pool, options.fill_missing_chunks)
                   : internal::ReadRemotely(array, boxes, *pool, options.fill_missing_chunks);
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
