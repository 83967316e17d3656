#include "codec/astype_codec.h"

#include <gtest/gtest.h>

#include "testing/codec_fixtures.h"
#include "testing/filter_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::ExpectFilterBytes;

json AsType(const char* encode, const char* decode) {
  return {{"id", "astype"}, {"encode_dtype", encode}, {"decode_dtype", decode}};
}

TEST(AsTypeCodecTest, ConvertsAsNumpy) {
  // Rounding toward zero, and numpy's results for NaN, infinities and
  // values out of int16's range.
  ExpectFilterBytes(AsType("<i2", "<f8"), DataType(DataTypeId::kFloat64),
                    testing::kAsTypeF8I2In, testing::kAsTypeF8I2Out,
                    testing::kAsTypeF8I2Dec);
  ExpectFilterBytes(AsType("|u1", "<i4"), DataType(DataTypeId::kInt32),
                    testing::kAsTypeI4U1In, testing::kAsTypeI4U1Out,
                    testing::kAsTypeI4U1Dec);
  ExpectFilterBytes(AsType("<f4", "<u8"), DataType(DataTypeId::kUInt64),
                    testing::kAsTypeU8F4In, testing::kAsTypeU8F4Out,
                    testing::kAsTypeU8F4Dec);
}

TEST(AsTypeCodecTest, EncodedSpecHasTheEncodeDtypeAndConvertedFill) {
  ArraySpec spec = testing::MakeSpec({3}, DataType(DataTypeId::kFloat64));
  spec.fill_value = *ParseFillValue(-2.75, spec.dtype, 3);
  auto f = testing::MakeFilter(
      {{"name", "numcodecs.astype"}, {"configuration", {{"encode_dtype", "<i2"}}}}, spec);
  ASSERT_NE(f, nullptr);
  auto enc = f->EncodedSpec(spec);
  ASSERT_TRUE(enc.ok());
  EXPECT_TRUE(enc->dtype == DataType(DataTypeId::kInt16));
  EXPECT_EQ(testing::ToHex(enc->fill_value.bytes), "feff");  // -2
  // zarr-python fills decode_dtype in from the array.
  EXPECT_EQ(f->ToJson()["configuration"],
            json({{"encode_dtype", "<i2"}, {"decode_dtype", "<f8"}}));
}

TEST(AsTypeCodecTest, BadConfigurationNamesCodecAndField) {
  const ArraySpec spec = testing::MakeSpec({4}, DataType(DataTypeId::kFloat64));
  auto r = MakeV2Codec({{"id", "astype"}, {"decode_dtype", "<f8"}}, spec);
  EXPECT_EQ(r.status().message(), "codec astype: field \"encode_dtype\": is required");
  r = MakeV2Codec(AsType("<i2", "<i4"), spec);
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(r.status().message(),
            "codec astype: field \"decode_dtype\": \"<i4\" differs from the array's data "
            "type float64");
  r = MakeV2Codec(AsType("<c8", "<f8"), spec);
  EXPECT_EQ(r.status().message(),
            "codec astype: field \"encode_dtype\": \"<c8\" is not a numeric type");
  r = MakeV2Codec(AsType("<q9", "<f8"), spec);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("codec astype: field \"encode_dtype\""),
            std::string::npos);
}

}  // namespace
}  // namespace turbozarr
