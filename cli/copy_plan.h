// Copy planning for `turbozarr cp`: the destination's metadata (format,
// chunks, shards, codecs) derived from the source's and the command-line
// options. How the elements are then copied is the engine's
// (turbozarr/array_copy.h).
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
  // Whether the copy's chunks get a checksum (AddChecksum,
  // turbozarr/checksum.h). Default: when the copy changes the format,
  // chunks, shards or compressors, unless `codecs` gives the whole chain.
  // False keeps the planned codecs as they are (a checksum the source had
  // stays).
  std::optional<bool> checksum;
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

// Parses "256M", "1G", "4096" (bytes); InvalidArgument otherwise.
Result<uint64_t> ParseByteSize(std::string_view text);

}  // namespace turbozarr::cli
