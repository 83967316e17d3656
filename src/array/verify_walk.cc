#include "array/verify_walk.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "array/consolidated_check.h"
#include "array/node_path.h"
#include "array/verify_node.h"
#include "turbozarr/checksum.h"
#include "util/shape_string.h"

namespace turbozarr::internal {
namespace {

bool IsNodeDocument(std::string_view name) {
  return name == kZarrJson || name == kZarray || name == kZgroup;
}

std::string ParentOf(std::string_view key) {
  const size_t slash = key.rfind('/');
  return slash == std::string_view::npos ? "" : std::string(key.substr(0, slash));
}

std::string Relative(std::string_view dir, std::string_view key) {
  return std::string(dir.empty() ? key : key.substr(dir.size() + 1));
}

// The array at `dir` with its metadata, or the findings of why not.
ArrayTarget MakeTarget(const std::shared_ptr<Store>& store, const std::string& dir,
                       LoadedNode& node) {
  ArrayTarget target;
  target.report.path = dir;
  target.report.zarr_format = node.zarr_format;
  target.report.findings = std::move(node.findings);
  if (!node.metadata) return target;
  target.report.has_checksum = HasChecksum(*node.metadata);
  Result<std::shared_ptr<Array>> array = Array::FromMetadata(store, dir, *node.metadata);
  if (!array.ok()) {
    target.report.findings.push_back(
        {MetadataKey(dir, node.zarr_format == 3 ? kZarrJson : kZarray),
         array.status().message()});
    return target;
  }
  target.array = std::move(*array);
  return target;
}

// Sorts `key` (under the array) into the chunk keys of its grid, or a
// finding.
void AddArrayKey(ArrayTarget& target, const std::vector<int64_t>& grid, const std::string& key) {
  const Array& array = *target.array;
  const ArrayMetadata& m = array.metadata();
  const std::string rel = Relative(array.path(), key);
  if (m.zarr_format == 3 ? rel == kZarrJson : (rel == kZarray || rel == kZattrs)) return;
  std::optional<std::vector<int64_t>> coords = m.chunk_key_encoding.DecodeKey(rel, m.rank());
  if (!coords) {
    target.report.findings.push_back(
        {key, "not a chunk key of " + array.Describe() + " (whose chunk keys look like '" +
                  m.chunk_key_encoding.EncodeKey(std::vector<int64_t>(m.rank(), 0)) + "')"});
    return;
  }
  for (size_t d = 0; d < grid.size(); ++d) {
    if ((*coords)[d] >= grid[d]) {
      target.report.findings.push_back(
          {key, "chunk " + ShapeString(*coords) + " lies outside the grid of " +
                    array.Describe() + ": " + ShapeString(grid) + " chunks for shape " +
                    ShapeString(m.shape)});
      return;
    }
  }
  target.chunk_keys.push_back(key);
  target.chunk_coords.push_back(std::move(*coords));
}

// Keys of a group's directory below a sub-directory with no documents: an
// array or group whose metadata is gone, or files that are not Zarr's.
void FindOrphans(const std::string& dir, const std::vector<std::string>& keys,
                 std::vector<VerifyFinding>& findings) {
  std::map<std::string, size_t> orphans;
  for (const std::string& key : keys) {
    const std::string rel = Relative(dir, key);
    const size_t slash = rel.find('/');
    if (slash != std::string::npos) ++orphans[JoinKey(dir, rel.substr(0, slash))];
  }
  for (const auto& [path, count] : orphans) {
    findings.push_back({path, std::to_string(count) + " stored key" + (count == 1 ? "" : "s") +
                                  " below it, but no zarr.json, .zarray or .zgroup: an "
                                  "array or group whose metadata is missing?"});
  }
}

bool IsDocument(std::string_view name) {
  return IsNodeDocument(name) || name == kZattrs || name == kZmetadata;
}

// The keys below a node whose documents did not parse, other than those.
void NoteUnchecked(const std::string& dir, const std::vector<std::string>& owned,
                   std::vector<VerifyFinding>& findings) {
  const size_t keys = std::count_if(owned.begin(), owned.end(), [&](const std::string& key) {
    return !IsDocument(Relative(dir, key));
  });
  if (keys == 0) return;
  findings.push_back({dir.empty() ? "/" : dir,
                      std::to_string(keys) + " stored key" + (keys == 1 ? "" : "s") +
                          " below it not checked: its metadata did not parse"});
}

// The node directories strictly below `dir`.
std::vector<std::string> NodesBelow(const std::set<std::string>& dirs, const std::string& dir) {
  std::vector<std::string> out;
  const std::string prefix = dir.empty() ? "" : dir + "/";
  for (const std::string& d : dirs) {
    if (d != dir && d.starts_with(prefix)) out.push_back(d);
  }
  return out;
}

Result<VerifyWalk> WalkListed(const std::shared_ptr<Store>& store, const std::string& root,
                              const std::vector<std::string>& keys) {
  std::set<std::string> dirs;
  for (const std::string& key : keys) {
    const std::string dir = ParentOf(key);
    if (IsNodeDocument(Relative(dir, key))) dirs.insert(dir);
  }
  if (!dirs.count(root)) {
    return Status::NotFound("no array or group at " + DescribeNodePath(root) + " in " +
                            store->Describe());
  }
  // Each key belongs to the deepest node above it.
  std::map<std::string, std::vector<std::string>> owned;
  for (const std::string& key : keys) {
    std::string dir = ParentOf(key);
    while (!dirs.count(dir) && dir != root) dir = ParentOf(dir);
    owned[dir].push_back(key);
  }
  VerifyWalk walk;
  for (const std::string& dir : dirs) {
    TZ_ASSIGN_OR_RETURN(LoadedNode node, LoadNode(*store, dir));
    const std::vector<std::string>& mine = owned[dir];
    if (node.kind == LoadedNode::Kind::kArray) {
      ArrayTarget target = MakeTarget(store, dir, node);
      if (target.array) {
        const std::vector<int64_t> grid =
            target.array->chunk_grid().GridShape(target.array->shape());
        for (const std::string& key : mine) AddArrayKey(target, grid, key);
      } else {
        NoteUnchecked(dir, mine, target.report.findings);
      }
      walk.arrays.push_back(std::move(target));
      continue;
    }
    for (VerifyFinding& f : node.findings) walk.findings.push_back(std::move(f));
    if (node.kind == LoadedNode::Kind::kGroup) {
      const std::vector<std::string> below = NodesBelow(dirs, dir);
      CheckConsolidated(*store, dir, node.consolidated, &below, walk.findings);
      if (node.findings.empty()) {
        Result<std::shared_ptr<Group>> group = Group::Open(store, dir);
        if (group.ok()) {
          walk.groups.push_back(std::move(*group));
        } else {
          walk.findings.push_back({dir.empty() ? "/" : dir, group.status().message()});
        }
      }
      FindOrphans(dir, mine, walk.findings);
    } else {
      NoteUnchecked(dir, mine, walk.findings);
    }
  }
  return walk;
}

// Every chunk key of the array's grid, for a store that cannot list.
void AddEveryGridKey(ArrayTarget& target) {
  const Array& array = *target.array;
  const std::vector<int64_t> grid = array.chunk_grid().GridShape(array.shape());
  for (int64_t n : grid) {
    if (n == 0) return;
  }
  std::vector<int64_t> coords(grid.size(), 0);
  while (true) {
    target.chunk_keys.push_back(array.ChunkKey(coords));
    target.chunk_coords.push_back(coords);
    size_t d = grid.size();
    while (d > 0 && ++coords[d - 1] == grid[d - 1]) coords[--d] = 0;
    if (d == 0) return;
  }
}

Result<VerifyWalk> WalkUnlisted(const std::shared_ptr<Store>& store, const std::string& root) {
  VerifyWalk walk;
  walk.notes.push_back(store->Describe() +
                       " cannot list its keys: every chunk of each array's grid was asked "
                       "for, members were taken from consolidated metadata, and keys "
                       "outside the grids could not be seen");
  std::vector<std::string> pending = {root};
  while (!pending.empty()) {
    const std::string dir = pending.back();
    pending.pop_back();
    TZ_ASSIGN_OR_RETURN(LoadedNode node, LoadNode(*store, dir));
    if (node.kind == LoadedNode::Kind::kAbsent && dir == root) {
      return Status::NotFound("no array or group at " + DescribeNodePath(root) + " in " +
                              store->Describe());
    }
    if (node.kind == LoadedNode::Kind::kArray) {
      ArrayTarget target = MakeTarget(store, dir, node);
      if (target.array) AddEveryGridKey(target);
      walk.arrays.push_back(std::move(target));
      continue;
    }
    for (VerifyFinding& f : node.findings) walk.findings.push_back(std::move(f));
    if (node.kind == LoadedNode::Kind::kAbsent) {
      walk.findings.push_back({dir, "a member of its group, but no zarr.json, .zarray or "
                                    ".zgroup is stored there"});
    }
    if (node.kind != LoadedNode::Kind::kGroup || !node.findings.empty()) continue;
    CheckConsolidated(*store, dir, node.consolidated, nullptr, walk.findings);
    Result<std::shared_ptr<Group>> group = Group::Open(store, dir);
    Result<std::vector<NodeInfo>> members =
        group.ok() ? (*group)->Members() : Result<std::vector<NodeInfo>>(group.status());
    if (!members.ok()) {
      walk.notes.push_back("the members of group " + DescribeNodePath(dir) +
                           " could not be found: " + members.status().message());
      continue;
    }
    walk.groups.push_back(std::move(*group));
    for (const NodeInfo& m : *members) pending.push_back(JoinKey(dir, m.name));
  }
  std::sort(walk.arrays.begin(), walk.arrays.end(),
            [](const ArrayTarget& a, const ArrayTarget& b) {
              return a.report.path < b.report.path;
            });
  return walk;
}

}  // namespace

Result<VerifyWalk> WalkForVerify(const std::shared_ptr<Store>& store, std::string_view path) {
  TZ_ASSIGN_OR_RETURN(std::string root, NormalizeNodePath(path));
  Result<std::vector<std::string>> keys = store->List(root);
  if (!keys.ok() && keys.status().code() == StatusCode::kUnsupported) {
    return WalkUnlisted(store, root);
  }
  TZ_RETURN_NOT_OK(keys.status());
  return WalkListed(store, root, *keys);
}

}  // namespace turbozarr::internal
