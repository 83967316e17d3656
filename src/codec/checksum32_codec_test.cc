#include "codec/checksum32_codec.h"

#include <gtest/gtest.h>

#include "testing/codec_fixtures.h"
#include "testing/compressor_fixtures.h"
#include "testing/filter_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::FromHex;
using testing::ToHex;

const ArraySpec kSpec = testing::MakeSpec({64}, DataType(DataTypeId::kInt32));

std::shared_ptr<const BytesToBytesCodec> Make(const json& j) {
  auto c = j.contains("id") ? MakeV2Codec(j, kSpec) : MakeCodec(j, kSpec);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::dynamic_pointer_cast<const BytesToBytesCodec>(*c) : nullptr;
}

// `sum_hex` placed first or last around `payload`.
std::string Framed(const Buffer& payload, const char* sum_hex, bool first) {
  return first ? sum_hex + ToHex(payload) : ToHex(payload) + sum_hex;
}

struct SumCase {
  json codec;
  Buffer payload;
  const char* sum;
  bool first;
};

TEST(Checksum32CodecTest, WritesAndChecksNumcodecsSums) {
  Buffer ones(std::vector<std::byte>(2001, std::byte{0xff}));
  const Buffer arange = testing::Arange32(64);
  const std::vector<SumCase> cases = {
      {{{"id", "crc32"}}, arange, testing::kCrc32Sum, true},
      {{{"id", "crc32"}, {"location", "end"}}, arange, testing::kCrc32EndSum, false},
      {{{"id", "adler32"}}, arange, testing::kAdler32Sum, true},
      {{{"name", "numcodecs.adler32"}, {"configuration", {{"location", "start"}}}},
       arange,
       testing::kAdler32Sum,
       true},
      {{{"id", "fletcher32"}}, arange, testing::kFletcher32Sum, false},
      {{{"id", "fletcher32"}}, ones, testing::kFletcher32OnesSum, false},
      {{{"id", "fletcher32"}},
       Buffer(arange.view().first(5)),
       testing::kFletcher32OddSum,
       false},
  };
  for (const SumCase& c : cases) {
    SCOPED_TRACE(c.codec.dump());
    auto codec = Make(c.codec);
    ASSERT_NE(codec, nullptr);
    const std::string expected = Framed(c.payload, c.sum, c.first);
    EXPECT_EQ(ToHex(*codec->Encode(c.payload)), expected);
    auto dec = codec->Decode(FromHex(expected), c.payload.size());
    ASSERT_TRUE(dec.ok()) << dec.status().ToString();
    EXPECT_TRUE(*dec == c.payload);
    EXPECT_EQ(*codec->EncodedSize(10), 14u);
  }
}

TEST(Checksum32CodecTest, DecodesZarrPythonV3Chunk) {
  // numcodecs.adler32 then numcodecs.fletcher32 around int32 arange(16).
  auto chain = CodecChain::FromJson(
      json::array(
          {{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}},
           {{"name", "numcodecs.adler32"}, {"configuration", json::object()}},
           {{"name", "numcodecs.fletcher32"}, {"configuration", json::object()}}}),
      testing::MakeSpec({16}, DataType(DataTypeId::kInt32)));
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  auto dec = chain->Decode(FromHex(testing::kV3ChecksumsChunk));
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_TRUE(dec->bytes == testing::Arange32(16));
  ChunkArray chunk = *dec;
  EXPECT_EQ(ToHex(*chain->Encode(std::move(chunk))), testing::kV3ChecksumsChunk);
}

TEST(Checksum32CodecTest, JsonAsNumcodecsWritesIt) {
  EXPECT_EQ(ToV2Json(*Make({{"id", "crc32"}})).value(),
            json({{"id", "crc32"}, {"location", "start"}}));
  EXPECT_EQ(ToV2Json(*Make({{"id", "fletcher32"}})).value(),
            json({{"id", "fletcher32"}}));
  EXPECT_EQ(Make({{"name", "numcodecs.fletcher32"}})->ToJson(),
            json({{"name", "numcodecs.fletcher32"}, {"configuration", json::object()}}));
  EXPECT_EQ(Make({{"id", "adler32"}})->name(), "adler32");
}

TEST(Checksum32CodecTest, CorruptionNamesTheCodecAndBothSums) {
  auto codec = Make({{"id", "adler32"}});
  Buffer stored = FromHex(Framed(testing::Arange32(64), testing::kAdler32Sum, true));
  for (size_t bit = 0; bit < stored.size() * 8; bit += 7) {
    Buffer bad = stored;
    bad.data()[bit / 8] ^= std::byte(1u << (bit % 8));
    auto r = codec->Decode(bad, 256);
    ASSERT_FALSE(r.ok()) << bit;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  }
  Buffer bad = stored;
  bad.data()[10] ^= std::byte{1};
  auto r = codec->Decode(bad, std::nullopt);
  EXPECT_NE(r.status().message().find("codec adler32: checksum mismatch: expected "
                                      "0xAB9E07E1 (stored), computed 0x"),
            std::string::npos)
      << r.status().message();
}

TEST(Checksum32CodecTest, ShortInputIsCorruptionNeverAnOverread) {
  for (const char* id : {"crc32", "adler32", "fletcher32"}) {
    auto codec = Make({{"id", id}});
    for (size_t n = 0; n < 4; ++n) {
      auto r = codec->Decode(Buffer(std::vector<std::byte>(n)), std::nullopt);
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
      EXPECT_NE(r.status().message().find(std::string("codec ") + id + ": " +
                                          std::to_string(n) + " bytes cannot hold"),
                std::string::npos)
          << r.status().message();
    }
  }
}

// numcodecs 0.16.6's jenkins_lookup3(bytes, initval) of the first n bytes of
// (i * 2654435761) % 256, for lengths around lookup3's 12-byte blocks.
TEST(Checksum32CodecTest, JenkinsLookup3IsNumcodecsHash) {
  std::vector<std::byte> data(100);
  for (size_t i = 0; i < data.size(); ++i) {
    data[i] = static_cast<std::byte>((i * 2654435761u) % 256);
  }
  const struct {
    size_t n;
    uint32_t seed0, seed12345;
  } kSums[] = {{0, 0xdeadbeef, 0xdeadef28},  {1, 0x8ba9414b, 0x9210660c},
               {3, 0xf8e95bb9, 0x6a694fde},  {12, 0x37b46976, 0x78cd83af},
               {13, 0xb0cf1bb6, 0x33700af5}, {24, 0x43e64d9a, 0x02a0128a},
               {25, 0x9dac424b, 0x128a9b7b}, {100, 0xbba1783e, 0x7ebc9b1f}};
  for (const auto& s : kSums) {
    const ByteView v(data.data(), s.n);
    EXPECT_EQ(JenkinsLookup3(v, 0), s.seed0) << s.n;
    EXPECT_EQ(JenkinsLookup3(v, 12345), s.seed12345) << s.n;
  }
  // As a codec: the sum goes last, little-endian, seeded by initval.
  auto c = MakeV2Codec({{"id", "jenkins_lookup3"}, {"initval", 12345}, {"prefix", nullptr}},
                       kSpec);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const auto* codec = dynamic_cast<const BytesToBytesCodec*>(c->get());
  ASSERT_NE(codec, nullptr);
  auto enc = codec->Encode(ByteView(data.data(), 3));
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(testing::ToHex(*enc), testing::ToHex(ByteView(data.data(), 3)) + "de4f696a");
  EXPECT_EQ((*c)->ToJson(), (nlohmann::json{{"name", "numcodecs.jenkins_lookup3"},
                                            {"configuration", {{"initval", 12345},
                                                               {"prefix", nullptr}}}}) );
  auto bad = MakeV2Codec({{"id", "jenkins_lookup3"}, {"prefix", "AAE="}}, kSpec);
  EXPECT_EQ(bad.status().code(), StatusCode::kUnsupported);
  bad = MakeV2Codec({{"id", "jenkins_lookup3"}, {"initval", -1}}, kSpec);
  EXPECT_EQ(bad.status().message(),
            "codec jenkins_lookup3: field \"initval\": -1 is not a 32-bit unsigned integer");
}

TEST(Checksum32CodecTest, BadConfigurationNamesTheField) {
  auto r = MakeV2Codec({{"id", "crc32"}, {"location", "middle"}}, kSpec);
  EXPECT_EQ(
      r.status().message(),
      "codec crc32: field \"location\": expected \"start\" or \"end\", got \"middle\"");
  // numcodecs' Fletcher32 takes no arguments.
  r = MakeV2Codec({{"id", "fletcher32"}, {"location", "start"}}, kSpec);
  EXPECT_NE(
      r.status().message().find("codec fletcher32: field \"location\": unknown field"),
      std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace turbozarr
