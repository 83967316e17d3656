// The groups above a node: a new array or group at "a/b/c" needs groups at
// the root, "a" and "a/b", as zarr-python makes them, and none of those may
// be an array.
//
// Thread safety: functions over a thread-safe Store.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr {

// The paths above `path` (normalized) where no node is yet, the root first;
// AlreadyExists, naming it, when a node above is an array. Nothing is
// written: call it before anything of the new node is.
Result<std::vector<std::string>> MissingParents(Store& store, std::string_view path);

// Writes an empty group of `zarr_format` at each of `paths`, as zarr-python
// writes one (v3 zarr.json; v2 .zgroup and an empty .zattrs).
Status CreateEmptyGroups(Store& store, const std::vector<std::string>& paths,
                         int zarr_format);

}  // namespace turbozarr
