// Group::Delete and Group::Move: members erased or moved with everything
// below them. Readers find a node whole or not at all: a moved node's
// metadata is written after its chunks (deepest first, its own last), and a
// node's own metadata is erased before the rest of it.
#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "array/metadata_io.h"
#include "array/node_parents.h"
#include "array/node_path.h"
#include "turbozarr/group.h"
#include "util/thread_pool.h"

namespace turbozarr {
namespace {

bool IsMetadataDocument(std::string_view key) {
  const size_t slash = key.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? key : key.substr(slash + 1);
  return name == kZarrJson || name == kZarray || name == kZgroup || name == kZattrs ||
         name == kZmetadata;
}

// Erases the node at `full`: its own documents first, then every key below.
Status EraseNode(Store& store, const std::string& full) {
  for (std::string_view document : {kZarrJson, kZarray, kZgroup, kZmetadata, kZattrs}) {
    TZ_RETURN_NOT_OK(store.Erase(MetadataKey(full, document)));
  }
  return store.ErasePrefix(full);
}

// Copies `keys` (each starting with `from` + "/") to the same keys under `to`.
Status CopyKeys(Store& store, const std::vector<std::string>& keys, const std::string& from,
                const std::string& to) {
  return ThreadPool::Default()->ParallelFor(
      static_cast<int64_t>(keys.size()), [&](int64_t i) -> Status {
        const std::string& key = keys[i];
        TZ_ASSIGN_OR_RETURN(std::optional<Buffer> value, store.Get(key));
        if (!value) return Status::OK();  // erased meanwhile: nothing to move
        return store.Set(to + key.substr(from.size()), value->view());
      });
}

size_t Depth(const std::string& key) { return std::count(key.begin(), key.end(), '/'); }

}  // namespace

Result<NodeInfo> Group::ExistingMember(std::string_view name, const char* verb) const {
  TZ_ASSIGN_OR_RETURN(std::string rel, NormalizeNodePath(name));
  if (rel.empty()) {
    return Status::InvalidArgument(std::string("cannot ") + verb + " group " +
                                   DescribeNodePath(path_) + " itself: name a member");
  }
  Result<NodeInfo> info = InspectNode(store_, JoinKey(path_, rel));
  if (!info.ok() && info.status().code() == StatusCode::kNotFound) {
    return Status::NotFound(std::string("cannot ") + verb + " '" + rel + "': group " +
                            DescribeNodePath(path_) + " in " + store_->Describe() +
                            " has no such member");
  }
  if (info.ok()) info->name = rel;
  return info;
}

Status Group::RewriteConsolidated(const std::string& rel, const std::string* renamed_to,
                                  const std::vector<std::string>& new_groups) {
  if (!consolidated_) return Status::OK();
  std::map<std::string, JsonDocument> members;
  const std::string own = path_.empty() ? "" : path_ + "/";
  for (const std::string& full : new_groups) {
    if (full.size() <= own.size() || !full.starts_with(own)) continue;  // not below
    TZ_ASSIGN_OR_RETURN(NodeDocuments docs, LoadNodeDocuments(*store_, full));
    JsonDocument entry = JsonDocument::object();
    if (docs.zarr_json) entry = std::move(*docs.zarr_json);
    if (docs.zgroup) entry[std::string(kZgroup)] = std::move(*docs.zgroup);
    if (docs.zarr_format == 2) entry[std::string(kZattrs)] = JsonDocument::object();
    members.emplace(full.substr(own.size()), std::move(entry));
  }
  const std::string below = rel + "/";
  for (auto& [name, doc] : *consolidated_) {
    const bool moved = name == rel || name.starts_with(below);
    if (!moved) {
      members.emplace(name, std::move(doc));
    } else if (renamed_to != nullptr) {
      members.emplace(*renamed_to + name.substr(rel.size()), std::move(doc));
    }
  }
  return StoreConsolidated(std::move(members));
}

Status Group::Delete(std::string_view name) {
  TZ_ASSIGN_OR_RETURN(NodeInfo member, ExistingMember(name, "delete"));
  TZ_RETURN_NOT_OK(EraseNode(*store_, JoinKey(path_, member.name)));
  return RewriteConsolidated(member.name, nullptr, {});
}

Status Group::Move(std::string_view source, std::string_view dest) {
  TZ_ASSIGN_OR_RETURN(NodeInfo member, ExistingMember(source, "move"));
  TZ_ASSIGN_OR_RETURN(std::string to_rel, NormalizeNodePath(dest));
  const std::string& from_rel = member.name;
  if (to_rel.empty() || to_rel == from_rel || to_rel.starts_with(from_rel + "/")) {
    return Status::InvalidArgument("cannot move '" + from_rel + "' to '" + to_rel +
                                   "' in group " + DescribeNodePath(path_) +
                                   ": the destination must be a new path outside it");
  }
  const std::string from = JoinKey(path_, from_rel);
  const std::string to = JoinKey(path_, to_rel);
  TZ_ASSIGN_OR_RETURN(NodeDocuments there, LoadNodeDocuments(*store_, to));
  if (there.zarr_format != 0) {
    return Status::AlreadyExists("cannot move '" + from_rel + "' to '" + to_rel +
                                 "' in group " + DescribeNodePath(path_) + " in " +
                                 store_->Describe() + ": a node is already there");
  }
  TZ_ASSIGN_OR_RETURN(const std::vector<std::string> parents, MissingParents(*store_, to));

  TZ_ASSIGN_OR_RETURN(std::vector<std::string> keys, store_->List(from));
  std::vector<std::string> data;
  std::vector<std::string> documents;
  for (std::string& key : keys) {
    (IsMetadataDocument(key) ? documents : data).push_back(std::move(key));
  }
  // Deepest documents first, so a node appears only once all below it has.
  std::stable_sort(documents.begin(), documents.end(),
                   [](const std::string& a, const std::string& b) {
                     return Depth(a) > Depth(b);
                   });
  TZ_RETURN_NOT_OK(CreateEmptyGroups(*store_, parents, member.zarr_format));
  TZ_RETURN_NOT_OK(CopyKeys(*store_, data, from, to));
  for (const std::string& key : documents) {
    TZ_ASSIGN_OR_RETURN(std::optional<Buffer> value, store_->Get(key));
    if (value) TZ_RETURN_NOT_OK(store_->Set(to + key.substr(from.size()), value->view()));
  }
  TZ_RETURN_NOT_OK(EraseNode(*store_, from));
  return RewriteConsolidated(from_rel, &to_rel, parents);
}

}  // namespace turbozarr
