#include "codec/sharding/sharded_chain.h"

#include "codec/sharding/sharding_codec.h"

namespace turbozarr {

std::optional<ShardedChain> ShardedChain::Of(const CodecChain& chain) {
  if (!chain.array_to_array().empty() || !chain.bytes_to_bytes().empty()) {
    return std::nullopt;
  }
  const auto* codec = dynamic_cast<const ShardingCodec*>(chain.array_to_bytes().get());
  if (codec == nullptr) return std::nullopt;
  return ShardedChain(codec);
}

const std::vector<int64_t>& ShardedChain::shard_shape() const {
  return codec_->shard_shape();
}
const std::vector<int64_t>& ShardedChain::inner_chunk_shape() const {
  return codec_->chunk_shape();
}
const std::vector<int64_t>& ShardedChain::chunks_per_shard() const {
  return codec_->chunks_per_shard();
}
int64_t ShardedChain::num_inner_chunks() const { return codec_->num_inner_chunks(); }
const CodecChain& ShardedChain::inner_chain() const { return codec_->inner_chain(); }
uint64_t ShardedChain::index_size() const { return codec_->index_size(); }

ByteRange ShardedChain::IndexRange(std::optional<uint64_t> shard_size) const {
  const uint64_t n = codec_->index_size();
  if (codec_->index_location() == ShardingCodec::IndexLocation::kStart) {
    return ByteRange::Of(0, n);
  }
  if (!shard_size) return ByteRange::Suffix(n);
  return ByteRange::Of(*shard_size >= n ? *shard_size - n : 0, n);
}

int64_t ShardedChain::InnerChunkLinear(const std::vector<int64_t>& coords) const {
  const std::vector<int64_t>& grid = codec_->chunks_per_shard();
  int64_t linear = 0;
  for (size_t d = 0; d < grid.size(); ++d) linear = linear * grid[d] + coords[d];
  return linear;
}

std::string ShardedChain::InnerChunkName(int64_t linear) const {
  return codec_->InnerChunkName(linear);
}

}  // namespace turbozarr
