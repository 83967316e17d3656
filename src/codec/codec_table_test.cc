// The codec table's rows agree with the codecs they describe, and metadata
// completion follows zarr-python's rules (python/turbozarr/_codecs.py reads
// it; python/tests check it against zarr-python and numcodecs themselves).
#include "codec/codec_table.h"

#include <gtest/gtest.h>

#include <set>

#include "testing/codec_fixtures.h"

namespace turbozarr {
namespace {

using internal::CodecRow;
using internal::CodecTable;
using nlohmann::json;
using nlohmann::ordered_json;
using testing::MakeSpec;

ordered_json Complete(const char* text, size_t itemsize, int format) {
  auto r = CompleteCodecJson(ordered_json::parse(text), itemsize, format);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : ordered_json();
}

TEST(CodecTableTest, NamesAreUniqueAndFindable) {
  std::set<std::string_view> names, ids;
  for (const CodecRow& row : CodecTable()) {
    ASSERT_FALSE(row.label().empty());
    ASSERT_NE(row.make, nullptr) << row.label();
    if (!row.name.empty()) {
      EXPECT_TRUE(names.insert(row.name).second) << row.name;
      EXPECT_EQ(internal::FindCodecByName(row.name), &row);
    }
    if (!row.numcodecs_id.empty()) {
      EXPECT_TRUE(ids.insert(row.numcodecs_id).second) << row.numcodecs_id;
      EXPECT_EQ(internal::FindCodecByNumcodecsId(row.numcodecs_id), &row);
    }
  }
  EXPECT_EQ(internal::FindCodecByName("lz4"), nullptr);  // numcodecs only
  EXPECT_EQ(internal::FindCodecByNumcodecsId("bytes"), nullptr);
}

// What zarr-python fills in is what the codec itself assumes: the completed
// JSON of a bare codec builds a codec that writes that JSON back, of the
// row's kind.
TEST(CodecTableTest, CompletedDefaultsAreTheCodecsOwn) {
  for (size_t itemsize : {1, 4}) {
    const ArraySpec spec = MakeSpec(
        {16}, DataType(itemsize == 1 ? DataTypeId::kUInt8 : DataTypeId::kInt32));
    for (const CodecRow& row : CodecTable()) {
      if (!row.name.empty() && (!row.v3_defaults.empty() || row.complete_v3)) {
        SCOPED_TRACE(std::string(row.name) + " item size " + std::to_string(itemsize));
        auto full = CompleteCodecJson({{"name", row.name}}, itemsize, 3);
        ASSERT_TRUE(full.ok());
        auto codec = MakeCodec(json::parse(full->dump()), spec);
        ASSERT_TRUE(codec.ok()) << codec.status().ToString();
        EXPECT_EQ((*codec)->ToJson(), json::parse(full->dump()));
        EXPECT_EQ((*codec)->kind(), row.kind);
      }
      // zfp has no type of one byte.
      const bool takes_spec = !(row.numcodecs_id == "zfpy" && itemsize == 1);
      if (!row.numcodecs_defaults.empty() && takes_spec) {
        SCOPED_TRACE(std::string(row.numcodecs_id));
        auto full = CompleteCodecJson({{"id", row.numcodecs_id}}, itemsize, 2);
        ASSERT_TRUE(full.ok());
        auto codec = MakeV2Codec(json::parse(full->dump()), spec);
        ASSERT_TRUE(codec.ok()) << codec.status().ToString();
        EXPECT_EQ(*ToV2Json(**codec), json::parse(full->dump()));
        EXPECT_EQ((*codec)->kind(), row.kind);
      }
    }
  }
}

TEST(CodecTableTest, CompletesV3AsZarrPythonWritesIt) {
  EXPECT_EQ(Complete(R"({"name": "zstd", "configuration": {"checksum": true}})", 4, 3)
                .dump(),
            R"({"name":"zstd","configuration":{"checksum":true,"level":0}})");
  EXPECT_EQ(Complete(R"({"name": "gzip"})", 4, 3).dump(),
            R"({"name":"gzip","configuration":{"level":5}})");
  // blosc: five fields in zarr-python's order, others dropped; the shuffle
  // follows the typesize, the typesize the item size.
  EXPECT_EQ(Complete(R"({"name": "blosc", "configuration": {"clevel": 3, "x": 1}})", 1, 3)
                .dump(),
            R"({"name":"blosc","configuration":{"typesize":1,"cname":"zstd",)"
            R"("clevel":3,"shuffle":"bitshuffle","blocksize":0}})");
  EXPECT_EQ(Complete(R"({"name": "blosc", "configuration": {"typesize": 2}})", 1, 3)
                ["configuration"]["shuffle"],
            "shuffle");
  EXPECT_EQ(Complete(R"({"name": "crc32c", "configuration": {"a": 1}})", 4, 3).dump(),
            R"({"name":"crc32c"})");
  // Others keep their fields; an empty configuration and other members go,
  // except numcodecs' empty configuration, which zarr-python requires.
  EXPECT_EQ(Complete(R"({"name": "transpose", "configuration": {"order": [1, 0]}})", 4, 3)
                .dump(),
            R"({"name":"transpose","configuration":{"order":[1,0]}})");
  EXPECT_EQ(Complete(R"({"name": "numcodecs.zlib", "configuration": {},
                         "must_understand": false})",
                     4, 3)
                .dump(),
            R"({"name":"numcodecs.zlib","configuration":{}})");
  EXPECT_EQ(Complete(R"({"name": "numcodecs.crc32"})", 4, 3).dump(),
            R"({"name":"numcodecs.crc32","configuration":{}})");
  EXPECT_EQ(Complete(R"({"name": "transpose", "configuration": {}})", 4, 3).dump(),
            R"({"name":"transpose"})");
  EXPECT_EQ(Complete(R"({"name": "lzma", "configuration": {"preset": 9}})", 4, 3).dump(),
            R"({"name":"lzma","configuration":{"preset":9}})");
}

TEST(CodecTableTest, CompletesV2OverNumcodecsDefaults) {
  // The caller's fields replace defaults in place; new ones go last.
  EXPECT_EQ(Complete(R"({"clevel": 9, "id": "blosc", "typesize": 4})", 4, 2).dump(),
            R"({"id":"blosc","cname":"lz4","clevel":9,"shuffle":1,"blocksize":0,)"
            R"("typesize":4})");
  // zstd's "checksum": false is left out, as zarr-python writes a v2 zstd.
  EXPECT_EQ(Complete(R"({"id": "zstd"})", 4, 2).dump(), R"({"id":"zstd","level":0})");
  EXPECT_EQ(Complete(R"({"id": "zstd", "checksum": true})", 4, 2).dump(),
            R"({"id":"zstd","level":0,"checksum":true})");
  EXPECT_EQ(Complete(R"({"id": "crc32c"})", 4, 2).dump(), R"({"id":"crc32c"})");
  EXPECT_EQ(Complete(R"({"id": "quantize", "digits": 3})", 4, 2).dump(),
            R"({"id":"quantize","digits":3})");
}

TEST(CodecTableTest, MalformedCodecsAreInvalidArgument) {
  for (const char* text : {R"([1])", R"({"configuration": {}})",
                           R"({"name": "zstd", "configuration": [1]})"}) {
    auto r = CompleteCodecJson(ordered_json::parse(text), 4, 3);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  }
  EXPECT_FALSE(CompleteCodecJson({{"name", "zstd"}}, 4, 2).ok());
}

TEST(CodecTableTest, ShorthandsAreTheTables) {
  const DataType f8(DataTypeId::kFloat64);
  std::string listed;
  for (const CodecRow& row : CodecTable()) {
    if (row.shorthand == nullptr) continue;
    listed += std::string(row.label()) + ", ";
    // A bare shorthand builds, in both formats.
    auto v3 = CodecFromShorthand(row.label(), f8, 3);
    ASSERT_TRUE(v3.ok()) << v3.status().ToString();
    EXPECT_TRUE(MakeCodec(*v3, MakeSpec({8}, f8)).ok()) << v3->dump();
    auto v2 = CodecFromShorthand(row.label(), f8, 2);
    ASSERT_TRUE(v2.ok()) << v2.status().ToString();
    EXPECT_TRUE(MakeV2Codec(*v2, MakeSpec({8}, f8)).ok()) << v2->dump();
  }
  listed.resize(listed.size() - 2);
  EXPECT_EQ(CodecFromShorthand("snappy", f8, 3).status().message(),
            "unknown codec 'snappy': expected " + listed + " or none");
  EXPECT_EQ(CodecFromShorthand("none:1", f8, 3).status().message(),
            "invalid codec 'none:1': expected at most 1 ':'-separated parts");
  EXPECT_EQ(CodecFromShorthand("crc32c:1", f8, 2).status().message(),
            "invalid codec 'crc32c:1': expected at most 1 ':'-separated parts");
  EXPECT_EQ(CodecFromShorthand("blosc:lz4:5:sideways", f8, 3).status().message(),
            "invalid codec 'blosc:lz4:5:sideways': shuffle 'sideways' is not "
            "noshuffle, shuffle or bitshuffle");
  EXPECT_EQ(*CodecFromShorthand("blosc::7", DataType(DataTypeId::kString), 2),
            json::parse(R"({"id":"blosc","cname":"lz4","clevel":7,"shuffle":2,
                "blocksize":0})"));
}

}  // namespace
}  // namespace turbozarr
