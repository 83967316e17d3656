#include <gtest/gtest.h>

#include "codec/bytes_codec.h"
#include "codec/crc32c_codec.h"
#include "codec/zstd_codec.h"
#include "testing/codec_fixtures.h"
#include "turbozarr/codec.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::MakeSpec;

const json kLittle = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
const json kCrc = {{"name", "crc32c"}};
const json kZstd = {{"name", "zstd"},
                    {"configuration", {{"level", 1}, {"checksum", false}}}};
const json kTranspose = {{"name", "transpose"}, {"configuration", {{"order", {1, 0}}}}};

TEST(CodecChainTest, ValidatesOrder) {
  ArraySpec spec = MakeSpec({2, 3}, DataType(DataTypeId::kInt32));
  struct Bad {
    json codecs;
    const char* message;
  };
  for (const Bad& b : {
           Bad{json::array(), "exactly one array->bytes codec"},
           Bad{json::array({kZstd}), "comes before any array->bytes codec"},
           Bad{json::array({kLittle, kLittle}), "two array->bytes codecs"},
           Bad{json::array({kLittle, kTranspose}), "comes after the array->bytes codec"},
           Bad{json::array({kTranspose, kCrc, kLittle}), "comes before any array->bytes"},
           Bad{json::object(), "codecs must be a list"},
       }) {
    auto r = CodecChain::FromJson(b.codecs, spec);
    ASSERT_FALSE(r.ok()) << b.codecs.dump();
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(b.message), std::string::npos)
        << r.status().message();
  }
}

TEST(CodecChainTest, SpecsFlowThroughTheChain) {
  ArraySpec spec = MakeSpec({2, 3}, DataType(DataTypeId::kInt32));
  auto chain = CodecChain::FromJson(json::array({kTranspose, kLittle, kCrc}), spec);
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  EXPECT_EQ(chain->array_to_array().size(), 1u);
  EXPECT_EQ(chain->bytes_to_bytes().size(), 1u);
  EXPECT_EQ(chain->array_to_bytes()->name(), "bytes");
  EXPECT_EQ(chain->spec().shape, spec.shape);
  EXPECT_EQ(*chain->EncodedSize(), 2u * 3u * 4u + 4u);
  EXPECT_EQ(chain->ToJson(), json::array({kTranspose, kLittle, kCrc}));
  auto compressed = CodecChain::FromJson(json::array({kLittle, kZstd, kCrc}), spec);
  EXPECT_FALSE(compressed->EncodedSize().has_value());
}

TEST(CodecChainTest, MakeFromCodecObjects) {
  ArraySpec spec = MakeSpec({5}, DataType(DataTypeId::kUInt16));
  auto chain = CodecChain::Make(
      {}, std::make_shared<BytesCodec>(std::endian::big),
      {std::make_shared<ZstdCodec>(3, true), std::make_shared<Crc32cCodec>()}, spec);
  ASSERT_TRUE(chain.ok());
  ChunkArray c = testing::PatternChunk(spec);
  auto enc = chain->Encode(c);
  ASSERT_TRUE(enc.ok());
  auto dec = chain->Decode(*enc);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_TRUE(dec->bytes == c.bytes);
  EXPECT_FALSE(CodecChain::Make({}, nullptr, {}, spec).ok());
}

TEST(CodecChainTest, DecodedSizeIsCheckedAgainstTheSpec) {
  // A valid zstd frame of the wrong size for the chunk: the chain tells zstd
  // the size to expect, so this is Corruption, not a short chunk.
  ArraySpec spec = MakeSpec({4}, DataType(DataTypeId::kInt32));
  auto chain = CodecChain::FromJson(json::array({kLittle, kZstd}), spec);
  ASSERT_TRUE(chain.ok());
  ZstdCodec zstd(1, false);
  auto frame = zstd.Encode(testing::PatternBytes(15));
  auto r = chain->Decode(*frame);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  // Without a compressor the bytes codec itself checks.
  auto plain = CodecChain::FromJson(json::array({kLittle, kCrc}), spec);
  Crc32cCodec crc;
  auto short_chunk = crc.Encode(testing::PatternBytes(12));
  auto p = plain->Decode(*short_chunk);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kCorruption);
  EXPECT_NE(p.status().message().find("expected 16 bytes, got 12"), std::string::npos)
      << p.status().message();
}

TEST(CodecChainTest, VariableLengthChains) {
  ArraySpec spec = MakeSpec({2, 2}, DataType(DataTypeId::kString));
  auto chain = CodecChain::FromJson(
      json::array({kTranspose, {{"name", "vlen-utf8"}}, kZstd, kCrc}), spec);
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  ChunkArray c;
  c.shape = {2, 2};
  c.dtype = spec.dtype;
  c.strings = {"alpha", "", "gamma", "δέλτα"};
  auto enc = chain->Encode(c);
  ASSERT_TRUE(enc.ok()) << enc.status().ToString();
  auto dec = chain->Decode(*enc);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_EQ(dec->strings, c.strings);
  EXPECT_FALSE(chain->EncodedSize().has_value());
}

TEST(CodecChainTest, EncodeFromGivesTheBytesOfEncode) {
  const ArraySpec spec = MakeSpec({6, 5}, DataType(DataTypeId::kInt32));
  const json big = {{"name", "bytes"}, {"configuration", {{"endian", "big"}}}};
  const json blosc = {{"name", "blosc"},
                      {"configuration",
                       {{"cname", "lz4"},
                        {"clevel", 5},
                        {"shuffle", "shuffle"},
                        {"typesize", 4},
                        {"blocksize", 0}}}};
  const ChunkArray chunk = testing::PatternChunk(spec, 3);
  for (const json& codecs :
       {json::array({kLittle}), json::array({big}), json::array({kLittle, kCrc}),
        json::array({big, kZstd, kCrc}), json::array({kLittle, blosc})}) {
    SCOPED_TRACE(codecs.dump());
    auto chain = CodecChain::FromJson(codecs, spec);
    ASSERT_TRUE(chain.ok());
    ASSERT_TRUE(chain->CanEncodeFrom());
    auto want = chain->Encode(chunk);
    ASSERT_TRUE(want.ok());
    Buffer storage;
    auto got = chain->EncodeFrom(chunk.bytes.view(), storage);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(Buffer(*got) == *want);
    // Only the native-order bytes codec alone hands back the input itself.
    EXPECT_EQ(got->data() == chunk.bytes.data(), codecs == json::array({kLittle}));
  }
}

TEST(CodecChainTest, EncodeFromRefusesWhatItCannotEncode) {
  const ArraySpec spec = MakeSpec({2, 3}, DataType(DataTypeId::kInt32));
  auto transposed = CodecChain::FromJson(json::array({kTranspose, kLittle}), spec);
  ASSERT_TRUE(transposed.ok());
  EXPECT_FALSE(transposed->CanEncodeFrom());
  Buffer elements(24), storage;
  EXPECT_EQ(transposed->EncodeFrom(elements.view(), storage).status().code(),
            StatusCode::kInvalidArgument);
  auto plain = CodecChain::FromJson(json::array({kLittle, kZstd}), spec);
  ASSERT_TRUE(plain.ok());
  auto wrong = plain->EncodeFrom(elements.view().first(20), storage);
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wrong.status().message().find("needs 24 bytes"), std::string::npos)
      << wrong.status().message();
}

}  // namespace
}  // namespace turbozarr
