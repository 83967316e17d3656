#include "array/metadata_io.h"

#include "array/node_path.h"

namespace turbozarr {

Result<std::optional<nlohmann::json>> LoadJsonDocument(Store& store, std::string_view key) {
  TZ_ASSIGN_OR_RETURN(std::optional<Buffer> bytes, store.Get(key));
  if (!bytes) return std::optional<nlohmann::json>();
  TZ_ASSIGN_OR_RETURN(nlohmann::json doc, ParseJsonDocument(bytes->view(), key));
  return std::optional<nlohmann::json>(std::move(doc));
}

Status StoreJsonDocument(Store& store, std::string_view key, const nlohmann::json& doc) {
  std::string text = DumpJsonDocument(doc);
  return store.Set(key, AsBytes(text));
}

bool NodeDocuments::is_array() const {
  if (zarr_format == 3) return zarr_json->value("node_type", "") == "array";
  return zarray.has_value();
}

bool NodeDocuments::is_group() const {
  if (zarr_format == 3) return zarr_json->value("node_type", "") == "group";
  return !zarray.has_value() && zgroup.has_value();
}

Result<NodeDocuments> LoadNodeDocuments(Store& store, std::string_view path) {
  NodeDocuments docs;
  TZ_ASSIGN_OR_RETURN(docs.zarr_json, LoadJsonDocument(store, MetadataKey(path, kZarrJson)));
  if (docs.zarr_json) {
    if (!docs.zarr_json->is_object()) {
      return Status::Corruption("'" + MetadataKey(path, kZarrJson) + "' is not a JSON object");
    }
    docs.zarr_format = 3;
    return docs;
  }
  if (store.Capabilities().requests_in_flight > 0) {
    // A remote store answers after its latency: .zarray, .zgroup and
    // .zattrs in one batch cost one round trip rather than three. (A key
    // that is absent there answers as zarr.json's absence just did.)
    const std::vector<KeyRange> keys = {{MetadataKey(path, kZarray), ByteRange::Full()},
                                        {MetadataKey(path, kZgroup), ByteRange::Full()},
                                        {MetadataKey(path, kZattrs), ByteRange::Full()}};
    TZ_ASSIGN_OR_RETURN(std::vector<std::optional<Buffer>> got, store.GetMany(keys));
    std::optional<nlohmann::json>* into[] = {&docs.zarray, &docs.zgroup, &docs.zattrs};
    for (size_t i = 0; i < keys.size(); ++i) {
      if (!got[i]) continue;
      TZ_ASSIGN_OR_RETURN(nlohmann::json doc, ParseJsonDocument(got[i]->view(), keys[i].key));
      *into[i] = std::move(doc);
    }
    if (docs.zarray) docs.zgroup.reset();  // an array, as the reads one by one find it
    docs.zattrs_read = true;
  } else {
    TZ_ASSIGN_OR_RETURN(docs.zarray, LoadJsonDocument(store, MetadataKey(path, kZarray)));
    if (!docs.zarray) {
      TZ_ASSIGN_OR_RETURN(docs.zgroup, LoadJsonDocument(store, MetadataKey(path, kZgroup)));
    }
  }
  if (docs.zarray || docs.zgroup) docs.zarr_format = 2;
  return docs;
}

Result<ArrayMetadata> LoadArrayMetadata(Store& store, std::string_view path) {
  TZ_ASSIGN_OR_RETURN(NodeDocuments docs, LoadNodeDocuments(store, path));
  std::string where = "array " + DescribeNodePath(path) + " in " + store.Describe();
  if (!docs.is_array()) {
    return Status::NotFound("no array at " + DescribeNodePath(path) + " in " +
                            store.Describe() +
                            (docs.is_group() ? " (a group is there)" : ""));
  }
  if (docs.zarr_format == 3) return ParseV3ArrayMetadata(*docs.zarr_json, where);
  std::optional<nlohmann::json> zattrs = std::move(docs.zattrs);
  if (!docs.zattrs_read) {
    TZ_ASSIGN_OR_RETURN(zattrs, LoadJsonDocument(store, MetadataKey(path, kZattrs)));
  }
  return ParseV2ArrayMetadata(*docs.zarray, zattrs ? *zattrs : nlohmann::json(), where);
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
                                                    : nlohmann::json::object());
}

}  // namespace turbozarr
