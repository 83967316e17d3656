#include "cli/location.h"

namespace turbozarr::cli {
namespace {

std::string_view TrimSlashes(std::string_view path) {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  return path;
}

}  // namespace

std::string Location::Describe() const {
  std::string out = store->Describe();
  if (!path.empty()) out += " (path '" + path + "')";
  return out;
}

Location Location::Child(std::string_view name) const {
  return Location{store, JoinKey(path, name)};
}

Result<Location> OpenLocation(std::string_view url, std::string_view inner_path) {
  if (url.empty()) return Status::InvalidArgument("empty store path");
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Store> store, OpenStore(url));
  std::string path(TrimSlashes(inner_path));
  if (!path.empty()) TZ_RETURN_NOT_OK(ValidateKey(path));
  return Location{std::move(store), std::move(path)};
}

Result<NodeInfo> InspectLocation(const Location& location) {
  Result<NodeInfo> node = InspectNode(location.store, location.path);
  if (!node.ok() && node.status().code() == StatusCode::kNotFound) {
    return Status::NotFound("no Zarr array or group at " + location.Describe());
  }
  return node;
}

}  // namespace turbozarr::cli
