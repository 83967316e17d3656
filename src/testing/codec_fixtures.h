// Small helpers shared by codec tests: hex literals to bytes, chunk specs,
// and deterministic chunk contents.
//
// Thread safety: pure functions.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
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

// A 1-d chunk of `dtype` whose elements are the bytes of `hex`.
inline ChunkArray ChunkFromHex(std::string_view hex, DataType dtype) {
  ChunkArray c;
  c.dtype = dtype;
  c.bytes = FromHex(hex);
  c.shape = {static_cast<int64_t>(c.bytes.size() / dtype.size())};
  return c;
}

// The array->array codec a v3 ({"name": ...}) or numcodecs ({"id": ...})
// JSON names, for chunks of `spec`; null (with a test failure) otherwise.
inline std::shared_ptr<const ArrayToArrayCodec> MakeFilter(const nlohmann::json& j,
                                                           const ArraySpec& spec) {
  auto c = j.contains("id") ? MakeV2Codec(j, spec) : MakeCodec(j, spec);
  if (!c.ok()) {
    ADD_FAILURE() << c.status().ToString();
    return nullptr;
  }
  auto filter = std::dynamic_pointer_cast<const ArrayToArrayCodec>(*c);
  if (!filter) ADD_FAILURE() << j.dump() << " is not array->array";
  return filter;
}

// Encodes the 1-d chunk of `dtype` in `in_hex` with the filter `j` and
// expects `out_hex`, then decodes that and expects `dec_hex` (by default the
// input, for a lossless filter).
inline void ExpectFilterBytes(const nlohmann::json& j, DataType dtype,
                              std::string_view in_hex, std::string_view out_hex,
                              std::string_view dec_hex = {}) {
  SCOPED_TRACE(j.dump());
  ChunkArray in = ChunkFromHex(in_hex, dtype);
  const ArraySpec spec = MakeSpec(in.shape, dtype);
  auto filter = MakeFilter(j, spec);
  if (!filter) return;
  auto enc = filter->Encode(in);
  ASSERT_TRUE(enc.ok()) << enc.status().ToString();
  EXPECT_EQ(ToHex(enc->bytes), out_hex);
  auto encoded_spec = filter->EncodedSpec(spec);
  ASSERT_TRUE(encoded_spec.ok()) << encoded_spec.status().ToString();
  EXPECT_EQ(enc->shape, encoded_spec->shape);
  EXPECT_TRUE(enc->dtype == encoded_spec->dtype);
  auto dec = filter->Decode(*enc, spec);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_EQ(ToHex(dec->bytes), dec_hex.empty() ? in_hex : dec_hex);
  EXPECT_EQ(dec->shape, spec.shape);
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
