// DecodeInto, for every bytes->bytes codec and for chains: the same bytes as
// Decode, Corruption for the wrong size or bad data, and never a write past
// the destination (guard bytes around it, and the sanitizers).
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "testing/codec_fixtures.h"
#include "turbozarr/codec.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::MakeSpec;
using testing::PatternBytes;
using testing::RandomBytes;

const json kLittle = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
const json kBig = {{"name", "bytes"}, {"configuration", {{"endian", "big"}}}};
const json kCrc = {{"name", "crc32c"}};
const json kZstd = {{"name", "zstd"},
                    {"configuration", {{"level", 3}, {"checksum", true}}}};
const json kTranspose = {{"name", "transpose"}, {"configuration", {{"order", {1, 0}}}}};

std::vector<json> Codecs() {
  return {
      kCrc,
      kZstd,
      {{"name", "zstd"}, {"configuration", {{"level", -1}, {"checksum", false}}}},
      {{"name", "gzip"}, {"configuration", {{"level", 1}}}},
      {{"name", "numcodecs.zlib"}, {"configuration", {{"level", 1}}}},
      {{"name", "numcodecs.lz4"}, {"configuration", {{"acceleration", 1}}}},
      {{"name", "numcodecs.bz2"}, {"configuration", {{"level", 1}}}},
      {{"name", "blosc"},
       {"configuration",
        {{"cname", "lz4"},
         {"clevel", 5},
         {"shuffle", "shuffle"},
         {"typesize", 4},
         {"blocksize", 0}}}},
      {{"name", "blosc"},
       {"configuration",
        {{"cname", "zstd"},
         {"clevel", 3},
         {"shuffle", "bitshuffle"},
         {"typesize", 2},
         {"blocksize", 256}}}},
      {{"name", "blosc"},
       {"configuration",
        {{"cname", "blosclz"},
         {"clevel", 0},
         {"shuffle", "noshuffle"},
         {"typesize", 1},
         {"blocksize", 0}}}},  // clevel 0: stored raw
  };
}

// A destination of `size` bytes with guard bytes on both sides.
class GuardedOut {
 public:
  explicit GuardedOut(size_t size) : buf_(size + 2 * kGuard) {
    std::memset(buf_.data(), 0xA5, buf_.size());
  }
  MutableByteView view() { return {buf_.data() + kGuard, buf_.size() - 2 * kGuard}; }
  bool GuardsIntact() const {
    for (size_t i = 0; i < kGuard; ++i) {
      if (buf_.data()[i] != std::byte{0xA5}) return false;
      if (buf_.data()[buf_.size() - 1 - i] != std::byte{0xA5}) return false;
    }
    return true;
  }

 private:
  static constexpr size_t kGuard = 64;
  Buffer buf_;
};

class BytesCodecDecodeIntoTest : public ::testing::TestWithParam<json> {
 protected:
  std::shared_ptr<const BytesToBytesCodec> Codec() {
    auto c = MakeCodec(GetParam(), MakeSpec({1024}, DataType(DataTypeId::kUInt16)));
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return std::dynamic_pointer_cast<const BytesToBytesCodec>(*c);
  }
};

TEST_P(BytesCodecDecodeIntoTest, MatchesDecode) {
  auto codec = Codec();
  ASSERT_NE(codec, nullptr);
  for (const Buffer& in : {Buffer(), PatternBytes(1), PatternBytes(4096),
                           RandomBytes(3001), PatternBytes(300000, 3)}) {
    SCOPED_TRACE(std::to_string(in.size()) + " bytes");
    auto enc = codec->Encode(in);
    ASSERT_TRUE(enc.ok()) << enc.status().ToString();
    GuardedOut out(in.size());
    Status s = codec->DecodeInto(*enc, out.view());
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(Buffer(out.view()) == in);
    EXPECT_TRUE(out.GuardsIntact());
  }
}

TEST_P(BytesCodecDecodeIntoTest, WrongSizeIsCorruption) {
  auto codec = Codec();
  ASSERT_NE(codec, nullptr);
  const Buffer in = PatternBytes(4096);
  auto enc = codec->Encode(in);
  ASSERT_TRUE(enc.ok());
  for (size_t wrong : {size_t{0}, size_t{1}, size_t{4095}, size_t{4097}, size_t{8192}}) {
    GuardedOut out(wrong);
    Status s = codec->DecodeInto(*enc, out.view());
    EXPECT_EQ(s.code(), StatusCode::kCorruption) << wrong << ": " << s.ToString();
    EXPECT_TRUE(out.GuardsIntact()) << wrong;
  }
}

TEST_P(BytesCodecDecodeIntoTest, BadInputFailsWithoutWritingPastTheEnd) {
  auto codec = Codec();
  ASSERT_NE(codec, nullptr);
  const Buffer in = PatternBytes(2048);
  auto enc = codec->Encode(in);
  ASSERT_TRUE(enc.ok());
  auto check = [&](ByteView bad, const std::string& what) {
    GuardedOut out(in.size());
    Status s = codec->DecodeInto(bad, out.view());
    if (!s.ok()) {
      EXPECT_EQ(s.code(), StatusCode::kCorruption) << what << s.ToString();
    }
    EXPECT_TRUE(out.GuardsIntact()) << what;
  };
  check(ByteView(), "empty");
  for (size_t cut :
       {size_t{1}, size_t{4}, size_t{15}, enc->size() / 2, enc->size() - 1}) {
    if (cut < enc->size()) check(enc->view().first(cut), "cut " + std::to_string(cut));
  }
  for (size_t bit = 0; bit < enc->size() * 8; bit += 7) {
    Buffer bad = *enc;
    bad.data()[bit / 8] ^= std::byte(1u << (bit % 8));
    check(bad, "bit " + std::to_string(bit));
  }
  for (uint32_t seed = 1; seed <= 4; ++seed) check(RandomBytes(300, seed), "garbage");
}

INSTANTIATE_TEST_SUITE_P(All, BytesCodecDecodeIntoTest, ::testing::ValuesIn(Codecs()),
                         [](const auto& info) {
                           return "codec" + std::to_string(info.index);
                         });

TEST(CodecChainDecodeIntoTest, AgreesWithDecodeForEveryDecodableChain) {
  std::vector<json> chains = {
      json::array({kLittle}), json::array({kBig}), json::array({kLittle, kCrc}),
      json::array({kBig, kZstd, kCrc}), json::array({kLittle, kCrc, kZstd})};
  for (const json& c : Codecs()) chains.push_back(json::array({kBig, c}));
  for (const DataType& dtype :
       {DataType(DataTypeId::kUInt8), DataType(DataTypeId::kInt32),
        DataType(DataTypeId::kFloat64), DataType(DataTypeId::kComplex64)}) {
    const ArraySpec spec = MakeSpec({9, 7}, dtype);
    const ChunkArray chunk = testing::PatternChunk(spec);
    for (const json& codecs : chains) {
      SCOPED_TRACE(dtype.ToString() + " " + codecs.dump());
      auto chain = CodecChain::FromJson(codecs, spec);
      ASSERT_TRUE(chain.ok()) << chain.status().ToString();
      ASSERT_TRUE(chain->CanDecodeInto());
      auto enc = chain->Encode(chunk);
      ASSERT_TRUE(enc.ok()) << enc.status().ToString();
      GuardedOut out(chunk.bytes.size());
      Status s = chain->DecodeInto(*enc, out.view());
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_TRUE(Buffer(out.view()) == chunk.bytes);
      EXPECT_TRUE(out.GuardsIntact());
    }
  }
}

TEST(CodecChainDecodeIntoTest, RefusesWhatItCannotDo) {
  const ArraySpec spec = MakeSpec({3, 4}, DataType(DataTypeId::kInt16));
  auto transposed = CodecChain::FromJson(json::array({kTranspose, kLittle}), spec);
  ASSERT_TRUE(transposed.ok());
  EXPECT_FALSE(transposed->CanDecodeInto());
  Buffer out(24);
  EXPECT_EQ(transposed->DecodeInto(Buffer(24), out.mutable_view()).code(),
            StatusCode::kInvalidArgument);
  const ArraySpec strings = MakeSpec({3}, DataType(DataTypeId::kString));
  auto vlen = CodecChain::FromJson(json::array({{{"name", "vlen-utf8"}}}), strings);
  ASSERT_TRUE(vlen.ok()) << vlen.status().ToString();
  EXPECT_FALSE(vlen->CanDecodeInto());
  // The destination must be exactly one chunk.
  auto plain = CodecChain::FromJson(json::array({kLittle}), spec);
  ASSERT_TRUE(plain.ok());
  Buffer small(23);
  EXPECT_EQ(plain->DecodeInto(Buffer(24), small.mutable_view()).code(),
            StatusCode::kInvalidArgument);
}

TEST(CodecChainDecodeIntoTest, BadDataIsCorruption) {
  const ArraySpec spec = MakeSpec({8, 8}, DataType(DataTypeId::kInt32));
  const ChunkArray chunk = testing::PatternChunk(spec);
  for (const json& codecs :
       {json::array({kLittle}), json::array({kBig, kCrc}),
        json::array({kLittle, kZstd, kCrc}), json::array({kLittle, kCrc, kZstd})}) {
    SCOPED_TRACE(codecs.dump());
    auto chain = CodecChain::FromJson(codecs, spec);
    ASSERT_TRUE(chain.ok());
    auto enc = chain->Encode(chunk);
    ASSERT_TRUE(enc.ok());
    {
      GuardedOut out(256);
      Status s = chain->DecodeInto(enc->view().first(enc->size() - 1), out.view());
      EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
      EXPECT_TRUE(out.GuardsIntact());
    }
    if (codecs.size() > 1) {  // a checksum or a compressor catches a flip
      Buffer bad = *enc;
      bad.data()[bad.size() / 2] ^= std::byte{0x08};
      GuardedOut out(256);
      Status s = chain->DecodeInto(bad, out.view());
      EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
      EXPECT_TRUE(out.GuardsIntact());
    }
  }
}

TEST(CodecChainRawElementsTest, ViewsVerifiedElementsOfUncompressedChains) {
  const ArraySpec spec = MakeSpec({5, 3}, DataType(DataTypeId::kInt32));
  const ChunkArray chunk = testing::PatternChunk(spec);
  const json native = std::endian::native == std::endian::little ? kLittle : kBig;
  const json swapped = std::endian::native == std::endian::little ? kBig : kLittle;
  for (const json& codecs : {json::array({native}), json::array({native, kCrc, kCrc})}) {
    SCOPED_TRACE(codecs.dump());
    auto chain = CodecChain::FromJson(codecs, spec);
    ASSERT_TRUE(chain.ok());
    ASSERT_TRUE(chain->StoresRawElements());
    auto enc = chain->Encode(chunk);
    ASSERT_TRUE(enc.ok());
    auto view = chain->RawElements(*enc);
    ASSERT_TRUE(view.ok()) << view.status().ToString();
    EXPECT_TRUE(Buffer(*view) == chunk.bytes);
    EXPECT_GE(view->data(), enc->data());  // a view, not a copy
    EXPECT_LE(view->data() + view->size(), enc->data() + enc->size());
    EXPECT_EQ(chain->RawElements(enc->view().first(enc->size() - 1)).status().code(),
              StatusCode::kCorruption);
    if (codecs.size() > 1) {
      Buffer bad = *enc;
      bad.data()[3] ^= std::byte{1};
      EXPECT_EQ(chain->RawElements(bad).status().code(), StatusCode::kCorruption);
    }
  }
  for (const json& codecs : {json::array({swapped}), json::array({native, kZstd}),
                             json::array({kTranspose, native})}) {
    auto chain = CodecChain::FromJson(codecs, spec);
    ASSERT_TRUE(chain.ok());
    EXPECT_FALSE(chain->StoresRawElements()) << codecs.dump();
    EXPECT_EQ(chain->RawElements(Buffer(60)).status().code(),
              StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace turbozarr
