#include "codec/categorize_codec.h"

#include <gtest/gtest.h>

#include "testing/codec_fixtures.h"
#include "testing/filter_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::ExpectFilterBytes;

const DataType kU6 = DataType::Sized(DataTypeId::kFixedUnicode, 24);

json Categorize(json labels, const char* astype = "|u1") {
  return {{"id", "categorize"}, {"labels", std::move(labels)}, {"dtype", "<U6"},
          {"astype", astype}};
}

const json kLabels = json::array({"female", "male", "\u00fcn\u00efcode", "female"});

TEST(CategorizeCodecTest, EncodesAndDecodesAsNumcodecs) {
  // Positions from 1, the repeated label's last one, 0 for what is no
  // label (a prefix, an extension, ""), and "" back for 0.
  ExpectFilterBytes(Categorize(kLabels), kU6, testing::kCategorizeU6In,
                    testing::kCategorizeU6Out, testing::kCategorizeU6Dec);
  ExpectFilterBytes(Categorize(json::array({"a", "b"}), "<i2"), kU6,
                    testing::kCategorizeU6I2In, testing::kCategorizeU6I2Out,
                    testing::kCategorizeU6I2Dec);
}

TEST(CategorizeCodecTest, EveryPositionDecodesAsNumcodecsDecodesIt) {
  // 3 is a 7-character label, cut to the array's 6; 4 the repeated one;
  // 0 and 5 (no label) the empty string.
  const ArraySpec spec = testing::MakeSpec({6}, kU6);
  auto filter = testing::MakeFilter(Categorize(kLabels), spec);
  ASSERT_NE(filter, nullptr);
  ChunkArray positions = testing::ChunkFromHex("000102030405", DataType(DataTypeId::kUInt8));
  auto decoded = filter->Decode(positions, spec);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(testing::ToHex(decoded->bytes), testing::kCategorizeU6Positions);
}

TEST(CategorizeCodecTest, TheFillValueIsEncodedToo) {
  ArraySpec spec = testing::MakeSpec({3}, kU6);
  spec.fill_value = *ParseFillValue("male", kU6, 2);
  auto filter = testing::MakeFilter(Categorize(kLabels, "<u2"), spec);
  ASSERT_NE(filter, nullptr);
  auto encoded = filter->EncodedSpec(spec);
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  EXPECT_TRUE(encoded->dtype == DataType(DataTypeId::kUInt16));
  EXPECT_EQ(testing::ToHex(encoded->fill_value.bytes), "0200");
  EXPECT_EQ(filter->ToJson()["configuration"],
            json({{"labels", kLabels}, {"dtype", "<U6"}, {"astype", "<u2"}}));
}

TEST(CategorizeCodecTest, BadConfigurationNamesCodecAndField) {
  const ArraySpec spec = testing::MakeSpec({4}, kU6);
  auto r = MakeV2Codec({{"id", "categorize"}, {"dtype", "<U6"}}, spec);
  EXPECT_EQ(r.status().message(), "codec categorize: field \"labels\": expected a list of strings");
  r = MakeV2Codec(Categorize(json::array({"a", 3})), spec);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("expected strings, got 3"), std::string::npos);
  r = MakeV2Codec(Categorize(kLabels, "<f4"), spec);
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status().message().find("\"astype\": \"<f4\" is not an integer type"),
            std::string::npos)
      << r.status().ToString();
  r = MakeV2Codec({{"id", "categorize"}, {"labels", kLabels}, {"dtype", "|O"}}, spec);
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  r = MakeV2Codec(Categorize(kLabels), testing::MakeSpec({4}, DataType(DataTypeId::kInt32)));
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status().message().find("only fixed-length unicode arrays"), std::string::npos);
}

}  // namespace
}  // namespace turbozarr
