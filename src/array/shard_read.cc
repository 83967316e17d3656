#include "array/shard_read.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "array/chunk_copy.h"
#include "array/chunk_decode.h"
#include "array/chunk_region.h"
#include "array/shard_plan.h"
#include "array/windowed_fetch.h"
#include "codec/sharding/shard_store.h"

namespace turbozarr::internal {
namespace {

// One box's share of a chunk: where it lies in the chunk and in the box's
// block.
struct BoxShare {
  ChunkProjection proj;
  size_t box = 0;
};

// One stored inner chunk a box needs.
struct InnerRead {
  ByteSpan span;  // where it lies in the value of its shard's key
  int64_t linear = 0;
  BoxShare share;
};

// A shard one level of the read opens: where it lies, the boxes' shares of
// it and its extent inside the array.
struct ShardToOpen {
  ShardStore::Location where;
  std::vector<BoxShare> shares;
  std::vector<int64_t> extent;
};

// `level` with the entries for the same shard (the same bytes of the same
// key: boxes of one read meet in shards) made one, their shares joined, in
// the order of first appearance.
std::vector<ShardToOpen> OnePerShard(std::vector<ShardToOpen> level) {
  std::map<std::pair<std::string, uint64_t>, size_t> seen;
  std::vector<ShardToOpen> out;
  for (ShardToOpen& s : level) {
    auto [it, added] = seen.emplace(std::pair(s.where.key, s.where.offset), out.size());
    if (added) {
      out.push_back(std::move(s));
    } else {
      std::vector<BoxShare>& shares = out[it->second].shares;
      std::move(s.shares.begin(), s.shares.end(), std::back_inserter(shares));
    }
  }
  return out;
}

// A shard opened, and what the selection needs of it: the stored inner
// chunks to read (sorted by offset) or, with nested sharding, the inner
// shards to open next.
struct OpenShard {
  std::shared_ptr<ShardStore> store;  // null: not stored (filled)
  std::vector<InnerRead> reads;
  std::vector<ShardToOpen> next;
};

// Inner chunks of one shard, reads[first, last), fetched as bytes
// [begin, end) of its key's value with one read.
struct MergedRead {
  size_t shard = 0;
  uint64_t begin = 0;
  uint64_t end = 0;
  size_t first = 0;
  size_t last = 0;
};

class ShardedRead {
 public:
  ShardedRead(const Array& array, std::span<const BoxToRead> boxes, ThreadPool& pool,
              bool fill_missing_shards)
      : array_(array),
        m_(array.metadata()),
        pool_(pool),
        in_flight_(array.store()->Capabilities().requests_in_flight),
        remote_(in_flight_ > pool.concurrency()),
        fill_missing_shards_(fill_missing_shards) {
    for (const BoxToRead& b : boxes) {
      if (b.selection->num_elements() > 0) {
        boxes_.push_back({b.selection, b.selection->shape(), b.out});
      }
    }
  }

  // Reads the selection. When a shard was replaced while it was read
  // (ShardStore::IsShardChanged: its index and inner chunks came from
  // different versions), it reads again, fetching every shard whole: one
  // read of one value, which no writer can tear, and which a writer
  // rewriting the shard faster than an index and its inner chunks can be
  // fetched cannot starve either. Every attempt writes the whole block.
  Status Run() {
    for (int attempt = 1;; ++attempt) {
      Status s = RunOnce();
      if (!ShardStore::IsShardChanged(s) || attempt == kReadAttempts) return s;
      whole_shards_ = true;
    }
  }

 private:
  // Changes met on whole reads too can only come from nested shards read
  // level by level, and are as rare as a write between two reads.
  static constexpr int kReadAttempts = 8;

  // Reads the shards the selection touches.
  Status RunOnce() {
    // The shards grouped by the chain that encodes them: one group on a
    // regular grid; on a rectilinear grid one per shard shape (a shard's
    // shape sets its index and its inner grid). Inner chunks, and inner
    // shards, have one shape throughout.
    std::map<const CodecChain*, std::vector<ShardToOpen>> groups;
    const std::string context = array_.Describe();  // leads every shard's name
    const ChunkGrid& grid = array_.chunk_grid();
    for (size_t b = 0; b < boxes_.size(); ++b) {
      for (ChunkProjection& p : PlanChunks(*boxes_[b].selection, m_.shape, grid)) {
        const std::string key = array_.ChunkKey(p.chunk_coords);
        Result<const CodecChain*> chain = array_.ChunkChain(p.chunk_coords);
        if (!chain.ok()) return chain.status().WithContext(context + ", shard '" + key + "'");
        std::vector<int64_t> extent = ChunkExtent(p.chunk_coords, grid, m_.shape);
        groups[*chain].push_back({ShardStore::At(array_.store(), key, context),
                                  {{std::move(p), b}},
                                  std::move(extent)});
      }
    }
    for (auto& [chain, level] : groups) {
      const std::optional<ShardedChain> top = ShardedChain::Of(*chain);
      if (!top) return Status::Unsupported(context + ": a shard's codecs are not sharding");
      TZ_RETURN_NOT_OK(ReadLevels(Joined(std::move(level)), *top));
    }
    return Status::OK();
  }

  // Opens the shards of `level`, all encoded by `sharding`, level by level
  // down nested shards, then reads the inner chunks of the last level.
  Status ReadLevels(std::vector<ShardToOpen> level, ShardedChain sharding) {
    while (true) {
      const std::optional<ShardedChain> nested = ShardedChain::Of(sharding.inner_chain());
      std::vector<OpenShard> opened(level.size());
      TZ_RETURN_NOT_OK(Open(level, sharding, nested.has_value(), opened));
      if (!nested) return ReadInnerChunks(sharding, opened);
      std::vector<ShardToOpen> next;
      for (OpenShard& o : opened) {
        std::move(o.next.begin(), o.next.end(), std::back_inserter(next));
      }
      level = Joined(std::move(next));
      sharding = *nested;
    }
  }

  // `level` one entry per shard: boxes meet in shards; one box never does.
  std::vector<ShardToOpen> Joined(std::vector<ShardToOpen> level) const {
    return boxes_.size() > 1 ? OnePerShard(std::move(level)) : std::move(level);
  }

  void Fill(const BoxShare& share, const std::vector<int64_t>& chunk_shape) const {
    const Box& box = boxes_[share.box];
    FillBlock(m_.dtype, m_.fill_value, ChunkRegion::Make(share.proj, chunk_shape, box.shape),
              box.out);
  }

  // Bytes of one decoded chunk of `shape`.
  uint64_t DecodedBytes(const std::vector<int64_t>& shape) const {
    uint64_t n = m_.dtype.size();
    for (int64_t d : shape) n *= static_cast<uint64_t>(d);
    return n;
  }

  // What the boxes need of shard `s` once it is opened (or found missing):
  // the stored inner chunks to read, or the inner shards to open.
  Status Plan(const ShardToOpen& s, const ShardedChain& sharding, bool nested,
              std::shared_ptr<ShardStore> store, OpenShard& o) const {
    if (!store) {  // only a shard of the array's own grid can be missing
      if (!fill_missing_shards_) {
        return MissingChunkError().WithContext(
            array_.Describe() + ", shard '" +
            array_.ChunkKey(s.shares.front().proj.chunk_coords) + "'");
      }
      for (const BoxShare& share : s.shares) Fill(share, sharding.shard_shape());
      return Status::OK();
    }
    const std::vector<int64_t>& inner_shape = sharding.inner_chunk_shape();
    for (const BoxShare& share : s.shares) {
      for (ChunkProjection& ip : PlanInnerChunks(share.proj, s.extent, inner_shape)) {
        const int64_t linear = sharding.InnerChunkLinear(ip.chunk_coords);
        BoxShare inner{std::move(ip), share.box};
        if (nested) {
          std::optional<ShardStore::Location> where = store->InnerLocation(linear);
          if (!where) {
            Fill(inner, inner_shape);
            continue;
          }
          std::vector<int64_t> extent =
              ChunkExtent(inner.proj.chunk_coords, inner_shape, s.extent);
          o.next.push_back({std::move(*where), {std::move(inner)}, std::move(extent)});
          continue;
        }
        const std::optional<ByteSpan> span = store->Locate(linear);
        if (!span) {
          Fill(inner, inner_shape);
          continue;
        }
        o.reads.push_back({*span, linear, std::move(inner)});
      }
    }
    std::stable_sort(o.reads.begin(), o.reads.end(),
                     [](const InnerRead& a, const InnerRead& b) {
                       return a.span.offset < b.span.offset;
                     });
    o.store = std::move(store);
    return Status::OK();
  }

  // Opens every shard of `level` and plans what is needed of it.
  Status Open(const std::vector<ShardToOpen>& level, const ShardedChain& sharding,
              bool nested, std::vector<OpenShard>& opened) {
    // Shards inside a shard held in memory open from there.
    const bool held = !level.empty() && level.front().where.held.has_value();
    if ((!remote_ && !whole_shards_) || held) {
      return pool_.ParallelFor(static_cast<int64_t>(level.size()), [&](int64_t s) {
        Result<std::shared_ptr<ShardStore>> store =
            ShardStore::Open(level[s].where, sharding);
        if (!store.ok()) return store.status();
        return Plan(level[s], sharding, nested, std::move(*store), opened[s]);
      });
    }
    // A shard the selection covers whole, and small enough to hold, is
    // fetched whole: one round trip instead of two (its index, then its
    // inner chunks), and its inner chunks are decoded as soon as it arrives,
    // so no more than a window of whole shards is held.
    const bool whole_fits = !nested && !m_.dtype.is_variable_length() &&
                            DecodedBytes(sharding.shard_shape()) <= kMaxGroupBytes;
    auto whole = [&](size_t s) {
      return whole_shards_ ||
             (whole_fits && std::any_of(level[s].shares.begin(), level[s].shares.end(),
                                        [](const BoxShare& b) { return b.proj.covers_chunk; }));
    };
    const uint64_t index_size = sharding.index_size();
    const size_t in_flight =
        std::max<size_t>({static_cast<size_t>(in_flight_),
                          static_cast<size_t>(pool_.concurrency()), size_t{1}});
    const uint64_t whole_bytes = DecodedBytes(sharding.shard_shape()) + index_size;
    const size_t window =
        WindowFor(in_flight, whole_fits || whole_shards_ ? whole_bytes : index_size);
    // A remote store may fetch a whole shard in parts when few are in flight.
    const ReadHint whole_hint{m_.dtype.is_variable_length() ? 0 : whole_bytes,
                              static_cast<uint32_t>(std::min(level.size(), window))};
    return FetchInWindows(
        *array_.store(), level.size(), window,
        [&](size_t s) {
          if (!whole(s)) return ShardStore::IndexRead(level[s].where, sharding);
          KeyRange read = ShardStore::WholeRead(level[s].where);
          read.hint = whole_hint;
          return read;
        },
        [&](size_t first, const std::vector<KeyRange>& reads, WindowAnswers& got) -> Status {
          TZ_RETURN_NOT_OK(
              pool_.ParallelFor(static_cast<int64_t>(reads.size()), [&](int64_t k) {
                const size_t s = first + k;
                const ShardStore::Location& at = level[s].where;
                // A nested shard's outer shard was read a moment ago: the
                // same version of it, still there, or read again.
                if (at.version != 0 && !got.values[k].has_value()) {
                  return ShardStore::ShardChanged(at);
                }
                TZ_RETURN_NOT_OK(ShardStore::CheckVersion(at, got.versions[k]));
                Result<std::shared_ptr<ShardStore>> store = std::shared_ptr<ShardStore>();
                if (got.values[k].has_value()) {
                  ShardStore::Location where = at;
                  if (got.versions[k] != 0) where.version = got.versions[k];
                  store = whole(s) ? ShardStore::FromBytes(std::move(where), sharding,
                                                           std::move(*got.values[k]))
                                   : ShardStore::FromIndex(std::move(where), sharding,
                                                           got.values[k]->view());
                }
                if (!store.ok()) return store.status();
                return Plan(level[s], sharding, nested, std::move(*store), opened[s]);
              }));
          // The whole shards' inner chunks now, then their bytes are let go.
          // (Whole shards of shards keep them, for the next level to open.)
          std::vector<OpenShard*> held;
          for (size_t k = 0; k < reads.size() && !nested; ++k) {
            if (whole(first + k) && opened[first + k].store)
              held.push_back(&opened[first + k]);
          }
          TZ_RETURN_NOT_OK(ReadHeld(sharding, held));
          for (OpenShard* o : held) *o = OpenShard();
          return Status::OK();
        },
        array_.Describe());
  }

  // Decodes the planned inner chunks of shards held in memory, every inner
  // chunk an item of one ParallelFor.
  Status ReadHeld(const ShardedChain& sharding, const std::vector<OpenShard*>& held) {
    std::vector<std::pair<OpenShard*, size_t>> items;
    for (OpenShard* o : held) {
      for (size_t r = 0; r < o->reads.size(); ++r) items.emplace_back(o, r);
    }
    return pool_.ParallelFor(static_cast<int64_t>(items.size()), [&](int64_t i) {
      const auto [o, r] = items[i];
      const ByteView value = *o->store->location().held;
      return DecodeInner(sharding, *o, r, {0, value.size()}, value);
    });
  }

  // Reads the planned inner chunks of every opened shard.
  Status ReadInnerChunks(const ShardedChain& sharding, std::vector<OpenShard>& opened) {
    std::vector<OpenShard*> held;
    uint64_t needed = 0;
    for (OpenShard& o : opened) {
      if (o.store && o.store->location().held) held.push_back(&o);
      for (const InnerRead& r : o.reads) needed += r.span.length;
    }
    TZ_RETURN_NOT_OK(ReadHeld(sharding, held));
    for (OpenShard* o : held) o->reads.clear();

    if (!remote_) {
      const uint64_t threads = static_cast<uint64_t>(pool_.concurrency());
      const std::vector<MergedRead> runs = MergedReads(
          opened, std::clamp(needed / (4 * threads), kMinGroupBytes, kMaxGroupBytes));
      return pool_.ParallelFor(static_cast<int64_t>(runs.size()), [&](int64_t i) {
        const MergedRead& run = runs[i];
        const ShardStore::Location& where = opened[run.shard].store->location();
        // Each thread reads its runs (at most kMaxGroupBytes) into one buffer
        // it keeps, which stays paged in (see Store::GetReusing).
        thread_local Buffer bytes;
        const ReadRequest request = ReadRequest::Reusing(
            where.key, ByteRange::Of(run.begin, run.end - run.begin), bytes);
        ReadAnswer answer;
        Status read = where.store->Read({&request, 1}, {&answer, 1});
        if (!read.ok()) return read.WithContext(where.name);
        TZ_RETURN_NOT_OK(CheckSame(where, answer.found, answer.version));
        for (size_t k = run.first; k < run.last; ++k) {
          TZ_RETURN_NOT_OK(DecodeInner(sharding, opened[run.shard], k,
                                       {run.begin, run.end}, bytes.view()));
        }
        return Status::OK();
      });
    }

    const std::vector<MergedRead> runs = MergedReads(opened, kMaxGroupBytes);
    uint64_t largest = 0;
    for (const MergedRead& run : runs) largest = std::max(largest, run.end - run.begin);
    return FetchInWindows(
        *array_.store(), runs.size(), WindowFor(static_cast<size_t>(in_flight_), largest),
        [&](size_t i) {
          const MergedRead& run = runs[i];
          return KeyRange{opened[run.shard].store->location().key,
                          ByteRange::Of(run.begin, run.end - run.begin)};
        },
        [&](size_t first, const std::vector<KeyRange>& reads, WindowAnswers& got) -> Status {
          // Every inner chunk of the window is an item, so that one big run
          // does not decode on one thread.
          std::vector<std::pair<size_t, size_t>> items;  // (run, inner read)
          for (size_t k = 0; k < reads.size(); ++k) {
            const MergedRead& run = runs[first + k];
            TZ_RETURN_NOT_OK(CheckSame(opened[run.shard].store->location(),
                                       got.values[k].has_value(), got.versions[k]));
            for (size_t r = run.first; r < run.last; ++r)
              items.emplace_back(first + k, r);
          }
          return pool_.ParallelFor(static_cast<int64_t>(items.size()), [&](int64_t i) {
            const auto [r, k] = items[i];
            const MergedRead& run = runs[r];
            return DecodeInner(sharding, opened[run.shard], k, {run.begin, run.end},
                               got.values[r - first]->view());
          });
        },
        array_.Describe());
  }

  // Each shard's sorted reads merged into runs of at most `cap` bytes.
  std::vector<MergedRead> MergedReads(const std::vector<OpenShard>& opened,
                                      uint64_t cap) const {
    std::vector<MergedRead> runs;
    std::vector<ByteSpan> spans;
    for (size_t s = 0; s < opened.size(); ++s) {
      spans.clear();
      for (const InnerRead& r : opened[s].reads) spans.push_back(r.span);
      for (const MergedRun& m : ShardStore::MergeRuns(spans, cap)) {
        runs.push_back({s, m.begin, m.end, m.first, m.last});
      }
    }
    return runs;
  }

  // OK when a read of the shard at `where` found it, in the version its
  // index came from (as far as the store can tell); else ShardChanged.
  static Status CheckSame(const ShardStore::Location& where, bool found, uint64_t version) {
    if (!found) return ShardStore::ShardChanged(where);
    return ShardStore::CheckVersion(where, version);
  }

  // Decodes inner chunk `k` of shard `o` out of `data`, the bytes [range)
  // of its key's value (short when the value ends early).
  Status DecodeInner(const ShardedChain& sharding, const OpenShard& o, size_t k,
                     std::pair<uint64_t, uint64_t> range, ByteView data) const {
    const InnerRead& r = o.reads[k];
    const uint64_t rel = r.span.offset - range.first;
    if (rel > data.size() || r.span.length > data.size() - rel) {
      return Status::Corruption(o.store->location().name +
                                ": shard index: " + sharding.InnerChunkName(r.linear) +
                                " at bytes [" + std::to_string(r.span.offset) + ", +" +
                                std::to_string(r.span.length) +
                                ") runs past the end of the shard");
    }
    const Box& box = boxes_[r.share.box];
    Status s = DecodeChunkToBlock(sharding.inner_chain(), data.subspan(rel, r.span.length),
                                  r.share.proj, box.shape, box.out);
    if (!s.ok()) {
      return s.WithContext(o.store->location().name + ", " +
                           sharding.InnerChunkName(r.linear));
    }
    return Status::OK();
  }

  // A box with elements, and the block it is read into.
  struct Box {
    const Selection* selection;
    std::vector<int64_t> shape;
    void* out;
  };

  const Array& array_;
  const ArrayMetadata& m_;
  std::vector<Box> boxes_;
  ThreadPool& pool_;
  const int in_flight_;
  const bool remote_;
  const bool fill_missing_shards_;
  bool whole_shards_ = false;  // fetch shards whole (after a shard changed)
};

}  // namespace

Status MissingChunkError() {
  return Status::NotFound(
      "the chunk is not stored, and missing chunks were asked to be errors "
      "(read_missing_chunks=False) rather than read as the fill value");
}

Status ReadShardedBoxes(const Array& array, std::span<const BoxToRead> boxes,
                        ThreadPool& pool, bool fill_missing_shards) {
  return ShardedRead(array, boxes, pool, fill_missing_shards).Run();
}

Status ReadShardedSelection(const Array& array, const Selection& selection, void* out,
                            ThreadPool& pool, bool fill_missing_shards) {
  const BoxToRead box{&selection, out};
  return ReadShardedBoxes(array, {&box, 1}, pool, fill_missing_shards);
}

}  // namespace turbozarr::internal
