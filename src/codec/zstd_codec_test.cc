#include "codec/zstd_codec.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include "testing/codec_fixtures.h"
#include "testing/compressor_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::Arange32;
using testing::FromHex;

TEST(ZstdCodecTest, DecodesNumcodecsFixtures) {
  ZstdCodec codec(0, false);
  for (const char* hex :
       {testing::kZstdL1, testing::kZstdChecksum, testing::kZstdNoSize}) {
    for (std::optional<size_t> expected :
         {std::optional<size_t>(256), std::optional<size_t>()}) {
      auto d = codec.Decode(FromHex(hex), expected);
      ASSERT_TRUE(d.ok()) << d.status().ToString();
      EXPECT_TRUE(*d == Arange32(64));
    }
  }
  auto nc = codec.Decode(FromHex(testing::kNumcodecsV3Zstd), std::nullopt);
  ASSERT_TRUE(nc.ok());
  EXPECT_TRUE(*nc == Arange32(16));
}

TEST(ZstdCodecTest, DecodesZarrPythonDefaultChunk) {
  auto chain = CodecChain::FromJson(
      json::array(
          {{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}},
           {{"name", "zstd"}, {"configuration", {{"level", 0}, {"checksum", false}}}}}),
      testing::MakeSpec({8}, DataType(DataTypeId::kFloat64)));
  ASSERT_TRUE(chain.ok());
  auto c = chain->Decode(FromHex(testing::kZarrDefaultF8));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  double v[8];
  std::memcpy(v, c->bytes.data(), 64);
  for (int i = 0; i < 8; ++i) EXPECT_DOUBLE_EQ(v[i], i / 7.0) << i;
}

TEST(ZstdCodecTest, FramesRecordTheirSizeAndChecksum) {
  ZstdCodec plain(3, false);
  ZstdCodec summed(3, true);
  Buffer in = testing::PatternBytes(5000);
  auto a = plain.Encode(in);
  auto b = summed.Encode(in);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(ZSTD_getFrameContentSize(a->data(), a->size()), 5000u);
  EXPECT_EQ(b->size(), a->size() + 4);  // the 4-byte content checksum
  // Flipping a bit in the checksum itself is caught only by the summed frame.
  Buffer bad = *b;
  bad.data()[bad.size() - 1] ^= std::byte{1};
  auto r = summed.Decode(bad, 5000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
}

TEST(ZstdCodecTest, ConcatenatedFrames) {
  ZstdCodec codec(1, false);
  Buffer in1 = testing::PatternBytes(1000, 1);
  Buffer in2 = testing::PatternBytes(3000, 2);
  Buffer both = *codec.Encode(in1);
  both.Append(*codec.Encode(in2));
  Buffer joined = in1;
  joined.Append(in2);
  auto known = codec.Decode(both, 4000);
  ASSERT_TRUE(known.ok()) << known.status().ToString();
  EXPECT_TRUE(*known == joined);
  auto unknown = codec.Decode(both, std::nullopt);
  ASSERT_TRUE(unknown.ok()) << unknown.status().ToString();
  EXPECT_TRUE(*unknown == joined);
}

TEST(ZstdCodecTest, ImplausibleContentSizeIsCorruption) {
  // A well-formed frame whose header claims 2^40 bytes, followed by one
  // 1-byte RLE block: 17 bytes cannot hold that much.
  Buffer frame = FromHex("28b52ffd");
  frame.Append(FromHex("e0"));  // 8-byte content size, single segment
  frame.Append(FromHex("0000000000010000"));
  frame.Append(FromHex("0b000041"));  // last block, RLE, 1 byte of 'A'
  ZstdCodec codec(0, false);
  auto r = codec.Decode(frame, std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
}

TEST(ZstdCodecTest, Configuration) {
  ArraySpec spec = testing::MakeSpec({4}, DataType(DataTypeId::kUInt8));
  auto c = MakeCodec(
      {{"name", "zstd"}, {"configuration", {{"level", 22}, {"checksum", true}}}}, spec);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(
      (*c)->ToJson(),
      json({{"name", "zstd"}, {"configuration", {{"level", 22}, {"checksum", true}}}}));
  EXPECT_EQ(*ToV2Json(**c), json({{"id", "zstd"}, {"level", 22}, {"checksum", true}}));
  auto high = MakeCodec({{"name", "zstd"}, {"configuration", {{"level", 23}}}}, spec);
  ASSERT_FALSE(high.ok());
  EXPECT_NE(high.status().message().find("codec zstd: field \"level\""),
            std::string::npos);
  auto sum =
      MakeCodec({{"name", "zstd"}, {"configuration", {{"checksum", "yes"}}}}, spec);
  ASSERT_FALSE(sum.ok());
  EXPECT_NE(sum.status().message().find("codec zstd: field \"checksum\""),
            std::string::npos);
  // numcodecs' v2 spelling without "checksum" (numcodecs < 0.13, zarr-python 3).
  auto v2 = MakeV2Codec({{"id", "zstd"}, {"level", 0}}, spec);
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ((*v2)->ToJson()["name"], "zstd");
}

}  // namespace
}  // namespace turbozarr
