// What the array layer's read and write tests share: codec JSON, int32 array
// metadata with a fill value of -1, and deterministic element patterns.
//
// Thread safety: constants and pure functions.
#pragma once

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "turbozarr/metadata.h"

namespace turbozarr::fixtures {

using nlohmann::json;

inline const json kLittle = {{"name", "bytes"},
                             {"configuration", {{"endian", "little"}}}};
inline const json kBig = {{"name", "bytes"}, {"configuration", {{"endian", "big"}}}};
inline const json kCrc = {{"name", "crc32c"}};
inline const json kZstd = {{"name", "zstd"},
                           {"configuration", {{"level", 1}, {"checksum", false}}}};
inline const json kGzip = {{"name", "gzip"}, {"configuration", {{"level", 1}}}};
inline const json kBlosc = {{"name", "blosc"},
                            {"configuration",
                             {{"cname", "lz4"},
                              {"clevel", 5},
                              {"shuffle", "shuffle"},
                              {"typesize", 4},
                              {"blocksize", 0}}}};
inline const json kTranspose = {{"name", "transpose"},
                                {"configuration", {{"order", {1, 0}}}}};

inline constexpr int32_t kFill = -1;

// A sharding_indexed codec list with `codecs` inside shards of `inner` chunks.
inline json Sharded(std::vector<int64_t> inner, json codecs, const std::string& location,
                    json index_codecs = json::array({kLittle, kCrc})) {
  return json::array({{{"name", "sharding_indexed"},
                       {"configuration",
                        {{"chunk_shape", inner},
                         {"codecs", codecs},
                         {"index_codecs", index_codecs},
                         {"index_location", location}}}}});
}

// v3 int32 metadata with fill value kFill.
inline ArrayMetadata Int32Metadata(std::vector<int64_t> shape,
                                   std::vector<int64_t> chunks, json codecs) {
  ArrayMetadata m;
  m.zarr_format = 3;
  m.shape = std::move(shape);
  m.chunk_shape = std::move(chunks);
  m.dtype = DataType(DataTypeId::kInt32);
  m.fill_value = DefaultFillValue(m.dtype);
  std::memcpy(m.fill_value.bytes.data(), &kFill, 4);
  m.codecs = std::move(codecs);
  return m;
}

inline int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

// Values that differ element to element and in every byte.
inline std::vector<int32_t> Pattern(int64_t n, int32_t seed = 1) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    v[i] = static_cast<int32_t>((i + seed) * 0x01030507 + seed);
  }
  return v;
}

// `model` (row-major, `cols` wide) with the region [r0, r1) x [c0, c1)
// replaced by `values` (row-major over the region): what a 2-D region write
// of `values` makes of it.
inline std::vector<int32_t> Overwritten(std::vector<int32_t> model, int64_t cols, int64_t r0,
                                        int64_t r1, int64_t c0, int64_t c1,
                                        const std::vector<int32_t>& values) {
  for (int64_t r = r0; r < r1; ++r) {
    for (int64_t c = c0; c < c1; ++c) {
      model[static_cast<size_t>(r * cols + c)] =
          values[static_cast<size_t>((r - r0) * (c1 - c0) + c - c0)];
    }
  }
  return model;
}

}  // namespace turbozarr::fixtures
