// The DEFLATE-based codecs: gzip (v3 and numcodecs) and numcodecs' zlib.
#include <gtest/gtest.h>

#include "codec/gzip_codec.h"
#include "codec/zlib_codec.h"
#include "testing/codec_fixtures.h"
#include "testing/compressor_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::Arange32;
using testing::FromHex;

const std::optional<size_t> kSizes[] = {std::optional<size_t>(256), std::nullopt};

TEST(GzipCodecTest, DecodesNumcodecsFixtures) {
  GzipCodec codec(5);
  for (auto expected : kSizes) {
    auto one = codec.Decode(FromHex(testing::kGzipL1), expected);
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    EXPECT_TRUE(*one == Arange32(64));
    auto two = codec.Decode(FromHex(testing::kGzipTwoMembers), expected);
    ASSERT_TRUE(two.ok()) << two.status().ToString();
    EXPECT_TRUE(*two == Arange32(64));
  }
  auto nc = codec.Decode(FromHex(testing::kNumcodecsV3Gzip), 64);
  ASSERT_TRUE(nc.ok());
  EXPECT_TRUE(*nc == Arange32(16));
}

TEST(GzipCodecTest, ZeroPaddingIsIgnoredButGarbageIsNot) {
  GzipCodec codec(5);
  Buffer padded = FromHex(testing::kGzipL1);
  padded.Append(FromHex("00000000"));
  for (auto expected : kSizes) {
    auto r = codec.Decode(padded, expected);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(*r == Arange32(64));
  }
  Buffer trailing = FromHex(testing::kGzipL1);
  trailing.Append(FromHex("41424344"));
  for (auto expected : kSizes) {
    auto r = codec.Decode(trailing, expected);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  }
}

TEST(GzipCodecTest, WritesGzipMembers) {
  GzipCodec codec(1);
  auto enc = codec.Encode(Arange32(64));
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(testing::ToHex(enc->view().first(3)), "1f8b08");
  // ISIZE, the member's last four bytes, is the decoded size.
  EXPECT_EQ(testing::ToHex(enc->view().last(4)), "00010000");
}

TEST(GzipCodecTest, CorruptedCrcIsCorruption) {
  GzipCodec codec(1);
  Buffer bad = FromHex(testing::kGzipL1);
  bad.data()[bad.size() - 8] ^= std::byte{1};  // CRC32 of the member
  for (auto expected : kSizes) {
    auto r = codec.Decode(bad, expected);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  }
}

TEST(GzipCodecTest, Configuration) {
  ArraySpec spec = testing::MakeSpec({4}, DataType(DataTypeId::kUInt8));
  auto c = MakeCodec({{"name", "gzip"}, {"configuration", {{"level", 6}}}}, spec);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->ToJson(), json({{"name", "gzip"}, {"configuration", {{"level", 6}}}}));
  EXPECT_EQ(*ToV2Json(**c), json({{"id", "gzip"}, {"level", 6}}));
  auto bad = MakeCodec({{"name", "gzip"}, {"configuration", {{"level", 10}}}}, spec);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("codec gzip: field \"level\""),
            std::string::npos);
  auto v2 = MakeV2Codec({{"id", "gzip"}}, spec);  // numcodecs' default level
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(*ToV2Json(**v2), json({{"id", "gzip"}, {"level", 1}}));
}

TEST(ZlibCodecTest, DecodesNumcodecsFixtures) {
  ZlibCodec codec(1);
  for (auto expected : kSizes) {
    auto d = codec.Decode(FromHex(testing::kZlibL1), expected);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_TRUE(*d == Arange32(64));
  }
  auto nc = codec.Decode(FromHex(testing::kNumcodecsV3Zlib), std::nullopt);
  ASSERT_TRUE(nc.ok());
  EXPECT_TRUE(*nc == Arange32(16));
  // Like Python's zlib.decompress, bytes after the stream are ignored.
  Buffer trailing = FromHex(testing::kZlibL1);
  trailing.Append(FromHex("0102"));
  for (auto expected : kSizes) {
    auto d = codec.Decode(trailing, expected);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_TRUE(*d == Arange32(64));
  }
}

TEST(ZlibCodecTest, Adler32MismatchIsCorruption) {
  ZlibCodec codec(1);
  Buffer bad = FromHex(testing::kZlibL1);
  bad.data()[bad.size() - 1] ^= std::byte{0x10};
  for (auto expected : kSizes) {
    EXPECT_EQ(codec.Decode(bad, expected).status().code(), StatusCode::kCorruption);
  }
}

TEST(ZlibCodecTest, Configuration) {
  ArraySpec spec = testing::MakeSpec({4}, DataType(DataTypeId::kUInt8));
  auto c = MakeV2Codec({{"id", "zlib"}, {"level", 9}}, spec);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->ToJson(),
            json({{"name", "numcodecs.zlib"}, {"configuration", {{"level", 9}}}}));
  auto enc = std::dynamic_pointer_cast<const BytesToBytesCodec>(*c)->Encode(Arange32(64));
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(static_cast<int>(enc->data()[0]), 0x78);  // zlib header, 32 KiB window
  auto bad = MakeV2Codec({{"id", "zlib"}, {"level", 11}}, spec);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("codec zlib: field \"level\""),
            std::string::npos);
}

}  // namespace
}  // namespace turbozarr
