// Node paths: where an array or group sits inside a store ("" is the root),
// and the keys of its metadata documents.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "turbozarr/status.h"

namespace turbozarr {

// Strips leading and trailing '/' and validates the rest as a store key.
Result<std::string> NormalizeNodePath(std::string_view path);

// The key of a metadata document of the node at `path`, e.g.
// MetadataKey("a/b", "zarr.json") == "a/b/zarr.json".
std::string MetadataKey(std::string_view path, std::string_view document);

// "'a/b'", or "root" for "".
std::string DescribeNodePath(std::string_view path);

inline constexpr std::string_view kZarrJson = "zarr.json";
inline constexpr std::string_view kZarray = ".zarray";
inline constexpr std::string_view kZgroup = ".zgroup";
inline constexpr std::string_view kZattrs = ".zattrs";
inline constexpr std::string_view kZmetadata = ".zmetadata";

}  // namespace turbozarr
