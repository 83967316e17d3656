// What the Store implementations share: prefix rules and byte-range
// arithmetic, so that every store answers the same question the same way.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr::internal {

// A prefix is "" (the whole store) or a valid key.
Status ValidatePrefix(std::string_view prefix);

// True if `key` is `prefix` itself or lies below it ("a" holds "a" and "a/x",
// not "ab/x"). Every key is under the empty prefix.
bool KeyIsUnder(std::string_view key, std::string_view prefix);

// The half-open byte interval [begin, end) of a value of `size` bytes that
// `range` selects; ranges past the end are cut short, possibly to nothing.
struct ResolvedRange {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t length() const { return end - begin; }
};
ResolvedRange ResolveByteRange(const ByteRange& range, uint64_t size);

// `s` with ASCII letters in lower case (HTTP header names, AWS setting names).
std::string AsciiLower(std::string_view s);

}  // namespace turbozarr::internal
