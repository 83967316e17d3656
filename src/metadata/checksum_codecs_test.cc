#include <gtest/gtest.h>

#include "turbozarr/checksum.h"

namespace turbozarr {
namespace {

using nlohmann::json;

ArrayMetadata V3(json codecs) {
  ArrayMetadata m;
  m.zarr_format = 3;
  m.shape = {100};
  m.chunk_shape = {10};
  m.dtype = DataType(DataTypeId::kInt32);
  m.codecs = std::move(codecs);
  return m;
}

ArrayMetadata V2(json compressor, json filters = nullptr) {
  ArrayMetadata m = V3(json::array());
  m.zarr_format = 2;
  m.v2_compressor = std::move(compressor);
  m.v2_filters = std::move(filters);
  return m;
}

const json kBytes = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
const json kZstd = {{"name", "zstd"}, {"configuration", {{"level", 0}, {"checksum", false}}}};

TEST(ChecksumCodecsTest, ZarrPythonsDefaultsCarryNone) {
  EXPECT_FALSE(HasChecksum(V3(json::array({kBytes, kZstd}))));
  EXPECT_FALSE(HasChecksum(V3(json::array({kBytes}))));
  EXPECT_FALSE(HasChecksum(V2({{"id", "zstd"}, {"level", 0}})));
  EXPECT_FALSE(HasChecksum(V2(nullptr)));
  EXPECT_FALSE(HasChecksum(V2({{"id", "blosc"}, {"cname", "lz4"}})));
}

TEST(ChecksumCodecsTest, ChecksumsAndCheckedFormatsAreSeen) {
  EXPECT_TRUE(HasChecksum(V3(json::array({kBytes, kZstd, {{"name", "crc32c"}}}))));
  EXPECT_TRUE(HasChecksum(V3(json::array({kBytes, "crc32c"}))));
  EXPECT_TRUE(HasChecksum(V3(json::array(
      {kBytes, {{"name", "zstd"}, {"configuration", {{"level", 3}, {"checksum", true}}}}}))));
  EXPECT_TRUE(HasChecksum(V3(json::array({kBytes, {{"name", "gzip"}}}))));
  EXPECT_TRUE(HasChecksum(V3(json::array({kBytes, {{"name", "numcodecs.adler32"}}}))));
  EXPECT_FALSE(HasChecksum(V3(json::array({kBytes, {{"name", "blosc"}}}))));
  EXPECT_TRUE(HasChecksum(V2({{"id", "zstd"}, {"level", 0}, {"checksum", true}})));
  EXPECT_TRUE(HasChecksum(V2({{"id", "zlib"}, {"level", 1}})));
  EXPECT_TRUE(HasChecksum(V2(nullptr, json::array({{{"id", "crc32"}}}))));
}

TEST(ChecksumCodecsTest, ShardedArraysAreJudgedByTheirInnerChunks) {
  json index = json::array({kBytes, {{"name", "crc32c"}}});
  json sharded = {{"name", "sharding_indexed"},
                  {"configuration",
                   {{"chunk_shape", {5}},
                    {"codecs", json::array({kBytes, kZstd})},
                    {"index_codecs", index}}}};
  ArrayMetadata m = V3(json::array({sharded}));
  // The index's crc32c covers the index only.
  EXPECT_FALSE(HasChecksum(m));
  AddChecksum(m);
  EXPECT_TRUE(HasChecksum(m));
  const json& config = m.codecs[0]["configuration"];
  EXPECT_EQ(config["codecs"], json::array({kBytes, kZstd, {{"name", "crc32c"}}}));
  EXPECT_EQ(config["index_codecs"], index);
  EXPECT_EQ(m.codecs.size(), 1u);
}

TEST(ChecksumCodecsTest, AddsCrc32cLastInAV3Chain) {
  ArrayMetadata m = V3(json::array({kBytes, kZstd}));
  AddChecksum(m);
  EXPECT_EQ(m.codecs, json::array({kBytes, kZstd, {{"name", "crc32c"}}}));
  AddChecksum(m);  // once only
  EXPECT_EQ(m.codecs.size(), 3u);
  ArrayMetadata plain = V3(json::array({kBytes}));
  AddChecksum(plain);
  EXPECT_EQ(plain.codecs, json::array({kBytes, {{"name", "crc32c"}}}));
  // A chain that builds, as every reader builds it.
  EXPECT_TRUE(m.MakeCodecChain().ok());
}

TEST(ChecksumCodecsTest, V2TurnsZstdsChecksumOnOrAddsACrc32cFilter) {
  ArrayMetadata zstd = V2({{"id", "zstd"}, {"level", 0}});
  AddChecksum(zstd);
  EXPECT_EQ(zstd.v2_compressor, json({{"id", "zstd"}, {"level", 0}, {"checksum", true}}));
  EXPECT_TRUE(zstd.v2_filters.is_null());

  ArrayMetadata blosc = V2({{"id", "blosc"}, {"cname", "lz4"}, {"clevel", 5},
                            {"shuffle", 1}, {"blocksize", 0}},
                           json::array({{{"id", "delta"}, {"dtype", "<i4"}}}));
  AddChecksum(blosc);
  EXPECT_EQ(blosc.v2_filters, json::array({{{"id", "delta"}, {"dtype", "<i4"}},
                                           {{"id", "crc32c"}, {"location", "end"}}}));
  EXPECT_TRUE(HasChecksum(blosc));
  EXPECT_TRUE(blosc.MakeCodecChain().ok()) << blosc.MakeCodecChain().status().ToString();

  ArrayMetadata raw = V2(nullptr);
  AddChecksum(raw);
  EXPECT_EQ(raw.v2_filters, json::array({{{"id", "crc32c"}, {"location", "end"}}}));
  EXPECT_TRUE(raw.MakeCodecChain().ok());
}

}  // namespace
}  // namespace turbozarr
