// Location: a node (array or group) as the command line names it: a store
// URL or local path, plus an optional path inside that store.
//
// A local directory is itself a store, so "data.zarr/images/raw" opens the
// array directly; so does "data.zip/images/raw" for the node inside a zip
// archive. `--path` names a node inside any store (or keeps the store root
// fixed, e.g. for consolidated metadata).
//
// Thread safety: values; the store inside is thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "turbozarr/group.h"
#include "turbozarr/open_store.h"
#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr::cli {

struct Location {
  std::shared_ptr<Store> store;
  std::string path;  // inside the store; "" is its root

  // "file:///data.zarr" or "file:///data.zarr (path 'a/b')".
  std::string Describe() const;
  // The location of a child node.
  Location Child(std::string_view name) const;
};

// Opens the store named by `url` and pairs it with `inner_path` (leading and
// trailing '/' are ignored). A local path or file:// or zip:// URL that runs
// through an existing zip archive ("x.zip/a/b") opens the archive with "a/b"
// in front of `inner_path`.
Result<Location> OpenLocation(std::string_view url, std::string_view inner_path,
                              const StoreOptions& options = {});

// Options for a store that is only read.
inline StoreOptions ReadOnly() {
  StoreOptions options;
  options.read_only = true;
  return options;
}

// Splits "dir/x.zip/a/b" (or a file:// or zip:// URL of it) into the archive
// part and "a/b" when dir/x.zip is an existing regular file; otherwise
// answers {url, ""}.
std::pair<std::string, std::string> SplitArchivePath(std::string_view url);

// What is at `location`; NotFound with a message that names the location.
Result<NodeInfo> InspectLocation(const Location& location);

}  // namespace turbozarr::cli
