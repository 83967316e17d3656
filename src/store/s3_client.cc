#include "store/s3_client.h"

#include <cctype>
#include <chrono>

#include "store/url_encoding.h"
#include "store/url_origin.h"

namespace turbozarr {

namespace {

constexpr uint64_t kMinPartSize = uint64_t{5} << 20;  // S3's minimum (but the last)
constexpr uint64_t kMaxPartSize = uint64_t{5} << 30;

// Bucket names may not hold what would change a URL's meaning; S3 itself is
// stricter (3-63 of a-z 0-9 . -), S3-compatible servers vary.
Status CheckBucket(const std::string& bucket) {
  if (bucket.empty()) return Status::InvalidArgument("S3 store: empty bucket name");
  for (char c : bucket) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= ' ' || u >= 0x7F || c == '/' || c == '?' || c == '#' || c == '%' ||
        c == '@' || c == ':' || c == '\\') {
      return Status::InvalidArgument("S3 store: bucket name '" + bucket +
                                     "' holds a character not allowed in bucket names");
    }
  }
  return Status::OK();
}

std::string Attempts(const HttpResponse& r) {
  return r.attempts > 1 ? " (after " + std::to_string(r.attempts) + " attempts)" : "";
}

}  // namespace

Result<std::unique_ptr<S3Client>> S3Client::Make(std::string bucket, S3Options options) {
  TZ_RETURN_NOT_OK(CheckBucket(bucket));
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("S3 store s3://" + bucket + ": " + std::string(why));
  };
  if (options.region.empty()) options.region = "us-east-1";
  for (char c : options.region) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') {
      return bad("region '" + options.region + "' is not a region name");
    }
  }
  if (options.access_key_id.empty() != options.secret_access_key.empty()) {
    return bad("an access key id needs its secret access key, and the other way round");
  }
  if (options.multipart_part_size < kMinPartSize ||
      options.multipart_part_size > kMaxPartSize) {
    return bad("multipart_part_size must lie between 5 MiB and 5 GiB");
  }
  if (options.list_page_size < 1 || options.list_page_size > 1000) {
    return bad("list_page_size must lie between 1 and 1000");
  }
  if (options.http.max_concurrency < 1) return bad("max_concurrency must be at least 1");
  if (options.http.max_connections < 0) {
    return bad("max_connections must be at least 1 (or 0 for the default)");
  }
  if (options.http.max_retries < 0) return bad("max_retries must not be negative");

  std::unique_ptr<S3Client> c(new S3Client());
  std::string endpoint_path;
  std::string host;
  if (options.endpoint.empty()) {
    c->scheme_ = "https";
    host = "s3." + options.region + ".amazonaws.com";
  } else {
    std::string_view e = options.endpoint;
    const size_t scheme_length = internal::HttpSchemeLength(e);
    if (scheme_length == 0) {
      return bad("endpoint '" + options.endpoint +
                 "' must start with http:// or https://");
    }
    c->scheme_ = scheme_length == 7 ? "http" : "https";
    e.remove_prefix(scheme_length);
    if (e.find_first_of("?#@") != std::string_view::npos) {
      return bad("endpoint '" + options.endpoint +
                 "' may not hold credentials, a query or a fragment");
    }
    const size_t slash = e.find('/');
    host = std::string(e.substr(0, slash));
    if (slash != std::string_view::npos) endpoint_path = std::string(e.substr(slash));
    while (!endpoint_path.empty() && endpoint_path.back() == '/')
      endpoint_path.pop_back();
    if (host.empty()) return bad("endpoint '" + options.endpoint + "' has no host");
  }
  bool path_style = options.addressing == S3Addressing::kPath;
  if (options.addressing == S3Addressing::kAuto) {
    // A dotted bucket name as a host name would not match AWS's certificate.
    path_style = !options.endpoint.empty() || bucket.find('.') != std::string::npos;
  }
  if (path_style) {
    c->authority_ = host;
    c->base_path_ = endpoint_path + "/" + PercentEncode(bucket, Slash::kEncode);
  } else {
    c->authority_ = bucket + "." + host;
    c->base_path_ = endpoint_path;
  }
  if (!options.access_key_id.empty()) {
    c->signer_ = std::make_unique<sigv4::SigV4Signer>(
        sigv4::Credentials{options.access_key_id, options.secret_access_key,
                           options.session_token},
        options.region, "s3");
  }
  c->transport_ = std::make_unique<HttpTransport>(options.http);
  c->bucket_ = std::move(bucket);
  c->options_ = std::move(options);
  return c;
}

HttpRequest S3Client::Request(std::string_view method, std::string_view object_key,
                              const sigv4::QueryParams& query, ByteView body,
                              std::vector<std::string> headers) const {
  HttpRequest r;
  r.method = std::string(method);
  std::string path = base_path_;
  if (!object_key.empty() || path.empty())
    path += "/" + PercentEncode(object_key, Slash::kKeep);
  const std::string canonical_query = sigv4::CanonicalQuery(query);
  r.url = scheme_ + "://" + authority_ + path;
  if (!canonical_query.empty()) r.url += "?" + canonical_query;
  r.body = body;
  // Sent as given (rather than left to curl) so that it is the Host signed.
  r.headers.push_back("Host: " + authority_);
  if (signer_ != nullptr) {
    sigv4::CanonicalInput in;
    in.method = r.method;
    in.path = path;
    in.query = canonical_query;
    in.headers.emplace_back("host", authority_);
    for (const std::string& h : headers) {
      const size_t colon = h.find(':');
      in.headers.emplace_back(h.substr(0, colon),
                              colon == std::string::npos ? "" : h.substr(colon + 1));
    }
    if (body.empty()) {
      in.payload_hash = sigv4::Sha256Hex({});
    } else if (options_.sign_payload) {
      in.payload_hash = sigv4::Sha256Hex(body);
    } else {
      in.payload_hash = std::string(sigv4::kUnsignedPayload);
    }
    sigv4::SignedRequest s =
        signer_->Sign(std::move(in), std::chrono::system_clock::now());
    for (std::string& h : s.headers) r.headers.push_back(std::move(h));
  }
  for (std::string& h : headers) r.headers.push_back(std::move(h));
  return r;
}

std::string S3Client::Describe(std::string_view object_key) const {
  return "s3://" + bucket_ + (object_key.empty() ? "" : "/" + std::string(object_key));
}

std::string S3Client::ErrorCode(const HttpResponse& r) {
  std::optional<s3xml::S3Error> e = s3xml::ParseError(r.body.chars());
  return e ? e->code : "";
}

Status S3Client::Error(std::string_view action, std::string_view object_key,
                       const HttpResponse& r) const {
  std::string msg = Describe(object_key) + ": " + std::string(action) + " failed: HTTP " +
                    std::to_string(r.status);
  if (std::optional<s3xml::S3Error> e = s3xml::ParseError(r.body.chars())) {
    if (!e->code.empty()) msg += " " + e->code;
    if (!e->message.empty()) msg += ": " + e->message;
  } else if (r.status == 403) {
    msg += " (access denied: check the credentials and region)";
  }
  return Status::IOError(msg + Attempts(r));
}

}  // namespace turbozarr
