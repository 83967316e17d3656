#include "dtype/base64.h"

#include <gtest/gtest.h>

namespace turbozarr::internal {
namespace {

TEST(Base64Test, EncodesRfc4648Vectors) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode(std::string("\0\0", 2)), "AAA=");
  EXPECT_EQ(Base64Encode("\xff\xfe"), "//4=");
}

TEST(Base64Test, DecodesWhatItEncodes) {
  for (std::string s : {std::string(""), std::string("x"), std::string("xy"),
                        std::string("xyz"), std::string("\0\xff\x10\x80", 4)}) {
    auto d = Base64Decode(Base64Encode(s));
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(*d, s);
  }
  EXPECT_EQ(*Base64Decode("eHk="), "xy");
}

TEST(Base64Test, RejectsMalformedText) {
  EXPECT_FALSE(Base64Decode("eHk").has_value());       // missing padding
  EXPECT_FALSE(Base64Decode("eH!=").has_value());      // not in the alphabet
  EXPECT_FALSE(Base64Decode("=AAA").has_value());      // padding first
  EXPECT_FALSE(Base64Decode("AA==AAAA").has_value());  // padding inside
}

}  // namespace
}  // namespace turbozarr::internal
