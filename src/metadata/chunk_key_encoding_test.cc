#include <gtest/gtest.h>

#include "turbozarr/metadata.h"

namespace turbozarr {
namespace {

using nlohmann::json;

TEST(ChunkKeyEncodingTest, DefaultKeys) {
  ChunkKeyEncoding e;
  EXPECT_EQ(e.EncodeKey({}), "c");
  EXPECT_EQ(e.EncodeKey({0}), "c/0");
  EXPECT_EQ(e.EncodeKey({1, 23, 4}), "c/1/23/4");
  e.separator = '.';
  EXPECT_EQ(e.EncodeKey({1, 2}), "c.1.2");
}

TEST(ChunkKeyEncodingTest, V2Keys) {
  ChunkKeyEncoding e{ChunkKeyEncoding::Kind::kV2, '.'};
  EXPECT_EQ(e.EncodeKey({}), "0");
  EXPECT_EQ(e.EncodeKey({5}), "5");
  EXPECT_EQ(e.EncodeKey({1, 2, 30}), "1.2.30");
  e.separator = '/';
  EXPECT_EQ(e.EncodeKey({1, 2}), "1/2");
}

TEST(ChunkKeyEncodingTest, DecodesWhatItEncodes) {
  using Coords = std::vector<int64_t>;
  ChunkKeyEncoding v3;
  EXPECT_EQ(v3.DecodeKey("c/1/23/4", 3), (Coords{1, 23, 4}));
  EXPECT_EQ(v3.DecodeKey("c", 0), Coords{});
  ChunkKeyEncoding v2{ChunkKeyEncoding::Kind::kV2, '.'};
  EXPECT_EQ(v2.DecodeKey("1.2.30", 3), (Coords{1, 2, 30}));
  EXPECT_EQ(v2.DecodeKey("0", 0), Coords{});
  ChunkKeyEncoding v2_slash{ChunkKeyEncoding::Kind::kV2, '/'};
  EXPECT_EQ(v2_slash.DecodeKey("1/2", 2), (Coords{1, 2}));
}

TEST(ChunkKeyEncodingTest, RefusesKeysItWouldNotWrite) {
  ChunkKeyEncoding v3;
  for (const char* key : {"c/1", "c/1/2/3", "c/01/2", "c/+1/2", "c/-1/2", "c.1.2", "1/2",
                          "c/1/2/", "c/1/x", ".zattrs", "c//2"}) {
    EXPECT_EQ(v3.DecodeKey(key, 2), std::nullopt) << key;
  }
  ChunkKeyEncoding v2{ChunkKeyEncoding::Kind::kV2, '.'};
  for (const char* key : {"1", "1.2.3", "c.1.2", "1/2", "00.1", ".zarray", "1.2.", "c"}) {
    EXPECT_EQ(v2.DecodeKey(key, 2), std::nullopt) << key;
  }
  EXPECT_EQ(v2.DecodeKey("1", 0), std::nullopt);
}

TEST(ChunkKeyEncodingTest, JsonRoundTrip) {
  for (const char* text : {R"({"name": "default", "configuration": {"separator": "/"}})",
                           R"({"name": "default", "configuration": {"separator": "."}})",
                           R"({"name": "v2", "configuration": {"separator": "."}})",
                           R"({"name": "v2", "configuration": {"separator": "/"}})"}) {
    json j = json::parse(text);
    auto e = ChunkKeyEncoding::FromJson(j);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    EXPECT_EQ(json(e->ToJson()), j);
  }
}

TEST(ChunkKeyEncodingTest, SeparatorDefaultsDependOnTheName) {
  auto d = ChunkKeyEncoding::FromJson(json::parse(R"({"name": "default"})"));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->separator, '/');
  auto v2 =
      ChunkKeyEncoding::FromJson(json::parse(R"({"name": "v2", "configuration": {}})"));
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(v2->kind, ChunkKeyEncoding::Kind::kV2);
  EXPECT_EQ(v2->separator, '.');
  auto s = ChunkKeyEncoding::FromJson(json("v2"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kind, ChunkKeyEncoding::Kind::kV2);
}

TEST(ChunkKeyEncodingTest, BadEncodings) {
  auto unknown = ChunkKeyEncoding::FromJson(json::parse(R"({"name": "hashed"})"));
  EXPECT_EQ(unknown.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(unknown.status().message().find("hashed"), std::string::npos);
  for (const char* text : {R"({})", R"({"name": 3})", R"(4)",
                           R"({"name": "default", "configuration": {"separator": "-"}})",
                           R"({"name": "default", "configuration": {"separator": 1}})",
                           R"({"name": "default", "configuration": []})"}) {
    auto r = ChunkKeyEncoding::FromJson(json::parse(text));
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << text;
  }
}

}  // namespace
}  // namespace turbozarr
