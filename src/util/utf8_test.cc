#include "turbozarr/utf8.h"

#include <gtest/gtest.h>

namespace turbozarr {
namespace {

std::string Utf8(std::u32string_view text) {
  std::string out;
  for (char32_t c : text) AppendUtf8(out, c);
  return out;
}

TEST(Utf8Test, EncodesEachLength) {
  EXPECT_EQ(Utf8(U"chr1"), "chr1");
  EXPECT_EQ(Utf8(U"\u00e9"), "\xc3\xa9");            // two bytes
  EXPECT_EQ(Utf8(U"\u20ac"), "\xe2\x82\xac");        // three
  EXPECT_EQ(Utf8(U"\U0001F600"), "\xf0\x9f\x98\x80");  // four
  EXPECT_EQ(Utf8(U"\U0010FFFF"), "\xf4\x8f\xbf\xbf");  // the last code point
}

TEST(Utf8Test, WhatNoUtf8MayHoldBecomesTheReplacementCharacter) {
  std::string out;
  AppendUtf8(out, 0xD800);    // a surrogate
  AppendUtf8(out, 0x110000);  // past the last code point
  EXPECT_EQ(out, "\xef\xbf\xbd\xef\xbf\xbd");
}

TEST(Utf8Test, DecodingGivesTheCodePointsBack) {
  for (const std::u32string& text : {std::u32string(U"plain"), std::u32string(U"\u00e9\u20ac"),
                                    std::u32string(U"\U0001F600\U0010FFFF"),
                                    std::u32string()}) {
    EXPECT_EQ(DecodeUtf8(Utf8(text)), std::optional<std::u32string>(text));
  }
}

TEST(Utf8Test, MalformedUtf8DecodesToNothing) {
  for (const std::string_view bad :
       {std::string_view("\xc3"), std::string_view("a\xe2\x82"),      // cut short
        std::string_view("\xc0\xaf"),                                 // overlong
        std::string_view("\xed\xa0\x80"),                            // a surrogate
        std::string_view("\xf4\x90\x80\x80"),                        // past U+10FFFF
        std::string_view("\x80"), std::string_view("\xff")}) {
    EXPECT_EQ(DecodeUtf8(bad), std::nullopt) << testing::PrintToString(std::string(bad));
  }
}

}  // namespace
}  // namespace turbozarr
