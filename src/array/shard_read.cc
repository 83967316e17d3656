#include "array/shard_read.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "array/chunk_copy.h"
#include "array/chunk_decode.h"
#include "array/chunk_region.h"
#include "array/windowed_fetch.h"
#include "util/range_merge.h"

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

// What the index phase learns about one shard.
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

class ShardedRead {
 public:
  ShardedRead(const Array& array, const ShardingCodec& codec, const Selection& selection,
              void* out, ThreadPool& pool)
      : array_(array),
        m_(array.metadata()),
        codec_(codec),
        block_shape_(selection.shape()),
        out_(out),
        pool_(pool),
        plan_(PlanChunks(selection, m_.shape, m_.chunk_shape)),
        shards_(plan_.size()) {
    for (size_t s = 0; s < plan_.size(); ++s) {
      shards_[s].key = array.ChunkKey(plan_[s].chunk_coords);
    }
  }

  Status ReadLocal() {
    auto plan_shard = [&](int64_t s) -> Status {
      Result<std::optional<Buffer>> index =
          array_.store()->Get(shards_[s].key, IndexRange());
      if (!index.ok()) return index.status().WithContext(Where(s));
      return PlanShard(s, *index ? std::optional<ByteView>((*index)->view()) : std::nullopt,
                       std::nullopt);
    };
    TZ_RETURN_NOT_OK(pool_.ParallelFor(static_cast<int64_t>(shards_.size()), plan_shard));
    uint64_t needed = 0;
    for (const ShardReads& s : shards_) {
      for (const InnerRead& r : s.reads) needed += r.nbytes;
    }
    const uint64_t threads = static_cast<uint64_t>(pool_.concurrency());
    const std::vector<RangeGroup> groups =
        Group(std::clamp(needed / (4 * threads), kMinGroupBytes, kMaxGroupBytes));
    return pool_.ParallelFor(static_cast<int64_t>(groups.size()), [&](int64_t i) {
      const RangeGroup& g = groups[i];
      // Each thread reads its groups (at most kMaxGroupBytes) into one
      // buffer it keeps, which stays paged in (see Store::GetReusing).
      thread_local Buffer bytes;
      Result<bool> got = array_.store()->GetReusing(
          shards_[g.shard].key, ByteRange::Of(g.begin, g.end - g.begin), bytes);
      if (!got.ok()) return got.status().WithContext(Where(g.shard));
      TZ_RETURN_NOT_OK(CheckPresent(g, *got));
      for (size_t k = g.first; k < g.last; ++k) {
        TZ_RETURN_NOT_OK(DecodeInner(g, k, bytes.view()));
      }
      return Status::OK();
    });
  }

  // A shard the selection covers whole, and small enough to hold, is fetched
  // whole in the index phase: one round trip instead of two (its index, then
  // its inner chunks), and decoded as soon as it arrives. Others are fetched
  // index first.
  Status ReadRemote(size_t window) {
    Store& store = *array_.store();
    const bool whole_fits = !m_.dtype.is_variable_length() &&
                            ShardDecodedBytes() <= kMaxGroupBytes;
    auto whole = [&](size_t s) { return whole_fits && plan_[s].covers_chunk; };
    TZ_RETURN_NOT_OK(FetchInWindows(
        store, shards_.size(),
        WindowFor(window, whole_fits ? ShardDecodedBytes() + codec_.index_size()
                                     : codec_.index_size()),
        [&](size_t s) {
          return KeyRange{shards_[s].key, whole(s) ? ByteRange::Full() : IndexRange()};
        },
        [&](size_t first, const std::vector<KeyRange>& reads,
            std::vector<std::optional<Buffer>>& answers) -> Status {
          TZ_RETURN_NOT_OK(
              pool_.ParallelFor(static_cast<int64_t>(reads.size()), [&](int64_t k) {
                return whole(first + k) ? PlanWholeShard(first + k, answers[k])
                                        : PlanShard(first + k,
                                                    answers[k] ? std::optional<ByteView>(
                                                                     answers[k]->view())
                                                               : std::nullopt,
                                                    std::nullopt);
              }));
          // The whole shards' inner chunks, each a parallel item; their reads
          // are then done with, so the range phase leaves them out.
          std::vector<std::pair<size_t, size_t>> items;  // (shard, inner read)
          for (size_t k = 0; k < reads.size(); ++k) {
            if (!whole(first + k)) continue;
            for (size_t r = 0; r < shards_[first + k].reads.size(); ++r) {
              items.emplace_back(first + k, r);
            }
          }
          TZ_RETURN_NOT_OK(
              pool_.ParallelFor(static_cast<int64_t>(items.size()), [&](int64_t i) {
                const auto [shard, r] = items[i];
                const ByteView bytes = answers[shard - first]->view();
                return DecodeInner({shard, 0, bytes.size(), 0, 0}, r, bytes);
              }));
          for (size_t k = 0; k < reads.size(); ++k) {
            if (whole(first + k)) shards_[first + k].reads.clear();
          }
          return Status::OK();
        },
        array_.Describe()));

    const std::vector<RangeGroup> groups = Group(kMaxGroupBytes);
    uint64_t largest = 0;
    for (const RangeGroup& g : groups) largest = std::max(largest, g.end - g.begin);
    return FetchInWindows(
        store, groups.size(), WindowFor(window, largest),
        [&](size_t i) {
          const RangeGroup& g = groups[i];
          return KeyRange{shards_[g.shard].key, ByteRange::Of(g.begin, g.end - g.begin)};
        },
        [&](size_t first, const std::vector<KeyRange>& reads,
            std::vector<std::optional<Buffer>>& answers) -> Status {
          // Every inner chunk of the window is an item, so that one big
          // group does not decode on one thread.
          std::vector<std::pair<size_t, size_t>> items;  // (group, inner read)
          for (size_t k = 0; k < reads.size(); ++k) {
            const RangeGroup& g = groups[first + k];
            TZ_RETURN_NOT_OK(CheckPresent(g, answers[k].has_value()));
            for (size_t r = g.first; r < g.last; ++r) items.emplace_back(first + k, r);
          }
          return pool_.ParallelFor(static_cast<int64_t>(items.size()), [&](int64_t i) {
            const auto [group, r] = items[i];
            return DecodeInner(groups[group], r, answers[group - first]->view());
          });
        },
        array_.Describe());
  }

 private:
  std::string Where(size_t shard) const {
    return array_.Describe() + ", chunk '" + shards_[shard].key + "'";
  }

  ByteRange IndexRange() const {
    return codec_.index_location() == ShardingCodec::IndexLocation::kStart
               ? ByteRange::Of(0, codec_.index_size())
               : ByteRange::Suffix(codec_.index_size());
  }

  // Bytes of one shard's elements decoded.
  uint64_t ShardDecodedBytes() const {
    uint64_t n = m_.dtype.size();
    for (int64_t d : m_.chunk_shape) n *= static_cast<uint64_t>(d);
    return n;
  }

  // The index phase for a shard fetched whole: its index is read out of its
  // bytes, and checked against its size (no entry over the index or past
  // the end).
  Status PlanWholeShard(size_t s, const std::optional<Buffer>& shard) {
    if (!shard.has_value()) return PlanShard(s, std::nullopt, std::nullopt);
    Result<std::vector<IndexEntry>> entries = codec_.IndexOfShard(shard->view());
    if (!entries.ok()) return entries.status().WithContext(Where(s));
    return PlanStoredShard(s, *entries);
  }

  // The index phase for one shard, given what its index read answered (the
  // index's bytes, nullopt for a missing shard) and, when known, the shard's
  // size: decode the index, fill what is missing, and list the stored inner
  // chunks to read.
  Status PlanShard(size_t s, std::optional<ByteView> index,
                   std::optional<uint64_t> shard_size) {
    const ChunkProjection& sp = plan_[s];
    if (!index.has_value()) {
      FillBlock(m_.dtype, m_.fill_value,
                ChunkRegion::Make(sp, m_.chunk_shape, block_shape_), out_);
      return Status::OK();
    }
    const uint64_t index_size = codec_.index_size();
    if (index->size() != index_size) {
      return Status::Corruption(Where(s) + ": shard of " + std::to_string(index->size()) +
                                " bytes is smaller than its " +
                                std::to_string(index_size) + "-byte index");
    }
    Result<std::vector<IndexEntry>> entries = codec_.DecodeIndex(*index, shard_size);
    if (!entries.ok()) return entries.status().WithContext(Where(s));
    return PlanStoredShard(s, *entries);
  }

  // The rest of the index phase for a stored shard of decoded index
  // `entries`: fill the missing inner chunks, list the stored ones to read.
  Status PlanStoredShard(size_t s, const std::vector<IndexEntry>& entries) {
    const ChunkProjection& sp = plan_[s];
    ShardReads& shard = shards_[s];
    const uint64_t index_size = codec_.index_size();
    const bool index_at_start =
        codec_.index_location() == ShardingCodec::IndexLocation::kStart;
    const std::vector<int64_t>& inner_shape = codec_.chunk_shape();
    for (ChunkProjection& ip : PlanInnerChunks(sp, m_, inner_shape)) {
      const int64_t linear = InnerChunkLinear(ip, codec_.chunks_per_shard());
      const IndexEntry& e = entries[linear];
      if (e.missing()) {
        FillBlock(m_.dtype, m_.fill_value,
                  ChunkRegion::Make(ip, inner_shape, block_shape_), out_);
        continue;
      }
      // Without the shard's size only these checks are possible here; a range
      // past the end shows up as a short read in the range phase.
      if ((index_at_start && e.offset < index_size) ||
          e.nbytes > std::numeric_limits<uint64_t>::max() - e.offset) {
        return Status::Corruption(
            Where(s) + ": shard index: " + codec_.InnerChunkName(linear) + " at bytes " +
            Range(e.offset, e.nbytes) + " lies outside the shard's data");
      }
      shard.reads.push_back({e.offset, e.nbytes, linear, std::move(ip)});
    }
    std::stable_sort(
        shard.reads.begin(), shard.reads.end(),
        [](const InnerRead& a, const InnerRead& b) { return a.offset < b.offset; });
    return Status::OK();
  }

  // Each shard's sorted reads merged into range groups of at most `cap`
  // bytes.
  std::vector<RangeGroup> Group(uint64_t cap) const {
    std::vector<RangeGroup> groups;
    std::vector<ByteSpan> spans;
    for (size_t s = 0; s < shards_.size(); ++s) {
      spans.clear();
      for (const InnerRead& r : shards_[s].reads) spans.push_back({r.offset, r.nbytes});
      for (const MergedRun& run : MergeSortedSpans(spans, {kMaxMergeGap, cap})) {
        groups.push_back({s, run.begin, run.end, run.first, run.last});
      }
    }
    return groups;
  }

  Status CheckPresent(const RangeGroup& g, bool present) const {
    if (present) return Status::OK();
    return Status::IOError(Where(g.shard) +
                           ": the shard disappeared while it was being read");
  }

  // Decodes inner chunk `k` of group `g` out of `data`, the group's bytes
  // (short when the shard ends early).
  Status DecodeInner(const RangeGroup& g, size_t k, ByteView data) const {
    const InnerRead& r = shards_[g.shard].reads[k];
    const uint64_t rel = r.offset - g.begin;
    if (rel > data.size() || r.nbytes > data.size() - rel) {
      return Status::Corruption(
          Where(g.shard) + ": shard index: " + codec_.InnerChunkName(r.linear) +
          " at bytes " + Range(r.offset, r.nbytes) + " runs past the end of the shard");
    }
    Status s = DecodeChunkToBlock(codec_.inner_chain(), data.subspan(rel, r.nbytes),
                                  r.proj, block_shape_, out_);
    if (!s.ok()) {
      return s.WithContext(Where(g.shard) + ", " + codec_.InnerChunkName(r.linear));
    }
    return Status::OK();
  }

  const Array& array_;
  const ArrayMetadata& m_;
  const ShardingCodec& codec_;
  const std::vector<int64_t> block_shape_;
  void* const out_;
  ThreadPool& pool_;
  const std::vector<ChunkProjection> plan_;
  std::vector<ShardReads> shards_;
};

}  // namespace

Status ReadShardedSelection(const Array& array, const ShardingCodec& codec,
                            const Selection& selection, void* out, ThreadPool& pool) {
  ShardedRead read(array, codec, selection, out, pool);
  const int in_flight = array.store()->PreferredRequestsInFlight();
  if (in_flight > pool.concurrency())
    return read.ReadRemote(static_cast<size_t>(in_flight));
  return read.ReadLocal();
}

}  // namespace turbozarr::internal
