// AWS Signature Version 4: the request signing that S3 and every other AWS
// service (and S3-compatible servers) check.
//
// A request is signed in four steps, each exposed so that tests can compare
// it with the published examples: the canonical request (method, encoded
// path, sorted encoded query, sorted lower-case headers, signed header names,
// payload hash), the string to sign (algorithm, time, credential scope, hash
// of the canonical request), the signing key (HMAC-SHA256 chained over date,
// region, service and "aws4_request", starting from "AWS4" + secret), and the
// signature (hex HMAC of the string to sign). SigV4Signer::Sign runs them all
// and answers the headers to send. SHA-256, HMAC and MD5 come from OpenSSL's
// libcrypto. Paths and query parameters are encoded with PercentEncode
// (url_encoding.h), SigV4's UriEncode, which the URLs sent use too.
//
// Thread safety: pure functions; a SigV4Signer is immutable after
// construction and may sign from many threads at once.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "turbozarr/buffer.h"

namespace turbozarr::sigv4 {

using Digest = std::array<uint8_t, 32>;

// The x-amz-content-sha256 value that leaves the body out of the signature.
inline constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";

Digest Sha256(ByteView data);
Digest HmacSha256(ByteView key, std::string_view data);
std::string HexEncode(ByteView bytes);
inline std::string HexEncode(const Digest& d) {
  return HexEncode(ByteView(reinterpret_cast<const std::byte*>(d.data()), d.size()));
}
// Lower-case hex SHA-256: the payload hash SigV4 uses.
std::string Sha256Hex(ByteView data);
// Base64 of the MD5 of `data`: a Content-MD5 header value.
std::string Base64Md5(ByteView data);

// Query parameters, unencoded, as name and value ("" for a bare name).
using QueryParams = std::vector<std::pair<std::string, std::string>>;
// The canonical query string: names and values encoded, sorted by name then
// value, "name=value" joined by '&' (a bare name becomes "name="). It is also
// a valid query string to send.
std::string CanonicalQuery(const QueryParams& params);

// "20130524T000000Z" for `t` (UTC).
std::string AmzDate(std::chrono::system_clock::time_point t);

// The parts of a request that the signature covers.
struct CanonicalInput {
  std::string method;  // "GET", "PUT", ...
  std::string path;    // as sent, already encoded: "/bucket/a%20b"
  std::string query;   // a CanonicalQuery (or "")
  // Every header to sign, host included; names in any case. Values are
  // trimmed and inner runs of spaces collapsed; repeated names are joined
  // with ',' in the order given.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string payload_hash;  // Sha256Hex of the body, or kUnsignedPayload
};

// The canonical request; `signed_headers` (if not null) receives the sorted
// lower-case header names joined by ';'.
std::string CanonicalRequest(const CanonicalInput& input, std::string* signed_headers);
// "20130524/us-east-1/s3/aws4_request"
std::string CredentialScope(std::string_view date, std::string_view region,
                            std::string_view service);
std::string StringToSign(std::string_view amz_date, std::string_view scope,
                         std::string_view canonical_request);
// REQUIRES: `date` is the first 8 characters of the request's amz date.
Digest SigningKey(std::string_view secret_access_key, std::string_view date,
                  std::string_view region, std::string_view service);
std::string Signature(const Digest& signing_key, std::string_view string_to_sign);

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // temporary credentials only
};

// What SigV4Signer::Sign computed, the intermediate steps kept for tests and
// error reports.
struct SignedRequest {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;
  std::string authorization;  // the Authorization header's value
  // Headers to send as "Name: value": X-Amz-Date, X-Amz-Content-Sha256,
  // X-Amz-Security-Token (temporary credentials), Authorization.
  std::vector<std::string> headers;
};

class SigV4Signer {
 public:
  SigV4Signer(Credentials credentials, std::string region, std::string service);

  // Signs `input` at time `now`: adds x-amz-date, x-amz-content-sha256 (from
  // input.payload_hash) and x-amz-security-token to the signed headers.
  // REQUIRES: input.headers holds "host" and none of those three.
  SignedRequest Sign(CanonicalInput input,
                     std::chrono::system_clock::time_point now) const;

  const Credentials& credentials() const { return credentials_; }

 private:
  Credentials credentials_;
  std::string region_;
  std::string service_;
};

}  // namespace turbozarr::sigv4
