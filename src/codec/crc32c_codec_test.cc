#include "codec/crc32c_codec.h"

#include <gtest/gtest.h>

#include "testing/codec_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::FromHex;
using testing::ToHex;

// The first 10 bytes of int32 arange(64) with google_crc32c's sum appended,
// as zarr-python's crc32c codec writes it.
constexpr const char* kFixture = "000000000100000002009caba82b";

TEST(Crc32cCodecTest, MatchesZarrPython) {
  Crc32cCodec codec;
  Buffer stored = FromHex(kFixture);
  auto dec = codec.Decode(stored, 10);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_EQ(ToHex(*dec), "00000000010000000200");
  EXPECT_EQ(ToHex(*codec.Encode(*dec)), kFixture);
  EXPECT_EQ(codec.ToJson(), json({{"name", "crc32c"}}));
  EXPECT_EQ(*codec.EncodedSize(10), 14u);
}

TEST(Crc32cCodecTest, NumcodecsCrc32cInV3) {
  // zarr-python with zarr.codecs.numcodecs.CRC32C(): int32 arange(16).
  auto c = MakeCodec({{"name", "numcodecs.crc32c"}, {"configuration", json::object()}},
                     testing::MakeSpec({16}, DataType(DataTypeId::kInt32)));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto codec = std::dynamic_pointer_cast<const BytesToBytesCodec>(*c);
  Buffer stored = FromHex(
      "000000000100000002000000030000000400000005000000060000000700000008000000090000000a"
      "00000"
      "00b0000000c0000000d0000000e0000000f000000da8f415a");
  auto dec = codec->Decode(stored, 64);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_EQ(static_cast<int>(dec->data()[4]), 1);
  EXPECT_EQ(codec->ToJson()["name"], "numcodecs.crc32c");
}

TEST(Crc32cCodecTest, EveryBitFlipIsCorruptionNamingBothSums) {
  Crc32cCodec codec;
  Buffer stored = FromHex(kFixture);
  for (size_t bit = 0; bit < stored.size() * 8; ++bit) {
    Buffer bad = stored;
    bad.data()[bit / 8] ^= std::byte(1u << (bit % 8));
    auto r = codec.Decode(bad, 10);
    ASSERT_FALSE(r.ok()) << bit;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  }
  Buffer bad = stored;
  bad.data()[0] = std::byte{1};
  auto r = codec.Decode(bad, std::nullopt);
  EXPECT_NE(r.status().message().find("expected 0x2BA8AB9C (stored), computed 0x"),
            std::string::npos)
      << r.status().message();
}

TEST(Crc32cCodecTest, ChecksumAtStart) {
  Crc32cCodec codec(Crc32cCodec::Location::kStart);
  auto enc = codec.Encode(FromHex("00000000010000000200"));
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(ToHex(*enc), "9caba82b00000000010000000200");
  EXPECT_EQ(ToHex(*codec.Decode(*enc, 10)), "00000000010000000200");
  EXPECT_EQ(codec.ToV2Json(), json({{"id", "crc32c"}, {"location", "start"}}));
}

TEST(Crc32cCodecTest, ShortInputIsCorruption) {
  Crc32cCodec codec;
  for (size_t n = 0; n < 4; ++n) {
    auto r = codec.Decode(Buffer(std::vector<std::byte>(n)), std::nullopt);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  }
  // Four zero bytes are the valid encoding of nothing.
  auto empty = codec.Decode(FromHex("00000000"), 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(Crc32cCodecTest, RefusesConfiguration) {
  auto r = MakeCodec({{"name", "crc32c"}, {"configuration", {{"location", "start"}}}},
                     testing::MakeSpec({4}, DataType(DataTypeId::kUInt8)));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace turbozarr
