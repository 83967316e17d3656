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
  auto j = ParseJsonDocument(AsBytes(text), "zarr.json");
  EXPECT_TRUE(j.ok()) << j.status().ToString();
  return j.ok() ? json(*j) : json();
}

ArrayMetadata ParseOk(std::string_view text) {
  auto m = ParseV3ArrayMetadata(Doc(text), "array 'a'");
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? *m : ArrayMetadata{};
}

Status ParseError(const json& j) {
  return ParseV3ArrayMetadata(j, "array 'g/a'").status();
}

TEST(ArrayMetadataV3Test, ZarrPythonDocumentsRoundTripByteForByte) {
  for (std::string_view doc :
       {t::kV3BasicZarrJson, t::kV3AttrsZarrJson, t::kV3ShardZarrJson, t::kV3StrZarrJson,
        t::kV3VbytesZarrJson, t::kV3UZarrJson, t::kV3SZarrJson, t::kV3VZarrJson,
        t::kV3CZarrJson, t::kV3F16ZarrJson, t::kV3BoolZarrJson, t::kV3BeZarrJson}) {
    ArrayMetadata m = ParseOk(doc);
    EXPECT_EQ(DumpJsonDocument(ToV3Json(m)), doc);
  }
}

TEST(ArrayMetadataV3Test, BasicFields) {
  ArrayMetadata m = ParseOk(t::kV3BasicZarrJson);
  EXPECT_EQ(m.zarr_format, 3);
  EXPECT_EQ(m.shape, (std::vector<int64_t>{100, 20}));
  EXPECT_EQ(m.chunk_shape, (std::vector<int64_t>{10, 5}));
  EXPECT_EQ(m.rank(), 2u);
  EXPECT_EQ(m.dtype, DataType(DataTypeId::kInt32));
  EXPECT_TRUE(m.fill_value.IsAllZero());
  EXPECT_EQ(m.fill_value.bytes.size(), 4u);
  EXPECT_EQ(m.chunk_key_encoding.kind, ChunkKeyEncoding::Kind::kDefault);
  EXPECT_EQ(m.chunk_key_encoding.separator, '/');
  ASSERT_EQ(m.codecs.size(), 2u);
  EXPECT_EQ(m.codecs[0]["name"], "bytes");
  EXPECT_EQ(m.codecs[1]["name"], "zstd");
  EXPECT_EQ(m.attributes, json::object());
  EXPECT_FALSE(m.dimension_names.has_value());
  EXPECT_TRUE(m.extra_fields.empty());
  EXPECT_FALSE(m.InnerChunkShape().has_value());

  ArraySpec spec = m.ChunkSpec();
  EXPECT_EQ(spec.shape, (std::vector<int64_t>{10, 5}));
  EXPECT_EQ(spec.dtype, m.dtype);
  EXPECT_EQ(spec.fill_value, m.fill_value);
}

TEST(ArrayMetadataV3Test, AttributesDimensionNamesAndNaNFill) {
  ArrayMetadata m = ParseOk(t::kV3AttrsZarrJson);
  EXPECT_EQ(m.dtype, DataType(DataTypeId::kFloat64));
  double fill;
  std::memcpy(&fill, m.fill_value.bytes.data(), 8);
  EXPECT_TRUE(std::isnan(fill));
  EXPECT_EQ(m.attributes, json::parse(R"({"a": 1, "b": [1, "x"]})"));
  ASSERT_TRUE(m.dimension_names.has_value());
  ASSERT_EQ(m.dimension_names->size(), 2u);
  EXPECT_EQ((*m.dimension_names)[0], "x");
  EXPECT_FALSE((*m.dimension_names)[1].has_value());
}

TEST(ArrayMetadataV3Test, ShardingGivesInnerChunkShape) {
  ArrayMetadata m = ParseOk(t::kV3ShardZarrJson);
  EXPECT_EQ(m.chunk_shape, std::vector<int64_t>{32});
  auto inner = m.InnerChunkShape();
  ASSERT_TRUE(inner.has_value());
  EXPECT_EQ(*inner, std::vector<int64_t>{8});
  uint16_t fill;
  std::memcpy(&fill, m.fill_value.bytes.data(), 2);
  EXPECT_EQ(fill, 7);
}

TEST(ArrayMetadataV3Test, TypesOfZarrPythonDocuments) {
  EXPECT_EQ(ParseOk(t::kV3StrZarrJson).dtype, DataType(DataTypeId::kString));
  EXPECT_EQ(ParseOk(t::kV3VbytesZarrJson).dtype, DataType(DataTypeId::kBytes));
  ArrayMetadata u = ParseOk(t::kV3UZarrJson);
  EXPECT_EQ(u.dtype, DataType::Sized(DataTypeId::kFixedUnicode, 16));
  EXPECT_EQ(FillValueToJson(u.fill_value, u.dtype, 3), "ab");
  ArrayMetadata s = ParseOk(t::kV3SZarrJson);
  EXPECT_EQ(s.dtype, DataType::Sized(DataTypeId::kFixedBytes, 3));
  EXPECT_EQ(s.fill_value.bytes.chars(), std::string("xy\0", 3));
  EXPECT_EQ(ParseOk(t::kV3VZarrJson).dtype, DataType::Sized(DataTypeId::kRawBits, 2));
  EXPECT_EQ(ParseOk(t::kV3CZarrJson).dtype, DataType(DataTypeId::kComplex64));
  ArrayMetadata b = ParseOk(t::kV3BoolZarrJson);
  EXPECT_EQ(b.rank(), 0u);
  EXPECT_EQ(b.fill_value.bytes.data()[0], std::byte{1});
  ArrayMetadata be = ParseOk(t::kV3BeZarrJson);
  EXPECT_EQ(be.chunk_key_encoding.kind, ChunkKeyEncoding::Kind::kV2);
  EXPECT_EQ(be.chunk_key_encoding.separator, '.');
}

TEST(ArrayMetadataV3Test, SpecSpellingsSurviveARoundTrip) {
  json j = Doc(t::kV3BasicZarrJson);
  j["data_type"] = "r16";
  j["fill_value"] = json::array({1, 2});
  ArrayMetadata m = *ParseV3ArrayMetadata(j, "a");
  EXPECT_EQ(m.dtype, DataType::Sized(DataTypeId::kRawBits, 2));
  json back = ToV3Json(m);
  EXPECT_EQ(back["data_type"], "r16");
  EXPECT_EQ(back["fill_value"], json::array({1, 2}));

  // Once the type changes, the stored spelling no longer applies.
  m.dtype = DataType(DataTypeId::kUInt16);
  m.fill_value = DefaultFillValue(m.dtype);
  back = ToV3Json(m);
  EXPECT_EQ(back["data_type"], "uint16");
  EXPECT_EQ(back["fill_value"], 0);

  j["data_type"] = "bytes";
  j["fill_value"] = "";
  EXPECT_EQ(ToV3Json(*ParseV3ArrayMetadata(j, "a"))["data_type"], "bytes");
}

TEST(ArrayMetadataV3Test, BuiltMetadataWritesZarrPythonLayout) {
  ArrayMetadata m;
  m.shape = {100, 20};
  m.chunk_shape = {10, 5};
  m.dtype = DataType(DataTypeId::kInt32);
  m.fill_value = DefaultFillValue(m.dtype);
  m.codecs = json::parse(R"([{"name": "bytes", "configuration": {"endian": "little"}},
      {"name": "zstd", "configuration": {"level": 0, "checksum": false}}])");
  EXPECT_EQ(DumpJsonDocument(ToV3Json(m)), t::kV3BasicZarrJson);
}

TEST(ArrayMetadataV3Test, MustUnderstandFalseFieldsAreKeptAndWrittenBack) {
  json j = Doc(t::kV3BasicZarrJson);
  j["my_extension"] = {{"must_understand", false}, {"value", 3}};
  ArrayMetadata m = *ParseV3ArrayMetadata(j, "a");
  EXPECT_EQ(m.extra_fields["my_extension"]["value"], 3);
  EXPECT_EQ(json(ToV3Json(m)), j);
}

TEST(ArrayMetadataV3Test, UnknownFieldsAreRefusedByName) {
  for (const json& value : {json(1), json::object(), json({{"must_understand", true}}),
                            json({{"must_understand", "false"}})}) {
    json j = Doc(t::kV3BasicZarrJson);
    j["new_thing"] = value;
    Status s = ParseError(j);
    EXPECT_EQ(s.code(), StatusCode::kUnsupported) << value.dump();
    EXPECT_NE(s.message().find("new_thing"), std::string::npos);
    EXPECT_NE(s.message().find("g/a"), std::string::npos);
  }
}

TEST(ArrayMetadataV3Test, StorageTransformersMustBeEmpty) {
  json j = Doc(t::kV3BasicZarrJson);
  j.erase("storage_transformers");
  EXPECT_TRUE(ParseV3ArrayMetadata(j, "a").ok());
  j["storage_transformers"] = json::parse(R"([{"name": "chunk-manifest-json"}])");
  Status s = ParseError(j);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("storage_transformers"), std::string::npos);
  EXPECT_NE(s.message().find("chunk-manifest-json"), std::string::npos);
}

struct BadCase {
  const char* field;  // a JSON pointer into the document
  json value;         // what to put there (null pointer value: erase)
  bool erase;
  StatusCode code;
  const char* mentions;  // text the message must contain
};

TEST(ArrayMetadataV3Test, BadDocumentsGiveTheRightCodeAndNameTheField) {
  const BadCase cases[] = {
      {"/zarr_format", 2, false, StatusCode::kCorruption, "zarr_format"},
      {"/zarr_format", nullptr, true, StatusCode::kCorruption, "zarr_format"},
      {"/node_type", "group", false, StatusCode::kCorruption, "node_type"},
      {"/shape", nullptr, true, StatusCode::kCorruption, "shape"},
      {"/shape", json::array({100, -1}), false, StatusCode::kCorruption, "shape"},
      {"/shape", json::array({100, "x"}), false, StatusCode::kCorruption, "shape"},
      {"/shape", json::array({100}), false, StatusCode::kCorruption, "chunk_shape"},
      {"/shape", 5, false, StatusCode::kCorruption, "shape"},
      {"/data_type", "int128", false, StatusCode::kUnsupported, "int128"},
      {"/data_type", 4, false, StatusCode::kCorruption, "data_type"},
      {"/chunk_grid/configuration/chunk_shape", json::array({10, -5}), false,
       StatusCode::kCorruption, "chunk_grid.configuration.chunk_shape"},
      {"/chunk_grid/configuration/chunk_shape", json::array({10, 0}), false,
       StatusCode::kCorruption, "chunk_shape"},
      {"/chunk_grid/configuration/chunk_shape", json::array({10}), false,
       StatusCode::kCorruption, "dimensions"},
      {"/chunk_grid/name", "irregular", false, StatusCode::kUnsupported, "irregular"},
      {"/chunk_grid", "regular", false, StatusCode::kCorruption, "chunk_grid"},
      {"/chunk_key_encoding/name", "v4", false, StatusCode::kUnsupported, "v4"},
      {"/chunk_key_encoding/configuration/separator", "-", false, StatusCode::kCorruption,
       "chunk_key_encoding"},
      {"/fill_value", 1e10, false, StatusCode::kCorruption, "fill_value"},
      {"/fill_value", "x", false, StatusCode::kCorruption, "fill_value"},
      {"/fill_value", nullptr, true, StatusCode::kCorruption, "fill_value"},
      {"/codecs", json::array(), false, StatusCode::kCorruption, "codecs"},
      {"/codecs", json::object(), false, StatusCode::kCorruption, "codecs"},
      {"/codecs/0", 3, false, StatusCode::kCorruption, "codecs"},
      {"/attributes", json::array(), false, StatusCode::kCorruption, "attributes"},
      {"/dimension_names", json::array({"x"}), false, StatusCode::kCorruption,
       "dimension_names"},
      {"/dimension_names", json::array({"x", 1}), false, StatusCode::kCorruption,
       "dimension_names"},
  };
  for (const auto& c : cases) {
    json j = Doc(t::kV3BasicZarrJson);
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
  EXPECT_EQ(ParseError(json::array()).code(), StatusCode::kCorruption);
}

TEST(ArrayMetadataV3Test, ZeroSizedShapeIsAllowed) {
  json j = Doc(t::kV3BasicZarrJson);
  j["shape"] = json::array({0, 0});
  ArrayMetadata m = *ParseV3ArrayMetadata(j, "a");
  EXPECT_EQ(m.shape, (std::vector<int64_t>{0, 0}));
}

}  // namespace
}  // namespace turbozarr

namespace turbozarr {
namespace {

// Every truncation and many single-byte changes of real documents must give
// a Status (or parse), never crash or throw.
TEST(ArrayMetadataRobustnessTest, DamagedDocumentsNeverCrash) {
  namespace t = turbozarr::testing;
  const std::string_view docs[] = {t::kV3ShardZarrJson, t::kV2StrZarray};
  const char replacements[] = {'"', '-', '}', '9'};
  int parsed = 0;
  for (std::string_view doc : docs) {
    auto check = [&](const std::string& text) {
      auto j = ParseJsonDocument(AsBytes(text), "k");
      if (!j.ok()) {
        EXPECT_EQ(j.status().code(), StatusCode::kCorruption);
        return;
      }
      auto v3 = ParseV3ArrayMetadata(*j, "a");
      auto v2 = ParseV2ArrayMetadata(*j, nullptr, "a");
      if (v3.ok()) {
        ++parsed;
        DumpJsonDocument(ToV3Json(*v3));
      }
      if (v2.ok()) {
        ++parsed;
        DumpJsonDocument(ToV2ZarrayJson(*v2));
      }
    };
    for (size_t n = 0; n < doc.size(); ++n) check(std::string(doc.substr(0, n)));
    for (size_t i = 0; i < doc.size(); ++i) {
      for (char r : replacements) {
        std::string text(doc);
        text[i] = r;
        check(text);
      }
    }
  }
  EXPECT_GT(parsed, 0);  // some changes (inside numbers) still give valid metadata
}

}  // namespace
}  // namespace turbozarr
