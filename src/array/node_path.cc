#include "array/node_path.h"

#include "turbozarr/store.h"

namespace turbozarr {

Result<std::string> NormalizeNodePath(std::string_view path) {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (!path.empty()) TZ_RETURN_NOT_OK(ValidateKey(path));
  return std::string(path);
}

std::string MetadataKey(std::string_view path, std::string_view document) {
  return JoinKey(path, document);
}

std::string DescribeNodePath(std::string_view path) {
  if (path.empty()) return "root";
  return "'" + std::string(path) + "'";
}

}  // namespace turbozarr
