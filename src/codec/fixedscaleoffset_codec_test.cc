#include "codec/fixedscaleoffset_codec.h"

#include <gtest/gtest.h>

#include "testing/codec_fixtures.h"
#include "testing/filter_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::ExpectFilterBytes;
using testing::FromHex;
using testing::ToHex;

const DataType kF8(DataTypeId::kFloat64), kF4(DataTypeId::kFloat32),
    kI4(DataTypeId::kInt32);

json Fso(json offset, json scale, const char* dtype, const char* astype) {
  return {{"id", "fixedscaleoffset"},
          {"scale", scale},
          {"offset", offset},
          {"dtype", dtype},
          {"astype", astype}};
}

TEST(FixedScaleOffsetCodecTest, EncodesAndDecodesAsNumcodecs) {
  ExpectFilterBytes(Fso(1000, 10, "<f8", "|u1"), kF8, testing::kFsoF8U1In,
                    testing::kFsoF8U1Out, testing::kFsoF8U1Dec);
  // Out of int8's range the rounded values wrap around, as numpy's astype.
  ExpectFilterBytes(Fso(0.5, 100, "<f8", "|i1"), kF8, testing::kFsoF8I1WrapsIn,
                    testing::kFsoF8I1WrapsOut, testing::kFsoF8I1WrapsDec);
  // float32 arithmetic for a float32 array.
  ExpectFilterBytes(Fso(1000, 10, "<f4", "<i2"), kF4, testing::kFsoF4I2In,
                    testing::kFsoF4I2Out, testing::kFsoF4I2Dec);
  // Integer offset and scale on integers: integer arithmetic, wrapping.
  ExpectFilterBytes(Fso(7, 3, "<i4", "<i2"), kI4, testing::kFsoI4I2In,
                    testing::kFsoI4I2Out, testing::kFsoI4I2Dec);
  // A float scale takes integers to float64.
  ExpectFilterBytes(Fso(7, 0.5, "<i4", "<i4"), kI4, testing::kFsoI4HalfIn,
                    testing::kFsoI4HalfOut, testing::kFsoI4HalfDec);
}

TEST(FixedScaleOffsetCodecTest, DecodesZarrPythonV3Chunk) {
  const json codecs = json::array(
      {{{"name", "numcodecs.fixedscaleoffset"},
        {"configuration",
         {{"offset", 1000}, {"scale", 10}, {"dtype", "<f8"}, {"astype", "|u1"}}}},
       {{"name", "bytes"}}});
  auto chain = CodecChain::FromJson(codecs, testing::MakeSpec({16}, kF8));
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  auto dec = chain->Decode(FromHex(testing::kV3FixedScaleOffsetChunk));
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  double first, last;
  std::memcpy(&first, dec->bytes.data(), 8);
  std::memcpy(&last, dec->bytes.data() + 15 * 8, 8);
  EXPECT_EQ(first, 1000.0);
  EXPECT_EQ(last, 1001.0);
  ChunkArray again = *dec;
  EXPECT_EQ(ToHex(*chain->Encode(std::move(again))), testing::kV3FixedScaleOffsetChunk);
  EXPECT_EQ(chain->ToJson()[0]["configuration"],
            json({{"scale", 10}, {"offset", 1000}, {"dtype", "<f8"}, {"astype", "|u1"}}));
}

TEST(FixedScaleOffsetCodecTest, DtypeDefaultsToTheArraysAndAstypeToDtype) {
  auto f = testing::MakeFilter({{"id", "fixedscaleoffset"}, {"offset", 0}, {"scale", 2}},
                               testing::MakeSpec({4}, kF8));
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(ToV2Json(*f).value(), Fso(0, 2, "<f8", "<f8"));
  // zarr-python fills dtype in with numpy's name.
  f = testing::MakeFilter(
      {{"name", "numcodecs.fixedscaleoffset"},
       {"configuration", {{"offset", 0}, {"scale", 2}, {"dtype", "float64"}}}},
      testing::MakeSpec({4}, kF8));
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->ToJson()["configuration"]["dtype"], "float64");
}

TEST(FixedScaleOffsetCodecTest, BadConfigurationNamesCodecAndField) {
  const ArraySpec spec = testing::MakeSpec({4}, kF8);
  auto r = MakeV2Codec({{"id", "fixedscaleoffset"}, {"scale", 1}}, spec);
  EXPECT_EQ(r.status().message(),
            "codec fixedscaleoffset: field \"offset\": is required");
  r = MakeV2Codec(Fso("x", 1, "<f8", "<f8"), spec);
  EXPECT_EQ(r.status().message(),
            "codec fixedscaleoffset: field \"offset\": expected a number, got \"x\"");
  r = MakeV2Codec(Fso(0, 1, "<f4", "<f4"), spec);
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(r.status().message(),
            "codec fixedscaleoffset: field \"dtype\": \"<f4\" differs from the array's "
            "data type float64");
  r = MakeV2Codec(Fso(0, 1, "<f8", ">i2"), spec);
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status().message().find("\">i2\" is big-endian"), std::string::npos);
  r = MakeV2Codec(Fso(0, 1, "<f8", "|S4"), spec);
  EXPECT_EQ(r.status().message(),
            "codec fixedscaleoffset: field \"astype\": \"|S4\" is not a numeric type");
}

TEST(FixedScaleOffsetCodecTest, AnOffsetOutsideAnIntegerDtypeRefusesToEncode) {
  // numpy 2 raises OverflowError for uint8 - 1000; decoding still works.
  const ArraySpec spec = testing::MakeSpec({2}, DataType(DataTypeId::kUInt8));
  auto f = testing::MakeFilter(Fso(1000, 1, "|u1", "<i2"), spec);
  ASSERT_NE(f, nullptr);
  auto r = f->Encode(testing::ChunkFromHex("0102", DataType(DataTypeId::kUInt8)));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "codec fixedscaleoffset: cannot encode: field \"offset\": 1000 is out of the "
            "range of the data type");
  auto dec =
      f->Decode(testing::ChunkFromHex("1cfc1dfc", DataType(DataTypeId::kInt16)), spec);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_EQ(ToHex(dec->bytes), "0405");  // -996 / 1 + 1000 and -995 / 1 + 1000
}

TEST(FixedScaleOffsetCodecTest, ShortEncodedChunkIsCorruption) {
  const ArraySpec spec = testing::MakeSpec({4}, kF8);
  auto f = testing::MakeFilter(Fso(0, 1, "<f8", "|u1"), spec);
  auto r = f->Decode(testing::ChunkFromHex("0102", DataType(DataTypeId::kUInt8)), spec);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  EXPECT_NE(r.status().message().find("codec fixedscaleoffset: expected 4 elements"),
            std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace turbozarr
