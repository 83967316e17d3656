// S3Client: the requests of one S3 bucket. It knows where the bucket lives
// (endpoint, path-style or virtual-hosted addressing), builds the URL of an
// object and an S3 operation, signs the request with SigV4 (or sends it
// unsigned for anonymous access), sends it through an HttpTransport, and
// turns S3's error answers into a Status naming the bucket, key, HTTP status
// and S3 error code and message.
//
// Every request is signed when it is built; requests meant for a batch are
// built just before they go out (S3 refuses a signature older than 15
// minutes).
//
// Thread safety: immutable after Make; all methods may be called from many
// threads at once.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "store/http_transport.h"
#include "store/s3_xml.h"
#include "store/sigv4.h"
#include "turbozarr/remote_store.h"
#include "turbozarr/store.h"

namespace turbozarr {

class S3Client {
 public:
  // Checks the bucket name and options; the error names what is wrong.
  static Result<std::unique_ptr<S3Client>> Make(std::string bucket, S3Options options);

  // A request for `object_key` ("" for the bucket itself) with `query`
  // (unencoded), `body` and extra `headers` ("Name: value", signed too).
  // REQUIRES: `body` outlives the request.
  HttpRequest Request(std::string_view method, std::string_view object_key,
                      const sigv4::QueryParams& query = {}, ByteView body = {},
                      std::vector<std::string> headers = {}) const;

  HttpTransport& transport() const { return *transport_; }
  const S3Options& options() const { return options_; }
  const std::string& bucket() const { return bucket_; }

  // "s3://bucket/key" ("s3://bucket" for the bucket itself).
  std::string Describe(std::string_view object_key) const;

  // The error for answer `r` to `action` ("GET", "ListObjectsV2", ...) on
  // `object_key`: HTTP status, S3 error code and message when the body has
  // them, and the attempts made.
  Status Error(std::string_view action, std::string_view object_key,
               const HttpResponse& r) const;

  // The S3 error code in a failed answer's body ("" if none, as for HEAD).
  static std::string ErrorCode(const HttpResponse& r);

 private:
  S3Client() = default;

  std::string bucket_;
  S3Options options_;
  std::string scheme_;     // "http" or "https"
  std::string authority_;  // host[:port], as sent in the Host header
  std::string base_path_;  // "/bucket" (path-style) or "" (virtual-hosted)
  std::unique_ptr<sigv4::SigV4Signer> signer_;  // null: anonymous
  std::unique_ptr<HttpTransport> transport_;
};

}  // namespace turbozarr
