#include "codec/blosc_codec.h"

#include <gtest/gtest.h>

#include "codec/raw_bytes.h"
#include "testing/codec_fixtures.h"
#include "testing/compressor_fixtures.h"
#include "util/parallelism.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::Arange32;
using testing::FromHex;
using testing::MakeSpec;

std::shared_ptr<const BytesToBytesCodec> V3(const json& j, const ArraySpec& spec) {
  auto c = MakeCodec(j, spec);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::dynamic_pointer_cast<const BytesToBytesCodec>(*c) : nullptr;
}

std::shared_ptr<const BytesToBytesCodec> V2(const json& j, const ArraySpec& spec) {
  auto c = MakeV2Codec(j, spec);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::dynamic_pointer_cast<const BytesToBytesCodec>(*c) : nullptr;
}

// Byte 3 of a blosc header is the typesize, byte 2 the flags (bit 0: byte
// shuffle, bit 2: bit shuffle).
int Typesize(const Buffer& b) { return static_cast<int>(b.data()[3]); }
int Flags(const Buffer& b) { return static_cast<int>(b.data()[2]); }

const ArraySpec kInt32 = MakeSpec({64}, DataType(DataTypeId::kInt32));

TEST(BloscCodecTest, DecodesNumcodecsFixtures) {
  auto codec = V3({{"name", "blosc"}}, kInt32);
  for (const char* hex : {testing::kBloscLz4Shuffle, testing::kBloscZstdBitshuffle}) {
    auto d = codec->Decode(FromHex(hex), 256);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_TRUE(*d == Arange32(64));
    auto u = codec->Decode(FromHex(hex), std::nullopt);
    ASSERT_TRUE(u.ok());
    EXPECT_TRUE(*u == Arange32(64));
  }
  Buffer raw = FromHex(testing::kBloscBlosclzHeader);
  raw.Append(Arange32(64));
  auto d = codec->Decode(raw, 256);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_TRUE(*d == Arange32(64));
  for (const char* hex : {testing::kNumcodecsV3Blosc, testing::kV2Blosc}) {
    auto e = codec->Decode(FromHex(hex), 64);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    EXPECT_TRUE(*e == Arange32(16));
  }
}

TEST(BloscCodecTest, V3TypesizeAndShuffleFollowTheDataType) {
  // Missing typesize and shuffle: as zarr-python evolves them from the spec.
  auto codec = V3(
      {{"name", "blosc"}, {"configuration", {{"cname", "lz4"}, {"clevel", 5}}}}, kInt32);
  auto enc = codec->Encode(Arange32(64));
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(Typesize(*enc), 4);
  EXPECT_EQ(Flags(*enc) & 0x05, 0x01);  // byte shuffle
  json cfg = codec->ToJson()["configuration"];
  EXPECT_EQ(cfg["typesize"], 4);
  EXPECT_EQ(cfg["shuffle"], "shuffle");
  EXPECT_EQ(cfg["cname"], "lz4");

  auto u8 = V3({{"name", "blosc"}}, MakeSpec({64}, DataType(DataTypeId::kUInt8)));
  EXPECT_EQ(u8->ToJson()["configuration"]["shuffle"], "bitshuffle");
  EXPECT_EQ(u8->ToJson()["configuration"]["cname"], "zstd");
}

TEST(BloscCodecTest, NumcodecsTypesize) {
  json j = {{"id", "blosc"},
            {"cname", "lz4"},
            {"clevel", 5},
            {"shuffle", -1},
            {"blocksize", 0}};
  // v2: the buffer holds the array's items.
  auto v2 = V2(j, kInt32);
  auto enc = v2->Encode(Arange32(64));
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(Typesize(*enc), 4);
  EXPECT_EQ(Flags(*enc) & 0x05, 0x01);  // auto shuffle, 4-byte items: byte shuffle
  EXPECT_EQ(*ToV2Json(*v2), j);
  EXPECT_EQ(v2->ToJson()["name"], "blosc");  // its v3 equivalent
  // v2 after a vlen filter: bytes.
  auto str = V2(j, MakeSpec({4}, DataType(DataTypeId::kString)));
  auto s_enc = str->Encode(Arange32(64));
  EXPECT_EQ(Typesize(*s_enc), 1);
  EXPECT_EQ(Flags(*s_enc) & 0x05, 0x04);  // bit shuffle
  // numcodecs.blosc in a v3 array is handed raw bytes.
  json v3 = {{"name", "numcodecs.blosc"},
             {"configuration", {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", -1}}}};
  auto nc = V3(v3, kInt32);
  auto n_enc = nc->Encode(Arange32(16));
  ASSERT_TRUE(n_enc.ok());
  EXPECT_EQ(Typesize(*n_enc), 1);
  EXPECT_EQ(Flags(*n_enc) & 0x05, 0x04);
  EXPECT_EQ(
      nc->ToJson(),
      json({{"name", "numcodecs.blosc"},
            {"configuration",
             {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", -1}, {"blocksize", 0}}}}));
  // An explicit typesize wins and is written back.
  json with_ts = j;
  with_ts["typesize"] = 2;
  auto ts = V2(with_ts, kInt32);
  EXPECT_EQ(Typesize(*ts->Encode(Arange32(8))), 2);
  EXPECT_EQ(*ToV2Json(*ts), with_ts);
}

TEST(BloscCodecTest, RefusesBadConfiguration) {
  struct Bad {
    json config;
    const char* field;
  };
  for (const Bad& b :
       {Bad{{{"cname", "lzma"}}, "cname"}, Bad{{{"clevel", 10}}, "clevel"},
        Bad{{{"shuffle", "byteshuffle"}}, "shuffle"}, Bad{{{"typesize", 0}}, "typesize"},
        Bad{{{"blocksize", -1}}, "blocksize"}, Bad{{{"clevle", 3}}, "clevle"}}) {
    auto r = MakeCodec({{"name", "blosc"}, {"configuration", b.config}}, kInt32);
    ASSERT_FALSE(r.ok()) << b.config.dump();
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(std::string("codec blosc: field \"") + b.field),
              std::string::npos)
        << r.status().message();
  }
  auto v2 = MakeV2Codec({{"id", "blosc"}, {"shuffle", 3}}, kInt32);
  ASSERT_FALSE(v2.ok());
  EXPECT_NE(v2.status().message().find("\"shuffle\""), std::string::npos);
}

TEST(BloscCodecTest, HeaderSizesAreChecked) {
  auto codec = V3({{"name", "blosc"}}, kInt32);
  Buffer good = FromHex(testing::kBloscLz4Shuffle);
  // The header's decoded size differs from what the chain expects.
  auto r = codec->Decode(good, 255);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("header says 256 decoded bytes, expected 255"),
            std::string::npos);
  // The header's compressed size differs from the data's.
  Buffer longer = good;
  longer.Append(FromHex("00"));
  EXPECT_EQ(codec->Decode(longer, 256).status().code(), StatusCode::kCorruption);
  // A header claiming 2 GiB is refused before any allocation.
  Buffer huge = good;
  huge.data()[4] = huge.data()[5] = huge.data()[6] = std::byte{0xff};
  huge.data()[7] = std::byte{0x7f};
  EXPECT_EQ(codec->Decode(huge, std::nullopt).status().code(), StatusCode::kCorruption);
  // 100 MB from 104 bytes is more than any blosc codec can expand to.
  Buffer inflated = good;
  internal::StoreLE32(inflated.data() + 4, 100'000'000);
  auto r2 = codec->Decode(inflated, std::nullopt);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("more than blosc can encode"), std::string::npos)
      << r2.status().message();
  // A raw (memcpyed) chunk must hold exactly its decoded size.
  Buffer raw = FromHex(testing::kBloscBlosclzHeader);
  raw.Append(Arange32(64));
  internal::StoreLE32(raw.data() + 4, 255);
  EXPECT_EQ(codec->Decode(raw, std::nullopt).status().code(), StatusCode::kCorruption);
}

TEST(BloscCodecTest, InternalThreadsWithinTheBudgetRoundTrip) {
  // 4 MiB: enough blocks for blosc to split between threads.
  const size_t n = size_t{4} << 20;
  const ArraySpec spec =
      MakeSpec({static_cast<int64_t>(n / 4)}, DataType(DataTypeId::kInt32));
  for (const char* cname : {"lz4", "zstd"}) {
    SCOPED_TRACE(cname);
    auto codec = V3({{"name", "blosc"},
                     {"configuration",
                      {{"cname", cname},
                       {"clevel", 3},
                       {"shuffle", "shuffle"},
                       {"typesize", 4},
                       {"blocksize", 0}}}},
                    spec);
    ASSERT_NE(codec, nullptr);
    const Buffer data = testing::PatternBytes(n, 11);
    auto serial = codec->Encode(data.view());
    ASSERT_TRUE(serial.ok());
    std::optional<Buffer> threaded;
    {
      ScopedCodecThreads budget(4);
      auto encoded = codec->Encode(data.view());
      ASSERT_TRUE(encoded.ok());
      threaded = std::move(*encoded);
      // Threads may lay the blocks out in another order, never other bytes.
      EXPECT_EQ(threaded->size(), serial->size());
      Buffer out(n);
      ASSERT_TRUE(codec->DecodeInto(serial->view(), out.mutable_view()).ok());
      EXPECT_TRUE(out == data);
    }
    auto back = codec->Decode(threaded->view(), n);
    ASSERT_TRUE(back.ok());
    EXPECT_TRUE(*back == data);
  }
}

}  // namespace
}  // namespace turbozarr
