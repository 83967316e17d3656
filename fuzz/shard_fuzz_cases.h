// The cases of shard_index_fuzzer: arrays that are one shard each, covering
// the index at the start and at the end, with and without the crc32c index
// codec, in both byte orders, compressed and variable-length inner chunks,
// and shards of shards. The first input byte picks a case (and whether the
// fuzzer repairs the index checksum), the rest is the stored shard. Shared
// with make_shard_seeds, which writes valid and lying shards of every case.
//
// Thread safety: pure functions; a prepared case is immutable.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "codec/sharding/sharded_chain.h"
#include "codec/sharding/sharding_codec.h"
#include "turbozarr/metadata.h"
#include "util/crc32c.h"

namespace turbozarr::fuzz {

struct ShardCase {
  std::string name;
  nlohmann::json metadata;  // zarr.json of an array whose one chunk is the shard
};

inline nlohmann::json OneShardArray(const std::vector<int64_t>& shape,
                                    const std::string& data_type,
                                    const nlohmann::json& fill_value,
                                    const nlohmann::json& sharding_configuration) {
  return {
      {"zarr_format", 3},
      {"node_type", "array"},
      {"shape", shape},
      {"data_type", data_type},
      {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", shape}}}}},
      {"chunk_key_encoding", {{"name", "default"}}},
      {"fill_value", fill_value},
      {"codecs", nlohmann::json::array({{{"name", "sharding_indexed"},
                                         {"configuration", sharding_configuration}}})}};
}

inline std::vector<ShardCase> ShardCases() {
  using json = nlohmann::json;
  const json little = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
  const json big = {{"name", "bytes"}, {"configuration", {{"endian", "big"}}}};
  const json crc = {{"name", "crc32c"}};
  const json gzip = {{"name", "gzip"}, {"configuration", {{"level", 1}}}};
  auto sharding = [](std::vector<int64_t> chunk_shape, json codecs, json index_codecs,
                     const char* location) {
    return json{{"chunk_shape", chunk_shape},
                {"codecs", std::move(codecs)},
                {"index_codecs", std::move(index_codecs)},
                {"index_location", location}};
  };
  const json with_crc = json::array({little, crc});
  const json plain = json::array({little});
  // Inner chunks that are shards again, their index at the other end.
  const json inner_shards = json::array(
      {{{"name", "sharding_indexed"},
        {"configuration", sharding({4}, json::array({little}), with_crc, "end")}}});
  return {
      {"end-crc32c",
       OneShardArray({16}, "uint16", 0,
                     sharding({4}, json::array({little}), with_crc, "end"))},
      {"start-crc32c",
       OneShardArray({16}, "uint16", 0,
                     sharding({4}, json::array({little}), with_crc, "start"))},
      {"end-plain", OneShardArray({16}, "uint16", 7,
                                  sharding({4}, json::array({little}), plain, "end"))},
      {"start-plain",
       OneShardArray({16}, "uint16", 7,
                     sharding({4}, json::array({little}), plain, "start"))},
      {"2d-gzip",
       OneShardArray({4, 4}, "uint8", 0,
                     sharding({2, 2}, json::array({little, gzip}), with_crc, "end"))},
      {"2d-big-endian",
       OneShardArray({4, 6}, "int32", -1,
                     sharding({2, 3}, json::array({big}), json::array({big}), "start"))},
      {"nested",
       OneShardArray({16}, "uint16", 0, sharding({8}, inner_shards, with_crc, "start"))},
      {"strings", OneShardArray({8}, "string", "",
                                sharding({4}, json::array({{{"name", "vlen-utf8"}}}),
                                         with_crc, "end"))},
  };
}

// A case made ready: its metadata parsed and its codec chain built. The
// sharding handle points into `chain`, so a prepared case does not move.
struct PreparedShardCase {
  std::string name;
  ArrayMetadata metadata;
  CodecChain chain;
  std::optional<ShardedChain> sharding;

  PreparedShardCase() = default;
  PreparedShardCase(const PreparedShardCase&) = delete;
  PreparedShardCase& operator=(const PreparedShardCase&) = delete;
  const ShardingCodec& codec() const { return sharding->codec(); }
};

// Prepares `c` into `out`; the status of whatever step failed.
inline Status Prepare(const ShardCase& c, PreparedShardCase& out) {
  out.name = c.name;
  Result<ArrayMetadata> metadata = ParseV3ArrayMetadata(c.metadata, c.name);
  if (!metadata.ok()) return metadata.status();
  out.metadata = std::move(metadata).value();
  Result<CodecChain> chain = out.metadata.MakeCodecChain();
  if (!chain.ok()) return chain.status();
  out.chain = std::move(chain).value();
  out.sharding = ShardedChain::Of(out.chain);
  if (!out.sharding) return Status::InvalidArgument(c.name + ": not a sharded chain");
  return Status::OK();
}

// Whether the index of `codec` ends in a crc32c checksum.
inline bool IndexHasChecksum(const ShardingCodec& codec) {
  const auto& b2b = codec.index_chain().bytes_to_bytes();
  return !b2b.empty() && b2b.back()->name() == "crc32c";
}

// Rewrites the checksum of the index in `shard` to match the entries before
// it, so that the fuzzer reaches the checks behind the checksum without
// having to compute CRC-32C itself. Does nothing to a shard too small to
// hold an index, or whose index has no checksum.
inline void RepairIndexChecksum(const ShardingCodec& codec, MutableByteView shard) {
  const size_t n = codec.index_size();
  if (!IndexHasChecksum(codec) || n < 4 || shard.size() < n) return;
  MutableByteView index = codec.index_location() == ShardingCodec::IndexLocation::kStart
                              ? shard.first(n)
                              : shard.last(n);
  const uint32_t crc = Crc32c(index.first(n - 4));
  for (size_t i = 0; i < 4; ++i) {
    index[n - 4 + i] = static_cast<std::byte>((crc >> (8 * i)) & 0xFF);
  }
}

}  // namespace turbozarr::fuzz
