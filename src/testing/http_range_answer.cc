#include "testing/http_range_answer.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <optional>

namespace turbozarr {

namespace {

// A whole decimal number, nothing before or after it.
std::optional<uint64_t> ParseNumber(std::string_view s) {
  uint64_t v = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

}  // namespace

RangeAnswer AnswerRange(std::string_view header, uint64_t size) {
  if (header.empty()) return {200, 0, size};
  const RangeAnswer unsatisfiable{416, 0, 0};
  constexpr std::string_view kUnit = "bytes=";
  if (!header.starts_with(kUnit)) return unsatisfiable;
  const std::string_view spec = header.substr(kUnit.size());
  const size_t dash = spec.find('-');
  if (dash == std::string_view::npos) return unsatisfiable;
  const std::string_view a = spec.substr(0, dash), b = spec.substr(dash + 1);
  if (a.empty()) {  // the last n bytes
    const std::optional<uint64_t> n = ParseNumber(b);
    if (!n || *n == 0 || size == 0) return unsatisfiable;
    return {206, size - std::min(*n, size), size};
  }
  const std::optional<uint64_t> first = ParseNumber(a);
  if (!first || *first >= size) return unsatisfiable;
  uint64_t last = size - 1;
  if (!b.empty()) {
    const std::optional<uint64_t> asked = ParseNumber(b);
    if (!asked || *asked < *first) return unsatisfiable;
    last = std::min(*asked, last);
  }
  return {206, *first, last + 1};
}

std::string AnswerHead(const RangeAnswer& answer, uint64_t size,
                       uint64_t content_length) {
  std::string head =
      answer.status == 206 ? "HTTP/1.1 206 Partial Content\r\n" : "HTTP/1.1 200 OK\r\n";
  if (answer.status == 206) {
    head += "Content-Range: bytes " + std::to_string(answer.begin) + "-" +
            std::to_string(answer.end - 1) + "/" + std::to_string(size) + "\r\n";
  }
  head += "Accept-Ranges: bytes\r\nContent-Length: " + std::to_string(content_length) +
          "\r\n\r\n";
  return head;
}

std::string StatusAnswer(std::string_view method, std::string_view status,
                         std::string_view headers) {
  std::string out = "HTTP/1.1 ";
  out += status;
  out += "\r\n";
  out += headers;
  out += "Content-Length: " + std::to_string(status.size()) + "\r\n\r\n";
  if (method != "HEAD") out += status;
  return out;
}

std::string UnsatisfiableAnswer(std::string_view method, uint64_t size) {
  return StatusAnswer(method, "416 Range Not Satisfiable",
                      "Content-Range: bytes */" + std::to_string(size) + "\r\n");
}

bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace turbozarr
