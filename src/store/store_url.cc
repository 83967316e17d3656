// OpenStore: URL dispatch through the scheme table.
#include "store/store_url.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "store/read_only_store.h"
#include "store/zip_store.h"
#include "turbozarr/open_store.h"

namespace turbozarr {
namespace internal {
namespace {

// An RFC 3986 scheme: a letter, then letters, digits, '+', '-' or '.'.
bool IsScheme(std::string_view s) {
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' ||
           c == '.';
  });
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

ZipStoreOptions ZipOptions(const StoreOptions& options) {
  ZipStoreOptions z;
  z.read_only = options.read_only;
  z.truncate = options.truncate;
  z.append = options.append;
  return z;
}

// A local path: a directory store, or an archive if it looks like one.
Result<std::shared_ptr<Store>> OpenLocalPath(std::string_view path,
                                             const StoreOptions& options) {
  if (IsZipPath(path)) return OpenZipStore(std::string(path), ZipOptions(options));
  return MakeLocalStore(std::string(path), {.durable = options.durable});
}

Result<std::shared_ptr<Store>> OpenFileUrl(const StoreUrl& url,
                                           const StoreOptions& options) {
  std::string_view rest = url.rest;
  // file://localhost/p is the same as file:///p.
  if (rest.starts_with("localhost/")) rest.remove_prefix(9);
  if (rest.empty()) {
    return Status::InvalidArgument("file URL without a path: '" + std::string(url.url) +
                                   "'");
  }
  return OpenLocalPath(rest, options);
}

Result<std::shared_ptr<Store>> OpenMemoryUrl(const StoreUrl& url, const StoreOptions&) {
  if (!url.rest.empty()) {
    return Status::Unsupported("named memory stores are not supported: '" +
                               std::string(url.url) + "' (use \"memory://\")");
  }
  return MakeMemoryStore();
}

Result<std::shared_ptr<Store>> OpenZipUrl(const StoreUrl& url,
                                          const StoreOptions& options) {
  if (url.rest.empty()) {
    return Status::InvalidArgument("zip URL without a path: '" + std::string(url.url) +
                                   "'");
  }
  return OpenZipStore(std::string(url.rest), ZipOptions(options));
}

// The whole URL is the base: keys are appended to it. HTTP stores are read-only
// whatever the options say.
Result<std::shared_ptr<Store>> OpenHttpUrl(const StoreUrl& url,
                                           const StoreOptions& options) {
  if (url.rest.empty()) {
    return Status::InvalidArgument("HTTP URL without a host: '" + std::string(url.url) +
                                   "'");
  }
  return MakeHttpStore(std::string(url.url), options.http);
}

// "s3://bucket/prefix": the options given, completed from the AWS environment
// variables and shared files.
Result<std::shared_ptr<Store>> OpenS3Url(const StoreUrl& url,
                                         const StoreOptions& options) {
  std::string_view rest = url.rest;
  const size_t slash = rest.find('/');
  std::string bucket(rest.substr(0, slash));
  std::string prefix(slash == std::string_view::npos ? "" : rest.substr(slash + 1));
  if (bucket.empty()) {
    return Status::InvalidArgument("S3 URL without a bucket: '" + std::string(url.url) +
                                   "'");
  }
  Result<S3Options> s3 = S3Options::FromAwsConfig(options.s3, options.s3_profile);
  if (!s3.ok()) {
    return Status(s3.status().code(),
                  "S3 store '" + std::string(url.url) + "': " + s3.status().message());
  }
  return MakeS3Store(std::move(bucket), std::move(prefix), std::move(*s3));
}

constexpr StoreScheme kSchemes[] = {
    {"file", OpenFileUrl}, {"memory", OpenMemoryUrl}, {"zip", OpenZipUrl},
    {"http", OpenHttpUrl}, {"https", OpenHttpUrl},    {"s3", OpenS3Url},
};

Result<std::shared_ptr<Store>> OpenWithScheme(const StoreUrl& url,
                                              const StoreOptions& options) {
  for (const StoreScheme& s : kSchemes) {
    if (!EqualsIgnoringCase(s.scheme, url.scheme)) continue;
    if (s.open == nullptr) {
      return Status::Unsupported("store URL '" + std::string(url.url) + "': the '" +
                                 std::string(s.scheme) +
                                 "' store is not available in this build yet");
    }
    return s.open(url, options);
  }
  return Status::Unsupported("store URL scheme '" + std::string(url.scheme) +
                             "' is not supported (in '" + std::string(url.url) + "')");
}

}  // namespace

StoreUrl SplitStoreUrl(std::string_view url) {
  size_t sep = url.find("://");
  if (sep != std::string_view::npos && IsScheme(url.substr(0, sep))) {
    return {url, url.substr(0, sep), url.substr(sep + 3)};
  }
  return {url, std::string_view(), url};
}

std::span<const StoreScheme> StoreSchemes() { return kSchemes; }

bool IsZipPath(std::string_view path) {
  if (path.size() < 4 || !EqualsIgnoringCase(path.substr(path.size() - 4), ".zip")) {
    return false;
  }
  struct stat st;
  return !(::stat(std::string(path).c_str(), &st) == 0 && S_ISDIR(st.st_mode));
}

}  // namespace internal

Result<std::shared_ptr<Store>> OpenStore(std::string_view url) {
  return OpenStore(url, StoreOptions());
}

Result<std::shared_ptr<Store>> OpenStore(std::string_view url,
                                         const StoreOptions& options) {
  if (url.empty()) return Status::InvalidArgument("empty store URL");
  internal::StoreUrl parts = internal::SplitStoreUrl(url);
  Result<std::shared_ptr<Store>> store =
      parts.scheme.empty() ? internal::OpenLocalPath(parts.rest, options)
                           : internal::OpenWithScheme(parts, options);
  if (!store.ok()) return store;
  if (options.read_only && (*store)->Capabilities().writable) {
    return std::shared_ptr<Store>(std::make_shared<ReadOnlyStore>(std::move(*store)));
  }
  return store;
}

}  // namespace turbozarr
