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
        options_(options) {
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
    const ChunkProjection& ip = sw.inner[k];
    const int64_t linear = InnerChunkLinear(ip, codec_.chunks_per_shard());
    std::optional<ByteView> old;
    if (!ip.covers_chunk && sw.old && !sw.old_index[linear].missing()) {
      const IndexEntry& e = sw.old_index[linear];
      old = sw.old->view().subspan(e.offset, e.nbytes);
    }
    Status s = EncodeChunkFromBlock(codec_.inner_chain(), ip, block_shape_, src_, old,
                                    options_.write_empty_chunks, sw.encoded[k]);
    if (!s.ok()) return s.WithContext(Where(sw) + ", " + codec_.InnerChunkName(linear));
    // The last item of the shard to finish sees every other item's result.
    if (sw.remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) return Finish(sw);
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
      }
    }
    return sw.prepare_status;
  }

  Status ReadOldShard(ShardWrite& sw) {
    if (sw.proj.covers_chunk) return Status::OK();  // nothing of it survives
    Result<std::optional<Buffer>> got = array_.store()->Get(sw.key);
    if (!got.ok()) return got.status().WithContext(Where(sw));
    if (!got->has_value()) return Status::OK();
    const ByteView bytes = (*got)->view();
    const size_t index_size = codec_.index_size();
    if (bytes.size() < index_size) {
      return Status::Corruption(Where(sw) + ": shard of " + std::to_string(bytes.size()) +
                                " bytes is smaller than its " +
                                std::to_string(index_size) + "-byte index");
    }
    const ByteView index = codec_.index_location() == ShardingCodec::IndexLocation::kStart
                               ? bytes.first(index_size)
                               : bytes.last(index_size);
    Result<std::vector<IndexEntry>> entries = codec_.DecodeIndex(index, bytes.size());
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
    for (size_t k = 0; k < sw.inner.size(); ++k) {
      const int64_t linear = InnerChunkLinear(sw.inner[k], codec_.chunks_per_shard());
      views[linear] = sw.encoded[k].empty ? std::nullopt
                                          : std::optional<ByteView>(sw.encoded[k].bytes);
    }
    const bool any = std::any_of(views.begin(), views.end(),
                                 [](const std::optional<ByteView>& v) { return v; });
    Status s;
    if (any) {
      Result<Buffer> shard = codec_.Assemble(views);
      s = shard.ok() ? array_.store()->Set(sw.key, shard->view()) : shard.status();
    } else if (sw.proj.covers_chunk || sw.old) {
      // A shard that was read and found missing needs no erasing.
      s = array_.store()->Erase(sw.key);
    }
    sw.old.reset();
    sw.old_index = {};
    sw.inner = {};
    sw.encoded = {};
    return s.ok() ? s : s.WithContext(Where(sw));
  }

  const Array& array_;
  const ArrayMetadata& m_;
  const ShardingCodec& codec_;
  const std::vector<int64_t> block_shape_;
  const void* src_;
  const WriteOptions& options_;
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
