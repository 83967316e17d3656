// Group: a Zarr group (v2 or v3): a node that holds attributes and, below
// its path, other groups and arrays. Also opening "whatever is at a path" and
// consolidated metadata.
//
// Thread safety: reading a Group from many threads is safe; changing
// attributes from two threads at once races (last writer wins).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "turbozarr/array.h"
#include "turbozarr/metadata.h"
#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr {

struct NodeDocuments;
struct OpenedNode;

enum class NodeKind { kArray, kGroup };

struct NodeInfo {
  std::string name;  // relative to the group
  NodeKind kind;
  int zarr_format;
};

struct GroupCreateOptions {
  int zarr_format = 3;
  JsonDocument attributes = JsonDocument::object();
  bool overwrite = false;
};

class Group {
 public:
  // Opens the group at `path`; NotFound if none. When the group carries
  // consolidated metadata, members are opened from it without further reads.
  static Result<std::shared_ptr<Group>> Open(std::shared_ptr<Store> store,
                                             std::string_view path);
  static Result<std::shared_ptr<Group>> Create(std::shared_ptr<Store> store,
                                               std::string_view path,
                                               const GroupCreateOptions& options = {});

  int zarr_format() const { return zarr_format_; }
  const std::string& path() const { return path_; }
  const JsonDocument& attributes() const { return attributes_; }
  const std::shared_ptr<Store>& store() const { return store_; }
  Status SetAttributes(const JsonDocument& attributes);

  // Direct members, sorted by name.
  Result<std::vector<NodeInfo>> Members() const;
  Result<std::shared_ptr<Array>> OpenArray(std::string_view name) const;
  Result<std::shared_ptr<Group>> OpenGroup(std::string_view name) const;
  Result<std::shared_ptr<Array>> CreateArray(std::string_view name, ArrayMetadata metadata,
                                             const CreateOptions& options = {});
  Result<std::shared_ptr<Group>> CreateGroup(std::string_view name,
                                             const GroupCreateOptions& options = {});

  // Erases the member `name` (an array, or a group with everything below
  // it): its own metadata first, so that no reader finds half a node.
  // NotFound if there is none. A consolidated group rewrites its
  // consolidated metadata without it.
  Status Delete(std::string_view name);
  // Moves the member `source`, with everything below it, to `dest` (both
  // relative to this group), creating the groups missing above `dest`. The
  // moved node appears whole: its metadata is written after everything
  // below it, and the source's metadata is erased before the rest of it.
  // AlreadyExists if a node is at `dest`, InvalidArgument if `dest` is
  // `source` or inside it.
  Status Move(std::string_view source, std::string_view dest);

  // An indented tree of every member below this group, arrays with their
  // shape and dtype.
  Result<std::string> Tree() const;

  // Writes consolidated metadata of everything below this group (v2
  // .zmetadata, v3 inline in zarr.json).
  Status Consolidate();
  bool is_consolidated() const { return consolidated_.has_value(); }

 private:
  Group(std::shared_ptr<Store> store, std::string path, int zarr_format,
        JsonDocument attributes);
  Status WriteMetadata();
  Result<std::vector<NodeInfo>> MembersFromStore() const;
  static Result<std::shared_ptr<Group>> FromDocuments(std::shared_ptr<Store> store,
                                                      std::string path, NodeDocuments docs);
  // The array or group the documents of `path` describe.
  static Result<OpenedNode> OpenDocuments(const std::shared_ptr<Store>& store,
                                          const std::string& path, NodeDocuments docs);
  Status LoadV2Consolidated(const JsonDocument& zmetadata);
  friend Result<OpenedNode> OpenNode(const std::shared_ptr<Store>& store,
                                     std::string_view path);
  friend Result<OpenedNode> OpenExpectedNode(const std::shared_ptr<Store>& store,
                                             std::string_view path, NodeKind expect);
  Status GatherConsolidated(std::map<std::string, JsonDocument>& out) const;
  Result<NodeKind> ConsolidatedKind(const std::string& rel) const;
  Result<ArrayMetadata> ConsolidatedArrayMetadata(const std::string& rel) const;
  // The member `name` (normalized into NodeInfo::name), NotFound naming
  // the group and `verb` when there is none.
  Result<NodeInfo> ExistingMember(std::string_view name, const char* verb) const;
  // Sets and writes the consolidated metadata (v3 inline, v2 .zmetadata).
  Status StoreConsolidated(std::map<std::string, JsonDocument> members);
  // After a delete (renamed_to null) or a move of member `rel`: the
  // consolidated metadata without it, or with it under its new name and the
  // groups made for it there (`new_groups`, full paths), stored; nothing
  // when the group is not consolidated.
  Status RewriteConsolidated(const std::string& rel, const std::string* renamed_to,
                             const std::vector<std::string>& new_groups);
  Status TreeLines(const std::string& indent, std::string& out) const;

  std::shared_ptr<Store> store_;
  std::string path_;
  int zarr_format_;
  JsonDocument attributes_;
  nlohmann::json extra_fields_ = nlohmann::json::object();
  // Member path (relative, all depths) -> its metadata: for v3 the zarr.json
  // object, for v2 an object {".zarray"|".zgroup": ..., ".zattrs": ...}.
  std::optional<std::map<std::string, JsonDocument>> consolidated_;
};

// What is at `path`: an array, a group, or NotFound.
Result<NodeInfo> InspectNode(const std::shared_ptr<Store>& store, std::string_view path);

// Whatever is at `path`, opened from one read of its documents (on a remote
// store one round trip, a v2 group's consolidated metadata included): the
// array or the group, the other null; NotFound if neither is there.
struct OpenedNode {
  std::shared_ptr<Array> array;
  std::shared_ptr<Group> group;
};
Result<OpenedNode> OpenNode(const std::shared_ptr<Store>& store, std::string_view path);
// The same when the caller expects one kind: a remote store is asked only for
// that kind's documents (an array's three, not .zgroup and .zmetadata). What
// is there is opened whatever its kind, and the answer is the same as
// OpenNode's, at the cost of a second round trip when the node is not of the
// kind expected.
Result<OpenedNode> OpenExpectedNode(const std::shared_ptr<Store>& store,
                                    std::string_view path, NodeKind expect);

}  // namespace turbozarr
