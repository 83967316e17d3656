// OpenStore: a store from a URL or a path, the way the Python package, the
// CLI and the benchmarks open every store, with the options that apply to
// the kinds of store a URL can name.
//
// Thread safety: OpenStore may be called from many threads at once.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "turbozarr/remote_store.h"
#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr {

// How OpenStore opens a store; a field that does not apply to a store is
// ignored by it.
struct StoreOptions {
  // Refuse every write (Set, Erase, ErasePrefix answer InvalidArgument). A zip
  // archive opened read-only must exist.
  bool read_only = false;
  // Single-file stores (zip): start a new, empty archive even if the file
  // exists; it is replaced when first written (or flushed). Without this (or
  // `append`) an existing archive opens read-only and an absent one is
  // created.
  bool truncate = false;
  // Single-file stores (zip): open an existing archive to add to it (new
  // entries go after its end; the central directory is rewritten, listing
  // the old entries and the new, on Flush); an absent one is created. Not
  // with `read_only` or `truncate`.
  bool append = false;
  // Local directories: durable writes (LocalStoreOptions::durable).
  bool durable = false;
  // S3 stores: settings that win over the environment and the AWS shared
  // files (what they leave unset is filled in by S3Options::FromAwsConfig).
  S3Options s3;
  // S3 stores: the AWS profile to read; "" means $AWS_PROFILE, else "default".
  std::string s3_profile;
  // HTTP(S) stores: timeouts, retries and connections (S3 stores take theirs
  // from s3.http).
  HttpOptions http;
};

// Opens a store from a URL or a path:
//   "memory://"                  a new, empty in-memory store
//   "file:///p", "/p", "rel/p"   a local directory (created on first write)
//   "zip:///p.zip", "p.zip",     a zip archive: an existing one is read (or
//   "file:///p.zip"              appended to), a new one is written (see
//                                StoreOptions::truncate and append);
//                                a path ending in ".zip" that is a directory
//                                stays a local directory store
//   "http(s)://host/p"          a read-only HTTP store (MakeHttpStore)
//   "s3://bucket/prefix"         an S3 store (MakeS3Store) with
//                                StoreOptions::s3, completed from the AWS
//                                environment and shared files
//                                (S3Options::FromAwsConfig)
// Schemes are case-insensitive. Unknown schemes are Unsupported; the message
// names the URL.
Result<std::shared_ptr<Store>> OpenStore(std::string_view url);
Result<std::shared_ptr<Store>> OpenStore(std::string_view url,
                                         const StoreOptions& options);

}  // namespace turbozarr
