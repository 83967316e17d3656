#include "cli/location.h"

#include <sys/stat.h>

#include <cctype>

namespace turbozarr::cli {
namespace {

bool EndsWithZip(std::string_view s) {
  if (s.size() < 4) return false;
  std::string_view ext = s.substr(s.size() - 4);
  return ext[0] == '.' && std::tolower(static_cast<unsigned char>(ext[1])) == 'z' &&
         std::tolower(static_cast<unsigned char>(ext[2])) == 'i' &&
         std::tolower(static_cast<unsigned char>(ext[3])) == 'p';
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

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

std::pair<std::string, std::string> SplitArchivePath(std::string_view url) {
  // Only local paths: no scheme, or file:// or zip://.
  size_t path_start = 0;
  if (size_t sep = url.find("://"); sep != std::string_view::npos) {
    std::string_view scheme = url.substr(0, sep);
    if (scheme != "file" && scheme != "zip") return {std::string(url), ""};
    path_start = sep + 3;
  }
  for (size_t slash = url.find('/', path_start); slash != std::string_view::npos;
       slash = url.find('/', slash + 1)) {
    std::string_view head = url.substr(0, slash);
    if (slash == path_start || !EndsWithZip(head)) continue;
    std::string file(url.substr(path_start, slash - path_start));
    if (file.starts_with("localhost/")) file.erase(0, 9);
    if (IsRegularFile(file)) {
      return {std::string(head), std::string(TrimSlashes(url.substr(slash)))};
    }
  }
  return {std::string(url), ""};
}

Result<Location> OpenLocation(std::string_view url, std::string_view inner_path,
                              const StoreOptions& options) {
  if (url.empty()) return Status::InvalidArgument("empty store path");
  auto [store_url, in_archive] = SplitArchivePath(url);
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Store> store, OpenStore(store_url, options));
  std::string path = JoinKey(in_archive, TrimSlashes(inner_path));
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
