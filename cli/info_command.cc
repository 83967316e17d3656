// `turbozarr info PATH`: a description of the array or group at PATH.
//
// For an array: format, shape, data type, chunk and shard shapes, fill
// value, codecs, dimension names, attributes, and how many chunks (or
// shards) are stored and their total size. For a group: format, attributes
// and members.
#include <algorithm>
#include <iostream>
#include <set>
#include <string>

#include "cli/commands.h"
#include "cli/location.h"
#include "cli/progress_bar.h"
#include "turbozarr/array.h"
#include "turbozarr/group.h"

namespace turbozarr::cli {
namespace {

using json = nlohmann::json;

struct InfoOptions {
  std::string url;
  std::string path;
};

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d > 0) out += ", ";
    out += std::to_string(shape[d]);
  }
  return out + "]";
}

// "Label             : value", aligned like zarr-python's info.
void Field(std::string& out, std::string_view label, std::string_view value) {
  out += label;
  out.append(label.size() < 18 ? 18 - label.size() : 1, ' ');
  out += ": ";
  out += value;
  out += '\n';
}

std::string Compact(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

struct StoredChunks {
  uint64_t count = 0;
  uint64_t bytes = 0;
};

// The chunk (or shard) keys below the array, i.e. every key there but its
// metadata documents, and their total size.
Result<StoredChunks> CountStoredChunks(const Array& array) {
  Store& store = *array.store();
  TZ_ASSIGN_OR_RETURN(std::vector<std::string> keys, store.List(array.path()));
  std::set<std::string> metadata;
  for (const char* doc : {"zarr.json", ".zarray", ".zattrs", ".zgroup", ".zmetadata"}) {
    metadata.insert(JoinKey(array.path(), doc));
  }
  const std::string prefix = array.path().empty() ? "" : array.path() + "/";
  StoredChunks stored;
  for (const std::string& key : keys) {
    if (key.compare(0, prefix.size(), prefix) != 0 || metadata.count(key)) continue;
    TZ_ASSIGN_OR_RETURN(std::optional<uint64_t> size, store.Size(key));
    if (!size) continue;  // erased since the listing
    ++stored.count;
    stored.bytes += *size;
  }
  return stored;
}

Result<std::string> DescribeArray(const Array& array) {
  const ArrayMetadata& m = array.metadata();
  std::string out;
  Field(out, "Type", "array");
  Field(out, "Zarr format", std::to_string(m.zarr_format));
  Field(out, "Shape", ShapeText(m.shape));
  std::string dtype = m.dtype.ToString();
  if (m.zarr_format == 2) dtype += " (" + m.dtype.ToV2TypeString(m.v2_byte_order) + ")";
  Field(out, "Data type", dtype);
  std::optional<std::vector<int64_t>> inner = m.InnerChunkShape();
  if (array.regular_grid()) {
    Field(out, "Chunk shape", ShapeText(inner.value_or(m.chunk_shape)));
    if (inner) Field(out, "Shard shape", ShapeText(m.chunk_shape));
  } else {
    // Chunks (shards) of several shapes: the grid as stored.
    if (inner) Field(out, "Chunk shape", ShapeText(*inner));
    Field(out, inner ? "Shard grid" : "Chunk grid",
          "rectilinear " + Compact(json(ToV3Json(m)["chunk_grid"]["configuration"]["chunk_shapes"])));
  }
  Field(out, "Fill value",
        Compact(FillValueToJson(m.fill_value, m.dtype, m.zarr_format)));
  if (m.zarr_format == 2) {
    Field(out, "Order", std::string(1, m.v2_order));
    Field(out, "Filters", Compact(m.v2_filters));
    Field(out, "Compressor", Compact(m.v2_compressor));
  }
  Field(out, "Codecs", Compact(m.codecs));
  if (m.dimension_names) {
    json names = json::array();
    for (const auto& name : *m.dimension_names)
      names.push_back(name ? json(*name) : json());
    Field(out, "Dimension names", Compact(names));
  }
  Field(out, "Attributes", Compact(m.attributes));

  int64_t grid_chunks = 1;
  for (int64_t n : array.chunk_grid().GridShape(m.shape)) grid_chunks *= n;
  const std::string stored_label = inner ? "Stored shards" : "Stored chunks";
  Result<StoredChunks> stored = CountStoredChunks(array);
  if (!stored.ok() && stored.status().code() == StatusCode::kUnsupported) {
    // An HTTP server lists nothing: the array is described all the same.
    Field(out, stored_label,
          "? of " + std::to_string(grid_chunks) + " (the store cannot list keys)");
    return out;
  }
  TZ_RETURN_NOT_OK(stored.status());
  Field(out, stored_label,
        std::to_string(stored->count) + " of " + std::to_string(grid_chunks));
  Field(out, "Stored bytes",
        std::to_string(stored->bytes) + " (" + FormatByteSize(stored->bytes) + ")");
  return out;
}

Result<std::string> DescribeGroup(const Group& group) {
  std::string out;
  Field(out, "Type", "group");
  Field(out, "Zarr format", std::to_string(group.zarr_format()));
  Field(out, "Attributes", Compact(group.attributes()));
  Field(out, "Consolidated", group.is_consolidated() ? "yes" : "no");
  TZ_ASSIGN_OR_RETURN(std::vector<NodeInfo> members, group.Members());
  Field(out, "Members", std::to_string(members.size()));
  size_t width = 0;
  for (const NodeInfo& member : members) width = std::max(width, member.name.size());
  for (const NodeInfo& member : members) {
    std::string line =
        "  " + member.name + std::string(width - member.name.size() + 2, ' ');
    if (member.kind == NodeKind::kArray) {
      TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> array, group.OpenArray(member.name));
      line += "array " + ShapeText(array->shape()) + " " + array->dtype().ToString();
    } else {
      line += "group";
    }
    out += line + "\n";
  }
  return out;
}

Status RunInfo(const InfoOptions& options) {
  TZ_ASSIGN_OR_RETURN(Location location,
                      OpenLocation(options.url, options.path, ReadOnly()));
  TZ_ASSIGN_OR_RETURN(NodeInfo node, InspectLocation(location));
  std::string text;
  if (node.kind == NodeKind::kArray) {
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> array,
                        Array::Open(location.store, location.path));
    TZ_ASSIGN_OR_RETURN(text, DescribeArray(*array));
  } else {
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<Group> group,
                        Group::Open(location.store, location.path));
    TZ_ASSIGN_OR_RETURN(text, DescribeGroup(*group));
  }
  std::cout << text;
  return Status::OK();
}

}  // namespace

Command AddInfoCommand(CLI::App& parent) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* app = parent.add_subcommand("info", "Describe the array or group at PATH");
  app->add_option("PATH", options->url, "Store directory or URL")->required();
  app->add_option("--path", options->path, "Node inside the store (default: its root)");
  return {app, [options] { return RunInfo(*options); }};
}

}  // namespace turbozarr::cli
