// Fuzzes the zip archive reader: the input is an archive file, opened through
// OpenStore read-only; every entry is listed, sized and read whole and in
// ranges. Damaged archives must give a Status (Corruption, Unsupported), never
// a crash, a hang or an out-of-bounds access; and what reads must agree with
// itself: a whole read has the listed size, a range is a slice of it.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "turbozarr/open_store.h"
#include "turbozarr/store.h"

namespace {

using turbozarr::Buffer;
using turbozarr::ByteRange;
using turbozarr::Result;
using turbozarr::StatusCode;

void Fail(const std::string& key, const char* what) {
  std::fprintf(stderr, "zip_fuzzer: entry '%s': %s\n", key.c_str(), what);
  std::abort();
}

// One in-memory file reused for every input, named through /proc so that the
// store opens it like any archive on disk.
int ArchiveFd() {
  static int fd = ::memfd_create("zip_fuzzer", MFD_CLOEXEC);
  return fd;
}

bool Acceptable(StatusCode code) {
  return code == StatusCode::kCorruption || code == StatusCode::kUnsupported;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = ArchiveFd();
  if (fd < 0 || ::ftruncate(fd, 0) != 0) std::abort();
  if (size > 0 && ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) std::abort();
  turbozarr::StoreOptions options;
  options.read_only = true;
  auto store = turbozarr::OpenStore("zip:///proc/self/fd/" + std::to_string(fd), options);
  if (!store.ok()) {
    if (!Acceptable(store.status().code()))
      Fail("", "open failed with an unexpected code");
    return 0;
  }
  auto keys = (*store)->List("");
  if (!keys.ok()) Fail("", "List failed");
  for (const std::string& key : *keys) {
    auto size_of = (*store)->Size(key);
    if (!size_of.ok() || !size_of->has_value()) Fail(key, "a listed key has no size");
    auto whole = (*store)->Get(key);
    if (!whole.ok()) {
      if (!Acceptable(whole.status().code()))
        Fail(key, "Get failed with an unexpected code");
      continue;
    }
    if (!whole->has_value()) Fail(key, "a listed key is absent");
    const Buffer& all = **whole;
    if (all.size() != **size_of) Fail(key, "a whole read differs from the listed size");
    for (ByteRange range : {ByteRange::Of(1, 7), ByteRange::Suffix(5),
                            ByteRange::Of(all.size() / 2, all.size())}) {
      auto part = (*store)->Get(key, range);
      if (!part.ok() || !part->has_value())
        Fail(key, "a range of a readable entry failed");
      uint64_t begin = range.suffix
                           ? all.size() - std::min<uint64_t>(range.length, all.size())
                           : std::min<uint64_t>(range.offset, all.size());
      uint64_t n = std::min<uint64_t>((*part)->size(), all.size() - begin);
      if ((*part)->size() != n || (*part)->chars() != all.chars().substr(begin, n)) {
        Fail(key, "a range is not the slice of the whole value");
      }
    }
  }
  return 0;
}
