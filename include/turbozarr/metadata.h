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
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "turbozarr/chunk_grid.h"
#include "turbozarr/codec.h"
#include "turbozarr/dtype.h"
#include "turbozarr/status.h"

namespace turbozarr {

// A metadata document (zarr.json, .zarray, .zattrs, ...) as read and
// written: objects keep the order of their keys, so user attributes come
// back in the order they were written, as zarr-python keeps them. Other
// fields are plain nlohmann::json (sorted keys, order-blind equality).
using JsonDocument = nlohmann::ordered_json;

// How chunk grid coordinates become store keys.
struct ChunkKeyEncoding {
  enum class Kind { kDefault, kV2 };
  Kind kind = Kind::kDefault;
  char separator = '/';

  // v3 default: "c/1/2" ("c" for zero dimensions); v2: "1.2" ("0" for zero
  // dimensions), with `separator`. Relative to the array's path.
  std::string EncodeKey(const std::vector<int64_t>& chunk_coords) const;
  // The coordinates of `key` (relative to the array's path) for an array of
  // `rank` dimensions; nullopt unless EncodeKey of them gives `key` back, so
  // that "01", "+1" and keys of another encoding are not chunk keys.
  std::optional<std::vector<int64_t>> DecodeKey(std::string_view key, size_t rank) const;
  JsonDocument ToJson() const;
  static Result<ChunkKeyEncoding> FromJson(const JsonDocument& j);
};

struct ArrayMetadata {
  int zarr_format = 3;
  std::vector<int64_t> shape;
  // The chunk grid's chunk shape: for a sharded array this is the shard.
  std::vector<int64_t> chunk_shape;
  // A rectilinear chunk grid (v3 "rectilinear", kind "inline"): per
  // dimension the runs of chunk edge lengths, or no runs for a dimension
  // given as one integer (a step: chunk_shape[d]). Empty for a regular
  // grid. Along a dimension with runs, chunk_shape[d] is the longest chunk
  // that touches the array (UpdateRectilinearChunkShape): the chunk length
  // where the grid is regular within the array, an upper bound elsewhere.
  std::vector<std::vector<ChunkEdgeRun>> chunk_edges;
  DataType dtype;
  FillValue fill_value;
  ChunkKeyEncoding chunk_key_encoding;
  // v3: the "codecs" list. v2: built from order/filters/compressor/dtype
  // byte order so that one CodecChain serves both formats.
  nlohmann::json codecs = nlohmann::json::array();
  JsonDocument attributes = JsonDocument::object();
  // v3 only; each entry a name or null.
  std::optional<std::vector<std::optional<std::string>>> dimension_names;
  // v3 fields that this reader does not know but may ignore
  // (must_understand: false); written back unchanged.
  nlohmann::json extra_fields = nlohmann::json::object();
  // v3: "data_type" as stored. When it still names `dtype` it is written back
  // as read, so that spellings with the same meaning ("r16" and raw_bytes,
  // "bytes" and "variable_length_bytes") survive a round trip; null otherwise.
  nlohmann::json v3_data_type;

  // v2 only: the fields as stored, so that writing back is lossless.
  char v2_order = 'C';
  char v2_byte_order = '<';
  nlohmann::json v2_compressor;  // null when none
  nlohmann::json v2_filters;     // null when none
  bool v2_fill_value_null = false;

  size_t rank() const { return shape.size(); }
  bool rectilinear() const { return !chunk_edges.empty(); }
  // Sets chunk_shape along the dimensions with runs from the runs and shape.
  void UpdateRectilinearChunkShape();
  // Sets shape to `new_shape`. A rectilinear dimension of runs that no
  // longer reaches its new extent gains one edge for the rest, as zarr-python
  // grows it (the chunks already there keep their coordinates and shapes);
  // chunk_shape follows.
  void Resize(const std::vector<int64_t>& new_shape);
  // InvalidArgument unless a rectilinear grid has one entry per dimension,
  // positive lengths and counts, and edges that cover each extent.
  Status CheckChunkEdges() const;
  // The spec of one chunk of the grid.
  ArraySpec ChunkSpec() const;
  // Inner chunk shape when the (first) array->bytes codec is sharding_indexed.
  std::optional<std::vector<int64_t>> InnerChunkShape() const;
  // Builds the codec chain (v3 codecs, or the v2 fields translated).
  Result<CodecChain> MakeCodecChain() const;

  // InvalidArgument unless the sizes fit 64-bit arithmetic: the element
  // count, the number of chunks, and one chunk's bytes (fixed-size types),
  // so that no later product overflows and no chunk asks for more memory
  // than can exist. Stored metadata that fails it is refused as corrupt.
  Status CheckSizes() const;
};

// Parses zarr.json of an array. `where` names the array in errors.
Result<ArrayMetadata> ParseV3ArrayMetadata(const JsonDocument& j, std::string_view where);
// Parses .zarray (and optional .zattrs, null when absent).
Result<ArrayMetadata> ParseV2ArrayMetadata(const JsonDocument& zarray,
                                           const JsonDocument& zattrs,
                                           std::string_view where);

// zarr.json of an array. REQUIRES: zarr_format == 3.
JsonDocument ToV3Json(const ArrayMetadata& m);
// .zarray of an array (attributes go to .zattrs). REQUIRES: zarr_format == 2.
JsonDocument ToV2ZarrayJson(const ArrayMetadata& m);

struct GroupMetadata {
  int zarr_format = 3;
  JsonDocument attributes = JsonDocument::object();
  // v3 inline consolidated metadata: member path -> its zarr.json; absent
  // when the group is not consolidated.
  std::optional<std::map<std::string, JsonDocument>> consolidated;
  nlohmann::json extra_fields = nlohmann::json::object();
};

Result<GroupMetadata> ParseV3GroupMetadata(const JsonDocument& j, std::string_view where);
JsonDocument ToV3Json(const GroupMetadata& m);

// Parses .zgroup (and .zattrs, null when absent).
Result<GroupMetadata> ParseV2GroupMetadata(const JsonDocument& zgroup,
                                           const JsonDocument& zattrs,
                                           std::string_view where);
// .zgroup of a group (attributes go to .zattrs). REQUIRES: zarr_format == 2.
JsonDocument ToV2ZgroupJson(const GroupMetadata& m);

// v2 consolidated metadata (.zmetadata): store key relative to the group
// (".zgroup", "a/.zarray", "a/.zattrs", ...) -> that document.
using V2ConsolidatedMetadata = std::map<std::string, JsonDocument>;
Result<V2ConsolidatedMetadata> ParseV2ConsolidatedMetadata(const JsonDocument& j,
                                                           std::string_view where);
// {"metadata": {...}, "zarr_consolidated_format": 1}.
JsonDocument ToV2ConsolidatedJson(const V2ConsolidatedMetadata& m);

// Parses a JSON object held in a store; Corruption naming `key` if it is
// malformed, nested absurdly deep, or not an object. Python's bare NaN,
// Infinity and -Infinity (zarr-python writes them in attributes) are read as
// those doubles.
Result<JsonDocument> ParseJsonDocument(ByteView bytes, std::string_view key);
// Serialises JSON the way zarr-python's json.dumps does, for stable bytes:
// indent 2 (or, with indent < 0, one line with ", " and ": " as .zmetadata
// is written), non-ASCII escaped as \uXXXX, floats as Python's repr, NaN and
// Infinity as bare words, and the known fields of zarr metadata in
// zarr-python's order (other keys after them, in their order; attributes
// in their order).
std::string DumpJsonDocument(const JsonDocument& j, int indent = 2);

}  // namespace turbozarr
