#include "cli/copy_plan.h"

#include <gtest/gtest.h>

#include "turbozarr/checksum.h"

namespace turbozarr::cli {
namespace {

using json = nlohmann::json;

ArrayMetadata V2Float64(json compressor) {
  json zarray = {
      {"zarr_format", 2},   {"shape", {100, 60}},       {"chunks", {10, 20}},
      {"dtype", "<f8"},     {"fill_value", 0.5},        {"order", "C"},
      {"filters", nullptr}, {"compressor", compressor}, {"dimension_separator", "."}};
  Result<ArrayMetadata> m = ParseV2ArrayMetadata(zarray, {{"units", "m"}}, "test");
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? *m : ArrayMetadata{};
}

ArrayMetadata V3ShardedInt16() {
  json inner = json::array({{{"name", "bytes"}, {"configuration", {{"endian", "big"}}}},
                            {{"name", "gzip"}, {"configuration", {{"level", 1}}}}});
  json doc = {
      {"zarr_format", 3},
      {"node_type", "array"},
      {"shape", {40, 40}},
      {"data_type", "int16"},
      {"chunk_grid",
       {{"name", "regular"}, {"configuration", {{"chunk_shape", {20, 40}}}}}},
      {"chunk_key_encoding",
       {{"name", "default"}, {"configuration", {{"separator", "/"}}}}},
      {"fill_value", -1},
      {"codecs",
       {{{"name", "sharding_indexed"},
         {"configuration",
          {{"chunk_shape", {10, 10}},
           {"codecs", inner},
           {"index_codecs",
            {{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}},
             {{"name", "crc32c"}}}},
           {"index_location", "start"}}}}}},
      {"attributes", {{"a", 1}}},
      {"dimension_names", {"y", nullptr}},
  };
  Result<ArrayMetadata> m = ParseV3ArrayMetadata(doc, "test");
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? *m : ArrayMetadata{};
}

TEST(CompressorJsonTest, V3Spellings) {
  DataType f8(DataTypeId::kFloat64);
  EXPECT_EQ(
      *CompressorJson("zstd:7", f8, 3),
      json::parse(R"({"name":"zstd","configuration":{"level":7,"checksum":false}})"));
  EXPECT_EQ(*CompressorJson("gzip", f8, 3),
            json::parse(R"({"name":"gzip","configuration":{"level":5}})"));
  EXPECT_EQ(*CompressorJson("blosc:zstd:3", f8, 3),
            json::parse(R"({"name":"blosc","configuration":{"cname":"zstd","clevel":3,
                "shuffle":"shuffle","typesize":8,"blocksize":0}})"));
  EXPECT_EQ((*CompressorJson("blosc", DataType(DataTypeId::kUInt8),
                             3))["configuration"]["shuffle"],
            "bitshuffle");
  EXPECT_EQ(
      *CompressorJson("lz4", f8, 3),
      json::parse(R"({"name":"numcodecs.lz4","configuration":{"acceleration":1}})"));
  EXPECT_EQ(*CompressorJson("crc32c", f8, 3), json::parse(R"({"name":"crc32c"})"));
  EXPECT_TRUE(CompressorJson("none", f8, 3)->is_null());
}

TEST(CompressorJsonTest, V2Spellings) {
  DataType f8(DataTypeId::kFloat64);
  EXPECT_EQ(*CompressorJson("zstd", f8, 2),
            json::parse(R"({"id":"zstd","level":3})"));
  EXPECT_EQ(*CompressorJson("blosc:lz4:5:noshuffle", f8, 2),
            json::parse(R"({"id":"blosc","cname":"lz4","clevel":5,"shuffle":0,
                "blocksize":0})"));
  EXPECT_EQ(*CompressorJson("bz2:4", f8, 2), json::parse(R"({"id":"bz2","level":4})"));
  EXPECT_EQ(*CompressorJson("lzma:9", f8, 2),
            json::parse(R"({"id":"lzma","format":1,"check":-1,"preset":9,"filters":null})"));
  EXPECT_EQ(*CompressorJson("zlib", f8, 2), json::parse(R"({"id":"zlib","level":6})"));
}

TEST(CompressorJsonTest, RejectsBadSpecs) {
  DataType f8(DataTypeId::kFloat64);
  EXPECT_EQ(
      CompressorJson("snappy", f8, 3).status().message(),
      "unknown codec 'snappy': expected zstd, gzip, blosc, lz4, zlib, bz2, lzma, crc32c "
      "or none");
  EXPECT_EQ(CompressorJson("zstd:x", f8, 3).status().message(),
            "invalid codec 'zstd:x': 'x' is not an integer");
  EXPECT_FALSE(CompressorJson("zstd:1:2", f8, 3).ok());
  EXPECT_FALSE(CompressorJson("blosc:lz4:5:sideways", f8, 3).ok());
}

TEST(ParseByteSizeTest, Suffixes) {
  EXPECT_EQ(*ParseByteSize("4096"), 4096u);
  EXPECT_EQ(*ParseByteSize("512M"), 512u << 20);
  EXPECT_EQ(*ParseByteSize("2G"), uint64_t{2} << 30);
  EXPECT_EQ(*ParseByteSize("64KiB"), 64u << 10);
  EXPECT_FALSE(ParseByteSize("0").ok());
  EXPECT_FALSE(ParseByteSize("12Q").ok());
  EXPECT_FALSE(ParseByteSize("M").ok());
}


TEST(PlanCopyMetadataTest, V2ToV3RechunkReshardRecompress) {
  CopyLayout layout;
  layout.zarr_format = 3;
  layout.chunks = std::vector<int64_t>{5, 30};
  layout.shards = std::vector<int64_t>{50, 60};
  layout.compressors = {"zstd:5"};
  Result<ArrayMetadata> m =
      PlanCopyMetadata(V2Float64({{"id", "zlib"}, {"level", 1}}), layout, "src");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->zarr_format, 3);
  EXPECT_EQ(m->shape, (std::vector<int64_t>{100, 60}));
  EXPECT_EQ(m->chunk_shape, (std::vector<int64_t>{50, 60}));
  EXPECT_EQ(m->InnerChunkShape(), (std::vector<int64_t>{5, 30}));
  EXPECT_EQ(m->attributes, json({{"units", "m"}}));
  EXPECT_EQ(FillValueToJson(m->fill_value, m->dtype, 3), json(0.5));
  const json& inner = m->codecs[0]["configuration"]["codecs"];
  ASSERT_EQ(inner.size(), 3u);
  EXPECT_EQ(inner[0]["name"], "bytes");
  EXPECT_EQ(inner[1], json::parse(R"({"name":"zstd","configuration":{"level":5,
                                      "checksum":false}})"));
  EXPECT_EQ(inner[2], json({{"name", "crc32c"}}));  // a converted copy is checked
}

TEST(PlanCopyMetadataTest, ConvertedCopiesGetAChecksumUnlessTold) {
  const json zstd = {{"id", "zstd"}, {"level", 1}};
  CopyLayout same;  // a copy as it is: the source's codecs, nothing added
  Result<ArrayMetadata> m = PlanCopyMetadata(V2Float64(zstd), same, "src");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->v2_compressor, zstd);
  EXPECT_FALSE(HasChecksum(*m));

  CopyLayout rechunk;
  rechunk.chunks = std::vector<int64_t>{20, 20};
  m = PlanCopyMetadata(V2Float64(zstd), rechunk, "src");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->v2_compressor, json({{"id", "zstd"}, {"level", 1}, {"checksum", true}}));

  rechunk.checksum = false;
  m = PlanCopyMetadata(V2Float64(zstd), rechunk, "src");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->v2_compressor, zstd);

  CopyLayout blosc;
  blosc.compressors = {"blosc:lz4:5:shuffle"};
  m = PlanCopyMetadata(V2Float64(zstd), blosc, "src");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->v2_compressor["id"], "blosc");
  EXPECT_EQ(m->v2_filters, json::array({{{"id", "crc32c"}, {"location", "end"}}}));

  CopyLayout whole_chain;  // --codecs: the user's chain exactly
  whole_chain.zarr_format = 3;
  whole_chain.codecs = json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}});
  m = PlanCopyMetadata(V2Float64(zstd), whole_chain, "src");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->codecs.size(), 1u);
  whole_chain.checksum = true;
  m = PlanCopyMetadata(V2Float64(zstd), whole_chain, "src");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->codecs.back(), json({{"name", "crc32c"}}));

  CopyLayout as_is;
  as_is.checksum = true;  // --checksum on a plain copy
  m = PlanCopyMetadata(V3ShardedInt16(), as_is, "src");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->codecs[0]["configuration"]["codecs"].size(), 2u);  // gzip: checked already
}

TEST(PlanCopyMetadataTest, V2ToV3KeepsTheCompressor) {
  CopyLayout layout;
  layout.zarr_format = 3;
  Result<ArrayMetadata> m =
      PlanCopyMetadata(V2Float64({{"id", "gzip"}, {"level", 2}}), layout, "src");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->chunk_shape, (std::vector<int64_t>{10, 20}));
  EXPECT_FALSE(m->InnerChunkShape().has_value());
  ASSERT_EQ(m->codecs.size(), 2u);
  EXPECT_EQ(m->codecs[1]["name"], "gzip");
  EXPECT_EQ(m->codecs[1]["configuration"]["level"], 2);
}

TEST(PlanCopyMetadataTest, V3ShardedToV2UsesInnerChunksAndByteOrder) {
  CopyLayout layout;
  layout.zarr_format = 2;
  Result<ArrayMetadata> m = PlanCopyMetadata(V3ShardedInt16(), layout, "src");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->zarr_format, 2);
  EXPECT_EQ(m->chunk_shape, (std::vector<int64_t>{10, 10}));
  EXPECT_EQ(m->v2_byte_order, '>');
  EXPECT_EQ(m->v2_compressor, json::parse(R"({"id":"gzip","level":1})"));
  EXPECT_EQ(m->attributes, json({{"a", 1}}));
  EXPECT_EQ(FillValueToJson(m->fill_value, m->dtype, 2), json(-1));
}

TEST(PlanCopyMetadataTest, V3KeepsShardingAndIndexLayout) {
  CopyLayout layout;
  layout.chunks = std::vector<int64_t>{5, 20};
  Result<ArrayMetadata> m = PlanCopyMetadata(V3ShardedInt16(), layout, "src");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->chunk_shape, (std::vector<int64_t>{20, 40}));
  EXPECT_EQ(m->InnerChunkShape(), (std::vector<int64_t>{5, 20}));
  EXPECT_EQ(m->codecs[0]["configuration"]["index_location"], "start");
  ASSERT_TRUE(m->dimension_names.has_value());
  EXPECT_EQ((*m->dimension_names)[0], "y");
  EXPECT_FALSE((*m->dimension_names)[1].has_value());

  layout.no_shards = true;
  m = PlanCopyMetadata(V3ShardedInt16(), layout, "src");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->chunk_shape, (std::vector<int64_t>{5, 20}));
  EXPECT_FALSE(m->InnerChunkShape().has_value());
}

TEST(PlanCopyMetadataTest, RejectsContradictions) {
  CopyLayout layout;
  layout.chunks = std::vector<int64_t>{7, 20};
  EXPECT_EQ(PlanCopyMetadata(V3ShardedInt16(), layout, "src").status().message(),
            "src: the source's shard shape [20,40] is not a multiple of the chunk shape "
            "[7,20]; choose one with --shards (or --shards none)");
  layout.chunks = std::vector<int64_t>{10};
  EXPECT_EQ(PlanCopyMetadata(V3ShardedInt16(), layout, "src").status().message(),
            "src: chunk shape [10] has 1 dimensions, the array has 2");
  layout = CopyLayout{};
  layout.zarr_format = 2;
  layout.shards = std::vector<int64_t>{20, 40};
  EXPECT_EQ(PlanCopyMetadata(V3ShardedInt16(), layout, "src").status().code(),
            StatusCode::kInvalidArgument);
  layout = CopyLayout{};
  layout.shards = std::vector<int64_t>{15, 40};
  EXPECT_EQ(PlanCopyMetadata(V3ShardedInt16(), layout, "src").status().message(),
            "src: shard shape [15,40] is not a multiple of the chunk shape [10,10]");
  layout = CopyLayout{};
  layout.zarr_format = 2;
  layout.compressors = {"zstd", "crc32c"};
  EXPECT_FALSE(PlanCopyMetadata(V3ShardedInt16(), layout, "src").ok());
}

}  // namespace
}  // namespace turbozarr::cli
