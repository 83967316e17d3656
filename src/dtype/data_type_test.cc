#include <gtest/gtest.h>

#include <string>

#include "turbozarr/dtype.h"

namespace turbozarr {
namespace {

using nlohmann::json;

struct NumericCase {
  const char* v3;
  DataTypeId id;
  size_t size;
  size_t swap_unit;
  const char* v2_le;
  const char* v2_be;
};

constexpr NumericCase kNumeric[] = {
    {"bool", DataTypeId::kBool, 1, 1, "|b1", "|b1"},
    {"int8", DataTypeId::kInt8, 1, 1, "|i1", "|i1"},
    {"int16", DataTypeId::kInt16, 2, 2, "<i2", ">i2"},
    {"int32", DataTypeId::kInt32, 4, 4, "<i4", ">i4"},
    {"int64", DataTypeId::kInt64, 8, 8, "<i8", ">i8"},
    {"uint8", DataTypeId::kUInt8, 1, 1, "|u1", "|u1"},
    {"uint16", DataTypeId::kUInt16, 2, 2, "<u2", ">u2"},
    {"uint32", DataTypeId::kUInt32, 4, 4, "<u4", ">u4"},
    {"uint64", DataTypeId::kUInt64, 8, 8, "<u8", ">u8"},
    {"float16", DataTypeId::kFloat16, 2, 2, "<f2", ">f2"},
    {"float32", DataTypeId::kFloat32, 4, 4, "<f4", ">f4"},
    {"float64", DataTypeId::kFloat64, 8, 8, "<f8", ">f8"},
    {"complex64", DataTypeId::kComplex64, 8, 4, "<c8", ">c8"},
    {"complex128", DataTypeId::kComplex128, 16, 8, "<c16", ">c16"},
};

TEST(DataTypeTest, NumericTypesRoundTripThroughV3AndV2) {
  for (const auto& c : kNumeric) {
    SCOPED_TRACE(c.v3);
    DataType d(c.id);
    EXPECT_EQ(d.size(), c.size);
    EXPECT_EQ(d.swap_unit(), c.swap_unit);
    EXPECT_EQ(d.ToString(), c.v3);
    EXPECT_EQ(d.ToV3Json(), json(c.v3));
    EXPECT_EQ(d.ToV2TypeString('<'), c.v2_le);
    EXPECT_EQ(d.ToV2TypeString('>'), c.v2_be);

    auto v3 = ParseV3DataType(json(c.v3));
    ASSERT_TRUE(v3.ok()) << v3.status().ToString();
    EXPECT_EQ(*v3, d);

    auto le = ParseV2DataType(c.v2_le);
    ASSERT_TRUE(le.ok()) << le.status().ToString();
    EXPECT_EQ(le->dtype, d);
    EXPECT_EQ(le->byte_order, c.size == 1 ? '|' : '<');
    auto be = ParseV2DataType(c.v2_be);
    ASSERT_TRUE(be.ok());
    EXPECT_EQ(be->dtype, d);
    EXPECT_EQ(be->byte_order, c.size == 1 ? '|' : '>');
  }
}

TEST(DataTypeTest, V3CoreTypeAsObjectWithoutConfiguration) {
  auto d = ParseV3DataType(json{{"name", "int16"}});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, DataType(DataTypeId::kInt16));
}

TEST(DataTypeTest, VariableLengthTypes) {
  DataType s(DataTypeId::kString);
  EXPECT_EQ(s.size(), sizeof(std::string));
  EXPECT_TRUE(s.is_variable_length());
  EXPECT_EQ(s.ToV3Json(), json("string"));
  EXPECT_EQ(s.ToV2TypeString(), "|O");
  EXPECT_EQ(s.swap_unit(), 1u);

  DataType b(DataTypeId::kBytes);
  EXPECT_EQ(b.ToV3Json(), json("variable_length_bytes"));
  EXPECT_EQ(b.ToV2TypeString('>'), "|O");
  EXPECT_EQ(b.ToString(), "bytes");

  EXPECT_EQ(*ParseV3DataType(json("string")), s);
  EXPECT_EQ(*ParseV3DataType(json("bytes")), b);
  EXPECT_EQ(*ParseV3DataType(json("variable_length_bytes")), b);

  auto o = ParseV2DataType("|O");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->dtype, s);
  EXPECT_EQ(o->byte_order, '|');
}

TEST(DataTypeTest, FixedLengthTypesUseZarrPythonSpellings) {
  DataType raw = DataType::Sized(DataTypeId::kRawBits, 2);
  EXPECT_EQ(raw.ToV3Json(),
            json::parse(R"({"name":"raw_bytes","configuration":{"length_bytes":2}})"));
  EXPECT_EQ(raw.ToV2TypeString(), "|V2");
  EXPECT_EQ(raw.ToString(), "r16");
  EXPECT_EQ(raw.swap_unit(), 1u);

  DataType s3 = DataType::Sized(DataTypeId::kFixedBytes, 3);
  EXPECT_EQ(s3.ToV3Json(), json::parse(R"({"name":"null_terminated_bytes",
                                           "configuration":{"length_bytes":3}})"));
  EXPECT_EQ(s3.ToV2TypeString(), "|S3");
  EXPECT_EQ(s3.ToString(), "S3");

  DataType u4 = DataType::Sized(DataTypeId::kFixedUnicode, 16);
  EXPECT_EQ(u4.ToV3Json(), json::parse(R"({"name":"fixed_length_utf32",
                                           "configuration":{"length_bytes":16}})"));
  EXPECT_EQ(u4.ToV2TypeString('<'), "<U4");
  EXPECT_EQ(u4.ToV2TypeString('>'), ">U4");
  EXPECT_EQ(u4.ToString(), "U4");
  EXPECT_EQ(u4.swap_unit(), 4u);

  for (const DataType& d : {raw, s3, u4}) {
    auto back = ParseV3DataType(d.ToV3Json());
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, d);
    auto v2 = ParseV2DataType(d.ToV2TypeString('<'));
    ASSERT_TRUE(v2.ok()) << v2.status().ToString();
    EXPECT_EQ(v2->dtype, d);
  }
  auto be = ParseV2DataType(">U4");
  ASSERT_TRUE(be.ok());
  EXPECT_EQ(be->byte_order, '>');
  EXPECT_EQ(ParseV2DataType("|S3")->byte_order, '|');
}

TEST(DataTypeTest, SpecRawBitsNames) {
  auto r8 = ParseV3DataType(json("r8"));
  ASSERT_TRUE(r8.ok());
  EXPECT_EQ(*r8, DataType::Sized(DataTypeId::kRawBits, 1));
  auto r24 = ParseV3DataType(json("r24"));
  ASSERT_TRUE(r24.ok());
  EXPECT_EQ(r24->size(), 3u);

  auto r12 = ParseV3DataType(json("r12"));
  EXPECT_EQ(r12.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r12.status().message().find("r12"), std::string::npos);
  EXPECT_FALSE(ParseV3DataType(json("r")).ok());
  EXPECT_FALSE(ParseV3DataType(json("r0")).ok());
}

TEST(DataTypeTest, NativeOrderAndPipeOnMultiByteTypes) {
  auto eq = ParseV2DataType("=i4");
  ASSERT_TRUE(eq.ok());
  EXPECT_EQ(eq->dtype, DataType(DataTypeId::kInt32));
  EXPECT_EQ(eq->byte_order, '<');
  // A 1-byte type has no byte order whichever character was written.
  EXPECT_EQ(ParseV2DataType("<u1")->byte_order, '|');
  EXPECT_EQ(ParseV2DataType("|i4")->byte_order, '<');
}

TEST(DataTypeTest, UnknownAndMalformedTypes) {
  auto unknown = ParseV3DataType(json("int128"));
  EXPECT_EQ(unknown.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(unknown.status().message().find("int128"), std::string::npos);

  auto ext = ParseV3DataType(json::parse(R"({"name":"numpy.datetime65",
      "configuration":{"unit":"s","scale_factor":1}})"));
  EXPECT_EQ(ext.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(ext.status().message().find("numpy.datetime65"), std::string::npos);

  EXPECT_EQ(ParseV3DataType(json(5)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseV3DataType(json::object()).status().code(),
            StatusCode::kInvalidArgument);
  auto no_len =
      ParseV3DataType(json::parse(R"({"name":"raw_bytes","configuration":{}})"));
  EXPECT_EQ(no_len.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(no_len.status().message().find("length_bytes"), std::string::npos);
  auto zero_len = ParseV3DataType(json::parse(
      R"({"name":"null_terminated_bytes","configuration":{"length_bytes":0}})"));
  EXPECT_EQ(zero_len.status().code(), StatusCode::kInvalidArgument);
  auto odd_utf32 = ParseV3DataType(
      json::parse(R"({"name":"fixed_length_utf32","configuration":{"length_bytes":6}})"));
  EXPECT_EQ(odd_utf32.status().code(), StatusCode::kInvalidArgument);

  for (const char* bad :
       {"", "<", "i4", "<i3", "<f3", "<c4", "<S", "<S0", "<Sx", "xi4", "<i4x", "|O4"}) {
    SCOPED_TRACE(bad);
    auto r = ParseV2DataType(bad);
    EXPECT_FALSE(r.ok());
  }
  // Elements past numpy's 2^31 - 1 bytes (a fuzzed document claimed 885 GB)
  // are refused before anything is sized by them; the limit itself is kept.
  for (const char* huge : {"|S885292546262", "|V2147483648", "<U536870912"}) {
    SCOPED_TRACE(huge);
    auto r = ParseV2DataType(huge);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("numpy's limit"), std::string::npos)
        << r.status().ToString();
  }
  EXPECT_TRUE(ParseV2DataType("|S2147483647").ok());
  EXPECT_TRUE(ParseV2DataType("<U536870911").ok());
  auto huge_v3 = ParseV3DataType(json::parse(
      R"({"name":"raw_bytes","configuration":{"length_bytes":2147483648}})"));
  EXPECT_EQ(huge_v3.status().code(), StatusCode::kInvalidArgument);
  auto i3 = ParseV2DataType("<i3");
  EXPECT_EQ(i3.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(i3.status().message().find("<i3"), std::string::npos);
}

TEST(DataTypeTest, TimesRoundTripThroughV3AndV2) {
  struct Case {
    const char* v3;
    const char* v2;
    const char* name;
  };
  const Case cases[] = {
      {R"({"name":"numpy.datetime64","configuration":{"unit":"ns","scale_factor":1}})",
       "<M8[ns]", "datetime64[ns]"},
      {R"({"name":"numpy.timedelta64","configuration":{"unit":"s","scale_factor":10}})",
       "<m8[10s]", "timedelta64[10s]"},
      {R"({"name":"numpy.datetime64","configuration":{"unit":"D","scale_factor":1}})",
       "<M8[D]", "datetime64[D]"},
      {R"({"name":"numpy.datetime64","configuration":{"unit":"generic","scale_factor":1}})",
       "<M8", "datetime64[generic]"},
      {R"({"name":"numpy.timedelta64","configuration":{"unit":"generic","scale_factor":2}})",
       "<m8[2generic]", "timedelta64[2generic]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.v2);
    auto v3 = ParseV3DataType(json::parse(c.v3));
    ASSERT_TRUE(v3.ok()) << v3.status().ToString();
    EXPECT_TRUE(v3->is_time());
    EXPECT_EQ(v3->size(), 8u);
    EXPECT_EQ(v3->swap_unit(), 8u);
    EXPECT_EQ(v3->ToString(), c.name);
    EXPECT_EQ(v3->ToV3Json(), json::parse(c.v3));
    EXPECT_EQ(v3->ToV2TypeString('<'), c.v2);
    auto v2 = ParseV2DataType(c.v2);
    ASSERT_TRUE(v2.ok()) << v2.status().ToString();
    EXPECT_EQ(v2->dtype, *v3);
    EXPECT_EQ(v2->byte_order, '<');
  }
  auto be = ParseV2DataType(">M8[us]");
  ASSERT_TRUE(be.ok());
  EXPECT_EQ(be->byte_order, '>');
  EXPECT_EQ(be->dtype.time_unit(), "us");
  // Units and multiples differ: different types.
  EXPECT_FALSE(ParseV2DataType("<M8[ns]")->dtype == ParseV2DataType("<M8[us]")->dtype);
  EXPECT_FALSE(ParseV2DataType("<M8[ns]")->dtype == ParseV2DataType("<m8[ns]")->dtype);
  EXPECT_FALSE(ParseV2DataType("<M8[s]")->dtype == ParseV2DataType("<M8[2s]")->dtype);
}

TEST(DataTypeTest, BadTimesNameWhatIsWrong) {
  for (const char* bad : {"<M8[xs]", "<M8[ns", "<M4[ns]", "<M8[0s]", "<m8[99999999999s]"}) {
    SCOPED_TRACE(bad);
    auto r = ParseV2DataType(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(bad), std::string::npos) << r.status().ToString();
  }
  for (const char* bad : {
           R"({"name":"numpy.datetime64","configuration":{"unit":"fortnight","scale_factor":1}})",
           R"({"name":"numpy.datetime64","configuration":{"unit":"s","scale_factor":0}})",
           R"({"name":"numpy.datetime64","configuration":{"unit":"s"}})",
           R"({"name":"numpy.timedelta64"})",
           R"({"name":"numpy.timedelta64","configuration":{"unit":"s","scale_factor":1,"x":1}})",
       }) {
    SCOPED_TRACE(bad);
    auto r = ParseV3DataType(json::parse(bad));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("numpy."), std::string::npos) << r.status().ToString();
  }
}

TEST(DataTypeTest, StructsAsZarrPythonWritesThem) {
  // zarr-python 3.4's v3 spelling, nested, with a fixed-bytes field.
  const json v3 = json::parse(R"({"name":"struct","configuration":{"fields":[
      {"name":"a","data_type":"int32"},
      {"name":"b","data_type":"float64"},
      {"name":"c","data_type":{"name":"struct","configuration":{"fields":[
          {"name":"x","data_type":"uint8"},
          {"name":"y","data_type":{"name":"null_terminated_bytes",
                                   "configuration":{"length_bytes":3}}}]}}}]}})");
  auto d = ParseV3DataType(v3);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->id(), DataTypeId::kStruct);
  EXPECT_EQ(d->size(), 4u + 8u + 1u + 3u);
  ASSERT_EQ(d->fields().size(), 3u);
  EXPECT_EQ(d->fields()[1].name, "b");
  EXPECT_EQ(d->fields()[1].offset, 4u);
  EXPECT_EQ(d->fields()[2].offset, 12u);
  EXPECT_EQ(d->ToString(), "struct{a: int32, b: float64, c: struct{x: uint8, y: S3}}");
  EXPECT_EQ(d->ToV3Json(), v3);
  EXPECT_TRUE(d->has_byte_order());
  auto segments = d->swap_segments();
  ASSERT_EQ(segments.size(), 2u);
  EXPECT_EQ(segments[0].offset, 0u);
  EXPECT_EQ(segments[0].bytes, 4u);
  EXPECT_EQ(segments[1].offset, 4u);
  EXPECT_EQ(segments[1].bytes, 8u);

  // The older "structured" spelling: [name, type] pairs.
  auto legacy = ParseV3DataType(json::parse(R"({"name":"structured","configuration":{"fields":[
      ["a","int32"],["b","float64"],["c",{"name":"struct","configuration":{"fields":[
          ["x","uint8"],["y",{"name":"null_terminated_bytes",
                              "configuration":{"length_bytes":3}}]]}}]]}})"));
  ASSERT_TRUE(legacy.ok()) << legacy.status().ToString();
  EXPECT_EQ(*legacy, *d);

  // v2: a list of [name, type string] pairs, one byte order for the struct.
  const json v2 = json::parse(R"([["a","<i4"],["b","<f8"],["c",[["x","|u1"],["y","|S3"]]]])");
  auto p2 = ParseV2DataTypeJson(v2);
  ASSERT_TRUE(p2.ok()) << p2.status().ToString();
  EXPECT_EQ(p2->dtype, *d);
  EXPECT_EQ(p2->byte_order, '<');
  EXPECT_EQ(d->ToV2Json('<'), v2);
  EXPECT_EQ(d->ToV2Json('>'),
            json::parse(R"([["a",">i4"],["b",">f8"],["c",[["x","|u1"],["y","|S3"]]]])"));
  auto big = ParseV2DataTypeJson(json::parse(R"([["a",">i4"],["y","|S3"]])"));
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->byte_order, '>');
  auto bytes_only = ParseV2DataTypeJson(json::parse(R"([["x","|u1"],["y","|S3"]])"));
  ASSERT_TRUE(bytes_only.ok());
  EXPECT_EQ(bytes_only->byte_order, '|');
  EXPECT_FALSE(bytes_only->dtype.has_byte_order());
}

TEST(DataTypeTest, V2StructSubarrayFieldsRepeatTheirScalars) {
  auto d = ParseV2DataTypeJson(json::parse(R"([["t","<M8[s]"],["xy","<f4",[2,3]]])"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->dtype.size(), 8u + 24u);
  EXPECT_EQ(d->dtype.fields()[1].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(d->dtype.swap_segments().size(), 7u);
  EXPECT_EQ(d->dtype.swap_segments().back().offset, 8u + 20u);
  EXPECT_EQ(d->dtype.ToV2Json('<'),
            json::parse(R"([["t","<M8[s]"],["xy","<f4",[2,3]]])"));
  // numpy also writes a one-dimensional shape as a bare number.
  auto bare = ParseV2DataTypeJson(json::parse(R"([["v","<i2",4]])"));
  ASSERT_TRUE(bare.ok()) << bare.status().ToString();
  EXPECT_EQ(bare->dtype.size(), 8u);
}

TEST(DataTypeTest, BadStructsAreRefusedWithTheReason) {
  struct Case {
    const char* v2;
    const char* says;
    StatusCode code;
  };
  const Case v2_cases[] = {
      {R"([])", "needs fields", StatusCode::kInvalidArgument},
      {R"([["a","<i4"],["a","<f8"]])", "appears twice", StatusCode::kInvalidArgument},
      {R"([["a","<i4"],["b",">f8"]])", "both byte orders", StatusCode::kUnsupported},
      {R"([["a","|O"]])", "object fields", StatusCode::kUnsupported},
      {R"([["a"]])", "[name, type]", StatusCode::kInvalidArgument},
      {R"([["","<i4"]])", "empty name", StatusCode::kInvalidArgument},
      {R"([["a","<i4",[-1]]])", "shape entries", StatusCode::kInvalidArgument},
      {R"([[1,"<i4"]])", "[name, type]", StatusCode::kInvalidArgument},
      {R"([["a","<q9"]])", "<q9", StatusCode::kUnsupported},
  };
  for (const Case& c : v2_cases) {
    SCOPED_TRACE(c.v2);
    auto r = ParseV2DataTypeJson(json::parse(c.v2));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), c.code) << r.status().ToString();
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().ToString();
  }
  auto string_field = ParseV3DataType(json::parse(
      R"({"name":"struct","configuration":{"fields":[{"name":"s","data_type":"string"}]}})"));
  ASSERT_FALSE(string_field.ok());
  EXPECT_NE(string_field.status().message().find("variable-length"), std::string::npos);
  auto extra_key = ParseV3DataType(json::parse(
      R"({"name":"struct","configuration":{"fields":[{"name":"s","data_type":"int8","x":1}]}})"));
  EXPECT_EQ(extra_key.status().code(), StatusCode::kInvalidArgument);

  // Nesting deeper than numpy allows is refused, not recursed into.
  json deep = "int8";
  for (int i = 0; i < 100; ++i) {
    deep = {{"name", "struct"},
            {"configuration", {{"fields", json::array({{{"name", "f"}, {"data_type", deep}}})}}}};
  }
  auto too_deep = ParseV3DataType(deep);
  ASSERT_FALSE(too_deep.ok());
  EXPECT_NE(too_deep.status().message().find("nested"), std::string::npos);
  json deep2 = "|i1";
  for (int i = 0; i < 100; ++i) deep2 = json::array({json::array({"f", deep2})});
  EXPECT_FALSE(ParseV2DataTypeJson(deep2).ok());
}

TEST(DataTypeTest, LowPrecisionTypes) {
  struct Case {
    const char* name;
    DataTypeId id;
    size_t size;
    size_t bits;
  };
  const Case kCases[] = {
      {"bfloat16", DataTypeId::kBFloat16, 2, 16},
      {"float8_e4m3fn", DataTypeId::kFloat8E4M3FN, 1, 8},
      {"float8_e5m2", DataTypeId::kFloat8E5M2, 1, 8},
      {"float8_e4m3fnuz", DataTypeId::kFloat8E4M3FNUZ, 1, 8},
      {"float8_e5m2fnuz", DataTypeId::kFloat8E5M2FNUZ, 1, 8},
      {"float8_e4m3b11fnuz", DataTypeId::kFloat8E4M3B11FNUZ, 1, 8},
      {"float8_e3m4", DataTypeId::kFloat8E3M4, 1, 8},
      {"float8_e4m3", DataTypeId::kFloat8E4M3, 1, 8},
      {"float8_e8m0fnu", DataTypeId::kFloat8E8M0FNU, 1, 8},
      {"float4_e2m1fn", DataTypeId::kFloat4E2M1FN, 1, 4},
      {"float6_e2m3fn", DataTypeId::kFloat6E2M3FN, 1, 6},
      {"float6_e3m2fn", DataTypeId::kFloat6E3M2FN, 1, 6},
      {"int2", DataTypeId::kInt2, 1, 2},
      {"int4", DataTypeId::kInt4, 1, 4},
      {"uint2", DataTypeId::kUInt2, 1, 2},
      {"uint4", DataTypeId::kUInt4, 1, 4},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    auto parsed = ParseV3DataType(json(c.name));
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(parsed->id(), c.id);
    EXPECT_EQ(parsed->size(), c.size);
    EXPECT_EQ(parsed->value_bits(), c.bits);
    EXPECT_EQ(parsed->has_byte_order(), c.size == 2);
    EXPECT_EQ(parsed->ToV3Json(), json(c.name));
    EXPECT_EQ(parsed->ToString(), c.name);
    EXPECT_FALSE(parsed->is_integer());  // not one of numpy's integers
    EXPECT_NE(parsed->is_low_precision_float(), parsed->is_narrow_integer());
    // v2: TensorStore's bare name; bfloat16 is little-endian.
    EXPECT_EQ(parsed->ToV2TypeString('<'), c.name);
    auto v2 = ParseV2DataType(c.name);
    ASSERT_TRUE(v2.ok()) << v2.status().ToString();
    EXPECT_EQ(v2->dtype, *parsed);
    EXPECT_EQ(v2->byte_order, c.size == 2 ? '<' : '|');
  }
  EXPECT_EQ(DataType(DataTypeId::kInt32).value_bits(), 32u);
  // zarr-extensions' names of the complex types (written as numpy's).
  EXPECT_EQ(ParseV3DataType(json("complex_float32"))->ToV3Json(), json("complex64"));
  EXPECT_EQ(ParseV3DataType(json("complex_float64"))->ToV3Json(), json("complex128"));
  // numpy never spells these with a byte order.
  EXPECT_FALSE(ParseV2DataType("<bfloat16").ok());
  EXPECT_FALSE(ParseV3DataType(json("float8_e4m3fnx")).ok());
  EXPECT_FALSE(ParseV3DataType(json("int3")).ok());
}

}  // namespace
}  // namespace turbozarr
