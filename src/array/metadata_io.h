// Reading and writing the metadata documents of a node in a store, for
// either format: zarr.json (v3) or .zarray/.zgroup/.zattrs (v2).
//
// Thread safety: functions over a thread-safe Store.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "turbozarr/group.h"
#include "turbozarr/metadata.h"
#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr {

// The parsed JSON document at `key`, nullopt if absent, Corruption if malformed.
Result<std::optional<JsonDocument>> LoadJsonDocument(Store& store, std::string_view key);
Status StoreJsonDocument(Store& store, std::string_view key, const JsonDocument& doc);

// zarr.json's "node_type" ("array", "group"), or "" when it has none or it is
// not a string: a hostile document is answered, never thrown over.
std::string NodeTypeOf(const JsonDocument& zarr_json);

// What a node's metadata documents say, before it is known to be an array or
// a group. `zarr_format` is 0 when nothing is there.
struct NodeDocuments {
  int zarr_format = 0;
  std::optional<JsonDocument> zarr_json;  // v3
  std::optional<JsonDocument> zarray;     // v2
  std::optional<JsonDocument> zgroup;     // v2
  // v2's .zattrs, when it was read with the others (zattrs_read): remote
  // stores read the three v2 documents in one round trip.
  std::optional<JsonDocument> zattrs;
  bool zattrs_read = false;
  // v2's .zmetadata, when asked for and read with the others
  // (zmetadata_read), so that a group opened from a remote store needs no
  // round trip of its own for its consolidated metadata.
  std::optional<JsonDocument> zmetadata;
  bool zmetadata_read = false;
  bool is_array() const;
  bool is_group() const;
};
// v3 is looked for first, then v2. A remote store reads every candidate
// document in one batch (one round trip, as zarr-python does), .zmetadata
// too when `with_consolidated`; a local one reads them in turn and stops at
// the first that settles what the node is. With `expect`, the batch leaves
// out the other kind's v2 documents (an array: no .zgroup or .zmetadata; a
// group: no .zarray), so a node of the other kind may look absent.
Result<NodeDocuments> LoadNodeDocuments(Store& store, std::string_view path,
                                        bool with_consolidated = false,
                                        std::optional<NodeKind> expect = std::nullopt);

// The array metadata at `path`; NotFound when there is no array there.
Result<ArrayMetadata> LoadArrayMetadata(Store& store, std::string_view path);
// The array metadata of documents that are an array's (docs.is_array()),
// reading .zattrs when it was not read with them.
Result<ArrayMetadata> ArrayMetadataFromDocuments(Store& store, std::string_view path,
                                                 NodeDocuments docs);
// Writes zarr.json, or .zarray and .zattrs.
Status StoreArrayMetadata(Store& store, std::string_view path, const ArrayMetadata& m);

}  // namespace turbozarr
