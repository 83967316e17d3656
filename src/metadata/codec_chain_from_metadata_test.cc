#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "testing/zarr_python_testdata.h"
#include "turbozarr/metadata.h"

namespace turbozarr {
namespace {

using nlohmann::json;
namespace t = turbozarr::testing;

json Doc(std::string_view text) {
  auto j = ParseJsonDocument(AsBytes(text), "doc");
  EXPECT_TRUE(j.ok()) << j.status().ToString();
  return j.ok() ? json(*j) : json();
}

ArrayMetadata V2(std::string_view zarray) {
  auto m = ParseV2ArrayMetadata(Doc(zarray), nullptr, "a");
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? *m : ArrayMetadata{};
}

ArrayMetadata V3(std::string_view doc) {
  auto m = ParseV3ArrayMetadata(Doc(doc), "a");
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? *m : ArrayMetadata{};
}

TEST(CodecChainFromMetadataTest, V3ListsItsCodecs) {
  auto chain = V3(t::kV3BasicZarrJson).MakeCodecChain();
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  EXPECT_TRUE(chain->array_to_array().empty());
  EXPECT_EQ(chain->array_to_bytes()->name(), "bytes");
  ASSERT_EQ(chain->bytes_to_bytes().size(), 1u);
  EXPECT_EQ(chain->bytes_to_bytes()[0]->name(), "zstd");
  EXPECT_EQ(chain->spec().shape, (std::vector<int64_t>{10, 5}));

  auto sharded = V3(t::kV3ShardZarrJson).MakeCodecChain();
  ASSERT_TRUE(sharded.ok()) << sharded.status().ToString();
  EXPECT_EQ(sharded->array_to_bytes()->name(), "sharding_indexed");
}

TEST(CodecChainFromMetadataTest, V2CompressorAndByteOrder) {
  ArrayMetadata m = V2(t::kV2BasicZarray);
  auto chain = m.MakeCodecChain();
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  EXPECT_TRUE(chain->array_to_array().empty());
  EXPECT_EQ(chain->array_to_bytes()->ToJson(),
            json::parse(R"({"name": "bytes", "configuration": {"endian": "little"}})"));
  ASSERT_EQ(chain->bytes_to_bytes().size(), 1u);
  EXPECT_EQ(chain->bytes_to_bytes()[0]->name(), "zstd");
  auto v2json = ToV2Json(*chain->bytes_to_bytes()[0]);
  ASSERT_TRUE(v2json.ok());
  EXPECT_EQ((*v2json)["id"], "zstd");
  // The v3 equivalent is kept in `codecs`.
  EXPECT_EQ(m.codecs, chain->ToJson());
}

TEST(CodecChainFromMetadataTest, V2FortranOrderIsATranspose) {
  ArrayMetadata m = V2(t::kV2FZarray);
  auto chain = m.MakeCodecChain();
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  ASSERT_EQ(chain->array_to_array().size(), 1u);
  EXPECT_EQ(chain->array_to_array()[0]->ToJson(),
            json::parse(R"({"name": "transpose", "configuration": {"order": [1, 0]}})"));
  EXPECT_EQ(chain->array_to_bytes()->ToJson(),
            json::parse(R"({"name": "bytes", "configuration": {"endian": "big"}})"));

  // The stored bytes are the big-endian Fortran-order layout.
  m.chunk_shape = {2, 3};
  m.v2_compressor = nullptr;
  auto small = m.MakeCodecChain();
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  ChunkArray chunk;
  chunk.shape = {2, 3};
  chunk.dtype = m.dtype;
  chunk.bytes = Buffer(6 * 8);
  for (int i = 0; i < 6; ++i) {
    double v = i;
    std::memcpy(chunk.bytes.data() + i * 8, &v, 8);
  }
  auto encoded = small->Encode(chunk);
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  ASSERT_EQ(encoded->size(), 48u);
  // Element (r, c) sits at c * 2 + r; its last byte (big-endian) is the low
  // byte of the mantissa, and the first two bytes hold sign and exponent.
  const int expected_order[] = {0, 3, 1, 4, 2, 5};
  for (int k = 0; k < 6; ++k) {
    double v;
    unsigned char be[8];
    std::memcpy(be, encoded->data() + k * 8, 8);
    unsigned char le[8];
    for (int b = 0; b < 8; ++b) le[b] = be[7 - b];
    std::memcpy(&v, le, 8);
    EXPECT_EQ(v, expected_order[k]) << k;
  }
  auto decoded = small->Decode(*encoded);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->bytes, chunk.bytes);
}

TEST(CodecChainFromMetadataTest, V2ObjectDtypesUseTheirVlenCodec) {
  auto s = V2(t::kV2StrZarray).MakeCodecChain();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->array_to_bytes()->name(), "vlen-utf8");
  auto b = V2(t::kV2VbytesZarray).MakeCodecChain();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->array_to_bytes()->name(), "vlen-bytes");
}

TEST(CodecChainFromMetadataTest, V2SingleByteTypesHaveNoEndian) {
  auto chain = V2(t::kV2BZarray).MakeCodecChain();
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  EXPECT_EQ(chain->array_to_bytes()->ToJson()["name"], "bytes");
  EXPECT_FALSE(chain->array_to_bytes()->ToJson().contains("configuration") &&
               chain->array_to_bytes()->ToJson()["configuration"].contains("endian"));
  auto none = V2(t::kV2NofillZarray).MakeCodecChain();
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->bytes_to_bytes().empty());
}

TEST(CodecChainFromMetadataTest, UnsupportedFiltersAndCompressorsAreNamed) {
  json j = Doc(t::kV2BasicZarray);
  j["filters"] = json::parse(R"([{"id": "quantize", "digits": 3, "dtype": "<f8"}])");
  auto m = ParseV2ArrayMetadata(j, nullptr, "a");
  ASSERT_TRUE(m.ok()) << m.status().ToString();  // metadata alone is fine
  auto chain = m->MakeCodecChain();
  EXPECT_EQ(chain.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(chain.status().message().find("quantize"), std::string::npos);

  j = Doc(t::kV2BasicZarray);
  j["compressor"] = {{"id", "no-such-codec"}};
  auto c = ParseV2ArrayMetadata(j, nullptr, "a")->MakeCodecChain();
  EXPECT_EQ(c.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(c.status().message().find("no-such-codec"), std::string::npos);
}

}  // namespace
}  // namespace turbozarr
