#include "array/node_parents.h"

#include "array/metadata_io.h"
#include "array/node_path.h"

namespace turbozarr {

Result<std::vector<std::string>> MissingParents(Store& store, std::string_view path) {
  std::vector<std::string> above;  // "", "a", "a/b" for "a/b/c"
  if (!path.empty()) above.emplace_back();
  for (size_t slash = path.find('/'); slash != std::string_view::npos;
       slash = path.find('/', slash + 1)) {
    above.emplace_back(path.substr(0, slash));
  }
  std::vector<std::string> missing;
  for (std::string& parent : above) {
    TZ_ASSIGN_OR_RETURN(NodeDocuments docs, LoadNodeDocuments(store, parent));
    if (docs.is_array()) {
      return Status::AlreadyExists("cannot create a node at " + DescribeNodePath(path) +
                                   " in " + store.Describe() + ": " +
                                   DescribeNodePath(parent) +
                                   " is an array, and only groups hold other nodes");
    }
    if (docs.zarr_format == 0) missing.push_back(std::move(parent));
  }
  return missing;
}

Status CreateEmptyGroups(Store& store, const std::vector<std::string>& paths,
                         int zarr_format) {
  GroupMetadata m;
  m.zarr_format = zarr_format;
  for (const std::string& path : paths) {
    if (zarr_format == 3) {
      TZ_RETURN_NOT_OK(StoreJsonDocument(store, MetadataKey(path, kZarrJson), ToV3Json(m)));
      continue;
    }
    TZ_RETURN_NOT_OK(StoreJsonDocument(store, MetadataKey(path, kZgroup), ToV2ZgroupJson(m)));
    TZ_RETURN_NOT_OK(
        StoreJsonDocument(store, MetadataKey(path, kZattrs), JsonDocument::object()));
  }
  return Status::OK();
}

}  // namespace turbozarr
