#include "vcz/query_format.h"

#include <gtest/gtest.h>

namespace turbozarr::vcz::internal {
namespace {

using Kind = FormatElement::Kind;

TEST(QueryFormatTest, TagsTextLoopsAndSubfields) {
  auto f = ParseQueryFormat("%CHROM:%POS %INFO/DP{1}[\\t%SAMPLE=%GT]\\n");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  ASSERT_EQ(f->size(), 7u);
  EXPECT_EQ((*f)[0].kind, Kind::kTag);
  EXPECT_EQ((*f)[0].text, "CHROM");
  EXPECT_EQ((*f)[1].kind, Kind::kText);
  EXPECT_EQ((*f)[1].text, ":");
  EXPECT_EQ((*f)[2].text, "POS");
  EXPECT_EQ((*f)[3].text, " ");
  EXPECT_EQ((*f)[4].kind, Kind::kSubfield);
  EXPECT_EQ((*f)[4].text, "INFO/DP");
  EXPECT_EQ((*f)[4].subfield, 1);
  ASSERT_EQ((*f)[5].kind, Kind::kSampleLoop);
  const auto& loop = (*f)[5].loop;
  ASSERT_EQ(loop.size(), 4u);
  EXPECT_EQ(loop[0].text, "\t");  // the escape, made a tab
  EXPECT_EQ(loop[1].text, "SAMPLE");
  EXPECT_EQ(loop[2].text, "=");
  EXPECT_EQ(loop[3].text, "GT");
  EXPECT_EQ((*f)[6].text, "\n");
}

TEST(QueryFormatTest, TheGrammarsCornersAsVcztoolsHasThem) {
  // One digit may end a tag; "%FORMAT/DP" is the tag FORMAT then text.
  auto f = ParseQueryFormat("%AF12%FORMAT/DP");
  ASSERT_TRUE(f.ok());
  ASSERT_EQ(f->size(), 4u);
  EXPECT_EQ((*f)[0].text, "AF1");
  EXPECT_EQ((*f)[1].text, "2");
  EXPECT_EQ((*f)[2].text, "FORMAT");
  EXPECT_EQ((*f)[3].text, "/DP");
  // A tag then "{" without a number and "}" is not a subfield, and "{" is
  // no text either.
  EXPECT_FALSE(ParseQueryFormat("%AC{x}").ok());
  // Adjacent text merges; an empty loop is allowed; loops nest.
  f = ParseQueryFormat("a b\\t[][[%GT]]");
  ASSERT_TRUE(f.ok());
  ASSERT_EQ(f->size(), 3u);
  EXPECT_EQ((*f)[0].text, "a b\t");
  EXPECT_TRUE((*f)[1].loop.empty());
  ASSERT_EQ((*f)[2].loop.size(), 1u);
  EXPECT_EQ((*f)[2].loop[0].kind, Kind::kSampleLoop);
  EXPECT_TRUE(ParseQueryFormat("").ok());
}

TEST(QueryFormatTest, RefusalsNameThePosition) {
  struct Case {
    const char* format;
    const char* where;
  } cases[] = {
      {"%pos", "character 1:"},
      {"%POS\\x", "character 5:"},
      {"%POS[%GT", "character 5 (a '[' that is never closed)"},
      {"[%GT]]", "character 6:"},
      {"%POS\xc3\xa9", "character 5:"},
      {"%", "character 1:"},
  };
  for (const Case& c : cases) {
    auto f = ParseQueryFormat(c.format);
    ASSERT_FALSE(f.ok()) << c.format;
    EXPECT_EQ(f.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(f.status().message().find(c.where), std::string::npos)
        << c.format << ": " << f.status().message();
  }
}

// Sample loops nest at most 100 deep: the 101st '[' is refused where it
// opens, and ten thousand are refused rather than overflow the stack.
TEST(QueryFormatTest, LoopsNestedDeeperThanAHundredAreRefused) {
  auto nested = [](int levels) {
    return std::string(static_cast<size_t>(levels), '[') + "%GT" +
           std::string(static_cast<size_t>(levels), ']');
  };
  auto ok = ParseQueryFormat(nested(100));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  const std::vector<FormatElement>* level = &*ok;
  int depth = 0;
  while (level->size() == 1 && (*level)[0].kind == Kind::kSampleLoop) {
    level = &(*level)[0].loop;
    ++depth;
  }
  EXPECT_EQ(depth, 100);
  ASSERT_EQ(level->size(), 1u);
  EXPECT_EQ((*level)[0].text, "GT");
  for (int levels : {101, 10'000}) {
    auto f = ParseQueryFormat(nested(levels));
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(f.status().message().find(
                  "character 101 (sample loops nested more than 100 deep):"),
              std::string::npos)
        << f.status().message().substr(0, 200);
  }
}

}  // namespace
}  // namespace turbozarr::vcz::internal
