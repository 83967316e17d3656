#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "turbozarr/metadata.h"

namespace turbozarr {
namespace {

using nlohmann::json;

Result<JsonDocument> Parse(std::string_view text, std::string_view key = "a/zarr.json") {
  return ParseJsonDocument(AsBytes(text), key);
}

TEST(JsonDocumentTest, ParsesObjects) {
  auto j = Parse(R"({"zarr_format": 3, "x": [1, 2.5, "s", null, true]})");
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  EXPECT_EQ((*j)["zarr_format"], 3);
  EXPECT_EQ((*j)["x"][1], 2.5);
}

TEST(JsonDocumentTest, AttributesKeepTheirOrderThroughParseAndWrite) {
  // User attributes in the order written (zarr-python keeps it); the known
  // fields in zarr-python's order.
  const std::string text =
      "{\n  \"attributes\": {\n    \"zeta\": 1,\n    \"alpha\": {\n      \"y\": 2,\n"
      "      \"b\": 3\n    },\n    \"mid\": \"m\"\n  },\n  \"zarr_format\": 3,\n"
      "  \"node_type\": \"group\"\n}";
  auto j = Parse(text);
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  EXPECT_EQ(DumpJsonDocument(*j), text);
  auto group = ParseV3GroupMetadata(*j, "group 'g'");
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  std::vector<std::string> keys;
  for (const auto& [key, value] : group->attributes.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"zeta", "alpha", "mid"}));
  EXPECT_EQ(DumpJsonDocument(ToV3Json(*group)), text);
}

TEST(JsonDocumentTest, MalformedJsonIsCorruptionNamingTheKey) {
  for (std::string_view bad : {"", "{", "{\"a\": }", "{\"a\": 1,}", "nul",
                               "{\"a\": \"\xff\"}", "{} trailing", "{\"a\": NaNa}"}) {
    auto r = Parse(bad, "grp/arr/zarr.json");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
    EXPECT_NE(r.status().message().find("grp/arr/zarr.json"), std::string::npos);
  }
}

TEST(JsonDocumentTest, TopLevelMustBeAnObject) {
  for (std::string_view text : {"[]", "3", "\"x\"", "null"}) {
    auto r = Parse(text, ".zarray");
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << text;
    EXPECT_NE(r.status().message().find(".zarray"), std::string::npos);
    EXPECT_NE(r.status().message().find("object"), std::string::npos);
  }
}

TEST(JsonDocumentTest, DeepNestingIsRefusedNotOverflowed) {
  std::string deep =
      "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  auto r = Parse(deep);
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  std::string ok = "{\"a\": " + std::string(100, '[') + std::string(100, ']') + "}";
  EXPECT_TRUE(Parse(ok).ok());
}

TEST(JsonDocumentTest, ReadsPythonNonFiniteFloats) {
  // zarr-python writes attributes with json.dumps(allow_nan=True).
  auto j = Parse(R"({"attributes": {"n": NaN, "p": Infinity, "m": -Infinity,
                      "s": "NaN Infinity", "l": [NaN, -1]}})");
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  const json& a = (*j)["attributes"];
  EXPECT_TRUE(std::isnan(a["n"].get<double>()));
  EXPECT_EQ(a["p"].get<double>(), INFINITY);
  EXPECT_EQ(a["m"].get<double>(), -INFINITY);
  EXPECT_EQ(a["s"], "NaN Infinity");
  EXPECT_TRUE(std::isnan(a["l"][0].get<double>()));
  EXPECT_EQ(a["l"][1], -1);
  EXPECT_EQ(
      DumpJsonDocument(a, -1),
      R"({"l": [NaN, -1], "m": -Infinity, "n": NaN, "p": Infinity, "s": "NaN Infinity"})");
}

TEST(JsonDocumentTest, FloatsAreWrittenAsPythonRepr) {
  // Each pair: the value and Python's json.dumps of it.
  const std::pair<double, const char*> cases[] = {
      {1e16, "1e+16"},
      {1.5e16, "1.5e+16"},
      {1e-5, "1e-05"},
      {0.0001, "0.0001"},
      {123456.789, "123456.789"},
      {1e22, "1e+22"},
      {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {0.1, "0.1"},
      {100.0, "100.0"},
      {1e15, "1000000000000000.0"},
      {12345678901234567.0, "1.2345678901234568e+16"},
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {-2.5, "-2.5"},
      {0.10000000149011612, "0.10000000149011612"},
      {1.5e-7, "1.5e-07"},
      {1e100, "1e+100"},
  };
  for (const auto& [v, text] : cases) {
    EXPECT_EQ(DumpJsonDocument(json::array({v}), -1), std::string("[") + text + "]");
  }
}

TEST(JsonDocumentTest, StringsAreEscapedAsPythonEnsureAscii) {
  json j = {{"s", "a\"b\\c\n\t\x01\x7f\xc3\xa9\xf0\x9f\x98\x80/"}};
  EXPECT_EQ(DumpJsonDocument(j, -1),
            R"({"s": "a\"b\\c\n\t\u0001\u007f\u00e9\ud83d\ude00/"})");
  // Bytes that are not UTF-8 become U+FFFD instead of throwing.
  json bad = {{"s", std::string("x\xffy")}};
  EXPECT_EQ(DumpJsonDocument(bad, -1), R"({"s": "x\ufffdy"})");
}

TEST(JsonDocumentTest, IndentedLayoutMatchesPython) {
  json j = json::parse(R"({"zarr_format": 3, "node_type": "group", "attributes": {},
                          "x": [], "y": [1, {"b": 2, "a": 1}]})");
  // Known fields in zarr-python's order, the rest after them in sorted order;
  // empty containers stay on one line as Python writes them.
  EXPECT_EQ(DumpJsonDocument(j),
            "{\n"
            "  \"attributes\": {},\n"
            "  \"zarr_format\": 3,\n"
            "  \"node_type\": \"group\",\n"
            "  \"x\": [],\n"
            "  \"y\": [\n"
            "    1,\n"
            "    {\n"
            "      \"a\": 1,\n"
            "      \"b\": 2\n"
            "    }\n"
            "  ]\n"
            "}");
}

TEST(JsonDocumentTest, AttributesKeepSortedOrderEvenForFieldNames) {
  json j = {{"attributes", {{"zarr_format", 1}, {"shape", 2}}}, {"zarr_format", 3}};
  EXPECT_EQ(DumpJsonDocument(j, -1),
            R"({"attributes": {"shape": 2, "zarr_format": 1}, "zarr_format": 3})");
}

TEST(JsonDocumentTest, RoundTripsLargeIntegers) {
  auto j = Parse(R"({"a": 18446744073709551615, "b": -9223372036854775808})");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(DumpJsonDocument(*j, -1),
            R"({"a": 18446744073709551615, "b": -9223372036854775808})");
}

}  // namespace
}  // namespace turbozarr
