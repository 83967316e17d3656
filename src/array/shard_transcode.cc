#include "array/shard_transcode.h"

#include <optional>
#include <string>
#include <vector>

#include "array/chunk_decode.h"
#include "array/chunk_encode.h"
#include "array/shard_plan.h"
#include "codec/sharding_codec.h"

namespace turbozarr::internal {

bool CanTranscodeShards(const Array& source, const Array& dest) {
  const ShardingCodec* from = SoleShardingCodec(source.codec_chain());
  const ShardingCodec* to = SoleShardingCodec(dest.codec_chain());
  return from != nullptr && to != nullptr && !source.dtype().is_variable_length() &&
         source.dtype() == dest.dtype() &&
         source.metadata().chunk_shape == dest.metadata().chunk_shape &&
         from->chunk_shape() == to->chunk_shape() &&
         source.metadata().fill_value == dest.metadata().fill_value;
}

Status TranscodeShard(const Array& source, const Array& dest, const ChunkProjection& shard,
                      const WriteOptions& options) {
  const ShardingCodec& from = *SoleShardingCodec(source.codec_chain());
  const ShardingCodec& to = *SoleShardingCodec(dest.codec_chain());
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
  Result<std::vector<ShardingCodec::IndexEntry>> index = from.IndexOfShard(stored.view());
  if (!index.ok()) return in_source(index.status());

  const size_t element_size = source.dtype().size();
  std::vector<ChunkProjection> inner =
      PlanInnerChunks(shard, source.metadata(), from.chunk_shape());
  std::vector<EncodedChunk> encoded(inner.size());
  std::vector<std::optional<ByteView>> views(static_cast<size_t>(to.num_inner_chunks()));
  bool any = false;
  for (size_t k = 0; k < inner.size(); ++k) {
    const int64_t linear = InnerChunkLinear(inner[k], from.chunks_per_shard());
    const ShardingCodec::IndexEntry& e = (*index)[linear];
    if (e.missing()) continue;
    // The inner chunk's elements inside the array, alone in `decoded`.
    ChunkProjection local = inner[k];
    local.out_start.assign(local.out_start.size(), 0);
    const std::vector<int64_t>& block_shape = local.count;
    size_t bytes = element_size;
    for (int64_t n : block_shape) bytes *= static_cast<size_t>(n);
    decoded.Resize(bytes);
    Status s = DecodeChunkToBlock(from.inner_chain(),
                                  stored.view().subspan(e.offset, e.nbytes), local,
                                  block_shape, decoded.data());
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
    views[linear] = out.bytes;
    any = true;
  }

  Status s;
  if (!any) {
    s = dest.store()->Erase(dst_key);
  } else {
    Result<Buffer> laid_out = to.Assemble(views);
    s = laid_out.ok() ? dest.store()->SetBuffer(dst_key, std::move(*laid_out))
                      : laid_out.status();
  }
  TrimScratch(stored);
  TrimScratch(decoded);
  return s.ok() ? s : in_dest(s);
}

}  // namespace turbozarr::internal
