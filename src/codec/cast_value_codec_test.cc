#include "codec/cast_value_codec.h"

#include <gtest/gtest.h>

#include "testing/codec_fixtures.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using testing::ChunkFromHex;
using testing::ExpectFilterBytes;

json CastValue(json configuration) {
  return {{"name", "cast_value"}, {"configuration", std::move(configuration)}};
}

// The bytes below are zarr-python 3.4.2's (with cast-value-rs 0.5.1);
// python/tests/test_cast_value.py compares whole arrays both ways.
TEST(CastValueCodecTest, StoresValuesInTheTargetType) {
  // float64 [1.5, -2.25, 300] -> uint8, towards zero, clamped: [1, 0, 255].
  ExpectFilterBytes(CastValue({{"data_type", "uint8"},
                               {"rounding", "towards-zero"},
                               {"out_of_range", "clamp"}}),
                    DataType(DataTypeId::kFloat64),
                    "000000000000f83f00000000000002c00000000000c07240", "0100ff",
                    "000000000000f03f00000000000000000000000000e06f40");
  // int16 [-1, 1000] -> float16 and back: exact.
  ExpectFilterBytes(CastValue({{"data_type", "float16"}}), DataType(DataTypeId::kInt16),
                    "ffffe803", "00bcd063");
}

TEST(CastValueCodecTest, ScalarMapsRunBothWays) {
  // NaN is stored as 255 and 255 read back as NaN.
  ExpectFilterBytes(CastValue({{"data_type", "uint8"},
                               {"scalar_map",
                                {{"encode", json::array({json::array({"NaN", 255})})},
                                 {"decode", json::array({json::array({255, "NaN"})})}}}}),
                    DataType(DataTypeId::kFloat32), "0000c07f0000803f", "ff01");
}

TEST(CastValueCodecTest, ValuesWithoutAResultAreErrorsThatSayWhy) {
  const DataType f64(DataTypeId::kFloat64);
  const ArraySpec spec = testing::MakeSpec({1}, f64);
  auto f = testing::MakeFilter(CastValue({{"data_type", "int8"}}), spec);
  ASSERT_NE(f, nullptr);
  auto r = f->Encode(ChunkFromHex("0000000000c07240", f64));  // 300
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "codec cast_value: value 300 is outside the range of int8 [-128, 127] "
            "(out_of_range \"clamp\" or \"wrap\" would map it)");
  r = f->Encode(ChunkFromHex("000000000000f87f", f64));  // NaN
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "codec cast_value: NaN has no value in int8 (a scalar_map entry can give it one)");

  // Reading: a stored uint16 that an int8 array cannot hold is Corruption.
  const ArraySpec i8 = testing::MakeSpec({1}, DataType(DataTypeId::kInt8));
  auto g = testing::MakeFilter(CastValue({{"data_type", "uint16"}}), i8);
  ASSERT_NE(g, nullptr);
  auto d = g->Decode(ChunkFromHex("0001", DataType(DataTypeId::kUInt16)), i8);  // 256
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kCorruption);
  EXPECT_EQ(d.status().message(),
            "codec cast_value: a stored value has no value in the array's type: value 256 is "
            "outside the range of int8 [-128, 127] (out_of_range \"clamp\" or \"wrap\" would "
            "map it)");
}

TEST(CastValueCodecTest, TheFillValueIsCastToo) {
  ArraySpec spec = testing::MakeSpec({2}, DataType(DataTypeId::kFloat32));
  spec.fill_value = *ParseFillValue("NaN", spec.dtype, 3);
  auto f = testing::MakeFilter(
      CastValue({{"data_type", "int16"},
                 {"scalar_map", {{"encode", json::array({json::array({"NaN", -1})})}}}}),
      spec);
  ASSERT_NE(f, nullptr);
  auto enc = f->EncodedSpec(spec);
  ASSERT_TRUE(enc.ok()) << enc.status().ToString();
  EXPECT_EQ(enc->dtype, DataType(DataTypeId::kInt16));
  EXPECT_EQ(testing::ToHex(enc->fill_value.bytes), "ffff");
  // Without the map, a NaN fill value has no int16.
  auto g = testing::MakeFilter(CastValue({{"data_type", "int16"}}), spec);
  ASSERT_NE(g, nullptr);
  auto bad = g->EncodedSpec(spec);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "codec cast_value: the fill value: NaN has no value in int16 (a scalar_map entry "
            "can give it one)");
}

TEST(CastValueCodecTest, JsonIsWrittenAsZarrPythonWritesIt) {
  const ArraySpec spec = testing::MakeSpec({2}, DataType(DataTypeId::kFloat64));
  // Defaults are left out; a repeated map source keeps its last target.
  EXPECT_EQ(testing::MakeFilter(CastValue({{"data_type", "int32"},
                                           {"rounding", "nearest-even"}}),
                                spec)
                ->ToJson(),
            CastValue({{"data_type", "int32"}}));
  EXPECT_EQ(testing::MakeFilter(
                CastValue({{"data_type", "int32"},
                           {"rounding", "nearest-away"},
                           {"out_of_range", "wrap"},
                           {"scalar_map",
                            {{"encode", json::array({json::array({1.5, 3}),
                                                     json::array({"NaN", 0}),
                                                     json::array({1.5, 4})})}}}}),
                spec)
                ->ToJson(),
            CastValue({{"data_type", "int32"},
                       {"rounding", "nearest-away"},
                       {"out_of_range", "wrap"},
                       {"scalar_map",
                        {{"encode", json::array({json::array({1.5, 4}),
                                                 json::array({"NaN", 0})})}}}}));
}

TEST(CastValueCodecTest, BadConfigurationNamesCodecAndField) {
  const ArraySpec f8 = testing::MakeSpec({2}, DataType(DataTypeId::kFloat64));
  auto message = [&](json config, const ArraySpec& spec) {
    return MakeCodec(CastValue(std::move(config)), spec).status().message();
  };
  EXPECT_EQ(message(json::object(), f8),
            "codec cast_value: field \"data_type\": is required");
  EXPECT_EQ(message({{"data_type", "uint8"}, {"rounding", "up"}}, f8),
            "codec cast_value: field \"rounding\": \"up\" is not one of nearest-even, "
            "towards-zero, towards-positive, towards-negative, nearest-away");
  EXPECT_EQ(message({{"data_type", "uint8"}, {"out_of_range", "saturate"}}, f8),
            "codec cast_value: field \"out_of_range\": \"saturate\" is not one of \"clamp\", "
            "\"wrap\", \"error\"");
  EXPECT_EQ(message({{"data_type", "float32"}, {"out_of_range", "wrap"}}, f8),
            "codec cast_value: field \"out_of_range\": \"wrap\" needs an integer data_type, "
            "not float32");
  EXPECT_EQ(message({{"data_type", "int8"}, {"scale", 2}}, f8),
            "codec cast_value: field \"scale\": unknown field (value 2)");
  EXPECT_EQ(message({{"data_type", "int8"},
                     {"scalar_map", {{"encode", json::array({json::array({"NaN", 300})})}}}},
                    f8),
            "codec cast_value: field \"scalar_map\": \"encode\" target: 300 is not a value of "
            "int8");
  EXPECT_EQ(message({{"data_type", "int8"},
                     {"scalar_map", {{"decode", json::array({json::array({1.5, 1})})}}}},
                    f8),
            "codec cast_value: field \"scalar_map\": \"decode\" source: 1.5 is not a value of "
            "int8");
  EXPECT_EQ(message({{"data_type", "int8"}, {"scalar_map", {{"both", json::array()}}}}, f8),
            "codec cast_value: field \"scalar_map\": unknown member \"both\"");
  auto r = MakeCodec(CastValue({{"data_type", "bool"}}), f8);
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(r.status().message(),
            "codec cast_value: data_type bool is not an integer type or float16, float32, "
            "float64");
  r = MakeCodec(CastValue({{"data_type", "int8"}}),
                testing::MakeSpec({2}, DataType(DataTypeId::kComplex64)));
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace turbozarr
