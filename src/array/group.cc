// Group: open, create, attributes, members. Consolidated metadata is in
// group_consolidated.cc and the tree printer in group_tree.cc.
#include "turbozarr/group.h"

#include <algorithm>

#include "array/metadata_io.h"
#include "array/node_parents.h"
#include "array/node_path.h"

namespace turbozarr {

Group::Group(std::shared_ptr<Store> store, std::string path, int zarr_format,
             JsonDocument attributes)
    : store_(std::move(store)),
      path_(std::move(path)),
      zarr_format_(zarr_format),
      attributes_(std::move(attributes)) {}

namespace {

Result<NodeInfo> InspectDocuments(Store& store, const std::string& p, const NodeDocuments& docs) {
  if (docs.is_array()) return NodeInfo{p, NodeKind::kArray, docs.zarr_format};
  if (docs.is_group()) return NodeInfo{p, NodeKind::kGroup, docs.zarr_format};
  if (docs.zarr_format == 3) {
    return Status::Corruption("'" + MetadataKey(p, kZarrJson) +
                              "' has no valid node_type (\"array\" or \"group\")");
  }
  return Status::NotFound("no array or group at " + DescribeNodePath(p) + " in " +
                          store.Describe());
}

}  // namespace

Result<NodeInfo> InspectNode(const std::shared_ptr<Store>& store, std::string_view path) {
  TZ_ASSIGN_OR_RETURN(std::string p, NormalizeNodePath(path));
  TZ_ASSIGN_OR_RETURN(NodeDocuments docs, LoadNodeDocuments(*store, p));
  return InspectDocuments(*store, p, docs);
}

Result<std::shared_ptr<Group>> Group::Open(std::shared_ptr<Store> store,
                                           std::string_view path) {
  TZ_ASSIGN_OR_RETURN(std::string p, NormalizeNodePath(path));
  TZ_ASSIGN_OR_RETURN(NodeDocuments docs, LoadNodeDocuments(*store, p, /*with_consolidated=*/true,
                                                            NodeKind::kGroup));
  if (docs.zarr_format == 0) {
    // Nothing a group has: all documents, to say what is there instead.
    TZ_ASSIGN_OR_RETURN(docs, LoadNodeDocuments(*store, p));
  }
  if (!docs.is_group()) {
    return Status::NotFound("no group at " + DescribeNodePath(p) + " in " +
                            store->Describe() +
                            (docs.is_array() ? " (an array is there)" : ""));
  }
  return FromDocuments(std::move(store), std::move(p), std::move(docs));
}

Result<std::shared_ptr<Group>> Group::FromDocuments(std::shared_ptr<Store> store,
                                                    std::string p, NodeDocuments docs) {
  std::string where = "group " + DescribeNodePath(p) + " in " + store->Describe();
  if (docs.zarr_format == 3) {
    TZ_ASSIGN_OR_RETURN(GroupMetadata m, ParseV3GroupMetadata(*docs.zarr_json, where));
    std::shared_ptr<Group> g(new Group(store, p, 3, std::move(m.attributes)));
    g->consolidated_ = std::move(m.consolidated);
    g->extra_fields_ = std::move(m.extra_fields);
    return g;
  }
  std::optional<JsonDocument> zattrs = std::move(docs.zattrs);
  if (!docs.zattrs_read) {
    TZ_ASSIGN_OR_RETURN(zattrs, LoadJsonDocument(*store, MetadataKey(p, kZattrs)));
  }
  JsonDocument attrs = zattrs ? *zattrs : JsonDocument::object();
  if (!attrs.is_object()) {
    return Status::Corruption(where + ": '" + MetadataKey(p, kZattrs) +
                              "' is not a JSON object");
  }
  std::shared_ptr<Group> g(new Group(store, p, 2, std::move(attrs)));
  std::optional<JsonDocument> zmetadata = std::move(docs.zmetadata);
  if (!docs.zmetadata_read) {
    TZ_ASSIGN_OR_RETURN(zmetadata, LoadJsonDocument(*store, MetadataKey(p, kZmetadata)));
  }
  if (zmetadata) TZ_RETURN_NOT_OK(g->LoadV2Consolidated(*zmetadata));
  return g;
}

Result<OpenedNode> OpenNode(const std::shared_ptr<Store>& store, std::string_view path) {
  TZ_ASSIGN_OR_RETURN(std::string p, NormalizeNodePath(path));
  TZ_ASSIGN_OR_RETURN(NodeDocuments docs,
                      LoadNodeDocuments(*store, p, /*with_consolidated=*/true));
  return Group::OpenDocuments(store, p, std::move(docs));
}

Result<OpenedNode> OpenExpectedNode(const std::shared_ptr<Store>& store,
                                    std::string_view path, NodeKind expect) {
  TZ_ASSIGN_OR_RETURN(std::string p, NormalizeNodePath(path));
  TZ_ASSIGN_OR_RETURN(NodeDocuments docs,
                      LoadNodeDocuments(*store, p, /*with_consolidated=*/true, expect));
  if (docs.zarr_format == 0) return OpenNode(store, p);  // not the kind expected
  return Group::OpenDocuments(store, p, std::move(docs));
}

Result<OpenedNode> Group::OpenDocuments(const std::shared_ptr<Store>& store,
                                        const std::string& p, NodeDocuments docs) {
  OpenedNode node;
  if (docs.is_group()) {
    TZ_ASSIGN_OR_RETURN(node.group, Group::FromDocuments(store, p, std::move(docs)));
    return node;
  }
  if (docs.is_array()) {
    TZ_ASSIGN_OR_RETURN(ArrayMetadata m, ArrayMetadataFromDocuments(*store, p, std::move(docs)));
    TZ_ASSIGN_OR_RETURN(node.array, Array::FromMetadata(store, p, std::move(m)));
    return node;
  }
  // Neither: InspectNode's words for it (a zarr.json that is neither, or nothing).
  return InspectDocuments(*store, p, docs).status();
}

Result<std::shared_ptr<Group>> Group::Create(std::shared_ptr<Store> store,
                                             std::string_view path,
                                             const GroupCreateOptions& options) {
  TZ_ASSIGN_OR_RETURN(std::string p, NormalizeNodePath(path));
  if (options.zarr_format != 2 && options.zarr_format != 3) {
    return Status::InvalidArgument("zarr_format must be 2 or 3, not " +
                                   std::to_string(options.zarr_format));
  }
  if (!options.attributes.is_object()) {
    return Status::InvalidArgument("group attributes must be a JSON object");
  }
  TZ_ASSIGN_OR_RETURN(NodeDocuments existing, LoadNodeDocuments(*store, p));
  if (existing.zarr_format != 0 && !options.overwrite) {
    return Status::AlreadyExists("cannot create group at " + DescribeNodePath(p) + " in " +
                                 store->Describe() + ": a node is already there");
  }
  TZ_ASSIGN_OR_RETURN(const std::vector<std::string> parents, MissingParents(*store, p));
  if (options.overwrite) TZ_RETURN_NOT_OK(store->ErasePrefix(p));
  TZ_RETURN_NOT_OK(CreateEmptyGroups(*store, parents, options.zarr_format));
  std::shared_ptr<Group> g(new Group(store, p, options.zarr_format, options.attributes));
  TZ_RETURN_NOT_OK(g->WriteMetadata());
  return g;
}

Status Group::WriteMetadata() {
  if (zarr_format_ == 3) {
    GroupMetadata m;
    m.zarr_format = 3;
    m.attributes = attributes_;
    m.consolidated = consolidated_;
    m.extra_fields = extra_fields_;
    return StoreJsonDocument(*store_, MetadataKey(path_, kZarrJson), ToV3Json(m));
  }
  GroupMetadata m;
  m.zarr_format = 2;
  TZ_RETURN_NOT_OK(StoreJsonDocument(*store_, MetadataKey(path_, kZgroup), ToV2ZgroupJson(m)));
  // Written even when empty ({}), as zarr-python writes it.
  return StoreJsonDocument(*store_, MetadataKey(path_, kZattrs), attributes_);
}

Status Group::SetAttributes(const JsonDocument& attributes) {
  if (!attributes.is_object()) {
    return Status::InvalidArgument("attributes of group " + DescribeNodePath(path_) +
                                   " must be a JSON object");
  }
  attributes_ = attributes;
  return WriteMetadata();
}

Result<std::vector<NodeInfo>> Group::Members() const {
  if (!consolidated_) return MembersFromStore();
  std::vector<NodeInfo> members;
  for (const auto& [name, doc] : *consolidated_) {
    if (name.find('/') != std::string::npos) continue;
    TZ_ASSIGN_OR_RETURN(NodeKind kind, ConsolidatedKind(name));
    members.push_back(NodeInfo{name, kind, zarr_format_});
  }
  return members;  // std::map keeps them sorted
}

Result<std::vector<NodeInfo>> Group::MembersFromStore() const {
  std::vector<NodeInfo> members;
  TZ_ASSIGN_OR_RETURN(DirectoryListing listing, store_->ListDirectory(path_));
  for (const std::string& child : listing.prefixes) {
    Result<NodeInfo> info = InspectNode(store_, JoinKey(path_, child));
    if (!info.ok()) {
      if (info.status().code() == StatusCode::kNotFound) continue;  // plain directory
      return info.status();
    }
    members.push_back(NodeInfo{child, info->kind, info->zarr_format});
  }
  std::sort(members.begin(), members.end(),
            [](const NodeInfo& a, const NodeInfo& b) { return a.name < b.name; });
  return members;
}

Result<std::shared_ptr<Array>> Group::OpenArray(std::string_view name) const {
  TZ_ASSIGN_OR_RETURN(std::string rel, NormalizeNodePath(name));
  if (consolidated_ && consolidated_->count(rel)) {
    TZ_ASSIGN_OR_RETURN(ArrayMetadata m, ConsolidatedArrayMetadata(rel));
    return Array::FromMetadata(store_, JoinKey(path_, rel), std::move(m));
  }
  return Array::Open(store_, JoinKey(path_, rel));
}

Result<std::shared_ptr<Group>> Group::OpenGroup(std::string_view name) const {
  TZ_ASSIGN_OR_RETURN(std::string rel, NormalizeNodePath(name));
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Group> child,
                      Group::Open(store_, JoinKey(path_, rel)));
  // A child of a consolidated group sees its part of the consolidated view,
  // so that its members too are known without listing the store (which
  // HTTP cannot).
  if (consolidated_ && !child->consolidated_ && consolidated_->count(rel)) {
    std::map<std::string, JsonDocument> below;
    const std::string prefix = rel.empty() ? "" : rel + "/";
    for (auto it = consolidated_->lower_bound(prefix);
         it != consolidated_->end() && it->first.starts_with(prefix); ++it) {
      if (it->first.size() > prefix.size()) {
        below.emplace(it->first.substr(prefix.size()), it->second);
      }
    }
    child->consolidated_ = std::move(below);
  }
  return child;
}

Result<std::shared_ptr<Array>> Group::CreateArray(std::string_view name,
                                                  ArrayMetadata metadata,
                                                  const CreateOptions& options) {
  TZ_ASSIGN_OR_RETURN(std::string rel, NormalizeNodePath(name));
  if (rel.empty()) return Status::InvalidArgument("an array needs a non-empty name");
  TZ_ASSIGN_OR_RETURN(auto array,
                      Array::Create(store_, JoinKey(path_, rel), std::move(metadata), options));
  consolidated_.reset();  // the stored consolidated view no longer lists everything
  return array;
}

Result<std::shared_ptr<Group>> Group::CreateGroup(std::string_view name,
                                                  const GroupCreateOptions& options) {
  TZ_ASSIGN_OR_RETURN(std::string rel, NormalizeNodePath(name));
  if (rel.empty()) return Status::InvalidArgument("a group needs a non-empty name");
  TZ_ASSIGN_OR_RETURN(auto group, Group::Create(store_, JoinKey(path_, rel), options));
  consolidated_.reset();
  return group;
}

}  // namespace turbozarr
