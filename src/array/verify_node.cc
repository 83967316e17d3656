#include "array/verify_node.h"

#include "array/metadata_io.h"
#include "array/node_path.h"

namespace turbozarr::internal {
namespace {

// The document at `key`: nullopt when absent or (with a finding) when it
// does not parse. Store failures end the walk: they say nothing of the data.
Result<std::optional<JsonDocument>> LoadDocument(Store& store, const std::string& key,
                                                 LoadedNode& node) {
  Result<std::optional<JsonDocument>> doc = LoadJsonDocument(store, key);
  if (doc.ok()) return doc;
  if (doc.status().code() == StatusCode::kIOError) return doc.status();
  node.findings.push_back({key, doc.status().message()});
  node.kind = LoadedNode::Kind::kUnreadable;
  return std::optional<JsonDocument>();
}

void Parsed(LoadedNode& node, const std::string& key, Result<ArrayMetadata> metadata) {
  if (!metadata.ok()) {
    node.findings.push_back({key, metadata.status().message()});
    return;
  }
  node.metadata = std::move(*metadata);
}

void LoadV3(const std::string& dir, const std::string& where, const JsonDocument& doc,
            LoadedNode& node) {
  const std::string key = MetadataKey(dir, kZarrJson);
  node.zarr_format = 3;
  const std::string type = NodeTypeOf(doc);
  if (type == "array") {
    node.kind = LoadedNode::Kind::kArray;
    Parsed(node, key, ParseV3ArrayMetadata(doc, "array " + where));
  } else if (type == "group") {
    node.kind = LoadedNode::Kind::kGroup;
    Result<GroupMetadata> group = ParseV3GroupMetadata(doc, "group " + where);
    if (!group.ok()) {
      node.findings.push_back({key, group.status().message()});
    } else {
      node.consolidated.v3 = std::move(group->consolidated);
    }
  } else {
    node.kind = LoadedNode::Kind::kUnreadable;
    node.findings.push_back(
        {key, doc.is_object() ? "node_type is neither \"array\" nor \"group\""
                              : "not a JSON object"});
  }
}

}  // namespace

Result<LoadedNode> LoadNode(Store& store, const std::string& dir) {
  LoadedNode node;
  const std::string where = DescribeNodePath(dir) + " in " + store.Describe();
  TZ_ASSIGN_OR_RETURN(std::optional<JsonDocument> v3,
                      LoadDocument(store, MetadataKey(dir, kZarrJson), node));
  if (v3) {
    LoadV3(dir, where, *v3, node);
    return node;
  }
  if (node.kind == LoadedNode::Kind::kUnreadable) return node;
  const std::string zarray_key = MetadataKey(dir, kZarray);
  TZ_ASSIGN_OR_RETURN(std::optional<JsonDocument> zarray, LoadDocument(store, zarray_key, node));
  std::optional<JsonDocument> zgroup;
  const std::string zgroup_key = MetadataKey(dir, kZgroup);
  if (!zarray && node.kind != LoadedNode::Kind::kUnreadable) {
    TZ_ASSIGN_OR_RETURN(zgroup, LoadDocument(store, zgroup_key, node));
  }
  if (node.kind == LoadedNode::Kind::kUnreadable) return node;
  if (!zarray && !zgroup) return node;  // kAbsent
  node.zarr_format = 2;
  TZ_ASSIGN_OR_RETURN(std::optional<JsonDocument> zattrs,
                      LoadDocument(store, MetadataKey(dir, kZattrs), node));
  const JsonDocument attrs = zattrs ? *zattrs : JsonDocument();
  if (zarray) {
    node.kind = LoadedNode::Kind::kArray;
    Parsed(node, zarray_key, ParseV2ArrayMetadata(*zarray, attrs, "array " + where));
  } else {
    node.kind = LoadedNode::Kind::kGroup;
    Result<GroupMetadata> group = ParseV2GroupMetadata(*zgroup, attrs, "group " + where);
    if (!group.ok()) node.findings.push_back({zgroup_key, group.status().message()});
    TZ_ASSIGN_OR_RETURN(node.consolidated.v2,
                        LoadDocument(store, MetadataKey(dir, kZmetadata), node));
  }
  return node;
}

}  // namespace turbozarr::internal
