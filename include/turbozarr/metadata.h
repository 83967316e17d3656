// ArrayMetadata and GroupMetadata: what zarr.json (v3) or .zarray/.zgroup/
// .zattrs (v2) say, held in one format-neutral form, with parsing, writing
// and the step from metadata to a CodecChain.
//
// Thread safety: values; no shared state.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "turbozarr/codec.h"
#include "turbozarr/dtype.h"
#include "turbozarr/status.h"

namespace turbozarr {

// How chunk grid coordinates become store keys.
struct ChunkKeyEncoding {
  enum class Kind { kDefault, kV2 };
  Kind kind = Kind::kDefault;
  char separator = '/';

  // v3 default: "c/1/2" ("c" for zero dimensions); v2: "1.2" ("0" for zero
  // dimensions), with `separator`. Relative to the array's path.
  std::string EncodeKey(const std::vector<int64_t>& chunk_coords) const;
  nlohmann::json ToJson() const;
  static Result<ChunkKeyEncoding> FromJson(const nlohmann::json& j);
};

struct ArrayMetadata {
  int zarr_format = 3;
  std::vector<int64_t> shape;
  // The chunk grid's chunk shape: for a sharded array this is the shard.
  std::vector<int64_t> chunk_shape;
  DataType dtype;
  FillValue fill_value;
  ChunkKeyEncoding chunk_key_encoding;
  // v3: the "codecs" list. v2: built from order/filters/compressor/dtype
  // byte order so that one CodecChain serves both formats.
  nlohmann::json codecs = nlohmann::json::array();
  nlohmann::json attributes = nlohmann::json::object();
  // v3 only; each entry a name or null.
  std::optional<std::vector<std::optional<std::string>>> dimension_names;
  // v3 fields that this reader does not know but may ignore
  // (must_understand: false); written back unchanged.
  nlohmann::json extra_fields = nlohmann::json::object();

  // v2 only: the fields as stored, so that writing back is lossless.
  char v2_order = 'C';
  char v2_byte_order = '<';
  nlohmann::json v2_compressor;  // null when none
  nlohmann::json v2_filters;     // null when none
  bool v2_fill_value_null = false;

  size_t rank() const { return shape.size(); }
  // The spec of one chunk of the grid.
  ArraySpec ChunkSpec() const;
  // Inner chunk shape when the (first) array->bytes codec is sharding_indexed.
  std::optional<std::vector<int64_t>> InnerChunkShape() const;
  // Builds the codec chain (v3 codecs, or the v2 fields translated).
  Result<CodecChain> MakeCodecChain() const;
};

// Parses zarr.json of an array. `where` names the array in errors.
Result<ArrayMetadata> ParseV3ArrayMetadata(const nlohmann::json& j, std::string_view where);
// Parses .zarray (and optional .zattrs, null when absent).
Result<ArrayMetadata> ParseV2ArrayMetadata(const nlohmann::json& zarray,
                                           const nlohmann::json& zattrs,
                                           std::string_view where);

// zarr.json of an array. REQUIRES: zarr_format == 3.
nlohmann::json ToV3Json(const ArrayMetadata& m);
// .zarray of an array (attributes go to .zattrs). REQUIRES: zarr_format == 2.
nlohmann::json ToV2ZarrayJson(const ArrayMetadata& m);

struct GroupMetadata {
  int zarr_format = 3;
  nlohmann::json attributes = nlohmann::json::object();
  // v3 inline consolidated metadata: member path -> its zarr.json; absent
  // when the group is not consolidated.
  std::optional<std::map<std::string, nlohmann::json>> consolidated;
  nlohmann::json extra_fields = nlohmann::json::object();
};

Result<GroupMetadata> ParseV3GroupMetadata(const nlohmann::json& j, std::string_view where);
nlohmann::json ToV3Json(const GroupMetadata& m);

// Parses a JSON document held in a store; Corruption naming `key` if malformed.
Result<nlohmann::json> ParseJsonDocument(ByteView bytes, std::string_view key);
// Serialises JSON the way zarr-python does (indent 2) for stable bytes.
std::string DumpJsonDocument(const nlohmann::json& j);

}  // namespace turbozarr
