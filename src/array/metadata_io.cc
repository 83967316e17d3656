#include "array/metadata_io.h"

#include "array/node_path.h"

#include <vector>

namespace turbozarr {

Result<std::optional<JsonDocument>> LoadJsonDocument(Store& store, std::string_view key) {
  TZ_ASSIGN_OR_RETURN(std::optional<Buffer> bytes, store.Get(key));
  if (!bytes) return std::optional<JsonDocument>();
  TZ_ASSIGN_OR_RETURN(JsonDocument doc, ParseJsonDocument(bytes->view(), key));
  return std::optional<JsonDocument>(std::move(doc));
}

Status StoreJsonDocument(Store& store, std::string_view key, const JsonDocument& doc) {
  std::string text = DumpJsonDocument(doc);
  return store.Set(key, AsBytes(text));
}

std::string NodeTypeOf(const JsonDocument& zarr_json) {
  if (!zarr_json.is_object()) return "";
  auto it = zarr_json.find("node_type");
  return it != zarr_json.end() && it->is_string() ? it->get<std::string>() : "";
}

bool NodeDocuments::is_array() const {
  if (zarr_format == 3) return NodeTypeOf(*zarr_json) == "array";
  return zarray.has_value();
}

bool NodeDocuments::is_group() const {
  if (zarr_format == 3) return NodeTypeOf(*zarr_json) == "group";
  return !zarray.has_value() && zgroup.has_value();
}

namespace {

// Every candidate document of the node at `path` in one batch; false, with
// `docs` untouched, when the store refused the batch (some servers answer
// 403 rather than 404 for an absent key), so that the caller reads them one
// by one instead.
Result<bool> LoadBatched(Store& store, std::string_view path, bool with_consolidated,
                         std::optional<NodeKind> expect, NodeDocuments& docs) {
  // The documents asked for, each with where it goes; zarr.json first.
  std::vector<KeyRange> keys;
  std::vector<std::optional<JsonDocument>*> into;
  auto ask = [&](std::string_view name, std::optional<JsonDocument>* target) {
    keys.push_back({MetadataKey(path, name), ByteRange::Full()});
    into.push_back(target);
  };
  ask(kZarrJson, &docs.zarr_json);
  if (expect != NodeKind::kGroup) ask(kZarray, &docs.zarray);
  if (expect != NodeKind::kArray) ask(kZgroup, &docs.zgroup);
  ask(kZattrs, &docs.zattrs);
  const bool consolidated = with_consolidated && expect != NodeKind::kArray;
  if (consolidated) ask(kZmetadata, &docs.zmetadata);
  Result<std::vector<std::optional<Buffer>>> got = store.GetMany(keys);
  if (!got.ok()) return false;
  const size_t v2_documents = keys.size() - (consolidated ? 1 : 0);
  for (size_t i = 0; i < v2_documents; ++i) {
    if (!(*got)[i]) continue;
    TZ_ASSIGN_OR_RETURN(JsonDocument doc, ParseJsonDocument((*got)[i]->view(), keys[i].key));
    *into[i] = std::move(doc);
    if (i == 0) return true;  // v3: the v2 documents are not this node's
  }
  if (docs.zarray) docs.zgroup.reset();  // an array, as the reads one by one find it
  docs.zattrs_read = true;
  // Parsed only for a group: an array's neighbour is none of its business.
  if (consolidated && docs.zgroup) {
    docs.zmetadata_read = true;
    if ((*got).back()) {
      TZ_ASSIGN_OR_RETURN(docs.zmetadata, ParseJsonDocument((*got).back()->view(),
                                                            keys.back().key));
    }
  }
  return true;
}

}  // namespace

Result<NodeDocuments> LoadNodeDocuments(Store& store, std::string_view path,
                                        bool with_consolidated,
                                        std::optional<NodeKind> expect) {
  NodeDocuments docs;
  // A remote store answers after its latency: every candidate in one batch
  // costs one round trip rather than up to four.
  bool batched = false;
  if (store.Capabilities().requests_in_flight > 0) {
    TZ_ASSIGN_OR_RETURN(batched, LoadBatched(store, path, with_consolidated, expect, docs));
  }
  if (!batched) {
    TZ_ASSIGN_OR_RETURN(docs.zarr_json, LoadJsonDocument(store, MetadataKey(path, kZarrJson)));
    if (!docs.zarr_json) {
      TZ_ASSIGN_OR_RETURN(docs.zarray, LoadJsonDocument(store, MetadataKey(path, kZarray)));
      if (!docs.zarray) {
        TZ_ASSIGN_OR_RETURN(docs.zgroup, LoadJsonDocument(store, MetadataKey(path, kZgroup)));
      }
    }
  }
  if (docs.zarr_json) {
    if (!docs.zarr_json->is_object()) {
      return Status::Corruption("'" + MetadataKey(path, kZarrJson) + "' is not a JSON object");
    }
    docs.zarr_format = 3;
  } else if (docs.zarray || docs.zgroup) {
    docs.zarr_format = 2;
  }
  return docs;
}

Result<ArrayMetadata> LoadArrayMetadata(Store& store, std::string_view path) {
  TZ_ASSIGN_OR_RETURN(NodeDocuments docs,
                      LoadNodeDocuments(store, path, false, NodeKind::kArray));
  if (!docs.is_array() && docs.zarr_format == 0) {
    // Nothing an array has: all documents, to say what is there instead.
    TZ_ASSIGN_OR_RETURN(docs, LoadNodeDocuments(store, path));
  }
  if (!docs.is_array()) {
    return Status::NotFound("no array at " + DescribeNodePath(path) + " in " +
                            store.Describe() +
                            (docs.is_group() ? " (a group is there)" : ""));
  }
  return ArrayMetadataFromDocuments(store, path, std::move(docs));
}

Result<ArrayMetadata> ArrayMetadataFromDocuments(Store& store, std::string_view path,
                                                 NodeDocuments docs) {
  std::string where = "array " + DescribeNodePath(path) + " in " + store.Describe();
  if (docs.zarr_format == 3) return ParseV3ArrayMetadata(*docs.zarr_json, where);
  std::optional<JsonDocument> zattrs = std::move(docs.zattrs);
  if (!docs.zattrs_read) {
    TZ_ASSIGN_OR_RETURN(zattrs, LoadJsonDocument(store, MetadataKey(path, kZattrs)));
  }
  return ParseV2ArrayMetadata(*docs.zarray, zattrs ? *zattrs : JsonDocument(), where);
}

Status StoreArrayMetadata(Store& store, std::string_view path, const ArrayMetadata& m) {
  if (m.zarr_format == 3) {
    return StoreJsonDocument(store, MetadataKey(path, kZarrJson), ToV3Json(m));
  }
  if (m.zarr_format != 2) {
    return Status::InvalidArgument("zarr_format must be 2 or 3, not " +
                                   std::to_string(m.zarr_format));
  }
  TZ_RETURN_NOT_OK(StoreJsonDocument(store, MetadataKey(path, kZarray), ToV2ZarrayJson(m)));
  // Written even when empty ({}), as zarr-python writes it.
  return StoreJsonDocument(store, MetadataKey(path, kZattrs),
                           m.attributes.is_object() ? m.attributes
                                                    : JsonDocument::object());
}

}  // namespace turbozarr
