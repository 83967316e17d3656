#include "turbozarr/open_store.h"
#include "turbozarr/store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "store/store_internal.h"
#include "store/store_url.h"
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

TEST(OpenStoreTest, HttpUrlsOpenReadOnlyHttpStores) {
  for (const char* url : {"http://host/x.zarr", "HTTPS://host/x"}) {
    auto r = OpenStore(url);  // opening sends no request
    ASSERT_TRUE(r.ok()) << url << ": " << r.status().ToString();
    EXPECT_FALSE((*r)->Capabilities().writable) << url;
    EXPECT_EQ((*r)->Describe(), url);
  }
  EXPECT_EQ(OpenStore("http://").status().code(), StatusCode::kInvalidArgument);
}

TEST(OpenStoreTest, S3UrlsOpenS3Stores) {
  auto r = OpenStore("s3://bucket/x.zarr");  // opening sends no request
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE((*r)->Describe().find("bucket"), std::string::npos) << (*r)->Describe();
  EXPECT_EQ(OpenStore("s3://").status().code(), StatusCode::kInvalidArgument);
}

TEST(OpenStoreTest, UnknownSchemesAreUnsupportedAndNameTheUrl) {
  for (const char* url : {"ftp://host/x.zarr", "gs://bucket/x"}) {
    auto r = OpenStore(url);
    ASSERT_FALSE(r.ok()) << url;
    EXPECT_EQ(r.status().code(), StatusCode::kUnsupported) << url;
    EXPECT_NE(r.status().message().find(std::string("'") + url + "'"), std::string::npos)
        << r.status().message();
  }
  EXPECT_EQ(OpenStore("").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(OpenStore("memory://named").status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(OpenStore("zip://").status().code(), StatusCode::kInvalidArgument);
}

TEST(StoreUrlTest, SplitsSchemeFromRest) {
  auto split = [](std::string_view url) {
    internal::StoreUrl u = internal::SplitStoreUrl(url);
    return std::make_pair(std::string(u.scheme), std::string(u.rest));
  };
  using P = std::pair<std::string, std::string>;
  EXPECT_EQ(split("zip:///a/b.zip"), P("zip", "/a/b.zip"));
  EXPECT_EQ(split("file://rel/dir"), P("file", "rel/dir"));
  EXPECT_EQ(split("memory://"), P("memory", ""));
  EXPECT_EQ(split("s3+x.y-z://b"), P("s3+x.y-z", "b"));
  // Not schemes: these are paths.
  EXPECT_EQ(split("/data/x.zarr"), P("", "/data/x.zarr"));
  EXPECT_EQ(split("dir/a://b"), P("", "dir/a://b"));
  EXPECT_EQ(split("1x://b"), P("", "1x://b"));
  EXPECT_EQ(split("://b"), P("", "://b"));
  // Every scheme in the table is lower case and distinct.
  std::vector<std::string_view> seen;
  for (const internal::StoreScheme& s : internal::StoreSchemes()) {
    for (char c : s.scheme) EXPECT_FALSE(c >= 'A' && c <= 'Z') << s.scheme;
    EXPECT_EQ(std::count(seen.begin(), seen.end(), s.scheme), 0) << s.scheme;
    seen.push_back(s.scheme);
  }
}

class OpenStoreFilesTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeScratchDir(); }
  void TearDown() override { RemoveScratchDir(dir_); }
  std::string dir_;
};

TEST_F(OpenStoreFilesTest, ZipUrlsAndZipPathsOpenZipStores) {
  const std::string archive = dir_ + "/sub/a.zip";
  {
    auto w = OpenStore("zip://" + archive);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    EXPECT_EQ((*w)->Describe(), "zip://" + archive);
    EXPECT_TRUE((*w)->Capabilities().writable);
    ASSERT_TRUE((*w)->Set("g/zarr.json", AsBytes("{}")).ok());
    ASSERT_TRUE((*w)->Flush().ok());
  }
  for (const std::string& url :
       {archive, "file://" + archive, "ZIP://" + archive, "file://localhost" + archive}) {
    SCOPED_TRACE(url);
    auto r = OpenStore(url);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)->Describe(), "zip://" + archive);
    EXPECT_FALSE((*r)->Capabilities().writable) << "an existing archive opens read-only";
    auto got = (*r)->Get("g/zarr.json");
    ASSERT_TRUE(got.ok() && got->has_value());
    EXPECT_EQ((*got)->chars(), "{}");
  }
  // The extension is matched in any case.
  std::filesystem::copy_file(archive, dir_ + "/B.ZIP");
  auto upper = OpenStore(dir_ + "/B.ZIP");
  ASSERT_TRUE(upper.ok());
  EXPECT_EQ((*upper)->Describe(), "zip://" + dir_ + "/B.ZIP");
}

TEST_F(OpenStoreFilesTest, ADirectoryNamedLikeAnArchiveStaysADirectoryStore) {
  std::filesystem::create_directories(dir_ + "/d.zip");
  auto r = OpenStore(dir_ + "/d.zip");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->Describe(), "file://" + dir_ + "/d.zip");
  // Asked for as an archive, it is refused.
  EXPECT_EQ(OpenStore("zip://" + dir_ + "/d.zip").status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(OpenStoreFilesTest, ReadOnlyRefusesWritesToEveryStore) {
  StoreOptions ro;
  ro.read_only = true;
  ASSERT_TRUE(OpenStore(dir_ + "/d")->get()->Set("k", AsBytes("v")).ok());
  for (const std::string& url :
       {dir_ + "/d", "file://" + dir_ + "/d", std::string("memory://")}) {
    SCOPED_TRACE(url);
    auto r = OpenStore(url, ro);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    Store& s = **r;
    EXPECT_FALSE(s.Capabilities().writable);
    Status set = s.Set("k", AsBytes("x"));
    EXPECT_EQ(set.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(set.message().find("read-only"), std::string::npos) << set.message();
    EXPECT_NE(set.message().find(s.Describe()), std::string::npos) << set.message();
    EXPECT_EQ(s.Erase("k").code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.ErasePrefix("").code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.Set("a//b", AsBytes("x")).code(), StatusCode::kInvalidArgument);
  }
  auto local = OpenStore(dir_ + "/d", ro);
  auto got = (*local)->Get("k");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->chars(), "v") << "reads go through, and nothing was changed";
  // A read-only archive must exist.
  auto missing = OpenStore(dir_ + "/missing.zip", ro);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find(dir_ + "/missing.zip"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/missing.zip"));
}

TEST_F(OpenStoreFilesTest, TruncateStartsANewArchive) {
  const std::string archive = dir_ + "/t.zip";
  {
    auto w = OpenStore(archive);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Set("old", AsBytes("1")).ok());
  }
  StoreOptions truncate;
  truncate.truncate = true;
  {
    auto w = OpenStore(archive, truncate);
    ASSERT_TRUE(w.ok());
    EXPECT_TRUE((*w)->Capabilities().writable);
    auto keys = (*w)->List("");
    ASSERT_TRUE(keys.ok());
    EXPECT_TRUE(keys->empty()) << "a truncated archive starts empty";
    ASSERT_TRUE((*w)->Set("new", AsBytes("2")).ok());
  }
  auto r = OpenStore(archive);
  ASSERT_TRUE(r.ok());
  auto keys = (*r)->List("");
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, std::vector<std::string>{"new"});
  // read_only wins over truncate: nothing is replaced.
  StoreOptions both;
  both.read_only = both.truncate = true;
  auto ro = OpenStore(archive, both);
  ASSERT_TRUE(ro.ok());
  EXPECT_FALSE((*ro)->Capabilities().writable);
}

}  // namespace
}  // namespace turbozarr
