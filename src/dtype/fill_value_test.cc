#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "turbozarr/dtype.h"

namespace turbozarr {
namespace {

using nlohmann::json;

template <typename T>
T As(const FillValue& f) {
  T v{};
  EXPECT_EQ(f.bytes.size(), sizeof(T));
  if (f.bytes.size() == sizeof(T)) std::memcpy(&v, f.bytes.data(), sizeof(T));
  return v;
}

FillValue Parse(const json& j, const DataType& d, int format = 3) {
  auto r = ParseFillValue(j, d, format);
  EXPECT_TRUE(r.ok()) << j.dump() << ": " << r.status().ToString();
  return r.ok() ? *r : FillValue{};
}

// Parses `j` and writes it back; the JSON must come out as `expected`.
void ExpectRoundTrip(const json& j, const DataType& d, int format, const json& expected) {
  SCOPED_TRACE(j.dump() + " as " + d.ToString());
  auto r = ParseFillValue(j, d, format);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(FillValueToJson(*r, d, format).dump(), expected.dump());
}

const DataType kI8(DataTypeId::kInt8), kU8(DataTypeId::kUInt8), kI64(DataTypeId::kInt64),
    kU64(DataTypeId::kUInt64), kI16(DataTypeId::kInt16), kU32(DataTypeId::kUInt32),
    kF16(DataTypeId::kFloat16), kF32(DataTypeId::kFloat32), kF64(DataTypeId::kFloat64),
    kC64(DataTypeId::kComplex64), kC128(DataTypeId::kComplex128),
    kBool(DataTypeId::kBool), kStr(DataTypeId::kString), kBytes(DataTypeId::kBytes);

TEST(FillValueTest, Integers) {
  EXPECT_EQ(As<int8_t>(Parse(json(-128), kI8)), -128);
  EXPECT_EQ(As<uint8_t>(Parse(json(255), kU8)), 255);
  EXPECT_EQ(As<int64_t>(Parse(json(INT64_MIN), kI64)), INT64_MIN);
  EXPECT_EQ(As<uint64_t>(Parse(json(UINT64_MAX), kU64)), UINT64_MAX);
  EXPECT_EQ(As<int16_t>(Parse(json(7.0), kI16)), 7);      // integral float
  EXPECT_EQ(As<int16_t>(Parse(json("-12"), kI16)), -12);  // integer string
  EXPECT_EQ(As<uint32_t>(Parse(json(true), kU32)), 1u);
  ExpectRoundTrip(json(-5), kI8, 3, json(-5));
  ExpectRoundTrip(json(UINT64_MAX), kU64, 3, json(UINT64_MAX));
  ExpectRoundTrip(json(INT64_MIN), kI64, 2, json(INT64_MIN));
  ExpectRoundTrip(json(3.0), kU32, 2, json(3));
}

TEST(FillValueTest, OutOfRangeIntegersNameTheValueAndType) {
  struct Case {
    json j;
    DataType d;
  };
  for (const auto& c : {Case{json(256), kU8}, Case{json(-1), kU8}, Case{json(128), kI8},
                        Case{json(-129), kI8}, Case{json(-1), kU64},
                        Case{json("99999999999999999999"), kI64}, Case{json(40000), kI16},
                        Case{json(1e30), kI64}}) {
    auto r = ParseFillValue(c.j, c.d, 3);
    ASSERT_FALSE(r.ok()) << c.j.dump();
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(c.j.dump()), std::string::npos)
        << r.status().message();
    EXPECT_NE(r.status().message().find(c.d.ToString()), std::string::npos);
  }
  EXPECT_FALSE(ParseFillValue(json(1.5), kI16, 3).ok());
  EXPECT_FALSE(ParseFillValue(json("1x"), kI16, 3).ok());
  EXPECT_FALSE(ParseFillValue(json::array(), kI16, 3).ok());
}

TEST(FillValueTest, Bool) {
  EXPECT_EQ(As<uint8_t>(Parse(json(true), kBool)), 1);
  EXPECT_EQ(As<uint8_t>(Parse(json(false), kBool)), 0);
  EXPECT_EQ(As<uint8_t>(Parse(json(1), kBool)), 1);
  ExpectRoundTrip(json(true), kBool, 3, json(true));
  ExpectRoundTrip(json(false), kBool, 2, json(false));
  EXPECT_FALSE(ParseFillValue(json("yes"), kBool, 3).ok());
}

TEST(FillValueTest, FloatSpellings) {
  EXPECT_EQ(As<double>(Parse(json(1.5), kF64)), 1.5);
  EXPECT_EQ(As<double>(Parse(json(2), kF64)), 2.0);
  EXPECT_EQ(As<double>(Parse(json("Infinity"), kF64)), INFINITY);
  EXPECT_EQ(As<double>(Parse(json("-Infinity"), kF64)), -INFINITY);
  EXPECT_EQ(As<double>(Parse(json("2.5"), kF64)), 2.5);
  EXPECT_EQ(As<uint64_t>(Parse(json("NaN"), kF64)), 0x7ff8000000000000u);
  EXPECT_EQ(As<uint32_t>(Parse(json("NaN"), kF32)), 0x7fc00000u);
  EXPECT_EQ(As<uint16_t>(Parse(json("NaN"), kF16)), 0x7e00u);
  EXPECT_EQ(As<float>(Parse(json(0.1), kF32)), 0.1f);
  EXPECT_EQ(As<uint16_t>(Parse(json(0.1), kF16)), 0x2e66u);
  // Hex holds exact bits, including a NaN payload.
  EXPECT_EQ(As<uint32_t>(Parse(json("0x7fc00001"), kF32)), 0x7fc00001u);
  EXPECT_EQ(As<uint64_t>(Parse(json("0x3ff0000000000000"), kF64)), 0x3ff0000000000000u);
  EXPECT_EQ(As<uint16_t>(Parse(json("0x3c00"), kF16)), 0x3c00u);
  // Hex of another width is read at that width, then converted.
  EXPECT_EQ(As<double>(Parse(json("0x3f800000"), kF64)), 1.0);

  ExpectRoundTrip(json("NaN"), kF64, 3, json("NaN"));
  ExpectRoundTrip(json("NaN"), kF32, 2, json("NaN"));
  ExpectRoundTrip(json("Infinity"), kF16, 3, json("Infinity"));
  ExpectRoundTrip(json("-Infinity"), kF32, 2, json("-Infinity"));
  ExpectRoundTrip(json("0x7fc00001"), kF32, 3, json("0x7fc00001"));
  ExpectRoundTrip(json("0x7fc00001"), kF32, 2, json("NaN"));  // v2 cannot spell it
  ExpectRoundTrip(json("0xfe00"), kF16, 3, json("0xfe00"));
  ExpectRoundTrip(json(1.5), kF64, 3, json(1.5));
  ExpectRoundTrip(json(0.0), kF64, 3, json(0.0));
  // zarr-python writes float(np.float32(0.1)).
  ExpectRoundTrip(json(0.1), kF32, 3, json(0.10000000149011612));
  EXPECT_EQ(FillValueToJson(Parse(json(0), kF64), kF64, 3).dump(), "0.0");
  EXPECT_EQ(FillValueToJson(Parse(json(-0.0), kF64), kF64, 3).dump(), "-0.0");
}

TEST(FillValueTest, MalformedFloats) {
  EXPECT_TRUE(std::isnan(As<float>(Parse(json("nan"), kF32))));  // Python float("nan")
  for (const json& j : {json("0x123"), json("0xzzzzzzzz"), json("abc"), json::array({1}),
                        json::object()}) {
    auto r = ParseFillValue(j, kF32, 3);
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << j.dump();
    EXPECT_NE(r.status().message().find("float32"), std::string::npos);
  }
}

TEST(FillValueTest, Complex) {
  FillValue c = Parse(json::array({1.0, 2.0}), kC64);
  ASSERT_EQ(c.bytes.size(), 8u);
  float parts[2];
  std::memcpy(parts, c.bytes.data(), 8);
  EXPECT_EQ(parts[0], 1.0f);
  EXPECT_EQ(parts[1], 2.0f);
  ExpectRoundTrip(json::array({1.0, 2.0}), kC64, 3, json::array({1.0, 2.0}));
  ExpectRoundTrip(json::array({"Infinity", 1.0}), kC128, 2,
                  json::array({"Infinity", 1.0}));
  ExpectRoundTrip(json::array({"NaN", "0x7ff0000000000001"}), kC128, 3,
                  json::array({"NaN", "0x7ff0000000000001"}));
  EXPECT_FALSE(ParseFillValue(json(1.0), kC64, 3).ok());
  EXPECT_FALSE(ParseFillValue(json::array({1.0}), kC64, 3).ok());
  EXPECT_FALSE(ParseFillValue(json::array({1.0, "x"}), kC64, 3).ok());
}

TEST(FillValueTest, RawBits) {
  DataType r16 = DataType::Sized(DataTypeId::kRawBits, 2);
  FillValue f = Parse(json::array({1, 255}), r16);
  ASSERT_EQ(f.bytes.size(), 2u);
  EXPECT_EQ(f.bytes.data()[0], std::byte{1});
  EXPECT_EQ(f.bytes.data()[1], std::byte{255});
  // zarr-python's raw_bytes spells the value in base64.
  EXPECT_EQ(FillValueToJson(f, r16, 3), json("Af8="));
  ExpectRoundTrip(json("AAA="), r16, 3, json("AAA="));
  ExpectRoundTrip(json("AAA="), r16, 2, json("AAA="));
  EXPECT_FALSE(ParseFillValue(json::array({1}), r16, 3).ok());
  EXPECT_FALSE(ParseFillValue(json::array({1, 256}), r16, 3).ok());
  EXPECT_FALSE(ParseFillValue(json("AAAA"), r16, 3).ok());  // 3 bytes
}

TEST(FillValueTest, FixedBytesAreBase64WithoutTrailingNuls) {
  DataType s3 = DataType::Sized(DataTypeId::kFixedBytes, 3);
  FillValue f = Parse(json("eHk="), s3, 2);
  EXPECT_EQ(f.bytes.chars(), std::string("xy\0", 3));
  ExpectRoundTrip(json("eHk="), s3, 2, json("eHk="));
  ExpectRoundTrip(json("eHk="), s3, 3, json("eHk="));
  ExpectRoundTrip(json(""), s3, 3, json(""));
  // Longer values are cut to the element size, as numpy does.
  EXPECT_EQ(Parse(json("YWJjZA=="), s3).bytes.chars(), "abc");
  auto bad = ParseFillValue(json("not base64!"), s3, 3);
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("base64"), std::string::npos);
}

TEST(FillValueTest, FixedUnicodeIsUtf32) {
  DataType u4 = DataType::Sized(DataTypeId::kFixedUnicode, 16);
  FillValue f = Parse(json("ab"), u4);
  uint32_t cps[4];
  std::memcpy(cps, f.bytes.data(), 16);
  EXPECT_EQ(cps[0], uint32_t{'a'});
  EXPECT_EQ(cps[1], uint32_t{'b'});
  EXPECT_EQ(cps[2], 0u);
  EXPECT_EQ(cps[3], 0u);
  ExpectRoundTrip(json("ab"), u4, 3, json("ab"));
  ExpectRoundTrip(json("\xc3\xa9\xf0\x9f\x98\x80"), u4, 2,
                  json("\xc3\xa9\xf0\x9f\x98\x80"));
  ExpectRoundTrip(json("abcdef"), u4, 3, json("abcd"));
  ExpectRoundTrip(json(""), u4, 3, json(""));
  EXPECT_FALSE(ParseFillValue(json(std::string("\xff")), u4, 3).ok());
  EXPECT_FALSE(ParseFillValue(json(std::string("\xc3")), u4, 3).ok());
  EXPECT_FALSE(ParseFillValue(json(3), u4, 3).ok());
}

TEST(FillValueTest, VariableLength) {
  EXPECT_EQ(Parse(json("hello"), kStr).bytes.chars(), "hello");
  ExpectRoundTrip(json(""), kStr, 3, json(""));
  ExpectRoundTrip(json("x y"), kStr, 2, json("x y"));
  EXPECT_EQ(Parse(json("AQI="), kBytes).bytes.chars(), "\x01\x02");
  ExpectRoundTrip(json(""), kBytes, 3, json(""));
  ExpectRoundTrip(json("AQI="), kBytes, 2, json("AQI="));
  EXPECT_FALSE(ParseFillValue(json::array(), kStr, 3).ok());
}

TEST(FillValueTest, V2NullIsZeroAndV3NullIsRefused) {
  for (const DataType& d :
       {kI64, kF32, kC128, kBool, DataType::Sized(DataTypeId::kRawBits, 3)}) {
    auto r = ParseFillValue(json(nullptr), d, 2);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->bytes.size(), d.size());
    EXPECT_TRUE(r->IsAllZero());
    EXPECT_EQ(*r, DefaultFillValue(d));
  }
  EXPECT_TRUE(ParseFillValue(json(nullptr), kStr, 2)->bytes.empty());
  auto v3 = ParseFillValue(json(nullptr), kI64, 3);
  EXPECT_EQ(v3.status().code(), StatusCode::kInvalidArgument);
}

TEST(FillValueTest, DefaultsAndIsAllZero) {
  EXPECT_EQ(DefaultFillValue(kC128).bytes.size(), 16u);
  EXPECT_TRUE(DefaultFillValue(kC128).IsAllZero());
  EXPECT_TRUE(DefaultFillValue(kStr).bytes.empty());
  EXPECT_EQ(FillValueToJson(DefaultFillValue(kF32), kF32, 3).dump(), "0.0");
  EXPECT_EQ(FillValueToJson(DefaultFillValue(kI16), kI16, 2).dump(), "0");
  EXPECT_FALSE(Parse(json(1), kI16).IsAllZero());
  EXPECT_FALSE(Parse(json(-0.0), kF64).IsAllZero());  // sign bit set
  EXPECT_TRUE(Parse(json(0.0), kF64).IsAllZero());
}

TEST(FillValueTest, TimesAreCountsWithNaT) {
  const DataType ns = *DataType::Time(DataTypeId::kDateTime64, "ns", 1);
  const DataType td = *DataType::Time(DataTypeId::kTimeDelta64, "s", 10);
  // zarr-python writes NaT as int64's minimum, in v2 and v3.
  EXPECT_EQ(As<int64_t>(Parse(json(INT64_MIN), ns)), INT64_MIN);
  EXPECT_EQ(As<int64_t>(Parse(json("NaT"), td, 2)), INT64_MIN);
  EXPECT_EQ(As<int64_t>(Parse(json(1577836800000000000), ns)), 1577836800000000000);
  ExpectRoundTrip(json("NaT"), ns, 3, json(INT64_MIN));
  ExpectRoundTrip(json(-5), td, 2, json(-5));
  for (const json& bad : {json(1.5), json("2020-01-01"), json(UINT64_MAX), json::array()}) {
    SCOPED_TRACE(bad.dump());
    auto r = ParseFillValue(bad, ns, 3);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("datetime64[ns]"), std::string::npos);
  }
}

TEST(FillValueTest, StructsAreFieldObjectsOrBase64) {
  const DataType t = *ParseV3DataType(json::parse(R"({"name":"struct","configuration":{"fields":[
      {"name":"a","data_type":"int32"},
      {"name":"t","data_type":{"name":"numpy.datetime64",
                               "configuration":{"unit":"s","scale_factor":1}}},
      {"name":"s","data_type":{"name":"null_terminated_bytes",
                               "configuration":{"length_bytes":2}}}]}})"));
  FillValue f = Parse(json::parse(R"({"a": -2, "t": 7, "s": "aGk="})"), t);
  ASSERT_EQ(f.bytes.size(), 14u);
  int32_t a;
  int64_t time;
  std::memcpy(&a, f.bytes.data(), 4);
  std::memcpy(&time, f.bytes.data() + 4, 8);
  EXPECT_EQ(a, -2);
  EXPECT_EQ(time, 7);
  EXPECT_EQ(std::string(f.bytes.chars().substr(12)), "hi");
  // v3 writes the object, its fields in their declared order (a, t, s), v2
  // the packed bytes.
  EXPECT_EQ(FillValueToJson(f, t, 3).dump(), R"({"a":-2,"t":7,"s":"aGk="})");
  auto v2 = FillValueToJson(f, t, 2);
  ASSERT_TRUE(v2.is_string());
  EXPECT_EQ(Parse(v2, t, 2), f);
  EXPECT_EQ(Parse(v2, t, 3), f);  // base64 was v3's older spelling
  // A field left out takes zarr-python's default: NaT for times, zero else.
  FillValue partial = Parse(json::parse(R"({"a": 1})"), t);
  std::memcpy(&time, partial.bytes.data() + 4, 8);
  EXPECT_EQ(time, INT64_MIN);
  EXPECT_EQ(partial.bytes.data()[12], std::byte{0});

  struct Bad {
    json j;
    const char* says;
  };
  for (const Bad& b : {Bad{json::parse(R"({"nope": 1})"), "no field 'nope'"},
                       Bad{json::parse(R"({"a": 1.5})"), "field 'a'"},
                       Bad{json("AAAA"), "expected 14"}, Bad{json(3), "object of field values"}}) {
    SCOPED_TRACE(b.j.dump());
    auto r = ParseFillValue(b.j, t, 3);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().ToString().find(b.says), std::string::npos) << r.status().ToString();
  }
}

TEST(FillValueTest, LowPrecisionFloats) {
  const DataType bf16(DataTypeId::kBFloat16), e4m3fn(DataTypeId::kFloat8E4M3FN),
      e5m2(DataTypeId::kFloat8E5M2), fnuz(DataTypeId::kFloat8E4M3FNUZ),
      e8m0(DataTypeId::kFloat8E8M0FNU), f4(DataTypeId::kFloat4E2M1FN);
  EXPECT_EQ(As<uint16_t>(Parse(json(1.5), bf16)), 0x3fc0);
  EXPECT_EQ(As<uint16_t>(Parse(json("NaN"), bf16)), 0x7fc0);
  EXPECT_EQ(As<uint16_t>(Parse(json("-Infinity"), bf16)), 0xff80);
  EXPECT_EQ(As<uint16_t>(Parse(json("0x7fc1"), bf16)), 0x7fc1);
  EXPECT_EQ(As<uint8_t>(Parse(json("NaN"), e4m3fn)), 0x7f);
  EXPECT_EQ(As<uint8_t>(Parse(json("0x7e"), e4m3fn)), 0x7e);
  EXPECT_EQ(As<uint8_t>(Parse(json("0x7"), f4)), 0x7);
  EXPECT_EQ(As<uint8_t>(Parse(json(-6.0), f4)), 0xf);
  EXPECT_EQ(As<uint8_t>(Parse(json("NaN"), fnuz)), 0x80);
  EXPECT_EQ(As<uint8_t>(Parse(json(4.0), e8m0)), 0x81);
  EXPECT_EQ(As<uint8_t>(Parse(json(0.0), e8m0)), 0x00);  // TensorStore's default
  EXPECT_EQ(As<uint8_t>(Parse(json("Infinity"), e5m2)), 0x7c);
  // Written back as TensorStore writes them: numbers, "NaN" for the
  // canonical NaN, hex bits for any other.
  ExpectRoundTrip(json(0.0), bf16, 3, json(0.0));
  ExpectRoundTrip(json("0x7fc1"), bf16, 3, json("0x7fc1"));
  ExpectRoundTrip(json("NaN"), bf16, 3, json("NaN"));
  ExpectRoundTrip(json("NaN"), bf16, 2, json("NaN"));
  // TensorStore's v2 float4_e2m1fn fill value is base64 of its byte.
  EXPECT_EQ(As<uint8_t>(Parse(json("Cw=="), f4, 2)), 0x0b);  // -1.5
  ExpectRoundTrip(json("Cw=="), f4, 2, json("Cw=="));
  ExpectRoundTrip(json("0x7e"), e4m3fn, 3, json(448.0));
  ExpectRoundTrip(json("0xff"), e4m3fn, 3, json("0xff"));
  ExpectRoundTrip(json(-0.5), f4, 3, json(-0.5));
  ExpectRoundTrip(json("-Infinity"), e5m2, 3, json("-Infinity"));
  ExpectRoundTrip(json("NaN"), e8m0, 3, json("NaN"));
  // Refused: what the type cannot hold, malformed hex.
  for (const auto& [j, d] : std::vector<std::pair<json, DataType>>{
           {json("Infinity"), e4m3fn}, {json("NaN"), f4}, {json("Infinity"), f4},
           {json("0x123"), e4m3fn}, {json("0x12345"), bf16}, {json("0x10"), f4},
           {json("0xzz"), e5m2}, {json("one"), bf16}, {json::array({1, 2}), bf16}}) {
    auto r = ParseFillValue(j, d, 3);
    EXPECT_FALSE(r.ok()) << j.dump() << " for " << d.ToString();
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find(d.ToString()), std::string::npos)
          << r.status().ToString();
    }
  }
}

TEST(FillValueTest, NarrowIntegers) {
  const DataType i4(DataTypeId::kInt4), u4(DataTypeId::kUInt4), i2(DataTypeId::kInt2),
      u2(DataTypeId::kUInt2);
  // The value bits alone, as ml_dtypes holds them.
  EXPECT_EQ(As<uint8_t>(Parse(json(-3), i4)), 0x0d);
  EXPECT_EQ(As<uint8_t>(Parse(json(7), i4)), 0x07);
  EXPECT_EQ(As<uint8_t>(Parse(json(15), u4)), 0x0f);
  EXPECT_EQ(As<uint8_t>(Parse(json(-2), i2)), 0x02);
  ExpectRoundTrip(json(-8), i4, 3, json(-8));
  ExpectRoundTrip(json(-1), i2, 3, json(-1));
  ExpectRoundTrip(json(3), u2, 3, json(3));
  ExpectRoundTrip(json("-3"), i4, 2, json(-3));
  for (const auto& [j, d] : std::vector<std::pair<json, DataType>>{
           {json(8), i4}, {json(-9), i4}, {json(16), u4}, {json(-1), u4}, {json(2), i2},
           {json(4), u2}, {json(1.5), i4}, {json("NaN"), i4}}) {
    auto r = ParseFillValue(j, d, 3);
    EXPECT_FALSE(r.ok()) << j.dump() << " for " << d.ToString();
  }
  // A value stored with its high bits set (zarrs writes int4 -1 as 0xff)
  // reads by its low bits.
  FillValue f{Buffer(1)};
  f.bytes.data()[0] = std::byte{0xff};
  EXPECT_EQ(FillValueToJson(f, i4, 3), json(-1));
  EXPECT_EQ(FillValueToJson(f, u2, 3), json(3));
}

}  // namespace
}  // namespace turbozarr
