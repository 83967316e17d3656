#include "codec/bytes_codec.h"

#include <gtest/gtest.h>

#include "testing/codec_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::FromHex;
using testing::MakeSpec;
using testing::ToHex;

std::shared_ptr<const ArrayToBytesCodec> Make(const json& j, const ArraySpec& spec) {
  auto c = MakeCodec(j, spec);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::dynamic_pointer_cast<const ArrayToBytesCodec>(*c) : nullptr;
}

ChunkArray Int16Chunk(std::vector<int16_t> v) {
  ChunkArray c;
  c.shape = {static_cast<int64_t>(v.size())};
  c.dtype = DataType(DataTypeId::kInt16);
  c.bytes.Assign({reinterpret_cast<const std::byte*>(v.data()), v.size() * 2});
  return c;
}

TEST(BytesCodecTest, EncodesInTheStatedByteOrder) {
  ArraySpec spec = MakeSpec({3}, DataType(DataTypeId::kInt16));
  ChunkArray c = Int16Chunk({1, 2, 0x1234});
  auto big = Make({{"name", "bytes"}, {"configuration", {{"endian", "big"}}}}, spec);
  auto little =
      Make({{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}, spec);
  EXPECT_EQ(ToHex(*big->Encode(c, spec)), "000100021234");
  EXPECT_EQ(ToHex(*little->Encode(c, spec)), "010002003412");
  auto back = big->Decode(FromHex("000100021234"), spec);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->bytes == c.bytes);
  EXPECT_EQ(*big->EncodedSize(spec), 6u);
}

TEST(BytesCodecTest, ComplexSwapsEachHalf) {
  ArraySpec spec = MakeSpec({1}, DataType(DataTypeId::kComplex64));
  ChunkArray c;
  c.shape = {1};
  c.dtype = spec.dtype;
  c.bytes = FromHex("0102030405060708");  // native (little-endian) re, im
  auto big = Make({{"name", "bytes"}, {"configuration", {{"endian", "big"}}}}, spec);
  EXPECT_EQ(ToHex(*big->Encode(c, spec)), "0403020108070605");
}

TEST(BytesCodecTest, DecodesZarrPythonUint8Chunk) {
  // zarr-python 3.1.6: uint8 arange(8), codecs [{"name": "bytes"}].
  ArraySpec spec = MakeSpec({8}, DataType(DataTypeId::kUInt8));
  auto codec = Make({{"name", "bytes"}}, spec);
  auto c = codec->Decode(FromHex("0001020304050607"), spec);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(ToHex(c->bytes), "0001020304050607");
  EXPECT_EQ(codec->ToJson(), json({{"name", "bytes"}}));
}

TEST(BytesCodecTest, WrongSizeIsCorruption) {
  ArraySpec spec = MakeSpec({3}, DataType(DataTypeId::kInt16));
  auto codec = Make({{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}, spec);
  auto r = codec->Decode(FromHex("0102030405"), spec);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  EXPECT_NE(r.status().message().find("needs 6 bytes, got 5"), std::string::npos);
  ChunkArray short_chunk = Int16Chunk({1, 2});
  EXPECT_EQ(codec->Encode(short_chunk, spec).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(BytesCodecTest, RefusesBadConfiguration) {
  ArraySpec i32 = MakeSpec({3}, DataType(DataTypeId::kInt32));
  auto missing = MakeCodec({{"name", "bytes"}}, i32);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("\"endian\""), std::string::npos);

  auto bad =
      MakeCodec({{"name", "bytes"}, {"configuration", {{"endian", "middle"}}}}, i32);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("codec bytes: field \"endian\""),
            std::string::npos);

  auto extra = MakeCodec(
      {{"name", "bytes"}, {"configuration", {{"endian", "little"}, {"order", "C"}}}},
      i32);
  ASSERT_FALSE(extra.ok());
  EXPECT_NE(extra.status().message().find("\"order\""), std::string::npos);

  auto str = MakeCodec({{"name", "bytes"}}, MakeSpec({3}, DataType(DataTypeId::kString)));
  ASSERT_FALSE(str.ok());
  EXPECT_EQ(str.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace turbozarr
