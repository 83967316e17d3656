// numcodecs' LZ4 and BZ2 codecs.
#include <gtest/gtest.h>

#include "codec/bz2_codec.h"
#include "codec/lz4_codec.h"
#include "testing/codec_fixtures.h"
#include "testing/compressor_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::Arange32;
using testing::FromHex;

const std::optional<size_t> kSizes[] = {std::optional<size_t>(256), std::nullopt};

TEST(Lz4CodecTest, DecodesNumcodecsFixtures) {
  Lz4Codec codec(1);
  for (auto expected : kSizes) {
    auto d = codec.Decode(FromHex(testing::kLz4), expected);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_TRUE(*d == Arange32(64));
  }
  auto nc = codec.Decode(FromHex(testing::kNumcodecsV3Lz4), 64);
  ASSERT_TRUE(nc.ok());
  EXPECT_TRUE(*nc == Arange32(16));
}

TEST(Lz4CodecTest, WritesNumcodecsFraming) {
  Lz4Codec codec(1);
  auto enc = codec.Encode(Arange32(64));
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(testing::ToHex(enc->view().first(4)), "00010000");  // 256, little-endian
  EXPECT_EQ(testing::ToHex(*enc), testing::ToHex(FromHex(testing::kLz4)));
}

TEST(Lz4CodecTest, SizeHeaderIsChecked) {
  Lz4Codec codec(1);
  Buffer good = FromHex(testing::kLz4);
  auto r = codec.Decode(good, 255);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("header says 256 decoded bytes, expected 255"),
            std::string::npos);
  // A header claiming more than LZ4 can expand to is refused unallocated.
  Buffer huge = good;
  huge.data()[3] = std::byte{0x70};
  auto h = codec.Decode(huge, std::nullopt);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().code(), StatusCode::kCorruption);
  // A header claiming more than the block holds.
  Buffer more = good;
  more.data()[0] = std::byte{1};
  EXPECT_EQ(codec.Decode(more, std::nullopt).status().code(), StatusCode::kCorruption);
}

TEST(Lz4CodecTest, Configuration) {
  ArraySpec spec = testing::MakeSpec({4}, DataType(DataTypeId::kUInt8));
  auto v3 =
      MakeCodec({{"name", "numcodecs.lz4"}, {"configuration", json::object()}}, spec);
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  EXPECT_EQ((*v3)->ToJson(),
            json({{"name", "numcodecs.lz4"}, {"configuration", {{"acceleration", 1}}}}));
  EXPECT_EQ(*ToV2Json(**v3), json({{"id", "lz4"}, {"acceleration", 1}}));
  auto bad = MakeV2Codec({{"id", "lz4"}, {"acceleration", "fast"}}, spec);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("codec lz4: field \"acceleration\""),
            std::string::npos);
}

TEST(Bz2CodecTest, DecodesNumcodecsFixtures) {
  Bz2Codec codec(1);
  for (auto expected : kSizes) {
    auto d = codec.Decode(FromHex(testing::kBz2L1), expected);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_TRUE(*d == Arange32(64));
  }
  auto nc = codec.Decode(FromHex(testing::kNumcodecsV3Bz2), 64);
  ASSERT_TRUE(nc.ok());
  EXPECT_TRUE(*nc == Arange32(16));
}

TEST(Bz2CodecTest, WritesWhatPythonWrites) {
  // Same library, same level, same work factor: byte-identical output.
  Bz2Codec codec(1);
  auto enc = codec.Encode(Arange32(64));
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(testing::ToHex(*enc), testing::ToHex(FromHex(testing::kBz2L1)));
}

TEST(Bz2CodecTest, ConcatenatedStreamsAndTrailingBytes) {
  Bz2Codec codec(1);
  Buffer two = FromHex(testing::kBz2L1);
  two.Append(FromHex(testing::kBz2L1));
  Buffer twice = Arange32(64);
  twice.Append(Arange32(64));
  for (auto expected : {std::optional<size_t>(512), std::optional<size_t>()}) {
    auto d = codec.Decode(two, expected);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_TRUE(*d == twice);
  }
  // As in Python's bz2.decompress, junk after a complete stream is ignored.
  Buffer junk = FromHex(testing::kBz2L1);
  junk.Append(FromHex("deadbeef"));
  auto d = codec.Decode(junk, 256);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_TRUE(*d == Arange32(64));
  // But a stream cut short is an error.
  Buffer cut = FromHex(testing::kBz2L1);
  auto r = codec.Decode(cut.view().first(cut.size() - 3), std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
}

TEST(Bz2CodecTest, Configuration) {
  ArraySpec spec = testing::MakeSpec({4}, DataType(DataTypeId::kUInt8));
  auto c =
      MakeCodec({{"name", "numcodecs.bz2"}, {"configuration", {{"level", 1}}}}, spec);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->ToJson(),
            json({{"name", "numcodecs.bz2"}, {"configuration", {{"level", 1}}}}));
  auto bad = MakeV2Codec({{"id", "bz2"}, {"level", 0}}, spec);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("codec bz2: field \"level\""), std::string::npos);
}

}  // namespace
}  // namespace turbozarr
