#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "testing/zarr_python_testdata.h"
#include "turbozarr/metadata.h"

namespace turbozarr {
namespace {

using nlohmann::json;
namespace t = turbozarr::testing;

json Doc(std::string_view text) {
  auto j = ParseJsonDocument(AsBytes(text), ".zarray");
  EXPECT_TRUE(j.ok()) << j.status().ToString();
  return j.ok() ? json(*j) : json();
}

ArrayMetadata ParseOk(std::string_view zarray, const json& zattrs = nullptr) {
  auto m = ParseV2ArrayMetadata(Doc(zarray), zattrs, "array 'a'");
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? *m : ArrayMetadata{};
}

Status ParseError(const json& zarray, const json& zattrs = nullptr) {
  return ParseV2ArrayMetadata(zarray, zattrs, "array 'g/a'").status();
}

TEST(ArrayMetadataV2Test, ZarrPythonDocumentsRoundTripByteForByte) {
  for (std::string_view doc :
       {t::kV2BasicZarray, t::kV2FZarray, t::kV2StrZarray, t::kV2VbytesZarray,
        t::kV2SZarray, t::kV2UZarray, t::kV2VZarray, t::kV2CZarray, t::kV2BZarray,
        t::kV2NofillZarray}) {
    ArrayMetadata m = ParseOk(doc);
    EXPECT_EQ(DumpJsonDocument(ToV2ZarrayJson(m)), doc);
  }
}

TEST(ArrayMetadataV2Test, BasicFields) {
  ArrayMetadata m = ParseOk(t::kV2BasicZarray, json::object());
  EXPECT_EQ(m.zarr_format, 2);
  EXPECT_EQ(m.shape, (std::vector<int64_t>{100, 20}));
  EXPECT_EQ(m.chunk_shape, (std::vector<int64_t>{10, 5}));
  EXPECT_EQ(m.dtype, DataType(DataTypeId::kInt32));
  EXPECT_EQ(m.v2_byte_order, '<');
  EXPECT_EQ(m.v2_order, 'C');
  EXPECT_EQ(m.v2_compressor, json::parse(R"({"id": "zstd", "level": 0})"));
  EXPECT_TRUE(m.v2_filters.is_null());
  EXPECT_FALSE(m.v2_fill_value_null);
  EXPECT_TRUE(m.fill_value.IsAllZero());
  EXPECT_EQ(m.chunk_key_encoding.kind, ChunkKeyEncoding::Kind::kV2);
  EXPECT_EQ(m.chunk_key_encoding.separator, '.');
  EXPECT_EQ(m.chunk_key_encoding.EncodeKey({3, 4}), "3.4");
  EXPECT_EQ(m.attributes, json::object());
  EXPECT_TRUE(m.extra_fields.empty());
}

TEST(ArrayMetadataV2Test, FortranOrderBigEndianNaNAndAttributes) {
  ArrayMetadata m = ParseOk(t::kV2FZarray, Doc(t::kV2FZattrs));
  EXPECT_EQ(m.dtype, DataType(DataTypeId::kFloat64));
  EXPECT_EQ(m.v2_byte_order, '>');
  EXPECT_EQ(m.v2_order, 'F');
  EXPECT_EQ(m.chunk_key_encoding.separator, '/');
  EXPECT_EQ(m.chunk_key_encoding.EncodeKey({3, 4}), "3/4");
  double fill;
  std::memcpy(&fill, m.fill_value.bytes.data(), 8);
  EXPECT_TRUE(std::isnan(fill));
  EXPECT_EQ(m.attributes, json::parse(R"({"x": 1})"));
  EXPECT_EQ(DumpJsonDocument(m.attributes), t::kV2FZattrs);
}

TEST(ArrayMetadataV2Test, ObjectDtypeFollowsTheFilter) {
  ArrayMetadata s = ParseOk(t::kV2StrZarray);
  EXPECT_EQ(s.dtype, DataType(DataTypeId::kString));
  EXPECT_EQ(s.v2_filters, json::parse(R"([{"id": "vlen-utf8"}])"));
  ArrayMetadata b = ParseOk(t::kV2VbytesZarray);
  EXPECT_EQ(b.dtype, DataType(DataTypeId::kBytes));

  json j = Doc(t::kV2StrZarray);
  j["filters"] = nullptr;
  Status none = ParseError(j);
  EXPECT_EQ(none.code(), StatusCode::kCorruption);
  EXPECT_NE(none.message().find("filters"), std::string::npos);
  j["filters"] = json::parse(R"([{"id": "pickle"}])");
  Status pickle = ParseError(j);
  EXPECT_EQ(pickle.code(), StatusCode::kUnsupported);
  EXPECT_NE(pickle.message().find("pickle"), std::string::npos);
}

TEST(ArrayMetadataV2Test, FixedSizeTypesAndFillSpellings) {
  ArrayMetadata s = ParseOk(t::kV2SZarray);
  EXPECT_EQ(s.dtype, DataType::Sized(DataTypeId::kFixedBytes, 3));
  EXPECT_EQ(s.fill_value.bytes.chars(), std::string("xy\0", 3));
  ArrayMetadata u = ParseOk(t::kV2UZarray);
  EXPECT_EQ(u.dtype, DataType::Sized(DataTypeId::kFixedUnicode, 12));
  ArrayMetadata v = ParseOk(t::kV2VZarray);
  EXPECT_EQ(v.dtype, DataType::Sized(DataTypeId::kRawBits, 2));
  ArrayMetadata c = ParseOk(t::kV2CZarray);
  EXPECT_EQ(c.dtype, DataType(DataTypeId::kComplex128));
  double parts[2];
  std::memcpy(parts, c.fill_value.bytes.data(), 16);
  EXPECT_EQ(parts[0], INFINITY);
  EXPECT_EQ(parts[1], 1.0);
  ArrayMetadata b = ParseOk(t::kV2BZarray);
  EXPECT_EQ(b.dtype, DataType(DataTypeId::kBool));
  EXPECT_EQ(b.v2_byte_order, '|');
}

TEST(ArrayMetadataV2Test, BigEndianStructFillIsNativeInMemoryAndStoredBackAsWritten) {
  // numpy: np.array((1, 2.0), dtype=[("a", ">i4"), ("b", ">f4")]).tobytes()
  json j = Doc(t::kV2BasicZarray);
  j["dtype"] = json::parse(R"([["a", ">i4"], ["b", ">f4"]])");
  j["fill_value"] = "AAAAAUAAAAA=";
  auto m = ParseV2ArrayMetadata(j, nullptr, "array 'a'");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->v2_byte_order, '>');
  int32_t a;
  float b;
  std::memcpy(&a, m->fill_value.bytes.data(), 4);
  std::memcpy(&b, m->fill_value.bytes.data() + 4, 4);
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 2.0f);
  EXPECT_EQ(ToV2ZarrayJson(*m)["fill_value"], "AAAAAUAAAAA=");
  EXPECT_EQ(ToV2ZarrayJson(*m)["dtype"], j["dtype"]);
}

TEST(ArrayMetadataV2Test, NullFillIsZerosAndWrittenBackAsNull) {
  ArrayMetadata m = ParseOk(t::kV2NofillZarray);
  EXPECT_TRUE(m.v2_fill_value_null);
  EXPECT_EQ(m.fill_value, DefaultFillValue(DataType(DataTypeId::kUInt8)));
  EXPECT_TRUE(ToV2ZarrayJson(m)["fill_value"].is_null());
  EXPECT_TRUE(m.v2_compressor.is_null());
}

TEST(ArrayMetadataV2Test, BuiltMetadataWritesZarrPythonLayout) {
  ArrayMetadata m;
  m.zarr_format = 2;
  m.shape = {100, 20};
  m.chunk_shape = {10, 5};
  m.dtype = DataType(DataTypeId::kInt32);
  m.fill_value = DefaultFillValue(m.dtype);
  m.chunk_key_encoding = {ChunkKeyEncoding::Kind::kV2, '.'};
  m.v2_compressor = {{"id", "zstd"}, {"level", 0}};
  EXPECT_EQ(DumpJsonDocument(ToV2ZarrayJson(m)), t::kV2BasicZarray);

  // A string array names its object codec even when no filters were given.
  m.dtype = DataType(DataTypeId::kString);
  m.fill_value = DefaultFillValue(m.dtype);
  json j = ToV2ZarrayJson(m);
  EXPECT_EQ(j["dtype"], "|O");
  EXPECT_EQ(j["filters"], json::parse(R"([{"id": "vlen-utf8"}])"));
}

TEST(ArrayMetadataV2Test, UnknownFieldsAreKept) {
  json j = Doc(t::kV2BasicZarray);
  j["custom"] = "x";
  ArrayMetadata m = *ParseV2ArrayMetadata(j, nullptr, "a");
  EXPECT_EQ(m.extra_fields["custom"], "x");
  EXPECT_EQ(json(ToV2ZarrayJson(m)), j);
}

struct BadCase {
  const char* field;
  json value;
  bool erase;
  StatusCode code;
  const char* mentions;
};

TEST(ArrayMetadataV2Test, BadDocumentsGiveTheRightCodeAndNameTheField) {
  const BadCase cases[] = {
      {"/zarr_format", 3, false, StatusCode::kCorruption, "zarr_format"},
      {"/shape", nullptr, true, StatusCode::kCorruption, "shape"},
      {"/shape", json::array({-1, 20}), false, StatusCode::kCorruption, "shape"},
      {"/chunks", json::array({10, -5}), false, StatusCode::kCorruption, "chunks"},
      {"/chunks", json::array({10, 0}), false, StatusCode::kCorruption, "chunks"},
      {"/chunks", json::array({10}), false, StatusCode::kCorruption, "chunks"},
      {"/chunks", nullptr, true, StatusCode::kCorruption, "chunks"},
      {"/dtype", "<i3", false, StatusCode::kUnsupported, "<i3"},
      {"/dtype", "i4", false, StatusCode::kCorruption, "dtype"},
      {"/dtype", 4, false, StatusCode::kCorruption, "dtype"},
      {"/dtype", json::parse(R"([["a", "<i4"], ["b", ">i2"]])"), false,
       StatusCode::kUnsupported, "both byte orders"},
      {"/order", "K", false, StatusCode::kCorruption, "order"},
      {"/compressor", "zstd", false, StatusCode::kCorruption, "compressor"},
      {"/compressor", json::object(), false, StatusCode::kCorruption, "compressor"},
      {"/filters", json::object(), false, StatusCode::kCorruption, "filters"},
      {"/filters", json::array({1}), false, StatusCode::kCorruption, "filters"},
      {"/fill_value", 1e20, false, StatusCode::kCorruption, "fill_value"},
      {"/fill_value", "abc", false, StatusCode::kCorruption, "fill_value"},
      {"/dimension_separator", "-", false, StatusCode::kCorruption,
       "dimension_separator"},
  };
  for (const auto& c : cases) {
    json j = Doc(t::kV2BasicZarray);
    json::json_pointer ptr(c.field);
    if (c.erase) {
      j[ptr.parent_pointer()].erase(ptr.back());
    } else {
      j[ptr] = c.value;
    }
    Status s = ParseError(j);
    SCOPED_TRACE(std::string(c.field) + " = " + c.value.dump() + ": " + s.ToString());
    EXPECT_EQ(s.code(), c.code);
    EXPECT_NE(s.message().find(c.mentions), std::string::npos);
    EXPECT_NE(s.message().find("array 'g/a'"), std::string::npos);
  }
  Status attrs = ParseError(Doc(t::kV2BasicZarray), json::array());
  EXPECT_EQ(attrs.code(), StatusCode::kCorruption);
  EXPECT_NE(attrs.message().find(".zattrs"), std::string::npos);
}

}  // namespace
}  // namespace turbozarr
