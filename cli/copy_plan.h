// Copy planning for `turbozarr cp`: the destination's metadata (format,
// chunks, shards, codecs) derived from the source's and the command-line
// options, and the shape of the blocks the copy moves at a time.
//
// Whatever the options do not change is kept: a v2 -> v2 copy keeps the
// compressor, filters, order and byte order verbatim; other copies carry the
// source's per-chunk codecs over into the destination's format.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/metadata.h"
#include "turbozarr/status.h"

namespace turbozarr::cli {

struct CopyLayout {
  std::optional<int> zarr_format;              // default: the source's
  std::optional<std::vector<int64_t>> chunks;  // default: the source's (inner) chunks
  // Shard shape. Default: the source's shards when the destination is v3 and
  // they are a multiple of the chunks; `no_shards` turns sharding off.
  std::optional<std::vector<int64_t>> shards;
  bool no_shards = false;
  // Bytes-to-bytes codecs as "zstd:3", "gzip:6", "blosc:lz4:5:shuffle",
  // "lz4", "zlib:6", "bz2:9", "crc32c" or "none"; replace the source's.
  std::vector<std::string> compressors;
  // A v3 "codecs" list for one (inner) chunk; replaces all of the source's.
  std::optional<nlohmann::json> codecs;
};

// The bytes-to-bytes codec that `spec` names, as v3 JSON (format 3) or
// numcodecs JSON (format 2); null JSON for "none". The shorthands are the
// codec table's (CodecFromShorthand in turbozarr/codec.h).
Result<nlohmann::json> CompressorJson(std::string_view spec, const DataType& dtype,
                                      int zarr_format);

// The destination's metadata for a copy of `source`. InvalidArgument for
// options that contradict each other or the array (rank, divisibility);
// Unsupported for codecs the destination format cannot express.
Result<ArrayMetadata> PlanCopyMetadata(const ArrayMetadata& source,
                                       const CopyLayout& layout, std::string_view where);

// The chunks a reader or writer handles as a unit: the shard for a sharded
// array, else the chunk.
const std::vector<int64_t>& StorageUnitShape(const ArrayMetadata& metadata);

// The shape of the blocks a copy reads and writes: a multiple of
// `dst_unit` (so that no destination chunk is written twice), preferably of
// the least common multiple with `src_unit` too (so that no source chunk is
// decoded twice), grown while it stays within `budget_bytes`.
std::vector<int64_t> PlanCopyBlock(const std::vector<int64_t>& shape,
                                   const std::vector<int64_t>& src_unit,
                                   const std::vector<int64_t>& dst_unit,
                                   uint64_t element_bytes, uint64_t budget_bytes);

// The bytes each of the two blocks of a copy may take (PlanCopyBlock's
// budget) when the whole copy is to stay within `memory`: what is left after
// the working buffers of `threads` threads, each holding up to a source
// chunk's bytes as read and as decoded (`src_chunk_bytes`, each capped at the
// 64 MiB a thread keeps between chunks) and a destination unit as encoded
// (`dst_unit_bytes`), split in two. 0 when nothing is left (the blocks are
// then one destination unit each).
uint64_t CopyBlockBudget(uint64_t memory, int threads, uint64_t src_chunk_bytes,
                         uint64_t dst_unit_bytes);

// Parses "256M", "1G", "4096" (bytes); InvalidArgument otherwise.
Result<uint64_t> ParseByteSize(std::string_view text);

}  // namespace turbozarr::cli
