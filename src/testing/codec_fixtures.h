// Small helpers shared by codec tests: hex literals to bytes, chunk specs,
// and deterministic chunk contents.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/buffer.h"
#include "turbozarr/codec.h"
#include "turbozarr/dtype.h"

namespace turbozarr::testing {

// Bytes from a hex string ("0a1b..."); whitespace is skipped.
inline Buffer FromHex(std::string_view hex) {
  std::string out;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  int hi = -1;
  for (char c : hex) {
    int v = nibble(c);
    if (v < 0) continue;
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<char>(hi * 16 + v));
      hi = -1;
    }
  }
  return Buffer::FromString(out);
}

inline std::string ToHex(ByteView b) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (std::byte x : b) {
    s.push_back(kDigits[static_cast<uint8_t>(x) >> 4]);
    s.push_back(kDigits[static_cast<uint8_t>(x) & 15]);
  }
  return s;
}

// A chunk spec with the type's default (zero) fill value.
inline ArraySpec MakeSpec(std::vector<int64_t> shape, DataType dtype) {
  ArraySpec s;
  s.shape = std::move(shape);
  s.dtype = dtype;
  s.fill_value = DefaultFillValue(dtype);
  return s;
}

// A chunk of `spec` whose bytes follow a seeded pattern (or, for
// variable-length types, short strings of varying length).
inline ChunkArray PatternChunk(const ArraySpec& spec, uint32_t seed = 1) {
  ChunkArray c;
  c.shape = spec.shape;
  c.dtype = spec.dtype;
  const int64_t n = spec.num_elements();
  std::mt19937 rng(seed);
  if (spec.dtype.is_variable_length()) {
    for (int64_t i = 0; i < n; ++i) c.strings.push_back(std::string(i % 5, 'a' + i % 26));
    return c;
  }
  c.bytes.Resize(static_cast<size_t>(n) * spec.dtype.size());
  for (size_t i = 0; i < c.bytes.size(); ++i) {
    // Mostly small values, like real data, so compressors have work to do.
    c.bytes.data()[i] = static_cast<std::byte>(i % 7 == 0 ? rng() : i / 16);
  }
  return c;
}

// Bytes that follow a simple, compressible pattern.
inline Buffer PatternBytes(size_t n, uint32_t seed = 1) {
  Buffer b(n);
  std::mt19937 rng(seed);
  for (size_t i = 0; i < n; ++i) {
    b.data()[i] = static_cast<std::byte>(i % 13 == 0 ? rng() : (i / 64) & 0xFF);
  }
  return b;
}

// Uniformly random (incompressible) bytes.
inline Buffer RandomBytes(size_t n, uint32_t seed = 7) {
  Buffer b(n);
  std::mt19937 rng(seed);
  for (size_t i = 0; i < n; ++i) b.data()[i] = static_cast<std::byte>(rng());
  return b;
}

}  // namespace turbozarr::testing
