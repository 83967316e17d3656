#include "turbozarr/store.h"

#include <gtest/gtest.h>

#include "store/store_internal.h"
#include "testing/store_conformance.h"

namespace turbozarr {
namespace {

TEST(ValidateKeyTest, AcceptsOrdinaryKeys) {
  for (const char* key :
       {"a", "a/b/zarr.json", ".zarray", "c/0/0", "a..b", "..x", "x."}) {
    EXPECT_TRUE(ValidateKey(key).ok()) << key;
  }
}

TEST(ValidateKeyTest, RefusesKeysThatCouldEscapeOrAreMalformed) {
  struct Case {
    std::string key;
    std::string why;
  };
  const Case cases[] = {
      {"", "empty"},
      {"/abs", "starts with '/'"},
      {"dir/", "ends with '/'"},
      {"a//b", "empty segment"},
      {"a/./b", "'.' segment"},
      {"..", "'..' segment"},
      {"a/../../etc", "'..' segment"},
      {"a\\b", "backslash"},
      {std::string("a\0b", 3), "NUL"},
  };
  for (const Case& c : cases) {
    Status s = ValidateKey(c.key);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.key;
    EXPECT_NE(s.message().find(c.why), std::string::npos) << s.message();
  }
  EXPECT_EQ(ValidateKey("a/../../etc").message(),
            "invalid store key 'a/../../etc': has a '..' segment");
  EXPECT_EQ(ValidateKey(std::string("a\0b", 3)).message(),
            "invalid store key 'a\\0b': contains a NUL byte");
}

TEST(JoinKeyTest, DropsEmptySides) {
  EXPECT_EQ(JoinKey("a", "b"), "a/b");
  EXPECT_EQ(JoinKey("a/b", "c/d"), "a/b/c/d");
  EXPECT_EQ(JoinKey("", "b"), "b");
  EXPECT_EQ(JoinKey("a", ""), "a");
  EXPECT_EQ(JoinKey("", ""), "");
}

TEST(KeyIsUnderTest, PrefixMatchesWholeSegments) {
  EXPECT_TRUE(internal::KeyIsUnder("a", "a"));
  EXPECT_TRUE(internal::KeyIsUnder("a/x", "a"));
  EXPECT_TRUE(internal::KeyIsUnder("a/x/y", "a/x"));
  EXPECT_TRUE(internal::KeyIsUnder("anything", ""));
  EXPECT_FALSE(internal::KeyIsUnder("ab/x", "a"));
  EXPECT_FALSE(internal::KeyIsUnder("a.b", "a"));
  EXPECT_FALSE(internal::KeyIsUnder("b", "a"));
}

TEST(ResolveByteRangeTest, ClipsToTheValue) {
  auto r = [](ByteRange range, uint64_t size) {
    internal::ResolvedRange x = internal::ResolveByteRange(range, size);
    return std::make_pair(x.begin, x.end);
  };
  using P = std::pair<uint64_t, uint64_t>;
  EXPECT_EQ(r(ByteRange::Full(), 10), P(0, 10));
  EXPECT_EQ(r(ByteRange::Of(2, 3), 10), P(2, 5));
  EXPECT_EQ(r(ByteRange::Of(8, 5), 10), P(8, 10));
  EXPECT_EQ(r(ByteRange::Of(12, 5), 10), P(10, 10));
  EXPECT_EQ(r(ByteRange::Of(~uint64_t{0} - 1, 5), 10), P(10, 10));
  EXPECT_EQ(r(ByteRange::Suffix(4), 10), P(6, 10));
  EXPECT_EQ(r(ByteRange::Suffix(40), 10), P(0, 10));
  EXPECT_EQ(r(ByteRange::Suffix(0), 10), P(10, 10));
}

TEST(OpenStoreTest, MemoryUrlMakesAFreshStore) {
  auto a = OpenStore("memory://");
  auto b = OpenStore("memory://");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*a)->Set("k", AsBytes("v")).ok());
  auto got = (*b)->Get("k");
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->has_value());
  EXPECT_EQ((*a)->Describe(), "memory://");
}

TEST(OpenStoreTest, FileUrlsAndPlainPathsOpenLocalStores) {
  std::string dir = MakeScratchDir();
  {
    auto by_url = OpenStore("file://" + dir);
    ASSERT_TRUE(by_url.ok()) << by_url.status().ToString();
    ASSERT_TRUE((*by_url)->Set("a/b", AsBytes("v")).ok());
    auto by_path = OpenStore(dir);
    ASSERT_TRUE(by_path.ok());
    auto got = (*by_path)->Get("a/b");
    ASSERT_TRUE(got.ok() && got->has_value());
    EXPECT_EQ((*got)->chars(), "v");
    auto by_localhost = OpenStore("file://localhost" + dir + "/a");
    ASSERT_TRUE(by_localhost.ok());
    got = (*by_localhost)->Get("b");
    ASSERT_TRUE(got.ok() && got->has_value());
    EXPECT_EQ((*by_localhost)->Describe(), "file://" + dir + "/a");
  }
  RemoveScratchDir(dir);
}

TEST(OpenStoreTest, RelativeFileUrlIsRelativeToTheWorkingDirectory) {
  auto store = OpenStore("file://some/relative/dir");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  std::string d = (*store)->Describe();
  EXPECT_TRUE(d.starts_with("file:///")) << d;
  EXPECT_TRUE(d.ends_with("/some/relative/dir")) << d;
}

TEST(OpenStoreTest, OtherSchemesAreUnsupported) {
  for (const char* url : {"s3://bucket/x.zarr", "http://host/x.zarr", "zip://a.zip"}) {
    auto r = OpenStore(url);
    ASSERT_FALSE(r.ok()) << url;
    EXPECT_EQ(r.status().code(), StatusCode::kUnsupported) << url;
    std::string scheme = std::string(url).substr(0, std::string(url).find(':'));
    EXPECT_NE(r.status().message().find("'" + scheme + "'"), std::string::npos)
        << r.status().message();
  }
  EXPECT_EQ(OpenStore("").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(OpenStore("memory://named").status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace turbozarr
