#include "array/shard_write.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "array/chunk_encode.h"
#include "array/shard_plan.h"
#include "codec/sharding/shard_store.h"
#include "codec/sharding/shard_writer.h"

namespace turbozarr::internal {
namespace {

// One shard the selection touches, and its items [first_item, first_item +
// num_items) of the ParallelFor.
struct ShardWrite {
  ChunkProjection proj;
  std::vector<int64_t> extent;  // the shard's part inside the array
  std::string key;
  // The shard's codec (its shape sets its index and inner grid: one per
  // shard shape on a rectilinear grid).
  std::optional<ShardedChain> sharding;
  // The shard's read-modify-write (Store::BeginUpdates), begun for every
  // shard before any item runs and ended once the shard is stored.
  std::unique_ptr<KeyUpdate> update;
  int64_t first_item = 0;
  int64_t num_items = 0;
  std::atomic<int64_t> remaining{0};

  // Set up by the shard's first item (Prepare), under `mu`.
  std::mutex mu;
  bool prepared = false;
  Status prepare_status;
  std::vector<ChunkProjection> inner;     // touched inner chunks, one per item
  std::vector<int64_t> linear;            // their C-order positions in the shard
  std::shared_ptr<const ShardStore> old;  // the stored shard, when read and present
  std::optional<ShardWriter> writer;
  bool in_place = false;  // inner chunks built straight into their place

  std::vector<EncodedChunk> encoded;  // one per item
};

class ShardedWrite {
 public:
  ShardedWrite(const Array& array, const ShardedChain& sharding,
               const Selection& selection, const void* src, const WriteOptions& options)
      : array_(array),
        m_(array.metadata()),
        block_shape_(selection.shape()),
        src_(src),
        options_(options),
        in_place_(StoresChunkAsIs(sharding.inner_chain())) {
    const std::vector<ChunkProjection> plan =
        PlanChunks(selection, m_.shape, array.chunk_grid());
    shards_ = std::vector<ShardWrite>(plan.size());
    for (size_t s = 0; s < plan.size(); ++s) {
      ShardWrite& sw = shards_[s];
      sw.proj = plan[s];
      // Masked, every shard and inner chunk is merged into what is stored.
      if (options.mask != nullptr) sw.proj.covers_chunk = false;
      sw.extent = ChunkExtent(sw.proj.chunk_coords, array.chunk_grid(), m_.shape);
      sw.key = array.ChunkKey(sw.proj.chunk_coords);
      Result<const CodecChain*> chain = array.ChunkChain(sw.proj.chunk_coords);
      if (chain.ok()) sw.sharding = ShardedChain::Of(**chain);
      if (!sw.sharding) {
        plan_status_ = chain.ok() ? Status::Unsupported("the shard's codecs are not sharding")
                                  : chain.status();
        plan_status_ = plan_status_.WithContext(Where(sw));
        return;
      }
      sw.first_item = total_items_;
      sw.num_items = CountInnerChunks(sw.proj, sw.extent, sw.sharding->inner_chunk_shape());
      sw.remaining = sw.num_items;
      total_items_ += sw.num_items;
    }
  }

  // Begins the update of every shard at once, so that the store takes their
  // locks in its own order (writers holding several never deadlock), then
  // builds and stores them. A shard is partly rewritten under its update:
  // no other writer's update of it commits between its read and its store.
  Status Run(ThreadPool& pool) {
    TZ_RETURN_NOT_OK(plan_status_);
    std::vector<std::string> keys;
    keys.reserve(shards_.size());
    for (const ShardWrite& sw : shards_) keys.push_back(sw.key);
    Result<std::vector<std::unique_ptr<KeyUpdate>>> updates =
        array_.store()->BeginUpdates(keys);
    if (!updates.ok()) return updates.status().WithContext(array_.Describe());
    for (size_t s = 0; s < shards_.size(); ++s) shards_[s].update = std::move((*updates)[s]);
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
    const int64_t linear = sw.linear[k];
    Status s = sw.in_place ? BuildInPlace(sw, k, linear) : Encode(sw, k, linear);
    if (!s.ok())
      return s.WithContext(Where(sw) + ", " + sw.sharding->InnerChunkName(linear));
    // The last item of the shard to finish sees every other item's result.
    if (sw.remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) return Finish(sw);
    return Status::OK();
  }

  // Encodes item k (inner chunk `linear`) into a buffer of its own.
  Status Encode(ShardWrite& sw, size_t k, int64_t linear) {
    const ChunkProjection& ip = sw.inner[k];
    std::optional<ByteView> old;
    if (!ip.covers_chunk && sw.old) old = sw.old->HeldBytes(linear);
    EncodedChunk& out = sw.encoded[k];
    TZ_RETURN_NOT_OK(EncodeChunkFromBlock(sw.sharding->inner_chain(), ip, block_shape_, src_,
                                          old, options_.write_empty_chunks, out,
                                          options_.mask));
    sw.writer->Set(linear, out.empty ? std::nullopt : std::optional<ByteView>(out.bytes));
    return Status::OK();
  }

  // Builds item k (inner chunk `linear`) in its place in the shard.
  Status BuildInPlace(ShardWrite& sw, size_t k, int64_t linear) {
    const MutableByteView place = sw.writer->Place(linear);
    bool empty = false;
    TZ_RETURN_NOT_OK(BuildChunkInPlace(sw.sharding->inner_chain(), sw.inner[k], block_shape_,
                                       src_, std::nullopt, options_.write_empty_chunks,
                                       place, empty));
    sw.writer->Set(linear, empty ? std::nullopt : std::optional<ByteView>(place));
    return Status::OK();
  }

  // Plans the shard's inner chunks and reads what a partial write keeps.
  Status Prepare(ShardWrite& sw) {
    std::lock_guard<std::mutex> lock(sw.mu);
    if (!sw.prepared) {
      sw.prepared = true;
      sw.prepare_status = ReadOldShard(sw);
      if (sw.prepare_status.ok()) {
        sw.inner = PlanInnerChunks(sw.proj, sw.extent, sw.sharding->inner_chunk_shape());
        if (options_.mask != nullptr) {
          for (ChunkProjection& ip : sw.inner) ip.covers_chunk = false;
        }
        assert(static_cast<int64_t>(sw.inner.size()) == sw.num_items);
        for (const ChunkProjection& ip : sw.inner) {
          sw.linear.push_back(sw.sharding->InnerChunkLinear(ip.chunk_coords));
        }
        sw.encoded.resize(sw.inner.size());
        sw.writer.emplace(*sw.sharding, sw.old);
        // A shard the write covers, of inner chunks stored as they are:
        // every inner chunk's place is known before it is built, so each is
        // built straight into the shard's bytes (no buffer per inner chunk,
        // no copy to assemble them) and the store is handed the shard itself.
        sw.in_place = in_place_ && sw.proj.covers_chunk;
        if (sw.in_place) {
          const ArraySpec& spec = sw.sharding->inner_chain().spec();
          sw.writer->LayOutInPlace(
              sw.linear, static_cast<uint64_t>(spec.num_elements()) * spec.dtype.size());
        }
      }
    }
    return sw.prepare_status;
  }

  Status ReadOldShard(ShardWrite& sw) {
    if (sw.proj.covers_chunk) return Status::OK();  // nothing of it survives
    Result<std::optional<Buffer>> got = sw.update->Read();
    if (!got.ok()) return got.status().WithContext(Where(sw));
    if (!got->has_value()) return Status::OK();
    Result<std::shared_ptr<ShardStore>> old =
        ShardStore::FromBytes(ShardStore::At(array_.store(), sw.key, array_.Describe()),
                              *sw.sharding, std::move(**got));
    if (!old.ok()) return old.status();
    sw.old = std::move(*old);
    return Status::OK();
  }

  // Lays the shard out and stores it (or erases it), then frees its memory
  // and ends its update.
  Status Finish(ShardWrite& sw) {
    Status s = StoreShard(sw);
    sw.update.reset();
    sw.old.reset();
    sw.writer.reset();
    sw.inner = {};
    sw.linear = {};
    sw.encoded = {};
    return s.ok() ? s : s.WithContext(Where(sw));
  }

  Status StoreShard(ShardWrite& sw) {
    for (;;) {
      TZ_ASSIGN_OR_RETURN(std::optional<Buffer> shard, sw.writer->Finish());
      Result<bool> committed = true;
      if (shard.has_value()) {
        committed = sw.update->CommitBuffer(std::move(*shard));
      } else if (sw.proj.covers_chunk || sw.old) {
        // A shard that was read and found missing needs no erasing.
        committed = sw.update->Commit(std::nullopt);
      }
      TZ_RETURN_NOT_OK(committed.status());
      if (*committed) return Status::OK();
      TZ_RETURN_NOT_OK(Rebuild(sw));
    }
  }

  // Another writer stored the shard since it was read (a store that checks
  // at commit rather than lock, such as S3): builds it again from what is
  // stored now, item by item on this thread. Only partly written shards
  // read, so none of them is built in place.
  Status Rebuild(ShardWrite& sw) {
    assert(!sw.in_place);
    sw.old.reset();
    TZ_RETURN_NOT_OK(ReadOldShard(sw));
    sw.writer.emplace(*sw.sharding, sw.old);
    for (size_t k = 0; k < sw.inner.size(); ++k) {
      Status s = Encode(sw, k, sw.linear[k]);
      if (!s.ok()) return s.WithContext(sw.sharding->InnerChunkName(sw.linear[k]));
    }
    return Status::OK();
  }

  const Array& array_;
  const ArrayMetadata& m_;
  const std::vector<int64_t> block_shape_;
  const void* src_;
  const WriteOptions& options_;
  const bool in_place_;
  std::vector<ShardWrite> shards_;
  int64_t total_items_ = 0;
  Status plan_status_;  // a shard whose chain could not be built
};

}  // namespace

Status WriteShardedSelection(const Array& array, const Selection& selection, const void* src,
                             const WriteOptions& options, ThreadPool& pool) {
  const std::optional<ShardedChain> sharding = ShardedChain::Of(array.codec_chain());
  assert(sharding.has_value());
  ShardedWrite write(array, *sharding, selection, src, options);
  return write.Run(pool);
}

}  // namespace turbozarr::internal
