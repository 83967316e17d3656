// HTTP requests and responses as the transport sends and receives them, and
// the rules that decide whether a response is whole: its body has the length
// Content-Length announced, and a 206 covers exactly the range asked for.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "turbozarr/buffer.h"
#include "turbozarr/store.h"

namespace turbozarr {

struct HttpRequest {
  std::string method = "GET";  // GET, HEAD, PUT, POST, DELETE, ...
  std::string url;             // already percent-encoded
  // Extra headers as "Name: value", added to HttpOptions::headers.
  std::vector<std::string> headers;
  // Sent as the request body when not empty, or when the method is PUT or
  // POST. REQUIRES: stays valid until the request completes.
  ByteView body;
  // Sent as a Range header; a 206 answer is checked against it.
  std::optional<ByteRange> range;
  // Where the body of a successful answer (2xx) lands while it fits: bytes
  // are written here as they arrive, with no buffer of their own, and
  // HttpResponse::placed counts them. A body that outgrows it (a server
  // that ignored the Range and sent the whole value) moves to
  // HttpResponse::body, whole. REQUIRES: stays valid until the request
  // completes; only for GET.
  MutableByteView into;
};

// "Content-Range: bytes first-last/total" of a 206 answer.
struct ContentRange {
  uint64_t first = 0;
  uint64_t last = 0;              // inclusive
  std::optional<uint64_t> total;  // absent for "/*"
  uint64_t length() const { return last - first + 1; }
};

struct HttpResponse {
  long status = 0;
  // Names in lower case, in the order received, of the final response only.
  std::vector<std::pair<std::string, std::string>> headers;
  Buffer body;
  // How many bytes of the body were written to HttpRequest::into (`body`
  // is then empty); nullopt when the body is in `body`.
  std::optional<uint64_t> placed;
  std::optional<ContentRange> content_range;  // parsed, for a 206
  int attempts = 0;                           // 1 when the first try succeeded

  // The value of the first header called `name` (lower case), if any.
  std::optional<std::string_view> Header(std::string_view name) const;
  // The body's length, wherever it landed.
  uint64_t body_size() const { return placed ? *placed : body.size(); }
};

// A header line or value without the spaces and tabs around it and the
// line end behind it, as curl hands header lines over.
std::string_view TrimHeaderLine(std::string_view s);

// Parses "bytes 0-99/1000" or "bytes 0-99/*"; nullopt if malformed.
std::optional<ContentRange> ParseContentRange(std::string_view value);

// The Range header value for `range` ("bytes=5-9", "bytes=5-", "bytes=-4");
// nullopt for ByteRange::Full() and for zero-length ranges, which no Range
// header can express.
std::optional<std::string> RangeHeaderValue(const ByteRange& range);

// Whether a response status is worth another attempt.
bool IsRetryableHttpStatus(long status);

// Why the headers of `response` to `request` cannot belong to a right
// answer, or "" if they can: a 206 needs a Range asked for and a
// Content-Range that answers it, with a Content-Length (if sent) of its
// length. Checked as soon as the headers are in, so that a bad answer's
// connection is closed rather than reused. Fills response.content_range.
std::string CheckHeaders(const HttpRequest& request, HttpResponse& response,
                         std::optional<uint64_t> content_length);

// Why the complete `response` to `request` is not whole, or "" if it is:
// CheckHeaders, and a body of the length announced. `content_length` is the
// Content-Length header's value, if one was sent.
std::string CheckResponse(const HttpRequest& request, HttpResponse& response,
                          std::optional<uint64_t> content_length);

}  // namespace turbozarr
