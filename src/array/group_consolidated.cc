// Consolidated metadata: every descendant's metadata gathered into one
// document, so that opening a deep hierarchy over a slow store costs one
// read. v3 keeps it inline in the group's zarr.json
// ("consolidated_metadata", kind "inline"); v2 in the group's .zmetadata
// ({"metadata": {"a/.zarray": ...}, "zarr_consolidated_format": 1}).
#include "array/metadata_io.h"
#include "array/node_path.h"
#include "turbozarr/group.h"

namespace turbozarr {
namespace {

// Splits "a/b/.zarray" into {"a/b", ".zarray"}.
std::pair<std::string, std::string> SplitDocumentKey(const std::string& key) {
  size_t slash = key.rfind('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

}  // namespace

Status Group::LoadV2Consolidated(const JsonDocument& doc) {
  const std::string key = MetadataKey(path_, kZmetadata);
  TZ_ASSIGN_OR_RETURN(V2ConsolidatedMetadata flat, ParseV2ConsolidatedMetadata(doc, key));
  std::map<std::string, JsonDocument> members;
  for (auto& [k, v] : flat) {
    auto [rel, document] = SplitDocumentKey(k);
    if (document != kZarray && document != kZgroup && document != kZattrs) continue;
    if (rel.empty()) continue;  // this group's own documents
    members[rel][document] = std::move(v);
  }
  consolidated_ = std::move(members);
  return Status::OK();
}

Result<NodeKind> Group::ConsolidatedKind(const std::string& rel) const {
  const JsonDocument& doc = consolidated_->at(rel);
  if (zarr_format_ == 2) {
    if (doc.contains(kZarray)) return NodeKind::kArray;
    if (doc.contains(kZgroup)) return NodeKind::kGroup;
  } else if (doc.is_object()) {
    std::string type = doc.value("node_type", "");
    if (type == "array") return NodeKind::kArray;
    if (type == "group") return NodeKind::kGroup;
  }
  return Status::Corruption("consolidated metadata of group " + DescribeNodePath(path_) +
                            " has no valid node for '" + rel + "'");
}

Result<ArrayMetadata> Group::ConsolidatedArrayMetadata(const std::string& rel) const {
  const JsonDocument& doc = consolidated_->at(rel);
  std::string where = "array " + DescribeNodePath(JoinKey(path_, rel)) + " in " +
                      store_->Describe() + " (consolidated)";
  if (zarr_format_ == 3) return ParseV3ArrayMetadata(doc, where);
  if (!doc.contains(kZarray)) return Status::NotFound(where + " is not an array");
  auto attrs = doc.find(kZattrs);
  return ParseV2ArrayMetadata(doc.at(kZarray),
                              attrs == doc.end() ? JsonDocument() : *attrs, where);
}

Status Group::GatherConsolidated(std::map<std::string, JsonDocument>& out) const {
  TZ_ASSIGN_OR_RETURN(std::vector<NodeInfo> members, MembersFromStore());
  for (const NodeInfo& m : members) {
    const std::string& rel = m.name;
    const std::string full = JoinKey(path_, rel);
    if (zarr_format_ == 3) {
      TZ_ASSIGN_OR_RETURN(std::optional<JsonDocument> doc,
                          LoadJsonDocument(*store_, MetadataKey(full, kZarrJson)));
      if (!doc) continue;
      doc->erase("consolidated_metadata");
      out[rel] = std::move(*doc);
    } else {
      JsonDocument entry = JsonDocument::object();
      for (std::string_view document : {kZarray, kZgroup, kZattrs}) {
        TZ_ASSIGN_OR_RETURN(std::optional<JsonDocument> doc,
                            LoadJsonDocument(*store_, MetadataKey(full, document)));
        if (doc) entry[std::string(document)] = std::move(*doc);
      }
      out[rel] = std::move(entry);
    }
    if (m.kind == NodeKind::kGroup) {
      TZ_ASSIGN_OR_RETURN(std::shared_ptr<Group> child, Group::Open(store_, full));
      std::map<std::string, JsonDocument> below;
      TZ_RETURN_NOT_OK(child->GatherConsolidated(below));
      for (auto& [k, v] : below) out[JoinKey(rel, k)] = std::move(v);
    }
  }
  return Status::OK();
}

Status Group::Consolidate() {
  std::map<std::string, JsonDocument> members;
  TZ_RETURN_NOT_OK(GatherConsolidated(members));
  return StoreConsolidated(std::move(members));
}

Status Group::StoreConsolidated(std::map<std::string, JsonDocument> members) {
  if (zarr_format_ == 3) {
    consolidated_ = std::move(members);
    return WriteMetadata();
  }
  V2ConsolidatedMetadata flat;
  GroupMetadata self;
  self.zarr_format = 2;
  flat[std::string(kZgroup)] = ToV2ZgroupJson(self);
  flat[std::string(kZattrs)] = attributes_;
  for (const auto& [rel, entry] : members) {
    for (const auto& [document, doc] : entry.items()) flat[rel + "/" + document] = doc;
  }
  consolidated_ = std::move(members);
  return StoreJsonDocument(*store_, MetadataKey(path_, kZmetadata),
                           ToV2ConsolidatedJson(flat));
}

}  // namespace turbozarr
