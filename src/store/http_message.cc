#include "store/http_message.h"

#include <algorithm>
#include <charconv>

namespace turbozarr {

namespace {

// A decimal number filling all of `s`.
std::optional<uint64_t> ParseDecimal(std::string_view s) {
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}


std::string Describe(const ContentRange& cr) {
  return "bytes " + std::to_string(cr.first) + "-" + std::to_string(cr.last) + "/" +
         (cr.total ? std::to_string(*cr.total) : std::string("*"));
}

// Why a well-formed Content-Range `cr` does not answer `asked`, or "".
std::string CheckRangeAnswers(const ByteRange& asked, const ContentRange& cr) {
  const std::string got = "Content-Range '" + Describe(cr) + "'";
  if (cr.total && cr.last >= *cr.total) return got + " runs past its total";
  if (asked.suffix) {
    if (cr.length() > asked.length) {
      return got + " is longer than the last " + std::to_string(asked.length) +
             " bytes asked for";
    }
    if (cr.total) {
      const uint64_t want = std::min(asked.length, *cr.total);
      if (cr.last + 1 != *cr.total || cr.length() != want) {
        return got + " is not the last " + std::to_string(want) + " bytes";
      }
    }
    return "";
  }
  if (cr.first != asked.offset) {
    return got + " does not start at the " + std::to_string(asked.offset) + " asked for";
  }
  const bool to_end = asked.length > ByteRange::kToEnd - asked.offset;
  const uint64_t end = to_end ? ByteRange::kToEnd : asked.offset + asked.length;
  if (cr.last >= end) return got + " runs past the end asked for";
  if (cr.total && cr.last + 1 != std::min(end, *cr.total)) {
    return got + " stops short of the range asked for";
  }
  return "";
}

}  // namespace

std::optional<std::string_view> HttpResponse::Header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (n == name) return std::string_view(v);
  }
  return std::nullopt;
}

std::string_view TrimHeaderLine(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

std::optional<ContentRange> ParseContentRange(std::string_view value) {
  value = TrimHeaderLine(value);
  if (!value.starts_with("bytes ")) return std::nullopt;
  value.remove_prefix(6);
  value = TrimHeaderLine(value);
  const size_t dash = value.find('-');
  const size_t slash = value.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos || dash > slash) {
    return std::nullopt;
  }
  ContentRange cr;
  std::optional<uint64_t> first = ParseDecimal(value.substr(0, dash));
  std::optional<uint64_t> last = ParseDecimal(value.substr(dash + 1, slash - dash - 1));
  if (!first || !last || *last < *first) return std::nullopt;
  cr.first = *first;
  cr.last = *last;
  std::string_view total = value.substr(slash + 1);
  if (total != "*") {
    cr.total = ParseDecimal(total);
    if (!cr.total) return std::nullopt;
  }
  return cr;
}

std::optional<std::string> RangeHeaderValue(const ByteRange& range) {
  if (range.IsFull() || range.length == 0) return std::nullopt;
  if (range.suffix) return "bytes=-" + std::to_string(range.length);
  std::string v = "bytes=" + std::to_string(range.offset) + "-";
  if (range.length <= ByteRange::kToEnd - range.offset) {
    v += std::to_string(range.offset + range.length - 1);
  }
  return v;
}

bool IsRetryableHttpStatus(long status) {
  // 501 (not implemented) and 505 (version not supported) will not change.
  return status == 408 || status == 429 ||
         (status >= 500 && status <= 599 && status != 501 && status != 505);
}

std::string CheckHeaders(const HttpRequest& request, HttpResponse& response,
                         std::optional<uint64_t> content_length) {
  response.content_range.reset();
  if (request.method == "HEAD" || response.status != 206) return "";
  if (!request.range) return "HTTP 206 answer to a request without a Range";
  std::optional<std::string_view> header = response.Header("content-range");
  if (!header) return "HTTP 206 answer without a Content-Range";
  std::optional<ContentRange> cr = ParseContentRange(*header);
  if (!cr)
    return "HTTP 206 answer with a malformed Content-Range '" + std::string(*header) +
           "'";
  if (content_length && *content_length != cr->length()) {
    return "Content-Length " + std::to_string(*content_length) +
           " under Content-Range '" + Describe(*cr) + "'";
  }
  if (std::string why = CheckRangeAnswers(*request.range, *cr); !why.empty()) return why;
  response.content_range = cr;
  return "";
}

std::string CheckResponse(const HttpRequest& request, HttpResponse& response,
                          std::optional<uint64_t> content_length) {
  if (std::string why = CheckHeaders(request, response, content_length); !why.empty()) {
    return why;
  }
  if (request.method == "HEAD") return "";
  const uint64_t size = response.body_size();
  if (content_length && *content_length != size) {
    return "body of " + std::to_string(size) + " bytes where Content-Length announced " +
           std::to_string(*content_length);
  }
  if (response.content_range && response.content_range->length() != size) {
    return "body of " + std::to_string(size) + " bytes under Content-Range '" +
           Describe(*response.content_range) + "'";
  }
  return "";
}

}  // namespace turbozarr
