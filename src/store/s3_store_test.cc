// S3Store against moto's S3 server on loopback, which checks every request's
// SigV4 signature: the writable conformance suite, listing across many
// pages, multipart uploads, ranged reads and GetMany, keys that need
// escaping, a store at the bucket's root, the errors S3 answers, and a store
// opened through an s3:// URL with its settings from AWS profile files.
#include "store/s3_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>

#include "store/s3_multipart.h"
#include "testing/aws_test_environment.h"
#include "testing/moto_server.h"
#include "testing/store_conformance.h"
#include "turbozarr/open_store.h"
#include "turbozarr/remote_store.h"

namespace turbozarr {
namespace {

using Strings = std::vector<std::string>;

// The bucket most tests share, each under a prefix of its own.
Result<std::string> SharedBucket() {
  static Result<std::string> bucket = []() -> Result<std::string> {
    TZ_ASSIGN_OR_RETURN(MotoServer * moto, SharedMoto());
    std::string name = FreshBucketName();
    TZ_RETURN_NOT_OK(moto->CreateBucket(name));
    return name;
  }();
  return bucket;
}

std::string FreshPrefix() {
  static std::atomic<int> n{0};
  return "run/" + std::to_string(n++);
}

Result<std::shared_ptr<Store>> MakeMotoStore(const std::string&) {
  TZ_ASSIGN_OR_RETURN(MotoServer * moto, SharedMoto());
  TZ_ASSIGN_OR_RETURN(std::string bucket, SharedBucket());
  return MakeS3Store(bucket, FreshPrefix(), moto->Options());
}

INSTANTIATE_TEST_SUITE_P(S3, StoreConformanceTest,
                         ::testing::Values(StoreFactory{
                             .name = "moto", .make = MakeMotoStore, .iterations = 0.1}),
                         StoreFactoryName);

std::string Value(size_t n, int seed) {
  std::string v(n, '\0');
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<char>(i * 31 + seed + (i >> 11));
  return v;
}

class S3StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<MotoServer*> moto = SharedMoto();
    ASSERT_TRUE(moto.ok()) << moto.status().ToString();
    moto_ = *moto;
    Result<std::string> bucket = SharedBucket();
    ASSERT_TRUE(bucket.ok()) << bucket.status().ToString();
    bucket_ = *bucket;
    prefix_ = FreshPrefix();
    store_ = Make(moto_->Options());
  }

  std::shared_ptr<Store> Make(const S3Options& o) {
    Result<std::shared_ptr<Store>> s = MakeS3Store(bucket_, prefix_, o);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : nullptr;
  }

  static void MustSet(Store& store, std::string_view key, std::string_view value) {
    Status s = store.Set(key, AsBytes(value));
    ASSERT_TRUE(s.ok()) << key << ": " << s.ToString();
  }

  static std::string GetString(Store& store, std::string_view key,
                               ByteRange range = ByteRange::Full()) {
    Result<std::optional<Buffer>> r = store.Get(key, range);
    if (!r.ok()) return "<error " + r.status().ToString() + ">";
    if (!r->has_value()) return "<absent>";
    return std::string((*r)->chars());
  }

  // The ETag moto gives `key`'s object: "<md5 of part md5s>-<parts>" when it
  // was uploaded in parts.
  std::string ETag(const std::string& key) {
    auto& s3 = static_cast<S3Store&>(*store_);
    Result<HttpResponse> r =
        s3.client().transport().Fetch(s3.client().Request("HEAD", prefix_ + "/" + key));
    if (!r.ok() || r->status != 200) return "<failed>";
    return std::string(r->Header("etag").value_or("<none>"));
  }

  MotoServer* moto_ = nullptr;
  std::string bucket_;
  std::string prefix_;
  std::shared_ptr<Store> store_;
};

TEST_F(S3StoreTest, ListsAcrossManyPages) {
  S3Options o = moto_->Options();
  o.list_page_size = 7;
  std::shared_ptr<Store> store = Make(o);
  Strings want;
  std::vector<std::string> values;
  for (int d = 0; d < 12; ++d) {
    for (int k = 0; k < 3; ++k) {
      want.push_back("d" + std::to_string(d) + "/k" + std::to_string(k));
    }
  }
  for (int k = 0; k < 9; ++k) want.push_back("top" + std::to_string(k));
  for (const std::string& k : want) MustSet(*store, k, k);
  std::sort(want.begin(), want.end());

  auto all = store->List("");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(*all, want) << "45 keys in pages of 7";
  auto d3 = store->List("d3");
  ASSERT_TRUE(d3.ok());
  EXPECT_EQ(*d3, (Strings{"d3/k0", "d3/k1", "d3/k2"}));

  // 12 common prefixes and 9 keys, 7 entries a page.
  auto dir = store->ListDirectory("");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  Strings dirs, tops;
  for (int d = 0; d < 12; ++d) dirs.push_back("d" + std::to_string(d));
  for (int k = 0; k < 9; ++k) tops.push_back("top" + std::to_string(k));
  std::sort(dirs.begin(), dirs.end());
  EXPECT_EQ(dir->prefixes, dirs);
  EXPECT_EQ(dir->keys, tops);

  ASSERT_TRUE(store->ErasePrefix("").ok());
  all = store->List("");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, Strings{});
}

TEST_F(S3StoreTest, LargeValuesGoUpInParts) {
  S3Options o = moto_->Options();
  o.multipart_threshold = 6 << 20;
  o.multipart_part_size = (5 << 20) + 4096;  // just above the test server's minimum
  std::shared_ptr<Store> store = Make(o);
  const std::string big = Value((12 << 20) + 12345, 3);
  MustSet(*store, "big", big);
  EXPECT_EQ(GetString(*store, "big"), big);
  // Across the boundary between parts 1 and 2.
  EXPECT_EQ(GetString(*store, "big", ByteRange::Of(o.multipart_part_size - 100, 200)),
            big.substr(o.multipart_part_size - 100, 200));
  EXPECT_EQ(GetString(*store, "big", ByteRange::Suffix(1000)),
            big.substr(big.size() - 1000));
  const std::string etag = ETag("big");
  EXPECT_TRUE(etag.ends_with("-3\"")) << "ETag " << etag << ": want 3 parts";

  // At or below the threshold: one PUT.
  const std::string small = Value(6 << 20, 4);
  MustSet(*store, "small", small);
  EXPECT_EQ(GetString(*store, "small"), small);
  EXPECT_EQ(ETag("small").find('-'), std::string::npos) << ETag("small");

  // Replacing a multipart object with another.
  const std::string other = Value((11 << 20) + 1, 5);
  MustSet(*store, "big", other);
  EXPECT_EQ(GetString(*store, "big"), other);
  EXPECT_TRUE(ETag("big").ends_with("-3\"")) << ETag("big");

  // No upload was left open.
  auto& s3 = static_cast<S3Store&>(*store);
  Result<HttpResponse> uploads =
      s3.client().transport().Fetch(s3.client().Request("GET", "", {{"uploads", ""}}));
  ASSERT_TRUE(uploads.ok());
  EXPECT_EQ(uploads->status, 200);
  EXPECT_EQ(uploads->body.chars().find("<Upload>"), std::string_view::npos)
      << uploads->body.chars();
}

// A whole object read with a hint of a large size comes in ranged parts,
// each signed (moto checks every signature), and joins into the object;
// parts past a shorter object's end, and an absent key, are answered too.
TEST_F(S3StoreTest, LargeObjectsReadAloneComeInParts) {
  const std::string big = Value((12 << 20) + 12345, 6);
  MustSet(*store_, "big", big);
  for (const uint64_t expected : {uint64_t{12} << 20, uint64_t{40} << 20}) {
    SCOPED_TRACE(expected);
    for (const char* key : {"big", "absent"}) {
      Buffer value;
      ReadRequest request = ReadRequest::NewBuffer(key, ByteRange::Full(), value);
      request.hint = {expected, 1};
      ReadAnswer answer;
      ASSERT_TRUE(store_->Read({&request, 1}, {&answer, 1}).ok());
      EXPECT_EQ(answer.found, std::string(key) == "big");
      if (answer.found) {
        EXPECT_TRUE(value.chars() == big);
      }
    }
  }
}

TEST_F(S3StoreTest, AFailedMultipartUploadIsAbortedAndLeavesNoObject) {
  MustSet(*store_, "k", "old value");
  S3Options o = moto_->Options();
  o.multipart_threshold = 6 << 20;
  o.multipart_part_size = 5 << 20;  // below the test server's minimum: Complete fails
  std::shared_ptr<Store> store = Make(o);
  Status s = store->Set("k", AsBytes(Value((11 << 20) + 1, 6)));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("CompleteMultipartUpload"), std::string::npos)
      << s.ToString();
  EXPECT_NE(s.message().find("EntityTooSmall"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("was aborted"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("s3://" + bucket_ + "/" + prefix_ + "/k"), std::string::npos)
      << s.ToString();
  EXPECT_EQ(GetString(*store_, "k"), "old value");
  auto& s3 = static_cast<S3Store&>(*store_);
  Result<HttpResponse> uploads = s3.client().transport().Fetch(
      s3.client().Request("GET", "", {{"uploads", ""}, {"prefix", prefix_ + "/"}}));
  ASSERT_TRUE(uploads.ok());
  EXPECT_EQ(uploads->status, 200);
  EXPECT_EQ(uploads->body.chars().find("<Upload>"), std::string_view::npos)
      << uploads->body.chars();
}

TEST(S3MultipartTest, PartSizeGrowsToStayWithinTenThousandParts) {
  EXPECT_EQ(MultipartPartSize(100 << 20, 16 << 20), uint64_t{16} << 20);
  const uint64_t huge = uint64_t{1} << 40;  // 1 TiB
  const uint64_t part = MultipartPartSize(huge, 16 << 20);
  EXPECT_LE((huge + part - 1) / part, 10'000u);
  EXPECT_GT(part, uint64_t{16} << 20);
}

// An update commits only if the object is still as its Read found it:
// If-Match on the ETag read, If-None-Match: * when it was absent, a delete
// with If-Match; a blind update (no Read) always commits.
TEST_F(S3StoreTest, UpdatesCommitOnlyOverWhatTheyRead) {
  std::shared_ptr<Store> other = Make(moto_->Options());
  auto commit = [](KeyUpdate& u, std::optional<std::string_view> v) {
    Result<bool> r = v ? u.Commit(AsBytes(*v)) : u.Commit(std::nullopt);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  };
  // Absent when read, created meanwhile: refused, and the other value stays.
  auto u = store_->BeginUpdate("k");
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  ASSERT_FALSE((*u)->HoldsLock());
  auto read = (*u)->Read();
  ASSERT_TRUE(read.ok() && !read->has_value());
  MustSet(*other, "k", "theirs");
  EXPECT_FALSE(commit(**u, "mine"));
  EXPECT_EQ(GetString(*store_, "k"), "theirs");
  // Read again: now it commits.
  read = (*u)->Read();
  ASSERT_TRUE(read.ok() && read->has_value());
  EXPECT_EQ(std::string((*read)->chars()), "theirs");
  EXPECT_TRUE(commit(**u, "mine"));
  EXPECT_EQ(GetString(*store_, "k"), "mine");
  // Changed after the read: refused.
  auto v = store_->BeginUpdate("k");
  ASSERT_TRUE(v.ok());
  ASSERT_TRUE((*v)->Read().ok());
  MustSet(*other, "k", "theirs again");
  EXPECT_FALSE(commit(**v, "mine again"));
  EXPECT_EQ(GetString(*store_, "k"), "theirs again");
  // A delete over a changed object is refused; over the one read, done.
  auto d = store_->BeginUpdate("k");
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE((*d)->Read().ok());
  MustSet(*other, "k", "third");
  EXPECT_FALSE(commit(**d, std::nullopt));
  EXPECT_EQ(GetString(*store_, "k"), "third");
  ASSERT_TRUE((*d)->Read().ok());
  EXPECT_TRUE(commit(**d, std::nullopt));
  EXPECT_EQ(GetString(*store_, "k"), "<absent>");
  // Blind: no Read, no condition.
  MustSet(*other, "k", "x");
  auto b = store_->BeginUpdate("k");
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(commit(**b, "blind"));
  EXPECT_EQ(GetString(*store_, "k"), "blind");
}

TEST_F(S3StoreTest, RangedReadsAndGetMany) {
  const std::string v = Value(1 << 20, 9);
  MustSet(*store_, "v", v);
  MustSet(*store_, "w", "0123456789");
  EXPECT_EQ(GetString(*store_, "v", ByteRange::Of(1000, 5000)), v.substr(1000, 5000));
  EXPECT_EQ(GetString(*store_, "v", ByteRange::Suffix(77)), v.substr(v.size() - 77));
  EXPECT_EQ(GetString(*store_, "v", ByteRange::Of(v.size() - 3, 100)),
            v.substr(v.size() - 3));
  EXPECT_EQ(GetString(*store_, "v", ByteRange::Of(v.size() + 5, 10)), "");

  // Few connections and no merging across gaps: the 60 reads go out as
  // about 50 requests in windows of 16 (8 per connection).
  S3Options o = moto_->Options();
  o.http.max_concurrency = 2;
  o.http.coalesce_gap = 0;
  std::shared_ptr<Store> store = Make(o);
  std::mt19937 rng(5);
  std::vector<KeyRange> reads;
  for (int i = 0; i < 60; ++i) {
    const uint64_t off = rng() % v.size();
    reads.push_back({"v", ByteRange::Of(off, 1 + rng() % 2000)});
  }
  reads.push_back({"w", ByteRange::Suffix(3)});
  reads.push_back({"missing", ByteRange::Of(0, 4)});
  reads.push_back({"w", ByteRange::Of(4, 0)});
  reads.push_back({"v", ByteRange::Full()});
  auto got = store->GetMany(reads);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), reads.size());
  for (size_t i = 0; i < 60; ++i) {
    ASSERT_TRUE((*got)[i].has_value());
    const ByteRange& r = reads[i].range;
    EXPECT_EQ((*got)[i]->chars(), v.substr(r.offset, r.length)) << i;
  }
  EXPECT_EQ((*got)[60]->chars(), "789");
  EXPECT_FALSE((*got)[61].has_value());
  ASSERT_TRUE((*got)[62].has_value());
  EXPECT_EQ((*got)[62]->size(), 0u);
  EXPECT_EQ((*got)[63]->chars(), v);
  EXPECT_EQ(store->Capabilities().requests_in_flight, 2);
  EXPECT_EQ(store_->Capabilities().requests_in_flight,
            moto_->Options().http.max_concurrency);
}

TEST_F(S3StoreTest, KeysThatNeedEscaping) {
  // Each of these is signed with its own escaping in path or query string.
  const Strings keys = {"a+b",       "a=b&c",   "100%",     "x~y!z",
                        "(p)[q]{r}", "a$b@c:d", "sp ace",   "\xC3\xA9t\xC3\xA9",
                        "t\tab",     "q?u#e",   "d/e+f/g h"};
  for (const std::string& k : keys) MustSet(*store_, k, "v" + k);
  for (const std::string& k : keys) EXPECT_EQ(GetString(*store_, k), "v" + k) << k;
  Strings want = keys;
  std::sort(want.begin(), want.end());
  auto listed = store_->List("");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(*listed, want);
  auto dir = store_->ListDirectory("d/e+f");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  EXPECT_EQ(dir->keys, Strings{"g h"});
  ASSERT_TRUE(store_->ErasePrefix("").ok());
  listed = store_->List("");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(*listed, Strings{});
}

TEST_F(S3StoreTest, StoreAtTheBucketRoot) {
  const std::string bucket = FreshBucketName();
  ASSERT_TRUE(moto_->CreateBucket(bucket).ok());
  auto made = MakeS3Store(bucket, "", moto_->Options());
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  Store& store = **made;
  EXPECT_EQ(store.Describe(), "s3://" + bucket);
  for (const char* k : {"zarr.json", "a/zarr.json", "a/c/0", "b"}) MustSet(store, k, k);
  auto dir = store.ListDirectory("");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  EXPECT_EQ(dir->keys, (Strings{"b", "zarr.json"}));
  EXPECT_EQ(dir->prefixes, Strings{"a"});
  auto all = store.List("");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, (Strings{"a/c/0", "a/zarr.json", "b", "zarr.json"}));
  ASSERT_TRUE(store.ErasePrefix("a").ok());
  all = store.List("");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, (Strings{"b", "zarr.json"}));
  // A prefix is normalised: the same objects through "/x/" and "x".
  auto slashed = MakeS3Store(bucket, "/x/", moto_->Options());
  ASSERT_TRUE(slashed.ok());
  MustSet(**slashed, "k", "through x");
  EXPECT_EQ(GetString(store, "x/k"), "through x");
  EXPECT_EQ((*slashed)->Describe(), "s3://" + bucket + "/x");
}

TEST_F(S3StoreTest, ErrorsNameBucketKeyAndS3Code) {
  S3Options wrong = moto_->Options();
  wrong.secret_access_key = "not-the-secret";
  std::shared_ptr<Store> bad = Make(wrong);
  Result<std::optional<Buffer>> got = bad->Get("k");
  ASSERT_FALSE(got.ok());
  const std::string msg = got.status().message();
  EXPECT_NE(msg.find("s3://" + bucket_ + "/" + prefix_ + "/k"), std::string::npos) << msg;
  EXPECT_NE(msg.find("403"), std::string::npos) << msg;
  EXPECT_NE(msg.find("SignatureDoesNotMatch"), std::string::npos) << msg;
  Status set = bad->Set("k", AsBytes("v"));
  EXPECT_NE(set.message().find("SignatureDoesNotMatch"), std::string::npos)
      << set.ToString();
  EXPECT_EQ(GetString(*store_, "k"), "<absent>") << "a refused PUT stored nothing";

  // A missing bucket is an error, not a missing key.
  auto none = MakeS3Store("tz-no-such-bucket", "", moto_->Options());
  ASSERT_TRUE(none.ok());
  got = (*none)->Get("k");
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("NoSuchBucket"), std::string::npos)
      << got.status().ToString();
  EXPECT_NE(got.status().message().find("s3://tz-no-such-bucket/k"), std::string::npos);
  auto listed = (*none)->List("");
  ASSERT_FALSE(listed.ok());
  EXPECT_NE(listed.status().message().find("NoSuchBucket"), std::string::npos);
  S3Options o = moto_->Options();
  o.multipart_threshold = 0;
  auto none_mp = MakeS3Store("tz-no-such-bucket", "", o);
  ASSERT_TRUE(none_mp.ok());
  Status mp = (*none_mp)->Set("k", AsBytes("v"));
  EXPECT_NE(mp.message().find("CreateMultipartUpload"), std::string::npos)
      << mp.ToString();
  EXPECT_NE(mp.message().find("NoSuchBucket"), std::string::npos) << mp.ToString();
}

TEST_F(S3StoreTest, ConnectionFailuresAreErrors) {
  S3Options o = moto_->Options();
  o.endpoint = "http://127.0.0.1:1";  // nothing listens there
  o.http.max_retries = 1;
  std::shared_ptr<Store> store = Make(o);
  Result<std::optional<Buffer>> got = store->Get("k");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kIOError);
  EXPECT_NE(got.status().message().find("127.0.0.1:1"), std::string::npos)
      << got.status().ToString();
}

// Keys, region, endpoint and addressing from AWS profile files, as an s3://
// URL finds them; moto checks the signature made with the file's keys.
TEST_F(S3StoreTest, StoreFromAProfileFile) {
  const S3Options moto = moto_->Options();
  AwsTestEnvironment env;
  env.WriteCredentials("[moto]\naws_access_key_id = " + moto.access_key_id +
                       "\naws_secret_access_key = " + moto.secret_access_key +
                       "\n[wrong]\naws_access_key_id = " + moto.access_key_id +
                       "\naws_secret_access_key = not-the-secret\n");
  env.WriteConfig("[profile moto]\nregion = us-east-1\ns3 =\n  endpoint_url = " +
                  moto.endpoint + "\n  addressing_style = path\n" +
                  "[profile wrong]\nendpoint_url = " + moto.endpoint + "\n");
  env.Set("AWS_PROFILE", "moto");
  StoreOptions options;
  options.s3.http = moto.http;  // the test's timeouts; the rest from the files
  const std::string url = "s3://" + bucket_ + "/" + prefix_ + "/from-profile";
  auto store = OpenStore(url, options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  MustSet(**store, "a/b", "written with the profile's keys");
  EXPECT_EQ(GetString(**store, "a/b"), "written with the profile's keys");
  EXPECT_EQ(GetString(*store_, "from-profile/a/b"), "written with the profile's keys");
  auto listed = (*store)->List("");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(*listed, Strings{"a/b"});

  // A profile named in the options wins over AWS_PROFILE: its secret is wrong.
  options.s3_profile = "wrong";
  auto wrong = OpenStore(url, options);
  ASSERT_TRUE(wrong.ok()) << wrong.status().ToString();
  Result<std::optional<Buffer>> got = (*wrong)->Get("a/b");
  ASSERT_FALSE(got.ok()) << "read without the right secret";
  EXPECT_NE(got.status().message().find("HTTP 403"), std::string::npos)
      << got.status().ToString();
}

}  // namespace
}  // namespace turbozarr
