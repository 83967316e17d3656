// What the Store implementations share: prefix rules and byte-range
// arithmetic, so that every store answers the same question the same way,
// and the closing of file descriptors.
//
// Thread safety: pure functions.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr::internal {

// Closes a file descriptor when it goes out of scope.
class FileCloser {
 public:
  explicit FileCloser(int fd) : fd_(fd) {}
  ~FileCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileCloser(const FileCloser&) = delete;
  FileCloser& operator=(const FileCloser&) = delete;
  // Closes now and reports the error, which on some file systems is the
  // first sign that a write failed.
  int Close() {
    int rc = ::close(fd_);
    fd_ = -1;
    return rc == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

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

// Filling a ReadRequest's target, the same way in every store.
//
// Sizes a buffer target (kNewBuffer: a fresh buffer; kReuseBuffer: the
// caller's, its memory reused) to `n` bytes and answers its memory, for a
// store that reads into it. REQUIRES: a buffer target.
MutableByteView PrepareBuffer(const ReadRequest& request, size_t n);
// Copies `part`, bytes the store has at hand, into the target (a memory
// target only when the sizes match). Answers found with part's length.
ReadAnswer DeliverBytes(const ReadRequest& request, ByteView part);
// Hands over `part`, a buffer the store made for this read: buffer targets
// take it without a copy, a memory target gets a copy.
ReadAnswer DeliverBuffer(const ReadRequest& request, Buffer&& part);
// The answer for an absent key: buffer targets are left empty.
ReadAnswer Absent(const ReadRequest& request);

// Serves each request with `fetch(key, range)`, a
// Result<std::optional<Buffer>> of the selected part, handing its buffer to
// the target: for stores whose reads make a buffer anyway (zip entries are
// inflated or read whole), one after the other.
template <typename Fetch>
Status ReadEachIntoBuffers(std::span<const ReadRequest> requests,
                           std::span<ReadAnswer> answers, Fetch&& fetch) {
  for (size_t i = 0; i < requests.size(); ++i) {
    Result<std::optional<Buffer>> value = fetch(requests[i].key, requests[i].range);
    if (!value.ok()) return value.status();
    answers[i] = value->has_value() ? DeliverBuffer(requests[i], std::move(**value))
                                    : Absent(requests[i]);
  }
  return Status::OK();
}

// `s` with ASCII letters in lower case (HTTP header names, AWS setting names).
std::string AsciiLower(std::string_view s);

// Updates of `keys` (Store::BeginUpdates) that read and write through
// `store`'s Get, Set, SetBuffer and Erase while they hold the lock of the
// same index in `ids` (key_locks.h: taken here, machine-wide or not).
Result<std::vector<std::unique_ptr<KeyUpdate>>> LockedUpdates(
    Store& store, std::span<const std::string> keys, std::span<const uint64_t> ids,
    bool machine_wide);

}  // namespace turbozarr::internal
