// ShardingCodec: the zarr v3 "sharding_indexed" array->bytes codec. A shard
// is a grid of inner chunks, each encoded by an inner CodecChain, stored
// back to back (in Morton order, as zarr-python writes them) with an index
// at the start or end of the shard:
//
//   per inner chunk, C order: uint64 offset, uint64 nbytes
//   (both 2^64-1 for an inner chunk that is all fill value and not stored),
//
// itself encoded by the index CodecChain (by default bytes + crc32c).
//
// Beside whole-shard Encode/Decode, the pieces a partial read needs are
// public: the index's encoded size and location, DecodeIndex for its bytes,
// and DecodeInnerChunk for one inner chunk's bytes.
//
// Thread safety: immutable; all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "codec/codec_config.h"
#include "turbozarr/codec.h"

namespace turbozarr {

class ShardingCodec final : public ArrayToBytesCodec {
 public:
  enum class IndexLocation { kStart, kEnd };

  // One inner chunk's place in the shard's bytes.
  struct IndexEntry {
    static constexpr uint64_t kMissing = std::numeric_limits<uint64_t>::max();
    uint64_t offset = kMissing;
    uint64_t nbytes = kMissing;
    bool missing() const { return offset == kMissing && nbytes == kMissing; }
    bool operator==(const IndexEntry&) const = default;
  };

  // From {"chunk_shape", "codecs", "index_codecs", "index_location"} for
  // shards described by `shard_spec`; the shard shape must be a multiple of
  // chunk_shape, and index_codecs must have a fixed encoded size.
  static Result<std::shared_ptr<const ShardingCodec>> Make(internal::CodecConfig& config,
                                                           const ArraySpec& shard_spec);

  std::string name() const override { return "sharding_indexed"; }
  nlohmann::json ToJson() const override;
  // Inner chunks equal to the fill value are left out; a shard whose inner
  // chunks are all fill value encodes to just its index.
  Result<Buffer> Encode(const ChunkArray& array, const ArraySpec& spec) const override;
  Result<ChunkArray> Decode(ByteView bytes, const ArraySpec& spec) const override;

  const std::vector<int64_t>& shard_shape() const { return shard_spec_.shape; }
  const std::vector<int64_t>& chunk_shape() const { return inner_chain_.spec().shape; }
  const std::vector<int64_t>& chunks_per_shard() const { return chunks_per_shard_; }
  int64_t num_inner_chunks() const { return static_cast<int64_t>(morton_.size()); }
  const CodecChain& inner_chain() const { return inner_chain_; }
  const CodecChain& index_chain() const { return index_chain_; }
  IndexLocation index_location() const { return index_location_; }
  // The encoded index's size in bytes.
  size_t index_size() const { return index_size_; }

  // Corruption unless a stored shard of `shard_size` bytes can hold the index.
  Status CheckShardSize(uint64_t shard_size) const;
  // Decodes the encoded index (index_size() bytes) into one entry per inner
  // chunk, C order. Every present entry must lie inside the shard's data:
  // with `shard_size`, between the index and the other end; without it, past
  // an index at the start and within 64-bit offsets. Problems are Corruption
  // naming the inner chunk.
  Result<std::vector<IndexEntry>> DecodeIndex(ByteView index_bytes,
                                              std::optional<uint64_t> shard_size) const;
  Result<Buffer> EncodeIndex(const std::vector<IndexEntry>& entries) const;
  // The index of a whole stored shard, read from its place (start or end) and
  // decoded as DecodeIndex does with the shard's size; Corruption also for a
  // shard smaller than its index.
  Result<std::vector<IndexEntry>> IndexOfShard(ByteView shard) const;

  // Decodes one inner chunk from its stored bytes.
  Result<ChunkArray> DecodeInnerChunk(ByteView bytes) const {
    return inner_chain_.Decode(bytes);
  }

  // Lays out encoded inner chunks (C order; nullopt for ones not stored) as
  // one shard: data in Morton order, index at its location.
  Result<Buffer> Assemble(const std::vector<std::optional<ByteView>>& inner) const;

  // The pieces of Assemble, for writers that encode inner chunks straight
  // into their place in the shard: where each inner chunk of the given
  // encoded size (C order; nullopt for ones not stored) goes, and the
  // shard's total size, index included.
  struct Layout {
    std::vector<IndexEntry> entries;  // C order
    uint64_t shard_size = 0;
  };
  Layout LayOut(const std::vector<std::optional<uint64_t>>& sizes) const;
  // Encodes the index of `layout` into its place in `shard` (shard_size bytes).
  Status PlaceIndex(const Layout& layout, MutableByteView shard) const;

  // Coordinates (in units of inner chunks) of the inner chunk at C-order
  // position `linear`, and "[i, j]" for messages.
  std::vector<int64_t> InnerChunkCoords(int64_t linear) const;
  std::string InnerChunkName(int64_t linear) const;

  ShardingCodec(ArraySpec shard_spec, std::vector<int64_t> chunks_per_shard,
                CodecChain inner_chain, CodecChain index_chain, IndexLocation location,
                size_t index_size);

 private:
  Status CheckSpec(const ArraySpec& spec) const;

  ArraySpec shard_spec_;
  std::vector<int64_t> chunks_per_shard_;
  CodecChain inner_chain_;
  CodecChain index_chain_;
  IndexLocation index_location_;
  size_t index_size_;
  std::vector<int64_t> morton_;  // C-order indices of inner chunks, Morton order
};

}  // namespace turbozarr
