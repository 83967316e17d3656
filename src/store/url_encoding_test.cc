#include "store/url_encoding.h"

#include <gtest/gtest.h>

#include <string>

namespace turbozarr {
namespace {

TEST(PercentEncodeTest, KeepsUnreservedCharacters) {
  const std::string unreserved =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
  EXPECT_EQ(PercentEncode(unreserved, Slash::kKeep), unreserved);
  EXPECT_EQ(PercentEncode(unreserved, Slash::kEncode), unreserved);
  EXPECT_EQ(PercentEncode("a/b/zarr.json", Slash::kKeep), "a/b/zarr.json");
  EXPECT_EQ(PercentEncode("c/0.0.1", Slash::kKeep), "c/0.0.1");
  EXPECT_EQ(PercentEncode("", Slash::kKeep), "");
}

TEST(PercentEncodeTest, EncodesSlashOnlyWhenAsked) {
  EXPECT_EQ(PercentEncode("a/b", Slash::kKeep), "a/b");
  EXPECT_EQ(PercentEncode("a/b", Slash::kEncode), "a%2Fb");
  EXPECT_EQ(PercentEncode("//", Slash::kEncode), "%2F%2F");
}

TEST(PercentEncodeTest, EncodesReservedAndOtherAsciiWithUpperCaseHex) {
  EXPECT_EQ(PercentEncode("key with spaces", Slash::kKeep), "key%20with%20spaces");
  EXPECT_EQ(PercentEncode("q?x=1#f", Slash::kKeep), "q%3Fx%3D1%23f");
  EXPECT_EQ(PercentEncode("a/b=c&d+e", Slash::kEncode), "a%2Fb%3Dc%26d%2Be");
  EXPECT_EQ(PercentEncode(":@!$'()*,;[]", Slash::kKeep),
            "%3A%40%21%24%27%28%29%2A%2C%3B%5B%5D");
  // A '%' is data, never the start of an escape: keys are not pre-encoded.
  EXPECT_EQ(PercentEncode("pct%41", Slash::kKeep), "pct%2541");
  // Control bytes, NUL and DEL.
  EXPECT_EQ(PercentEncode(std::string("\t\n\0\x7f", 4), Slash::kKeep), "%09%0A%00%7F");
}

TEST(PercentEncodeTest, EncodesUtf8ByteByByte) {
  EXPECT_EQ(PercentEncode("\xC3\xBC", Slash::kKeep), "%C3%BC");                // ü
  EXPECT_EQ(PercentEncode("\xE2\x82\xAC", Slash::kKeep), "%E2%82%AC");         // €
  EXPECT_EQ(PercentEncode("\xF0\x9F\x98\x80", Slash::kKeep), "%F0%9F%98%80");  // 😀
  // Bytes that are not valid UTF-8 are encoded all the same.
  EXPECT_EQ(PercentEncode("\xFF\x80", Slash::kKeep), "%FF%80");
}

TEST(PercentEncodeTest, MatchesTheAwsSigV4Examples) {
  // AWS's UriEncode examples (Signature Version 4, "Create a canonical
  // request"): the object key keeps its slashes, query values encode them.
  EXPECT_EQ(PercentEncode("a b/c~d_e.f-g$\xC3\xBC", Slash::kKeep),
            "a%20b/c~d_e.f-g%24%C3%BC");
  EXPECT_EQ(PercentEncode("test$file.text", Slash::kKeep), "test%24file.text");
  EXPECT_EQ(PercentEncode("photos/2006/February/sample.jpg", Slash::kKeep),
            "photos/2006/February/sample.jpg");
}

}  // namespace
}  // namespace turbozarr
