#include <gtest/gtest.h>

#include "testing/codec_fixtures.h"
#include "turbozarr/codec.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::MakeSpec;

const ArraySpec kSpec = MakeSpec({8}, DataType(DataTypeId::kInt32));

TEST(CodecRegistryTest, UnknownCodecsAreUnsupported) {
  for (const json& j :
       {json({{"name", "lzma"}}),
        json({{"name", "numcodecs.pcodec"}, {"configuration", json::object()}}),
        json({{"name", "lzma"}, {"must_understand", false}})}) {
    auto r = MakeCodec(j, kSpec);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
    EXPECT_NE(r.status().message().find(j["name"].get<std::string>()), std::string::npos);
  }
  auto v2 = MakeV2Codec({{"id", "pcodec"}, {"level", 8}}, kSpec);
  ASSERT_FALSE(v2.ok());
  EXPECT_EQ(v2.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(v2.status().message().find("\"pcodec\""), std::string::npos);
  // vlen filters are v2 ids only.
  EXPECT_EQ(MakeCodec({{"name", "numcodecs.vlen-utf8"}}, kSpec).status().code(),
            StatusCode::kUnsupported);
}

TEST(CodecRegistryTest, MalformedCodecJsonIsInvalidArgument) {
  for (const json& j :
       {json(3), json({{"configuration", json::object()}}), json({{"name", 5}}),
        json({{"name", "zstd"}, {"configurations", 1}}),
        json({{"name", "zstd"}, {"configuration", 1}})}) {
    auto r = MakeCodec(j, kSpec);
    ASSERT_FALSE(r.ok()) << j.dump();
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << j.dump();
  }
  EXPECT_EQ(MakeV2Codec({{"name", "zstd"}}, kSpec).status().code(),
            StatusCode::kInvalidArgument);
  auto unknown_field = MakeV2Codec({{"id", "zstd"}, {"level", 1}, {"levle", 2}}, kSpec);
  ASSERT_FALSE(unknown_field.ok());
  EXPECT_EQ(unknown_field.status().message(),
            "codec zstd: field \"levle\": unknown field (value 2)");
}

TEST(CodecRegistryTest, IntegerFields) {
  auto whole = MakeV2Codec({{"id", "zstd"}, {"level", 5.0}}, kSpec);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ((*ToV2Json(**whole))["level"], 5);
  for (const json& bad :
       {json(5.5), json(1e300), json(18446744073709551615ull), json(true), json("5")}) {
    auto r = MakeV2Codec({{"id", "zstd"}, {"level", bad}}, kSpec);
    ASSERT_FALSE(r.ok()) << bad.dump();
    EXPECT_NE(r.status().message().find("codec zstd: field \"level\""),
              std::string::npos);
  }
}

TEST(CodecRegistryTest, ShortNamesAndMustUnderstand) {
  auto s = MakeCodec(json("crc32c"), kSpec);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->name(), "crc32c");
  auto m = MakeCodec({{"name", "crc32c"}, {"must_understand", true}}, kSpec);
  ASSERT_TRUE(m.ok());
}

TEST(CodecRegistryTest, V2JsonRoundTrips) {
  ArraySpec str = MakeSpec({8}, DataType(DataTypeId::kString));
  struct Case {
    json in;
    json out;  // with numcodecs' defaults filled in
    const ArraySpec* spec;
  };
  for (const Case& c : {
           Case{{{"id", "zstd"}, {"level", 3}, {"checksum", true}},
                {{"id", "zstd"}, {"level", 3}, {"checksum", true}},
                &kSpec},
           // "checksum": false left out, as zarr-python writes a v2 zstd.
           Case{{{"id", "zstd"}}, {{"id", "zstd"}, {"level", 0}}, &kSpec},
           Case{{{"id", "blosc"}},
                {{"id", "blosc"},
                 {"cname", "zstd"},
                 {"clevel", 5},
                 {"shuffle", 1},
                 {"blocksize", 0}},
                &kSpec},
           Case{{{"id", "lz4"}}, {{"id", "lz4"}, {"acceleration", 1}}, &kSpec},
           Case{{{"id", "gzip"}, {"level", 9}}, {{"id", "gzip"}, {"level", 9}}, &kSpec},
           Case{{{"id", "zlib"}}, {{"id", "zlib"}, {"level", 1}}, &kSpec},
           Case{{{"id", "bz2"}, {"level", 9}}, {{"id", "bz2"}, {"level", 9}}, &kSpec},
           Case{{{"id", "crc32c"}}, {{"id", "crc32c"}, {"location", "end"}}, &kSpec},
           Case{{{"id", "vlen-utf8"}}, {{"id", "vlen-utf8"}}, &str},
           Case{{{"id", "vlen-bytes"}}, {{"id", "vlen-bytes"}}, &str},
       }) {
    auto codec = MakeV2Codec(c.in, *c.spec);
    ASSERT_TRUE(codec.ok()) << c.in.dump() << ": " << codec.status().ToString();
    auto out = ToV2Json(**codec);
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(*out, c.out);
    auto again = MakeV2Codec(*out, *c.spec);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*ToV2Json(**again), c.out);
  }
}

TEST(CodecRegistryTest, NumcodecsNamesInV3MatchZarrPython) {
  // The configurations zarr-python 3.1.6 writes for zarr.codecs.numcodecs.*.
  for (const char* name :
       {"numcodecs.lz4", "numcodecs.zlib", "numcodecs.bz2", "numcodecs.zstd",
        "numcodecs.gzip", "numcodecs.crc32c", "numcodecs.blosc"}) {
    json j = {{"name", name}, {"configuration", json::object()}};
    auto c = MakeCodec(j, kSpec);
    ASSERT_TRUE(c.ok()) << name << ": " << c.status().ToString();
    EXPECT_EQ((*c)->name(), name);
    EXPECT_EQ((*c)->ToJson()["name"], name);
    EXPECT_EQ((*c)->kind(), CodecKind::kBytesToBytes);
    auto v2 = ToV2Json(**c);
    ASSERT_TRUE(v2.ok());
    EXPECT_EQ(std::string("numcodecs.") + (*v2)["id"].get<std::string>(), name);
  }
}

TEST(CodecRegistryTest, CodecsWithoutV2FormAreUnsupported) {
  auto bytes =
      MakeCodec({{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}, kSpec);
  ASSERT_TRUE(bytes.ok());
  auto r = ToV2Json(**bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  auto t = MakeCodec({{"name", "transpose"}, {"configuration", {{"order", {0}}}}}, kSpec);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(ToV2Json(**t).status().code(), StatusCode::kUnsupported);
  // The v3 crc32c and zstd codecs have numcodecs equivalents.
  EXPECT_EQ(*ToV2Json(**MakeCodec(json("crc32c"), kSpec)),
            json({{"id", "crc32c"}, {"location", "end"}}));
}

}  // namespace
}  // namespace turbozarr
