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
