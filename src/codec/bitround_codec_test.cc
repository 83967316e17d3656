#include "codec/bitround_codec.h"

#include <gtest/gtest.h>

#include "testing/codec_fixtures.h"
#include "testing/filter_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::ExpectFilterBytes;

json BitRound(int keepbits) { return {{"id", "bitround"}, {"keepbits", keepbits}}; }

TEST(BitRoundCodecTest, RoundsAsNumcodecsIncludingSpecialValues) {
  // Decoding is the identity: the rounded floats are what is read.
  ExpectFilterBytes(BitRound(3), DataType(DataTypeId::kFloat32), testing::kBitRoundF4In,
                    testing::kBitRoundF4Out, testing::kBitRoundF4Out);
  ExpectFilterBytes(BitRound(10), DataType(DataTypeId::kFloat64), testing::kBitRoundF8In,
                    testing::kBitRoundF8Out, testing::kBitRoundF8Out);
  ExpectFilterBytes(BitRound(0), DataType(DataTypeId::kFloat16), testing::kBitRoundF2In,
                    testing::kBitRoundF2Out, testing::kBitRoundF2Out);
  // All the mantissa kept: nothing changes.
  ExpectFilterBytes(
      {{"name", "numcodecs.bitround"}, {"configuration", {{"keepbits", 23}}}},
      DataType(DataTypeId::kFloat32), testing::kBitRoundF4In, testing::kBitRoundF4In);
}

TEST(BitRoundCodecTest, RefusesWhatNumcodecsRefuses) {
  auto r =
      MakeV2Codec(BitRound(24), testing::MakeSpec({4}, DataType(DataTypeId::kFloat32)));
  EXPECT_EQ(r.status().message(),
            "codec bitround: field \"keepbits\": 24 is not in 0..23 for float32");
  r = MakeV2Codec(BitRound(-1), testing::MakeSpec({4}, DataType(DataTypeId::kFloat64)));
  EXPECT_EQ(r.status().message(),
            "codec bitround: field \"keepbits\": -1 is not in 0..52 for float64");
  r = MakeV2Codec(BitRound(3), testing::MakeSpec({4}, DataType(DataTypeId::kInt32)));
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(
      r.status().message(),
      "codec bitround: the array's data type int32 is not bfloat16, float16, float32 or float64");
  r = MakeV2Codec({{"id", "bitround"}},
                  testing::MakeSpec({4}, DataType(DataTypeId::kFloat64)));
  EXPECT_EQ(r.status().message(), "codec bitround: field \"keepbits\": is required");
}

}  // namespace
}  // namespace turbozarr
