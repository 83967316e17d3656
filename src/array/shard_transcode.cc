#include "array/shard_transcode.h"

#include <optional>
#include <string>
#include <vector>

#include "array/chunk_decode.h"
#include "array/chunk_encode.h"
#include "array/shard_plan.h"
#include "codec/sharding/shard_store.h"
#include "codec/sharding/shard_writer.h"

namespace turbozarr::internal {

bool CanTranscodeShards(const Array& source, const Array& dest) {
  const std::optional<ShardedChain> from = ShardedChain::Of(source.codec_chain());
  const std::optional<ShardedChain> to = ShardedChain::Of(dest.codec_chain());
  // Equal chunk shapes mean equal shards only on regular grids.
  return from && to && source.regular_grid() && dest.regular_grid() &&
         !source.dtype().is_variable_length() &&
         source.dtype() == dest.dtype() &&
         source.metadata().chunk_shape == dest.metadata().chunk_shape &&
         from->inner_chunk_shape() == to->inner_chunk_shape() &&
         source.metadata().fill_value == dest.metadata().fill_value;
}

Status TranscodeShard(const Array& source, const Array& dest,
                      const ChunkProjection& shard, const WriteOptions& options) {
  const ShardedChain from = *ShardedChain::Of(source.codec_chain());
  const ShardedChain to = *ShardedChain::Of(dest.codec_chain());
  const std::string src_key = source.ChunkKey(shard.chunk_coords);
  const std::string dst_key = dest.ChunkKey(shard.chunk_coords);
  auto in_source = [&](const Status& s) {
    return s.WithContext(source.Describe() + ", chunk '" + src_key + "'");
  };
  auto in_dest = [&](const Status& s) {
    return s.WithContext(dest.Describe() + ", chunk '" + dst_key + "'");
  };

  // Kept by the thread between shards: the shard as read, and one inner
  // chunk decoded.
  thread_local Buffer stored;
  thread_local Buffer decoded;
  Result<bool> present = source.store()->GetReusing(src_key, ByteRange::Full(), stored);
  if (!present.ok()) return in_source(present.status());
  if (!*present) {
    Status erased = dest.store()->Erase(dst_key);
    return erased.ok() ? erased : in_dest(erased);
  }
  Result<std::shared_ptr<ShardStore>> old = ShardStore::OverBytes(
      ShardStore::At(source.store(), src_key, source.Describe()), from, stored.view());
  if (!old.ok()) return old.status();

  const size_t element_size = source.dtype().size();
  const std::vector<int64_t> extent =
      ChunkExtent(shard.chunk_coords, source.metadata().chunk_shape, source.shape());
  std::vector<ChunkProjection> inner =
      PlanInnerChunks(shard, extent, from.inner_chunk_shape());
  std::vector<EncodedChunk> encoded(inner.size());
  ShardWriter writer(to, nullptr);
  for (size_t k = 0; k < inner.size(); ++k) {
    const int64_t linear = from.InnerChunkLinear(inner[k].chunk_coords);
    const std::optional<ByteView> bytes = (*old)->HeldBytes(linear);
    if (!bytes) continue;
    // The inner chunk's elements inside the array, alone in `decoded`.
    ChunkProjection local = inner[k];
    local.out_start.assign(local.out_start.size(), 0);
    const std::vector<int64_t>& block_shape = local.count;
    size_t size = element_size;
    for (int64_t n : block_shape) size *= static_cast<size_t>(n);
    decoded.Resize(size);
    Status s = DecodeChunkToBlock(from.inner_chain(), *bytes, local, block_shape,
                                  decoded.data());
    if (!s.ok()) return in_source(s.WithContext(from.InnerChunkName(linear)));
    EncodedChunk& out = encoded[k];
    s = EncodeChunkFromBlock(to.inner_chain(), local, block_shape, decoded.data(),
                             std::nullopt, options.write_empty_chunks, out);
    if (!s.ok()) return in_dest(s.WithContext(to.InnerChunkName(linear)));
    if (out.empty) continue;
    // A chain that stores elements as they are encodes to a view of
    // `decoded` itself, which the next inner chunk overwrites.
    if (out.bytes.data() == decoded.data()) {
      out.storage = Buffer(out.bytes);
      out.bytes = out.storage.view();
    }
    writer.Set(linear, out.bytes);
  }

  Result<std::optional<Buffer>> laid_out = writer.Finish();
  Status s;
  if (!laid_out.ok()) {
    s = laid_out.status();
  } else if (laid_out->has_value()) {
    s = dest.store()->SetBuffer(dst_key, std::move(**laid_out));
  } else {
    s = dest.store()->Erase(dst_key);
  }
  TrimScratch(stored);
  TrimScratch(decoded);
  return s.ok() ? s : in_dest(s);
}

}  // namespace turbozarr::internal
