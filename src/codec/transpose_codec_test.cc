#include "codec/transpose_codec.h"

#include <gtest/gtest.h>

#include "testing/codec_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::FromHex;
using testing::MakeSpec;
using testing::ToHex;

TEST(TransposeCodecTest, DecodesZarrPythonBigEndianChunk) {
  // zarr-python: int16 arange(6).reshape(2, 3), codecs transpose [1, 0] then
  // bytes big-endian.
  ArraySpec spec = MakeSpec({2, 3}, DataType(DataTypeId::kInt16));
  auto chain = CodecChain::FromJson(
      json::array({{{"name", "transpose"}, {"configuration", {{"order", {1, 0}}}}},
                   {{"name", "bytes"}, {"configuration", {{"endian", "big"}}}}}),
      spec);
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  Buffer stored = FromHex("000000030001000400020005");
  auto c = chain->Decode(stored);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  std::vector<int16_t> v(6);
  std::memcpy(v.data(), c->bytes.data(), 12);
  EXPECT_EQ(v, (std::vector<int16_t>{0, 1, 2, 3, 4, 5}));
  auto again = chain->Encode(*c);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(*again == stored);
}

TEST(TransposeCodecTest, MatchesZarrPythonIn3D) {
  // uint8 arange(24).reshape(2, 3, 4), transpose [2, 0, 1].
  ArraySpec spec = MakeSpec({2, 3, 4}, DataType(DataTypeId::kUInt8));
  auto chain = CodecChain::FromJson(
      json::array({{{"name", "transpose"}, {"configuration", {{"order", {2, 0, 1}}}}},
                   {{"name", "bytes"}}}),
      spec);
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  ChunkArray c;
  c.shape = spec.shape;
  c.dtype = spec.dtype;
  c.bytes.Resize(24);
  for (int i = 0; i < 24; ++i) c.bytes.data()[i] = std::byte(i);
  auto enc = chain->Encode(c);
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(ToHex(*enc), "0004080c10140105090d111502060a0e121603070b0f1317");
  auto dec = chain->Decode(*enc);
  ASSERT_TRUE(dec.ok());
  EXPECT_TRUE(dec->bytes == c.bytes);
}

TEST(TransposeCodecTest, EncodedSpecPermutesShape) {
  TransposeCodec t({2, 0, 1});
  auto s = t.EncodedSpec(MakeSpec({2, 3, 4}, DataType(DataTypeId::kFloat32)));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->shape, (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(t.ToJson(),
            json({{"name", "transpose"}, {"configuration", {{"order", {2, 0, 1}}}}}));
}

TEST(TransposeCodecTest, TransposesStrings) {
  ArraySpec spec = MakeSpec({2, 2}, DataType(DataTypeId::kString));
  TransposeCodec t({1, 0});
  ChunkArray c;
  c.shape = {2, 2};
  c.dtype = spec.dtype;
  c.strings = {"a", "b", "c", "d"};
  auto enc = t.Encode(c);
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(enc->strings, (std::vector<std::string>{"a", "c", "b", "d"}));
  auto dec = t.Decode(*enc, spec);
  ASSERT_TRUE(dec.ok());
  EXPECT_EQ(dec->strings, c.strings);
}

TEST(TransposeCodecTest, WideElementsAndEmptyChunks) {
  for (DataType dt :
       {DataType(DataTypeId::kComplex128), DataType::Sized(DataTypeId::kRawBits, 3)}) {
    for (std::vector<int64_t> shape :
         {std::vector<int64_t>{3, 4, 5}, {0, 2, 2}, {1, 1, 1}}) {
      ArraySpec spec = MakeSpec(shape, dt);
      TransposeCodec t({1, 2, 0});
      ChunkArray c = testing::PatternChunk(spec);
      auto enc = t.Encode(c);
      ASSERT_TRUE(enc.ok());
      auto dec = t.Decode(*enc, spec);
      ASSERT_TRUE(dec.ok());
      EXPECT_TRUE(dec->bytes == c.bytes);
      EXPECT_EQ(dec->shape, shape);
    }
  }
}

TEST(TransposeCodecTest, OldSpellingsAndBadOrders) {
  ArraySpec spec = MakeSpec({2, 3, 4}, DataType(DataTypeId::kUInt8));
  auto f = MakeCodec({{"name", "transpose"}, {"configuration", {{"order", "F"}}}}, spec);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->ToJson()["configuration"]["order"], json({2, 1, 0}));
  for (json bad : {json({0, 0, 1}), json({0, 1}), json({0, 1, 3}), json({0, 1, -1}),
                   json("X"), json({0.5, 1, 2}), json()}) {
    auto r =
        MakeCodec({{"name", "transpose"}, {"configuration", {{"order", bad}}}}, spec);
    ASSERT_FALSE(r.ok()) << bad.dump();
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("codec transpose: field \"order\""),
              std::string::npos)
        << r.status().message();
  }
}

TEST(TransposeCodecTest, DecodeOfWrongShapeIsCorruption) {
  TransposeCodec t({1, 0});
  ArraySpec spec = MakeSpec({2, 3}, DataType(DataTypeId::kUInt8));
  ChunkArray wrong =
      testing::PatternChunk(MakeSpec({2, 3}, DataType(DataTypeId::kUInt8)));
  auto r = t.Decode(wrong, spec);  // encoded shape should be [3, 2]
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace turbozarr
