// Hashes that are the same in every build and every process: FNV-1a over
// bytes, and splitmix64's finaliser to spread them. Used where a hash names
// something other processes must name alike (key lock files) or compares
// versions of stored values (ETags, file identities).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

namespace turbozarr::internal {

inline constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ULL;

// FNV-1a of `bytes`, continuing from `h`.
inline uint64_t Fnv1a(uint64_t h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// splitmix64's finaliser: every output bit depends on every input bit.
inline uint64_t MixBits(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace turbozarr::internal
