// Store URLs: how OpenStore takes a URL or path apart and which store each
// scheme names. The schemes live in one table (store_url.cc), so a new kind of
// store plugs in with one line: its scheme and the function that opens it.
//
// Thread safety: pure functions; the table is immutable.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "turbozarr/open_store.h"
#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr::internal {

// A URL taken apart: "zip:///data/x.zip" -> scheme "zip", rest "/data/x.zip".
// A plain path has no scheme and is all rest.
struct StoreUrl {
  std::string_view url;     // as given, for messages
  std::string_view scheme;  // lower-case ASCII letters etc. as written; "" for a path
  std::string_view rest;    // what follows "://", or the whole path
};

// Splits `url`. Only an RFC 3986 scheme followed by "://" counts as one, so
// "c:/x" or "dir/a://b" stay paths.
StoreUrl SplitStoreUrl(std::string_view url);

// Opens the store `url` names; `url.scheme` matched this entry.
using StoreOpener = Result<std::shared_ptr<Store>> (*)(const StoreUrl& url,
                                                       const StoreOptions& options);

struct StoreScheme {
  std::string_view scheme;  // lower case
  // Null for a scheme that is known but has no store in this build yet:
  // OpenStore answers Unsupported naming the URL.
  StoreOpener open;
};

// Every scheme OpenStore knows.
std::span<const StoreScheme> StoreSchemes();

// True if a local `path` names a zip archive rather than a directory: it ends
// in ".zip" (any case) and is not an existing directory.
bool IsZipPath(std::string_view path);

}  // namespace turbozarr::internal
