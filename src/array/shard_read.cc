#include "array/shard_read.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "array/chunk_copy.h"
#include "array/chunk_decode.h"
#include "array/chunk_region.h"
#include "util/thread_pool.h"

namespace turbozarr::internal {
namespace {

using IndexEntry = ShardingCodec::IndexEntry;

// One stored inner chunk the selection needs.
struct InnerRead {
  uint64_t offset = 0;
  uint64_t nbytes = 0;
  int64_t linear = 0;    // C-order position in the shard, for messages
  ChunkProjection proj;  // out_start in the caller's block
};

// What phase 1 learns about one shard.
struct ShardReads {
  std::string key;
  std::vector<InnerRead> reads;  // sorted by offset
};

// Inner chunks of one shard, reads[first, last), fetched as bytes
// [begin, end) of the shard with one read.
struct RangeGroup {
  size_t shard = 0;
  uint64_t begin = 0;
  uint64_t end = 0;
  size_t first = 0;
  size_t last = 0;
};

std::string Range(uint64_t offset, uint64_t nbytes) {
  return "[" + std::to_string(offset) + ", +" + std::to_string(nbytes) + ")";
}

// Phase 1 for one shard: fetch and decode its index, fill what is missing,
// and list the stored inner chunks to read.
Status PlanShard(const Array& array, const ShardingCodec& codec,
                 const ChunkProjection& sp, const std::vector<int64_t>& block_shape,
                 void* out, ShardReads& shard) {
  const ArrayMetadata& m = array.metadata();
  shard.key = array.ChunkKey(sp.chunk_coords);
  const std::string where = array.Describe() + ", chunk '" + shard.key + "'";
  const uint64_t index_size = codec.index_size();
  const bool index_at_start =
      codec.index_location() == ShardingCodec::IndexLocation::kStart;
  Result<std::optional<Buffer>> index =
      array.store()->Get(shard.key, index_at_start ? ByteRange::Of(0, index_size)
                                                   : ByteRange::Suffix(index_size));
  if (!index.ok()) return index.status().WithContext(where);
  if (!index->has_value()) {
    FillBlock(m.dtype, m.fill_value, ChunkRegion::Make(sp, m.chunk_shape, block_shape),
              out);
    return Status::OK();
  }
  if ((*index)->size() != index_size) {
    return Status::Corruption(where + ": shard of " + std::to_string((*index)->size()) +
                              " bytes is smaller than its " + std::to_string(index_size) +
                              "-byte index");
  }
  Result<std::vector<IndexEntry>> entries =
      codec.DecodeIndex((*index)->view(), std::nullopt);
  if (!entries.ok()) return entries.status().WithContext(where);

  const std::vector<int64_t>& inner_shape = codec.chunk_shape();
  const std::vector<int64_t>& per_shard = codec.chunks_per_shard();
  for (ChunkProjection& ip : PlanInnerChunks(sp, m, inner_shape)) {
    const int64_t linear = InnerChunkLinear(ip, per_shard);
    const IndexEntry& e = (*entries)[linear];
    if (e.missing()) {
      FillBlock(m.dtype, m.fill_value, ChunkRegion::Make(ip, inner_shape, block_shape),
                out);
      continue;
    }
    // Without the shard's size only these checks are possible here; a range
    // past the end shows up as a short read in phase 2.
    if ((index_at_start && e.offset < index_size) ||
        e.nbytes > std::numeric_limits<uint64_t>::max() - e.offset) {
      return Status::Corruption(where + ": shard index: " + codec.InnerChunkName(linear) +
                                " at bytes " + Range(e.offset, e.nbytes) +
                                " lies outside the shard's data");
    }
    shard.reads.push_back({e.offset, e.nbytes, linear, std::move(ip)});
  }
  std::stable_sort(
      shard.reads.begin(), shard.reads.end(),
      [](const InnerRead& a, const InnerRead& b) { return a.offset < b.offset; });
  return Status::OK();
}

// Merges each shard's sorted reads into range groups.
std::vector<RangeGroup> GroupReads(const std::vector<ShardReads>& shards) {
  uint64_t needed = 0;
  for (const ShardReads& s : shards) {
    for (const InnerRead& r : s.reads) needed += r.nbytes;
  }
  const uint64_t threads = static_cast<uint64_t>(ThreadPool::DefaultConcurrency());
  const uint64_t cap = std::clamp(needed / (4 * threads), kMinGroupBytes, kMaxGroupBytes);
  std::vector<RangeGroup> groups;
  for (size_t s = 0; s < shards.size(); ++s) {
    const std::vector<InnerRead>& reads = shards[s].reads;
    for (size_t i = 0; i < reads.size();) {
      RangeGroup g{s, reads[i].offset, reads[i].offset + reads[i].nbytes, i, i + 1};
      for (; g.last < reads.size(); ++g.last) {
        const InnerRead& r = reads[g.last];
        const uint64_t end = std::max(g.end, r.offset + r.nbytes);
        if (r.offset > g.end && r.offset - g.end > kMaxMergeGap) break;
        if (end - g.begin > cap) break;
        g.end = end;
      }
      i = g.last;
      groups.push_back(g);
    }
  }
  return groups;
}

// Phase 2 for one group: one read, then each inner chunk decoded into place.
Status ReadGroup(const Array& array, const ShardingCodec& codec, const RangeGroup& g,
                 const ShardReads& shard, const std::vector<int64_t>& block_shape,
                 void* out) {
  const std::string where = array.Describe() + ", chunk '" + shard.key + "'";
  Result<std::optional<Buffer>> got =
      array.store()->Get(shard.key, ByteRange::Of(g.begin, g.end - g.begin));
  if (!got.ok()) return got.status().WithContext(where);
  if (!got->has_value()) {
    return Status::IOError(where + ": the shard disappeared while it was being read");
  }
  const ByteView data = (*got)->view();
  for (size_t k = g.first; k < g.last; ++k) {
    const InnerRead& r = shard.reads[k];
    const uint64_t rel = r.offset - g.begin;
    if (rel > data.size() || r.nbytes > data.size() - rel) {
      return Status::Corruption(
          where + ": shard index: " + codec.InnerChunkName(r.linear) + " at bytes " +
          Range(r.offset, r.nbytes) + " runs past the end of the shard");
    }
    Status s = DecodeChunkToBlock(codec.inner_chain(), data.subspan(rel, r.nbytes),
                                  r.proj, block_shape, out);
    if (!s.ok()) return s.WithContext(where + ", " + codec.InnerChunkName(r.linear));
  }
  return Status::OK();
}

}  // namespace

Status ReadShardedSelection(const Array& array, const ShardingCodec& codec,
                            const Selection& selection, void* out) {
  const ArrayMetadata& m = array.metadata();
  const std::vector<int64_t> block_shape = selection.shape();
  const std::vector<ChunkProjection> plan = PlanChunks(selection, m.shape, m.chunk_shape);
  ThreadPool& pool = ThreadPool::Default();

  std::vector<ShardReads> shards(plan.size());
  TZ_RETURN_NOT_OK(pool.ParallelFor(static_cast<int64_t>(plan.size()), [&](int64_t s) {
    return PlanShard(array, codec, plan[s], block_shape, out, shards[s]);
  }));
  const std::vector<RangeGroup> groups = GroupReads(shards);
  return pool.ParallelFor(static_cast<int64_t>(groups.size()), [&](int64_t i) {
    const RangeGroup& g = groups[i];
    return ReadGroup(array, codec, g, shards[g.shard], block_shape, out);
  });
}

}  // namespace turbozarr::internal
