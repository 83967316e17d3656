// What the loopback test servers answer to a GET or HEAD of a stored value:
// which bytes a Range header selects (or that it is unsatisfiable), and the
// status line and headers that go with them. The fault-injecting server and
// the throttled server build their answers from these, so that both speak the
// same HTTP/1.1 and differ only in how they misbehave or pace.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace turbozarr {

// The part of a value an answer carries.
struct RangeAnswer {
  // 200 (the whole value: no Range header), 206 (the bytes [begin, end)) or
  // 416 (the Range header selects nothing; begin and end are 0).
  int status = 200;
  uint64_t begin = 0;
  uint64_t end = 0;
};

// Resolves a Range header (`header`: its value, "" if none) against a value
// of `size` bytes. One range of bytes is understood: "bytes=a-b" (b past the
// end is cut to it), "bytes=a-" and "bytes=-n" (the last n bytes, all of them
// if fewer). A first byte at or past the end, a suffix of 0 bytes, any range
// of an empty value, b < a, several ranges, other units and malformed numbers
// are unsatisfiable: a test server is strict where a lenient one would ignore
// the header, so that a client's bad range shows as a 416.
RangeAnswer AnswerRange(std::string_view header, uint64_t size);

// The status line and headers (through the blank line) of a 200 or 206
// `answer` about a value of `size` bytes: a 206 says which bytes in
// Content-Range. Content-Length announces `content_length`, which is the
// answer's length unless a server lies on purpose.
std::string AnswerHead(const RangeAnswer& answer, uint64_t size, uint64_t content_length);
inline std::string AnswerHead(const RangeAnswer& answer, uint64_t size) {
  return AnswerHead(answer, size, answer.end - answer.begin);
}

// A whole answer to a `method` request whose body is its own status text,
// such as "404 Not Found" (a HEAD's answer announces the body and sends
// none); `headers` ("Name: value\r\n" each) go before Content-Length.
std::string StatusAnswer(std::string_view method, std::string_view status,
                         std::string_view headers = "");

// The 416 answer to a `method` request about a value of `size` bytes
// (Content-Range: bytes */size).
std::string UnsatisfiableAnswer(std::string_view method, uint64_t size);

// Sends all of `data` on socket `fd`; false if the connection failed.
bool SendAll(int fd, std::string_view data);

}  // namespace turbozarr
