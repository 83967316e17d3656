#include "codec/scale_offset_codec.h"

#include <gtest/gtest.h>

#include "testing/codec_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::ChunkFromHex;
using testing::ExpectFilterBytes;

json ScaleOffset(json offset, json scale) {
  return {{"name", "scale_offset"},
          {"configuration", {{"offset", offset}, {"scale", scale}}}};
}

// The values below are zarr-python 3.4's (ScaleOffset._encode_sync on the
// same arrays); test_interop_filters.py checks whole arrays against it.
TEST(ScaleOffsetCodecTest, IntegersComputeExactly) {
  // int16 [-3, 0, 7, 100] with offset 5, scale 10: [-80, -50, 20, 950].
  ExpectFilterBytes(ScaleOffset(5, 10), DataType(DataTypeId::kInt16),
                    "fdff00000700"
                    "6400",
                    "b0ffceff1400b603");
  // int64's minimum with offset -1: -2^63 + 1, no overflow on the way.
  ExpectFilterBytes(ScaleOffset(-1, 1), DataType(DataTypeId::kInt64), "0000000000000080",
                    "0100000000000080");
}

TEST(ScaleOffsetCodecTest, FloatsComputeInTheirType) {
  // float32 [1.5, -2.25] with offset 0.5, scale 4: [4, -11].
  ExpectFilterBytes(ScaleOffset(0.5, 4), DataType(DataTypeId::kFloat32),
                    "0000c03f000010c0",
                    "000080400000"
                    "30c1");
  // "NaN" offset: every value NaN.
  ExpectFilterBytes(ScaleOffset("NaN", 1), DataType(DataTypeId::kFloat64),
                    "0000000000000000", "000000000000f87f", "000000000000f87f");
}

TEST(ScaleOffsetCodecTest, OverflowAndInexactDivisionAreErrors) {
  const DataType i8(DataTypeId::kInt8);
  const ArraySpec spec = testing::MakeSpec({2}, i8);
  auto f = testing::MakeFilter(ScaleOffset(0, 2), spec);
  ASSERT_NE(f, nullptr);
  auto r = f->Encode(ChunkFromHex("0140", i8));  // 64 * 2 = 128 > 127
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "codec scale_offset: (64 - offset) * scale is outside the range of int8");
  r = f->Decode(ChunkFromHex("0203", i8), spec);  // 3 / 2 is not whole
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  EXPECT_EQ(r.status().message(),
            "codec scale_offset: the stored value 3 is not a multiple of scale 2");
}

TEST(ScaleOffsetCodecTest, JsonListsOnlyFieldsOtherThanTheDefaults) {
  const ArraySpec spec = testing::MakeSpec({2}, DataType(DataTypeId::kFloat64));
  EXPECT_EQ(testing::MakeFilter({{"name", "scale_offset"}}, spec)->ToJson(),
            json({{"name", "scale_offset"}}));
  EXPECT_EQ(testing::MakeFilter(ScaleOffset(0, 2.5), spec)->ToJson(),
            json({{"name", "scale_offset"}, {"configuration", {{"scale", 2.5}}}}));
  EXPECT_EQ(testing::MakeFilter(ScaleOffset("1.5", 1), spec)->ToJson(),
            json({{"name", "scale_offset"}, {"configuration", {{"offset", "1.5"}}}}));
}

TEST(ScaleOffsetCodecTest, TheFillValueIsEncodedToo) {
  ArraySpec spec = testing::MakeSpec({2}, DataType(DataTypeId::kInt32));
  spec.fill_value = *ParseFillValue(3, spec.dtype, 3);
  auto f = testing::MakeFilter(ScaleOffset(1, 100), spec);
  auto enc = f->EncodedSpec(spec);
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(testing::ToHex(enc->fill_value.bytes), "c8000000");  // 200
}

TEST(ScaleOffsetCodecTest, BadConfigurationNamesCodecAndField) {
  const ArraySpec i4 = testing::MakeSpec({2}, DataType(DataTypeId::kInt32));
  auto r = MakeCodec(ScaleOffset(0, 0), i4);
  EXPECT_EQ(r.status().message(), "codec scale_offset: field \"scale\": must not be 0");
  r = MakeCodec(ScaleOffset(0.5, 1), i4);
  EXPECT_EQ(r.status().message(),
            "codec scale_offset: field \"offset\": 0.5 is not a value of int32");
  r = MakeCodec(ScaleOffset(1, 1), testing::MakeSpec({2}, DataType(DataTypeId::kString)));
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  r = MakeCodec({{"name", "scale_offset"}, {"configuration", {{"factor", 2}}}}, i4);
  EXPECT_EQ(r.status().message(),
            "codec scale_offset: field \"factor\": unknown field (value 2)");
}

}  // namespace
}  // namespace turbozarr
