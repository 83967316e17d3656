// Fuzzes the checks that decide whether an HTTP answer is whole
// (store/http_message.h): ParseContentRange, CheckHeaders and
// CheckResponse, fed the way the transport feeds them. The input is text:
//
//   GET 100+50                          <- the request: a method, then
//   HTTP/1.1 206 Partial Content           "O+L" (ByteRange::Of(O, L)),
//   Content-Range: bytes 100-149/1000      "-L" (ByteRange::Suffix(L))
//   Content-Length: 50                     or nothing (no range)
//                                       <- an empty line ends a head
//   <body>                              <- the rest, unless another head
//                                          ("HTTP/...") follows, as after
//                                          100 Continue or a redirect
//
// The head's lines go through the transport's rules (names lower-cased,
// values trimmed, Content-Length only when it is all digits, a body longer
// than Content-Length cut off). Whatever the checks accept must be what
// was asked for: a 206 only answers a request with a range, with the
// Content-Range the header says, covering exactly the requested range
// resolved against the total (or, without a total, within it), and a body
// of exactly that many bytes.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "store/http_message.h"

namespace {

using turbozarr::ByteRange;
using turbozarr::ContentRange;
using turbozarr::HttpRequest;
using turbozarr::HttpResponse;

[[noreturn]] void Fail(const std::string& what, std::string_view input) {
  std::fprintf(stderr, "http_response_fuzzer: %s\ninput: %.*s\n", what.c_str(),
               static_cast<int>(std::min<size_t>(input.size(), 2000)), input.data());
  std::abort();
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// A decimal number filling all of `s`.
std::optional<uint64_t> Decimal(std::string_view s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// The request line: "METHOD", "METHOD O+L" or "METHOD -L"; nullopt when the
// range part is not one of those.
std::optional<HttpRequest> ParseRequest(std::string_view line) {
  line = turbozarr::TrimHeaderLine(line);
  HttpRequest request;
  const size_t sp = line.find(' ');
  request.method = std::string(line.substr(0, sp));
  if (sp == std::string_view::npos) return request;
  std::string_view range = line.substr(sp + 1);
  if (range.starts_with("-")) {
    std::optional<uint64_t> length = Decimal(range.substr(1));
    if (!length) return std::nullopt;
    request.range = ByteRange::Suffix(*length);
    return request;
  }
  const size_t plus = range.find('+');
  if (plus == std::string_view::npos) return std::nullopt;
  std::optional<uint64_t> offset = Decimal(range.substr(0, plus));
  std::optional<uint64_t> length = Decimal(range.substr(plus + 1));
  if (!offset || !length) return std::nullopt;
  request.range = ByteRange::Of(*offset, *length);
  return request;
}

std::string Canonical(const ContentRange& cr) {
  return "bytes " + std::to_string(cr.first) + "-" + std::to_string(cr.last) + "/" +
         (cr.total ? std::to_string(*cr.total) : std::string("*"));
}

bool SameRange(const std::optional<ContentRange>& a,
               const std::optional<ContentRange>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->first == b->first && a->last == b->last && a->total == b->total);
}

// A well-formed Content-Range names a non-empty run of bytes and writes
// back to text that parses to the same thing.
void CheckParsedRange(std::string_view value, std::string_view input) {
  std::optional<ContentRange> cr = turbozarr::ParseContentRange(value);
  if (!cr) return;
  if (cr->last < cr->first) Fail("a Content-Range with last < first parsed", input);
  if (!SameRange(turbozarr::ParseContentRange(Canonical(*cr)), cr)) {
    Fail("a parsed Content-Range does not parse back from its canonical form", input);
  }
}

// Whether `header` is the Range header for `r`: none for the whole value or
// for nothing, "bytes=-L" for a suffix, "bytes=O-E" with E the last byte
// asked for, or "bytes=O-" when that is the last byte there can be.
bool IsRangeHeaderOf(const std::optional<std::string>& header, const ByteRange& r) {
  if (r.IsFull() || r.length == 0) return !header;
  if (!header) return false;
  if (r.suffix) return *header == "bytes=-" + std::to_string(r.length);
  const std::string from = "bytes=" + std::to_string(r.offset) + "-";
  if (!header->starts_with(from)) return false;
  const std::string_view last = std::string_view(*header).substr(from.size());
  const bool to_end = r.length - 1 >= ByteRange::kToEnd - r.offset;
  if (last.empty()) return to_end;
  return !to_end && Decimal(last) == r.offset + r.length - 1;
}

// What an accepted answer promises about the bytes it carries.
void CheckAccepted(const HttpRequest& request, const HttpResponse& response,
                   std::optional<uint64_t> content_length, std::string_view input) {
  if (request.method == "HEAD") return;
  const uint64_t size = response.body.size();
  if (content_length && *content_length != size) {
    Fail("a body of another length than Content-Length was accepted", input);
  }
  if (response.status != 206) {
    if (response.content_range) Fail("a non-206 answer has a content_range", input);
    return;
  }
  if (!request.range)
    Fail("a 206 answer to a request without a range was accepted", input);
  if (!response.content_range) Fail("an accepted 206 answer has no content_range", input);
  const ContentRange& cr = *response.content_range;
  std::optional<std::string_view> header = response.Header("content-range");
  if (!header || !SameRange(turbozarr::ParseContentRange(*header), cr)) {
    Fail("content_range is not the Content-Range header", input);
  }
  // The body is exactly bytes [first, last]: never empty, since a
  // Content-Range is inclusive (a length of 2^64 would wrap to 0).
  if (size == 0 || cr.last - cr.first != size - 1) {
    Fail("the body does not have the Content-Range's length", input);
  }
  const ByteRange& asked = *request.range;
  if (asked.suffix) {
    if (size > asked.length) Fail("more than the suffix asked for was accepted", input);
    if (cr.total &&
        (cr.last + 1 != *cr.total || size != std::min(asked.length, *cr.total))) {
      Fail("a suffix answer is not the end of the value", input);
    }
    return;
  }
  // From the offset asked for, no further than the end asked for, and to
  // that end (or the value's) when the total is known.
  const uint64_t end = asked.length > ByteRange::kToEnd - asked.offset
                           ? ByteRange::kToEnd
                           : asked.offset + asked.length;
  if (cr.first != asked.offset) Fail("an answer from another offset was accepted", input);
  if (cr.last >= end) Fail("an answer past the end asked for was accepted", input);
  if (cr.total) {
    if (cr.last >= *cr.total) Fail("an answer past its total was accepted", input);
    if (cr.last + 1 != std::min(end, *cr.total)) {
      Fail("an answer short of the range resolved against the total was accepted", input);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t first_nl = input.find('\n');
  if (first_nl == std::string_view::npos) {
    CheckParsedRange(input, input);  // a lone header value
    return 0;
  }
  std::optional<HttpRequest> parsed = ParseRequest(input.substr(0, first_nl));
  if (!parsed) return 0;
  HttpRequest request = std::move(*parsed);
  if (request.range &&
      !IsRangeHeaderOf(turbozarr::RangeHeaderValue(*request.range), *request.range)) {
    Fail("RangeHeaderValue wrote another Range header", input);
  }

  // The head, line by line, as the transport's header callback sees it.
  HttpResponse response;
  std::optional<uint64_t> content_length;
  std::string_view rest = input.substr(first_nl + 1);
  bool in_head = rest.starts_with("HTTP/");
  while (in_head) {
    const size_t nl = rest.find('\n');
    const std::string_view line =
        rest.substr(0, nl == std::string_view::npos ? rest.size() : nl + 1);
    rest.remove_prefix(line.size());
    if (line.starts_with("HTTP/")) {
      response.headers.clear();
      content_length.reset();
      response.status = 0;
      const size_t sp = line.find(' ');
      if (sp != std::string_view::npos) {
        std::from_chars(line.data() + sp + 1, line.data() + line.size(), response.status);
      }
    } else if (turbozarr::TrimHeaderLine(line).empty()) {
      const std::string why = turbozarr::CheckHeaders(request, response, content_length);
      const bool partial =
          why.empty() && request.method != "HEAD" && response.status == 206;
      if (response.content_range.has_value() != partial) {
        Fail("CheckHeaders set content_range for an answer it did not accept as a 206",
             input);
      }
      if (!why.empty()) return 0;           // the transport fails the transfer here
      in_head = rest.starts_with("HTTP/");  // another response follows
      continue;
    } else if (const size_t colon = line.find(':'); colon != std::string_view::npos) {
      std::string name = Lower(turbozarr::TrimHeaderLine(line.substr(0, colon)));
      const std::string_view value = turbozarr::TrimHeaderLine(line.substr(colon + 1));
      if (name == "content-length" && request.method != "HEAD") {
        if (std::optional<uint64_t> n = Decimal(value)) content_length = n;
      }
      if (name == "content-range") CheckParsedRange(value, input);
      response.headers.emplace_back(std::move(name), std::string(value));
    }
    if (rest.empty()) return 0;  // the connection closed inside the head
  }

  // The body; the transport cuts a body longer than Content-Length short
  // and fails the transfer.
  if (content_length && rest.size() > *content_length) return 0;
  response.body.Append(turbozarr::AsBytes(rest));
  const std::string why = turbozarr::CheckResponse(request, response, content_length);
  if (why.empty()) CheckAccepted(request, response, content_length, input);
  return 0;
}
