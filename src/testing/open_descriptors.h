// How many file descriptors the process has open, for tests that check a
// store or reader leaks none.
//
// Thread safety: reads /proc/self/fd; descriptors opened meanwhile by other
// threads may or may not be counted.
#pragma once

#include <filesystem>
#include <string>
#include <system_error>

#include "store/key_locks.h"

namespace turbozarr::testing {

// Open descriptors, but for the key lock files, which a process that has
// written keeps open (store/key_locks.h).
inline int OpenDescriptors() {
  int n = 0;
  const std::string locks = internal::KeyLockDirectory() + "/";
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::read_symlink(e.path(), ec);
    if (!ec && target.string().starts_with(locks)) continue;
    ++n;
  }
  return n;
}

}  // namespace turbozarr::testing
