#include "store/url_origin.h"

#include <gtest/gtest.h>

namespace turbozarr::internal {
namespace {

TEST(HttpSchemeLengthTest, MatchesHttpAndHttpsInAnyCase) {
  EXPECT_EQ(HttpSchemeLength("http://host/a"), 7u);
  EXPECT_EQ(HttpSchemeLength("HTTP://host"), 7u);
  EXPECT_EQ(HttpSchemeLength("https://host"), 8u);
  EXPECT_EQ(HttpSchemeLength("hTtPs://"), 8u);
}

TEST(HttpSchemeLengthTest, RefusesEveryOtherStart) {
  EXPECT_EQ(HttpSchemeLength(""), 0u);
  EXPECT_EQ(HttpSchemeLength("http:/host"), 0u);
  EXPECT_EQ(HttpSchemeLength("https:/"), 0u);
  EXPECT_EQ(HttpSchemeLength("ftp://host"), 0u);
  EXPECT_EQ(HttpSchemeLength("s3://bucket"), 0u);
  EXPECT_EQ(HttpSchemeLength(" http://host"), 0u);
}

}  // namespace
}  // namespace turbozarr::internal
