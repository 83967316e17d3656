#include "codec/vlen_codec.h"

#include <gtest/gtest.h>

#include "testing/codec_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::FromHex;
using testing::MakeSpec;
using testing::ToHex;

ChunkArray Strings(std::vector<std::string> v, DataTypeId id = DataTypeId::kString) {
  ChunkArray c;
  c.shape = {static_cast<int64_t>(v.size())};
  c.dtype = DataType(id);
  c.strings = std::move(v);
  return c;
}

// numcodecs.VLenUTF8().encode(["a", "bc", "", "héllo", "日本"]).
constexpr const char* kUtf8Fixture =
    "050000000100000061020000006263000000000600000068c3a96c6c6f06000000e697a5e69cac";
// numcodecs.VLenBytes().encode([b"x", b"", b"\x00\xff", b"abc"]).
constexpr const char* kBytesFixture =
    "040000000100000078000000000200000000ff03000000616263";

TEST(VLenCodecTest, MatchesNumcodecsVLenUtf8) {
  ArraySpec spec = MakeSpec({5}, DataType(DataTypeId::kString));
  VLenCodec codec(VLenCodec::Flavor::kUtf8);
  auto c = codec.Decode(FromHex(kUtf8Fixture), spec);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->strings, (std::vector<std::string>{"a", "bc", "", "h\xc3\xa9llo",
                                                  "\xe6\x97\xa5\xe6\x9c\xac"}));
  auto enc = codec.Encode(*c, spec);
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(ToHex(*enc), kUtf8Fixture);
}

TEST(VLenCodecTest, MatchesNumcodecsVLenBytes) {
  ArraySpec spec = MakeSpec({4}, DataType(DataTypeId::kBytes));
  VLenCodec codec(VLenCodec::Flavor::kBytes);
  auto c = codec.Decode(FromHex(kBytesFixture), spec);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->strings,
            (std::vector<std::string>{"x", "", std::string("\0\xff", 2), "abc"}));
  auto enc = codec.Encode(*c, spec);
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(ToHex(*enc), kBytesFixture);
}

TEST(VLenCodecTest, DecodesZarrPythonStringChunk) {
  // zarr-python 3.1.6: dtype str, ["ab", "c", "déf"], codecs vlen-utf8 + zstd.
  ArraySpec spec = MakeSpec({3}, DataType(DataTypeId::kString));
  auto chain = CodecChain::FromJson(
      json::array(
          {{{"name", "vlen-utf8"}, {"configuration", json::object()}},
           {{"name", "zstd"}, {"configuration", {{"level", 0}, {"checksum", false}}}}}),
      spec);
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  auto c = chain->Decode(
      FromHex("28b52ffd2017b900000300000002000000616201000000630400000064c3a966"));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->strings, (std::vector<std::string>{"ab", "c",
                                                  "d\xc3\xa9"
                                                  "f"}));
  EXPECT_EQ(chain->ToJson()[0],
            json({{"name", "vlen-utf8"}, {"configuration", json::object()}}));
}

TEST(VLenCodecTest, CorruptInputIsCorruption) {
  ArraySpec spec = MakeSpec({5}, DataType(DataTypeId::kString));
  VLenCodec codec(VLenCodec::Flavor::kUtf8);
  Buffer good = FromHex(kUtf8Fixture);
  // Every truncation fails: the count says 5 items.
  for (size_t cut = 0; cut < good.size(); ++cut) {
    auto r = codec.Decode(good.view().first(cut), spec);
    ASSERT_FALSE(r.ok()) << cut;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  }
  // Wrong item count.
  auto wrong = codec.Decode(good, MakeSpec({4}, DataType(DataTypeId::kString)));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("needs 4 items, the data holds 5"),
            std::string::npos);
  // A length running past the end.
  Buffer huge = good;
  huge.data()[4] = std::byte{0xff};
  EXPECT_EQ(codec.Decode(huge, spec).status().code(), StatusCode::kCorruption);
  // Invalid UTF-8 (a lone continuation byte) in item 0.
  Buffer bad_utf8 = good;
  bad_utf8.data()[8] = std::byte{0x80};
  auto r = codec.Decode(bad_utf8, spec);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("item 0 is not valid UTF-8"), std::string::npos);
  // The same bytes are fine as vlen-bytes.
  VLenCodec bytes(VLenCodec::Flavor::kBytes);
  EXPECT_TRUE(bytes.Decode(bad_utf8, MakeSpec({5}, DataType(DataTypeId::kBytes))).ok());
}

TEST(VLenCodecTest, EncodeChecksItems) {
  ArraySpec spec = MakeSpec({2}, DataType(DataTypeId::kString));
  VLenCodec codec(VLenCodec::Flavor::kUtf8);
  EXPECT_EQ(codec.Encode(Strings({"a"}), spec).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(codec.Encode(Strings({"a", "\xff"}), spec).status().code(),
            StatusCode::kInvalidArgument);
  auto ok = codec.Encode(Strings({"", ""}), spec);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ToHex(*ok), "020000000000000000000000");
}

TEST(VLenCodecTest, RefusesFixedSizeTypes) {
  auto r =
      MakeCodec({{"name", "vlen-utf8"}}, MakeSpec({2}, DataType(DataTypeId::kInt32)));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

TEST(VLenCodecTest, Utf8Validation) {
  using internal::IsValidUtf8;
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii text, long enough for the fast path"));
  EXPECT_TRUE(IsValidUtf8("\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(IsValidUtf8("abc\xe6\x97"));       // truncated
  EXPECT_FALSE(IsValidUtf8("\xff"));
}

}  // namespace
}  // namespace turbozarr
