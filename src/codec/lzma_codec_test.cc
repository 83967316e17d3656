// numcodecs' LZMA codec: byte for byte with what numcodecs (Python's lzma
// module over liblzma) writes, in each container, check and filter chain.
#include <gtest/gtest.h>

#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "codec/codec_registry.h"
#include "codec/lzma_codec.h"
#include "testing/codec_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::FromHex;

Buffer Data() {
  std::string text;
  for (int i = 0; i < 16; ++i) text += "turbozarr lzma ";
  for (int i = 0; i < 40; ++i) text += static_cast<char>(i);
  Buffer b(text.size());
  std::memcpy(b.data(), text.data(), text.size());
  return b;
}

struct Fixture {
  const char* name;
  const char* config;  // numcodecs' get_config() without "id"
  const char* hex;     // what numcodecs wrote for Data()
};

// kLzmaData: b"turbozarr lzma " * 16 + bytes(range(40)); made with numcodecs 0.16.6 (Python's lzma, liblzma 5.4.1)
// Each is decodable by numcodecs but AloneFilter (numcodecs hands its
// filters to the decoder, which Python's lzma refuses for this format).
const Fixture kFixtures[] = {
    {"Default", R"({"format": 1, "check": -1, "preset": null, "filters": null})",
     "fd377a585a000004e6d6b4460200210116000000742fe5a3e00117003c5d003a1d4a8c506421219672d959b653779dbc35fc90291be7bc4e3492234989caf13a1d2b5f5e35693ced7658c8d2edc1ba8418c61c59317df0f5a215d000f60aedc26ea5eaf700015898020000001dfaf768b1c467fb020000000004595a"},
    {"Preset1", R"({"format": 1, "check": -1, "preset": 1, "filters": null})",
     "fd377a585a000004e6d6b4460200210110000000a8708e86e00117003d5d003a1d4a8c506421219379edba11b9c360fc0369558491480763a2a8a8adbb2d9bd498872bf9390c10df09299e7fbf7f6970c9520772d1b34848a2fa6e0000000000f60aedc26ea5eaf70001599802000000b829aba3b1c467fb020000000004595a"},
    {"Extreme9", R"({"format": 1, "check": -1, "preset": 2147483657, "filters": null})",
     "fd377a585a000004e6d6b446020021011c00000010cf58cce00117003c5d003a1d4a8c506421219672d959b653779dbc35fc90291be7bc4e3492234989caf13a1d2b5f5e35693ced7658c8d2edc1ba8418c61c59317df0f5a215d000f60aedc26ea5eaf700015898020000001dfaf768b1c467fb020000000004595a"},
    {"Crc32", R"({"format": 1, "check": 1, "preset": 0, "filters": null})",
     "fd377a585a0000016922de36020021010c0000008f98419ce00117003d5d003a1d4a8c506421219379edba11b9c360fc0369558491480763a2a8a8adbb2d9bd498872bf9390c10df09299e7fbf7f6970c9520772d1b34848a2fa6e0000000000c68af8b60001559802000000c3e969d43e300d8b020000000001595a"},
    {"Sha256", R"({"format": 1, "check": 10, "preset": 0, "filters": null})",
     "fd377a585a00000ae1fb0ca1020021010c0000008f98419ce00117003d5d003a1d4a8c506421219379edba11b9c360fc0369558491480763a2a8a8adbb2d9bd498872bf9390c10df09299e7fbf7f6970c9520772d1b34848a2fa6e000000000054817a680a9e9c61e84e7969c9aab571603204d6b0af4e8a4020089c72745bd70001719802000000e3ae5448b6e9df1c02000000000a595a"},
    {"NoCheck", R"({"format": 1, "check": 0, "preset": 0, "filters": null})",
     "fd377a585a000000ff12d941020021010c0000008f98419ce00117003d5d003a1d4a8c506421219379edba11b9c360fc0369558491480763a2a8a8adbb2d9bd498872bf9390c10df09299e7fbf7f6970c9520772d1b34848a2fa6e00000000000001519802000000d5abf84fa8000afc020000000000595a"},
    {"Alone", R"({"format": 2, "check": -1, "preset": 1, "filters": null})",
     "5d00001000ffffffffffffffff003a1d4a8c506421219379edba11b9c360fc0369558491480763a2a8a8adbb2d9bd498872bf9390c10df09299e7fbf7f6970c9520772d1b3484917013013ffe3820000"},
    {"AloneFilter", R"({"format": 2, "check": -1, "preset": null, "filters": [{"id": 4611686018427387905, "preset": 2, "lc": 0, "lp": 2, "pb": 2}]})",
     "6c00002000ffffffffffffffff003a1d4a4623a527d40201646e14d47bf9abf8e2787429f8d7b5084af19b9004b20647b9093b546435f43e12476ff08882f71fba7bd19e6f07bca00aca2c0f683fcfffea0d8000"},
    {"RawDelta", R"({"format": 3, "check": -1, "preset": null, "filters": [{"id": 3, "dist": 4}, {"id": 33, "preset": 1}]})",
     "e0011700225d003a1d4a8c55df2f24fde28e0c24bb304caeb3c3a1a610840bc885f76f7c067678c00000"},
    {"RawLzma1", R"({"format": 3, "check": -1, "preset": null, "filters": [{"id": 4611686018427387905, "preset": 1}]})",
     "003a1d4a8c506421219379edba11b9c360fc0369558491480763a2a8a8adbb2d9bd498872bf9390c10df09299e7fbf7f6970c9520772d1b3484917013013ffe3820000"},
    {"XzChain", R"({"format": 1, "check": -1, "preset": null, "filters": [{"id": 4}, {"id": 33, "preset": 3, "dict_size": 65536, "mf": 4, "mode": 1, "nice_len": 32}]})",
     "fd377a585a000004e6d6b4460201040021010800d2b974cbe00117003d5d003a1d4a8c506421219379edba11b9c360fc0369558491480763a2a8a8adbb2d9bd498872bf9390c10df09299e7fbf7f6970c9520772d1b34848a2fa6e0000000000f60aedc26ea5eaf70001599802000000b829aba3b1c467fb020000000004595a"},
};

std::shared_ptr<const BytesToBytesCodec> V2(const json& config) {
  json full = config;
  full["id"] = "lzma";
  ArraySpec spec = testing::MakeSpec({4}, DataType(DataTypeId::kUInt8));
  auto c = MakeV2Codec(full, spec);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  if (!c.ok()) return nullptr;
  return std::dynamic_pointer_cast<const BytesToBytesCodec>(*c);
}

Status V2Error(const json& config) {
  json full = config;
  full["id"] = "lzma";
  ArraySpec spec = testing::MakeSpec({4}, DataType(DataTypeId::kUInt8));
  auto c = MakeV2Codec(full, spec);
  return c.ok() ? Status::OK() : c.status();
}

TEST(LzmaCodecTest, WritesWhatNumcodecsWrites) {
  // Forwards, then backwards and twice each: a thread's encoder is set up
  // again for every chunk, over whatever configuration it held before.
  std::vector<const Fixture*> order;
  for (const Fixture& f : kFixtures) order.push_back(&f);
  for (auto it = std::rbegin(kFixtures); it != std::rend(kFixtures); ++it) {
    order.push_back(&*it);
    order.push_back(&*it);
  }
  for (const Fixture* f : order) {
    SCOPED_TRACE(f->name);
    auto codec = V2(json::parse(f->config));
    ASSERT_NE(codec, nullptr);
    auto enc = codec->Encode(Data());
    ASSERT_TRUE(enc.ok()) << enc.status().ToString();
    EXPECT_EQ(testing::ToHex(*enc), f->hex);
  }
}

TEST(LzmaCodecTest, ReadsWhatNumcodecsWrites) {
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(f.name);
    auto codec = V2(json::parse(f.config));
    ASSERT_NE(codec, nullptr);
    for (std::optional<size_t> size : {std::optional<size_t>(Data().size()),
                                       std::optional<size_t>()}) {
      auto dec = codec->Decode(FromHex(f.hex), size);
      ASSERT_TRUE(dec.ok()) << dec.status().ToString();
      EXPECT_TRUE(*dec == Data());
    }
    Buffer into(Data().size());
    ASSERT_TRUE(codec->DecodeInto(FromHex(f.hex), into.mutable_view()).ok());
    EXPECT_TRUE(into == Data());
  }
}

TEST(LzmaCodecTest, AutoDecodesEveryContainerButWritesNone) {
  auto codec = V2({{"format", 0}});
  ASSERT_NE(codec, nullptr);
  for (const Fixture& f : kFixtures) {
    if (std::string(f.name).rfind("Raw", 0) == 0) continue;  // raw has no header
    auto dec = codec->Decode(FromHex(f.hex), Data().size());
    ASSERT_TRUE(dec.ok()) << f.name << ": " << dec.status().ToString();
    EXPECT_TRUE(*dec == Data());
  }
  auto enc = codec->Encode(Data());
  ASSERT_FALSE(enc.ok());
  EXPECT_EQ(enc.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(enc.status().message().find("format 0"), std::string::npos);
}

TEST(LzmaCodecTest, LargeInputsRoundTrip) {
  // Several LZMA2 chunks (each holds at most 2 MiB) and incompressible data,
  // which the encoder stores.
  Buffer big(5 << 20);
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < big.size(); ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    big.data()[i] = std::byte(i < big.size() / 2 ? (i % 251) : (x & 0xff));
  }
  for (const char* config : {R"({"preset": 0})", R"({"format": 2, "preset": 0})",
                             R"({"format": 3, "filters": [{"id": 33, "preset": 0}]})"}) {
    SCOPED_TRACE(config);
    auto codec = V2(json::parse(config));
    auto enc = codec->Encode(big);
    ASSERT_TRUE(enc.ok()) << enc.status().ToString();
    auto dec = codec->Decode(*enc, big.size());
    ASSERT_TRUE(dec.ok()) << dec.status().ToString();
    EXPECT_TRUE(*dec == big);
    auto grown = codec->Decode(*enc, std::nullopt);
    ASSERT_TRUE(grown.ok()) << grown.status().ToString();
    EXPECT_TRUE(*grown == big);
  }
}

TEST(LzmaCodecTest, ConcatenatedStreamsAndTrailingBytes) {
  auto codec = V2(json::object());
  Buffer two = FromHex(kFixtures[0].hex);
  two.Append(FromHex(kFixtures[0].hex));
  auto d = codec->Decode(two, std::nullopt);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->size(), 2 * Data().size());
  // As in Python's lzma.decompress, bytes after a complete stream that fail
  // to start another are ignored; bytes that start one must end it.
  for (const char* tail : {"00000000000000000000000000000000", "676172626167656761726261676567"}) {
    Buffer padded = FromHex(kFixtures[0].hex);
    padded.Append(FromHex(tail));
    auto p = codec->Decode(padded, Data().size());
    ASSERT_TRUE(p.ok()) << tail << ": " << p.status().ToString();
    EXPECT_TRUE(*p == Data());
  }
  for (const char* tail : {"00000000", "fd377a585a00"}) {
    Buffer started = FromHex(kFixtures[0].hex);
    started.Append(FromHex(tail));
    auto p = codec->Decode(started, Data().size());
    ASSERT_FALSE(p.ok()) << tail;
    EXPECT_NE(p.status().message().find("data ends inside the stream"), std::string::npos)
        << p.status().ToString();
  }
}

TEST(LzmaCodecTest, DamagedDataIsCorruption) {
  auto codec = V2(json::object());
  const Buffer good = FromHex(kFixtures[0].hex);
  // Cut short: in the header, the data and the footer.
  for (size_t keep : {size_t{5}, good.size() / 2, good.size() - 3}) {
    auto r = codec->Decode(good.view().first(keep), Data().size());
    ASSERT_FALSE(r.ok()) << keep;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << keep;
    EXPECT_NE(r.status().message().find("codec lzma"), std::string::npos);
  }
  // A flipped byte in the compressed data: the check or the decoder sees it.
  Buffer flipped = good;
  flipped.data()[good.size() / 2] ^= std::byte{0x55};
  EXPECT_EQ(codec->Decode(flipped, Data().size()).status().code(), StatusCode::kCorruption);
  // Not an xz stream at all.
  EXPECT_EQ(codec->Decode(FromHex(kFixtures[6].hex), Data().size()).status().code(),
            StatusCode::kCorruption);
  EXPECT_EQ(codec->Decode(ByteView(), Data().size()).status().code(),
            StatusCode::kCorruption);
  // More or less than the chunk holds.
  auto less = codec->Decode(good, Data().size() + 1);
  ASSERT_FALSE(less.ok());
  EXPECT_NE(less.status().message().find("expected 281 decoded bytes, got 280"),
            std::string::npos)
      << less.status().ToString();
  auto more = codec->Decode(good, Data().size() - 1);
  ASSERT_FALSE(more.ok());
  EXPECT_NE(more.status().message().find("more than the expected 279 bytes"),
            std::string::npos)
      << more.status().ToString();
}

TEST(LzmaCodecTest, HugeDictionaryIsRefusedUnallocated) {
  // An .lzma header that claims a 4 GiB dictionary.
  auto codec = V2({{"format", 2}});
  Buffer alone = FromHex(kFixtures[6].hex);
  for (int i = 1; i <= 4; ++i) alone.data()[i] = std::byte{0xff};
  auto r = codec->Decode(alone, Data().size());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  EXPECT_NE(r.status().message().find("MiB of decoder memory"), std::string::npos)
      << r.status().ToString();
}

TEST(LzmaCodecTest, Configuration) {
  ArraySpec spec = testing::MakeSpec({4}, DataType(DataTypeId::kUInt8));
  // v3 keeps what was given; v2 is numcodecs' full form.
  auto v3 =
      MakeCodec({{"name", "numcodecs.lzma"}, {"configuration", {{"preset", 1}}}}, spec);
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  EXPECT_EQ((*v3)->ToJson(),
            json({{"name", "numcodecs.lzma"}, {"configuration", {{"preset", 1}}}}));
  EXPECT_EQ(*ToV2Json(**v3), json({{"id", "lzma"},
                                   {"format", 1},
                                   {"check", -1},
                                   {"preset", 1},
                                   {"filters", nullptr}}));
  struct Bad {
    json config;
    const char* message;
  };
  for (const Bad& b : {
           Bad{{{"format", 4}}, "field \"format\": 4 is not"},
           Bad{{{"format", "xz"}}, "field \"format\": expected an integer"},
           Bad{{{"check", 2}}, "field \"check\": 2 is not"},
           Bad{{{"format", 2}, {"check", 4}}, "only in the xz format"},
           Bad{{{"preset", 10}}, "invalid preset 10"},
           Bad{{{"preset", -1}}, "field \"preset\""},
           Bad{{{"preset", 6}, {"filters", {{{"id", 33}}}}}, "cannot be given with"},
           Bad{{{"format", 3}}, "needs a filter chain"},
           Bad{{{"filters", json::array()}}, "list of 1 to 4 filters"},
           Bad{{{"filters", {{{"id", 33}, {"dict_siz", 4096}}}}}, "unknown option \"dict_siz\""},
           Bad{{{"filters", {{{"id", 99}}}}}, "unknown filter id 99"},
           Bad{{{"filters", {{{"id", 33}, {"lc", 4}, {"lp", 4}}}}}, "liblzma refuses the chain"},
           Bad{{{"filters", {{{"id", 33}}, {{"id", 3}}}}}, "liblzma refuses the chain"},
           Bad{{{"filters", {{{"id", 33}, {"mode", 7}}}}}, "invalid mode 7"},
           Bad{{{"filters", {{{"id", 4611686018427387905ll}}}}}, "holds LZMA2, not LZMA1"},
           Bad{{{"format", 2}, {"filters", {{{"id", 33}}}}}, "takes one LZMA1 filter"},
           Bad{{{"level", 3}}, "\"level\""},
       }) {
    Status s = V2Error(b.config);
    ASSERT_FALSE(s.ok()) << b.config.dump();
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << b.config.dump();
    EXPECT_NE(s.message().find("codec lzma"), std::string::npos) << s.ToString();
    EXPECT_NE(s.message().find(b.message), std::string::npos) << s.ToString();
  }
}

}  // namespace
}  // namespace turbozarr
