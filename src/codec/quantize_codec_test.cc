#include "codec/quantize_codec.h"

#include <gtest/gtest.h>

#include "testing/codec_fixtures.h"
#include "testing/filter_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::ExpectFilterBytes;
using testing::FromHex;

const DataType kF8(DataTypeId::kFloat64), kF4(DataTypeId::kFloat32),
    kF2(DataTypeId::kFloat16);

json Quantize(int digits, const char* dtype, const char* astype) {
  return {{"id", "quantize"}, {"digits", digits}, {"dtype", dtype}, {"astype", astype}};
}

TEST(QuantizeCodecTest, EncodesAsNumcodecs) {
  // Decoding only converts back: the quantized values are what is read.
  ExpectFilterBytes(Quantize(1, "<f8", "<f8"), kF8, testing::kQuantizeD1In,
                    testing::kQuantizeD1Out, testing::kQuantizeD1Out);
  ExpectFilterBytes(Quantize(3, "<f8", "<f4"), kF8, testing::kQuantizeD3F4In,
                    testing::kQuantizeD3F4Out, testing::kQuantizeD3F4Dec);
  ExpectFilterBytes(Quantize(2, "<f4", "<f4"), kF4, testing::kQuantizeF4In,
                    testing::kQuantizeF4Out, testing::kQuantizeF4Out);
  ExpectFilterBytes(Quantize(2, "<f2", "<f2"), kF2, testing::kQuantizeF2In,
                    testing::kQuantizeF2Out, testing::kQuantizeF2Out);
}

TEST(QuantizeCodecTest, ScaleFollowsNumcodecsFormula) {
  // digits -> 2^bits: 1 -> 16, 2 -> 128, 3 -> 1024, 0 -> 1, -1 -> 1/8.
  EXPECT_EQ(*QuantizeCodec::ScaleFor(1), 16.0);
  EXPECT_EQ(*QuantizeCodec::ScaleFor(2), 128.0);
  EXPECT_EQ(*QuantizeCodec::ScaleFor(3), 1024.0);
  EXPECT_EQ(*QuantizeCodec::ScaleFor(0), 1.0);
  EXPECT_EQ(*QuantizeCodec::ScaleFor(-1), 0.125);
  EXPECT_FALSE(QuantizeCodec::ScaleFor(400).ok());  // Python: math domain error
}

TEST(QuantizeCodecTest, BadConfigurationNamesCodecAndField) {
  const ArraySpec spec = testing::MakeSpec({4}, kF8);
  auto r = MakeV2Codec({{"id", "quantize"}, {"dtype", "<f8"}}, spec);
  EXPECT_EQ(r.status().message(), "codec quantize: field \"digits\": is required");
  r = MakeV2Codec(Quantize(2, "<f8", "<i4"), spec);
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(r.status().message(),
            "codec quantize: field \"astype\": \"<i4\" is not a float type");
  r = MakeV2Codec(Quantize(2, "<i8", "<f8"),
                  testing::MakeSpec({4}, DataType(DataTypeId::kInt64)));
  EXPECT_EQ(r.status().message(),
            "codec quantize: field \"dtype\": \"<i8\" is not a float type");
  r = MakeV2Codec(Quantize(400, "<f8", "<f8"), spec);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("codec quantize: field \"digits\""),
            std::string::npos);
  EXPECT_EQ(
      MakeV2Codec({{"id", "quantize"}, {"digits", 2}, {"dtype", "<f8"}, {"x", 1}}, spec)
          .status()
          .message(),
      "codec quantize: field \"x\": unknown field (value 1)");
}

}  // namespace
}  // namespace turbozarr
