// S3Store: a Store over the objects of one S3 bucket below a key prefix.
//
// Store key "a/b" is object "<prefix>/a/b". A read is a GET (a Range request
// for a byte range, HEAD for an empty one); 404 NoSuchKey means absent, while
// NoSuchBucket and every other failure is an error naming bucket, key, HTTP
// status and S3 error code. A batch is planned like the HTTP store's
// (ReadPlanned: neighbouring ranges of one key merged) and its requests kept
// in flight together, in windows so that no signature grows stale in the
// queue. Size is
// a HEAD. Set is one PUT, or above S3Options::multipart_threshold a multipart
// upload whose parts go up several at once (see s3_multipart.h); S3 makes
// both atomic per key. Erase is a DELETE (absent is fine). List and
// ListDirectory page through ListObjectsV2 (encoding-type=url, continuation
// tokens; ListDirectory with delimiter '/'); ErasePrefix lists, then deletes
// in DeleteObjects batches of up to 1000 keys sent together.
//
// Thread safety: safe from many threads; the state is the immutable client
// and its thread-safe transport.
#pragma once

#include <memory>
#include <string>

#include "store/s3_client.h"
#include "turbozarr/remote_store.h"
#include "turbozarr/store.h"

namespace turbozarr {

class S3Store final : public Store {
 public:
  // REQUIRES: `prefix` is "" or a valid key (MakeS3Store checks).
  S3Store(std::unique_ptr<S3Client> client, std::string prefix);

  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override;
  Result<std::optional<uint64_t>> Size(std::string_view key) override;
  Status Set(std::string_view key, ByteView value) override;
  Status Erase(std::string_view key) override;
  // Conditional updates: Read remembers the object's ETag (or that it was
  // absent) and Commit writes with If-Match (or If-None-Match: *), deletes
  // with If-Match, and answers false when S3 refuses for the condition, so
  // writers on any number of machines lose no update. No lock is held.
  Result<std::vector<std::unique_ptr<KeyUpdate>>> BeginUpdates(
      std::span<const std::string> keys) override;
  Status ErasePrefix(std::string_view prefix) override;
  Result<std::vector<std::string>> List(std::string_view prefix) override;
  Result<DirectoryListing> ListDirectory(std::string_view prefix) override;
  // Readers batch their reads into Read calls of max_concurrency.
  StoreCapabilities Capabilities() const override;
  // "s3://bucket/prefix"
  std::string Describe() const override { return client_->Describe(prefix_); }

  const S3Client& client() const { return *client_; }

 private:
  friend class S3Update;
  // The object key of store key `key`.
  std::string ObjectKey(std::string_view key) const;
  // The object key prefix under which store prefix `prefix` lists, with its
  // trailing '/' ("" for the whole bucket).
  std::string ListPrefix(std::string_view prefix) const;
  // Every object (and, with `delimiter`, every common prefix) under
  // `object_prefix`, page after page.
  Status ListObjects(const std::string& object_prefix, bool delimiter,
                     std::vector<std::string>* keys,
                     std::vector<std::string>* common_prefixes) const;
  // Deletes these objects (full object keys).
  Status DeleteObjects(std::vector<std::string> object_keys) const;

  std::unique_ptr<S3Client> client_;
  std::string prefix_;
};

}  // namespace turbozarr
