// ShardedChain: what the layers above the codecs know of a sharded array's
// codecs. A chain whose only codec is sharding_indexed (the usual layout,
// and the one zarr-python, TensorStore and zarrs write) is read and written
// shard by shard through the pieces of this folder: ShardStore (a read-only
// store over one stored shard, shard_store.h) and ShardWriter (a shard's new
// bytes, shard_writer.h). Any other chain with a sharding codec in it (a
// checksum or compressor around the shards) codes whole shards through
// CodecChain like any chunk.
//
// A ShardedChain is a light handle on the chain's sharding codec: it is
// valid while that chain is, and gives the geometry of a shard's grid of
// inner chunks, the inner chunks' own chain (which may be sharded again)
// and the fixed size and place of the shard's index.
//
// Thread safety: immutable; may be used from many threads at once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "turbozarr/codec.h"
#include "turbozarr/store.h"

namespace turbozarr {

class ShardingCodec;

class ShardedChain {
 public:
  // The sharding of `chain` when its one codec is sharding_indexed; nullopt
  // otherwise (no sharding, or codecs around it).
  static std::optional<ShardedChain> Of(const CodecChain& chain);

  // The shape of one shard (the outer chunk).
  const std::vector<int64_t>& shard_shape() const;
  // The shape of one inner chunk, and how many there are along each axis.
  const std::vector<int64_t>& inner_chunk_shape() const;
  const std::vector<int64_t>& chunks_per_shard() const;
  int64_t num_inner_chunks() const;
  // The codecs of one inner chunk: its spec is the inner chunk's.
  const CodecChain& inner_chain() const;
  // The encoded index's size in bytes, and where it lies in a stored shard of
  // `shard_size` bytes (nullopt: unknown, then the index is read from its end
  // by a suffix read when it is at the end).
  uint64_t index_size() const;
  ByteRange IndexRange(std::optional<uint64_t> shard_size = std::nullopt) const;

  // The C-order position of the inner chunk at `coords` (in inner chunks).
  int64_t InnerChunkLinear(const std::vector<int64_t>& coords) const;
  // "inner chunk [i, j]", for messages.
  std::string InnerChunkName(int64_t linear) const;

  const ShardingCodec& codec() const { return *codec_; }

 private:
  explicit ShardedChain(const ShardingCodec* codec) : codec_(codec) {}
  const ShardingCodec* codec_;
};

}  // namespace turbozarr
