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

}  // namespace
}  // namespace turbozarr
