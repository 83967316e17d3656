#include "array/shard_write.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "array/chunk_encode.h"

namespace turbozarr::internal {
namespace {

using IndexEntry = ShardingCodec::IndexEntry;

// One shard the selection touches, and its items [first_item, first_item +
// num_items) of the ParallelFor.
struct ShardWrite {
  ChunkProjection proj;
  std::string key;
  int64_t first_item = 0;
  int64_t num_items = 0;
  std::atomic<int64_t> remaining{0};

  // Set up by the shard's first item (Prepare), under `mu`.
  std::mutex mu;
  bool prepared = false;
  Status prepare_status;
  std::vector<ChunkProjection> inner;  // touched inner chunks, one per item
  std::optional<Buffer> old;           // the stored shard, when read and present
  std::vector<IndexEntry> old_index;   // its decoded index

  std::vector<EncodedChunk> encoded;  // one per item

  // Built in place (see ShardedWrite::in_place_): the shard's bytes, laid out
  // before its inner chunks are built into them, and which items came out
  // all fill value.
  Buffer placed;
  ShardingCodec::Layout layout;
  std::vector<char> placed_empty;  // one per item
};

class ShardedWrite {
 public:
  ShardedWrite(const Array& array, const ShardingCodec& codec, const Selection& selection,
               const void* src, const WriteOptions& options)
      : array_(array),
        m_(array.metadata()),
        codec_(codec),
        block_shape_(selection.shape()),
        src_(src),
        options_(options),
        in_place_(StoresChunkAsIs(codec.inner_chain())) {
    const std::vector<ChunkProjection> plan =
        PlanChunks(selection, m_.shape, m_.chunk_shape);
    shards_ = std::vector<ShardWrite>(plan.size());
    for (size_t s = 0; s < plan.size(); ++s) {
      ShardWrite& sw = shards_[s];
      sw.proj = plan[s];
      sw.key = array.ChunkKey(sw.proj.chunk_coords);
      sw.first_item = total_items_;
      sw.num_items = CountInnerChunks(sw.proj, m_, codec.chunk_shape());
      sw.remaining = sw.num_items;
      total_items_ += sw.num_items;
    }
  }

  Status Run(ThreadPool& pool) {
    return pool.ParallelFor(total_items_, [this](int64_t i) { return Item(i); });
  }

 private:
  std::string Where(const ShardWrite& sw) const {
    return array_.Describe() + ", chunk '" + sw.key + "'";
  }

  ShardWrite& ShardOf(int64_t item) {
    auto it = std::upper_bound(
        shards_.begin(), shards_.end(), item,
        [](int64_t i, const ShardWrite& sw) { return i < sw.first_item; });
    return *std::prev(it);
  }

  Status Item(int64_t item) {
    ShardWrite& sw = ShardOf(item);
    TZ_RETURN_NOT_OK(Prepare(sw));
    const size_t k = static_cast<size_t>(item - sw.first_item);
    const int64_t linear = InnerChunkLinear(sw.inner[k], codec_.chunks_per_shard());
    Status s = sw.placed.empty() ? Encode(sw, k, linear) : BuildInPlace(sw, k, linear);
    if (!s.ok()) return s.WithContext(Where(sw) + ", " + codec_.InnerChunkName(linear));
    // The last item of the shard to finish sees every other item's result.
    if (sw.remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) return Finish(sw);
    return Status::OK();
  }

  // Encodes item k (inner chunk `linear`) into a buffer of its own.
  Status Encode(ShardWrite& sw, size_t k, int64_t linear) {
    const ChunkProjection& ip = sw.inner[k];
    std::optional<ByteView> old;
    if (!ip.covers_chunk && sw.old && !sw.old_index[linear].missing()) {
      const IndexEntry& e = sw.old_index[linear];
      old = sw.old->view().subspan(e.offset, e.nbytes);
    }
    return EncodeChunkFromBlock(codec_.inner_chain(), ip, block_shape_, src_, old,
                                options_.write_empty_chunks, sw.encoded[k]);
  }

  // Builds item k (inner chunk `linear`) in its place in sw.placed.
  Status BuildInPlace(ShardWrite& sw, size_t k, int64_t linear) {
    const IndexEntry& e = sw.layout.entries[linear];
    bool empty = false;
    TZ_RETURN_NOT_OK(BuildChunkInPlace(
        codec_.inner_chain(), sw.inner[k], block_shape_, src_, std::nullopt,
        options_.write_empty_chunks, sw.placed.mutable_view().subspan(e.offset, e.nbytes),
        empty));
    sw.placed_empty[k] = empty;
    return Status::OK();
  }

  // Plans the shard's inner chunks and reads what a partial write keeps.
  Status Prepare(ShardWrite& sw) {
    std::lock_guard<std::mutex> lock(sw.mu);
    if (!sw.prepared) {
      sw.prepared = true;
      sw.prepare_status = ReadOldShard(sw);
      if (sw.prepare_status.ok()) {
        sw.inner = PlanInnerChunks(sw.proj, m_, codec_.chunk_shape());
        assert(static_cast<int64_t>(sw.inner.size()) == sw.num_items);
        sw.encoded.resize(sw.inner.size());
        if (in_place_ && sw.proj.covers_chunk) PlanInPlace(sw);
      }
    }
    return sw.prepare_status;
  }

  // A shard the write covers, of inner chunks stored as they are: every
  // inner chunk's place is known before it is built, so each is built
  // straight into the shard's bytes (no buffer per inner chunk, no copy to
  // assemble them) and the store is handed the shard itself.
  void PlanInPlace(ShardWrite& sw) {
    const uint64_t inner_bytes =
        static_cast<uint64_t>(codec_.inner_chain().spec().num_elements()) *
        codec_.inner_chain().spec().dtype.size();
    std::vector<std::optional<uint64_t>> sizes(
        static_cast<size_t>(codec_.num_inner_chunks()));
    for (const ChunkProjection& ip : sw.inner) {
      sizes[InnerChunkLinear(ip, codec_.chunks_per_shard())] = inner_bytes;
    }
    sw.layout = codec_.LayOut(sizes);
    sw.placed = Buffer(sw.layout.shard_size);
    sw.placed_empty.assign(sw.inner.size(), 0);
  }

  Status ReadOldShard(ShardWrite& sw) {
    if (sw.proj.covers_chunk) return Status::OK();  // nothing of it survives
    Result<std::optional<Buffer>> got = array_.store()->Get(sw.key);
    if (!got.ok()) return got.status().WithContext(Where(sw));
    if (!got->has_value()) return Status::OK();
    Result<std::vector<IndexEntry>> entries = codec_.IndexOfShard((*got)->view());
    if (!entries.ok()) return entries.status().WithContext(Where(sw));
    sw.old_index = std::move(entries).value();
    sw.old = std::move(*got);
    return Status::OK();
  }

  // Lays the shard out and stores it (or erases it), then frees its memory.
  Status Finish(ShardWrite& sw) {
    std::vector<std::optional<ByteView>> views(
        static_cast<size_t>(codec_.num_inner_chunks()));
    if (sw.old) {
      for (size_t i = 0; i < views.size(); ++i) {
        const IndexEntry& e = sw.old_index[i];
        if (!e.missing()) views[i] = sw.old->view().subspan(e.offset, e.nbytes);
      }
    }
    const bool in_place = !sw.placed.empty();
    bool all_built = true;
    for (size_t k = 0; k < sw.inner.size(); ++k) {
      const int64_t linear = InnerChunkLinear(sw.inner[k], codec_.chunks_per_shard());
      if (in_place) {
        const IndexEntry& e = sw.layout.entries[linear];
        all_built &= !sw.placed_empty[k];
        views[linear] = sw.placed_empty[k] ? std::nullopt
                                           : std::optional<ByteView>(
                                                 sw.placed.view().subspan(e.offset, e.nbytes));
      } else {
        views[linear] = sw.encoded[k].empty
                            ? std::nullopt
                            : std::optional<ByteView>(sw.encoded[k].bytes);
      }
    }
    const bool any = std::any_of(views.begin(), views.end(),
                                 [](const std::optional<ByteView>& v) { return v; });
    Status s;
    if (in_place && all_built) {
      s = codec_.PlaceIndex(sw.layout, sw.placed.mutable_view());
      if (s.ok()) s = array_.store()->SetBuffer(sw.key, std::move(sw.placed));
    } else if (any) {
      // Some inner chunks came out all fill value (or were encoded apart):
      // lay the rest out afresh.
      Result<Buffer> shard = codec_.Assemble(views);
      s = shard.ok() ? array_.store()->SetBuffer(sw.key, std::move(*shard))
                     : shard.status();
    } else if (sw.proj.covers_chunk || sw.old) {
      // A shard that was read and found missing needs no erasing.
      s = array_.store()->Erase(sw.key);
    }
    sw.old.reset();
    sw.old_index = {};
    sw.inner = {};
    sw.encoded = {};
    sw.placed = Buffer();
    sw.placed_empty = {};
    return s.ok() ? s : s.WithContext(Where(sw));
  }

  const Array& array_;
  const ArrayMetadata& m_;
  const ShardingCodec& codec_;
  const std::vector<int64_t> block_shape_;
  const void* src_;
  const WriteOptions& options_;
  const bool in_place_;
  std::vector<ShardWrite> shards_;
  int64_t total_items_ = 0;
};

}  // namespace

Status WriteShardedSelection(const Array& array, const ShardingCodec& codec,
                             const Selection& selection, const void* src,
                             const WriteOptions& options, ThreadPool& pool) {
  ShardedWrite write(array, codec, selection, src, options);
  return write.Run(pool);
}

}  // namespace turbozarr::internal
