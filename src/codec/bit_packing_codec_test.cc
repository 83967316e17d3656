#include "codec/bit_packing_codec.h"

#include <gtest/gtest.h>

#include "codec/codec_registry.h"
#include "testing/codec_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::FromHex;
using testing::MakeSpec;
using testing::ToHex;

std::shared_ptr<const ArrayToBytesCodec> Make(const json& config, const ArraySpec& spec) {
  auto c = MakeCodec({{"name", "packbits"}, {"configuration", config}}, spec);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::dynamic_pointer_cast<const ArrayToBytesCodec>(*c) : nullptr;
}

// Encodes `elements` (hex, native layout) and expects `stored` (hex); decodes
// `stored` and expects `decoded` (hex; the elements unless the codec drops bits).
void ExpectPacked(const json& config, DataType dtype, std::vector<int64_t> shape,
                  std::string_view elements, std::string_view stored,
                  std::string_view decoded = {}) {
  SCOPED_TRACE(dtype.ToString() + " " + config.dump());
  const ArraySpec spec = MakeSpec(shape, dtype);
  auto codec = Make(config, spec);
  ASSERT_NE(codec, nullptr);
  auto encoded = codec->Encode(testing::ChunkFromHex(elements, dtype), spec);
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  EXPECT_EQ(ToHex(encoded->view()), stored);
  EXPECT_EQ(codec->EncodedSize(spec), encoded->size());
  const Buffer in = FromHex(stored);
  auto back = codec->Decode(in.view(), spec);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(ToHex(back->bytes.view()), decoded.empty() ? elements : decoded);
}

// Bit layouts worked out from the zarr-extensions specification: elements end
// to end, least significant bit first, as zarrs packs them.
TEST(BitPackingCodecTest, PacksSubByteTypes) {
  // int4 -1, 2, 7, -8, 0 (ml_dtypes' bytes): nibbles f,2 | 7,8 | 0 + 4 padding bits.
  ExpectPacked(json::object(), DataType(DataTypeId::kInt4), {5}, "0f02070800", "2f8700");
  ExpectPacked({{"padding_encoding", "first_byte"}}, DataType(DataTypeId::kInt4), {5},
               "0f02070800", "042f8700");
  ExpectPacked({{"padding_encoding", "last_byte"}}, DataType(DataTypeId::kUInt4), {2, 2},
               "010f0a03", "f13a00");
  // Bits above the value are dropped when packed.
  ExpectPacked(json::object(), DataType(DataTypeId::kInt4), {2}, "ff21", "1f", "0f01");
  // int2 -2, -1, 0, 1 -> 2, 3, 0, 1 in two bits each.
  ExpectPacked(json::object(), DataType(DataTypeId::kInt2), {4}, "02030001", "4e");
  ExpectPacked(json::object(), DataType(DataTypeId::kUInt2), {5}, "0302010003", "1b03");
  // float4_e2m1fn 6.0, -0.5 and float6_e2m3fn 7.5, 0.125.
  ExpectPacked(json::object(), DataType(DataTypeId::kFloat4E2M1FN), {2}, "0709", "97");
  ExpectPacked(json::object(), DataType(DataTypeId::kFloat6E2M3FN), {2}, "1f01", "5f00");
  // bool: one bit each; numcodecs' byte order is the other way round.
  ExpectPacked({{"padding_encoding", "first_byte"}}, DataType(DataTypeId::kBool), {9},
               "010001010000000001", "070d01");
}

TEST(BitPackingCodecTest, WholeTypesAreTheirLittleEndianBytes) {
  ExpectPacked(json::object(), DataType(DataTypeId::kUInt16), {2}, "3412cdab", "3412cdab");
  ExpectPacked(json::object(), DataType(DataTypeId::kBFloat16), {2}, "c03f80bf", "c03f80bf");
  ExpectPacked(json::object(), DataType(DataTypeId::kFloat8E4M3FN), {3}, "7e0180", "7e0180");
  ExpectPacked(json::object(), DataType(DataTypeId::kComplex64), {1}, "0000803f000000c0",
               "0000803f000000c0");
}

TEST(BitPackingCodecTest, BitRanges) {
  // uint8 bits 2..5 of 0x3c, 0xff: 1111, 1111.
  ExpectPacked({{"first_bit", 2}, {"last_bit", 5}}, DataType(DataTypeId::kUInt8), {2},
               "3cff", "ff", "3c3c");
  // int8 bits 0..3, sign-extended from bit 3: -3 (fd) -> d -> fd; 5 -> 5.
  ExpectPacked({{"last_bit", 3}}, DataType(DataTypeId::kInt8), {2}, "fd05", "5d");
  // int16 bits 4..11 of 0x0ab0: 0xab, sign-extended from bit 11 above it.
  ExpectPacked({{"first_bit", 4}, {"last_bit", 11}}, DataType(DataTypeId::kInt16), {1},
               "b00a", "ab", "b0fa");
}

TEST(BitPackingCodecTest, WritesItsConfigurationAsZarrs) {
  const ArraySpec spec = MakeSpec({4}, DataType(DataTypeId::kInt4));
  EXPECT_EQ(Make(json::object(), spec)->ToJson(),
            json({{"name", "packbits"}, {"configuration", json::object()}}));
  EXPECT_EQ(Make({{"padding_encoding", "none"}, {"first_bit", nullptr}}, spec)->ToJson(),
            json({{"name", "packbits"}, {"configuration", json::object()}}));
  EXPECT_EQ(Make({{"padding_encoding", "last_byte"}, {"last_bit", 2}}, spec)->ToJson(),
            json({{"name", "packbits"},
                  {"configuration", {{"padding_encoding", "last_byte"}, {"last_bit", 2}}}}));
}

TEST(BitPackingCodecTest, RefusesWhatItCannotPack) {
  auto refused = [](const json& config, DataType dtype) {
    auto c = MakeCodec({{"name", "packbits"}, {"configuration", config}}, MakeSpec({4}, dtype));
    EXPECT_FALSE(c.ok()) << config.dump() << " " << dtype.ToString();
    return c.ok() ? std::string() : c.status().message();
  };
  EXPECT_EQ(refused(json::object(), DataType(DataTypeId::kString)),
            "codec packbits: cannot pack the data type string");
  EXPECT_EQ(refused({{"last_bit", 4}}, DataType(DataTypeId::kInt4)),
            "codec packbits: field \"last_bit\": bits 0 to 4 are not within the 4 bits of int4");
  EXPECT_NE(refused({{"first_bit", 3}, {"last_bit", 2}}, DataType(DataTypeId::kUInt8)), "");
  EXPECT_NE(refused({{"padding_encoding", "start"}}, DataType(DataTypeId::kUInt8)), "");
  EXPECT_NE(refused({{"bits", 4}}, DataType(DataTypeId::kUInt8)), "");
}

TEST(BitPackingCodecTest, ReadsWholeByteTypesWithoutThePaddingByteAsZarrsWritesThem) {
  const ArraySpec spec = MakeSpec({2}, DataType(DataTypeId::kUInt16));
  auto codec = Make({{"padding_encoding", "first_byte"}}, spec);
  ASSERT_NE(codec, nullptr);
  auto written = codec->Encode(testing::ChunkFromHex("3412cdab", spec.dtype), spec);
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(ToHex(written->view()), "003412cdab");  // as the specification says
  for (const char* stored : {"003412cdab", "3412cdab"}) {
    auto r = codec->Decode(FromHex(stored).view(), spec);
    ASSERT_TRUE(r.ok()) << stored << ": " << r.status().ToString();
    EXPECT_EQ(ToHex(r->bytes.view()), "3412cdab");
  }
}

TEST(BitPackingCodecTest, WrongSizesAndPaddingAreCorruption) {
  const ArraySpec spec = MakeSpec({5}, DataType(DataTypeId::kInt4));
  auto codec = Make({{"padding_encoding", "first_byte"}}, spec);
  ASSERT_NE(codec, nullptr);
  auto r = codec->Decode(FromHex("042f87").view(), spec);
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  r = codec->Decode(FromHex("032f8700").view(), spec);
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  EXPECT_EQ(r.status().message(),
            "codec packbits: 3 padding bits recorded, 4 expected for a chunk of 5 elements");
}

}  // namespace
}  // namespace turbozarr
