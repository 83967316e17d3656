#include "testing/store_conformance.h"

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "testing/read_checks.h"

namespace turbozarr {

std::string MakeScratchDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tz-store-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp " << pattern << " failed";
    return "";
  }
  return pattern;
}

void RemoveScratchDir(const std::string& dir) {
  if (dir.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

void StoreConformanceTest::SetUp() {
  scratch_dir_ = MakeScratchDir();
  Result<std::shared_ptr<Store>> made = GetParam().make(scratch_dir_);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  store_ = *made;
}

void StoreConformanceTest::TearDown() {
  store_.reset();
  RemoveScratchDir(scratch_dir_);
}

void StoreConformanceTest::Reopen() {
  if (!GetParam().reopen) return;
  Result<std::shared_ptr<Store>> reopened = GetParam().reopen(store_, scratch_dir_);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  store_ = *reopened;
}

void PrintTo(const StoreFactory& factory, std::ostream* os) { *os << factory.name; }

std::string StoreFactoryName(const ::testing::TestParamInfo<StoreFactory>& info) {
  return info.param.name;
}

namespace {

// The value of `key` as a string, "<absent>" if missing, or the error.
std::string GetString(Store& store, std::string_view key,
                      ByteRange range = ByteRange::Full()) {
  Result<std::optional<Buffer>> r = store.Get(key, range);
  if (!r.ok()) return "<error " + r.status().ToString() + ">";
  if (!r->has_value()) return "<absent>";
  return std::string((*r)->chars());
}

void MustSet(Store& store, std::string_view key, std::string_view value) {
  Status s = store.Set(key, AsBytes(value));
  ASSERT_TRUE(s.ok()) << "Set " << key << ": " << s.ToString();
}

std::vector<std::string> MustList(Store& store, std::string_view prefix) {
  Result<std::vector<std::string>> r = store.List(prefix);
  EXPECT_TRUE(r.ok()) << "List '" << prefix << "': " << r.status().ToString();
  return r.ok() ? *r : std::vector<std::string>{"<error>"};
}

using Strings = std::vector<std::string>;

// `n` scaled by the factory's share of iterations, at least 10.
int Iterations(int n) {
  const double share = ::testing::TestWithParam<StoreFactory>::GetParam().iterations;
  return std::max(10, static_cast<int>(n * share));
}

TEST_P(StoreConformanceTest, SetGetOverwrite) {
  MustSet(store(), "a", "hello");
  EXPECT_EQ(GetString(store(), "a"), "hello");
  MustSet(store(), "a", "bye");
  EXPECT_EQ(GetString(store(), "a"), "bye");
  // Every byte value, NUL included, survives.
  std::string binary;
  for (int i = 0; i < 256; ++i) binary += static_cast<char>(i);
  MustSet(store(), "c/0/0", binary);
  EXPECT_EQ(GetString(store(), "c/0/0"), binary);
  // An empty value is present, not absent.
  MustSet(store(), "empty", "");
  EXPECT_EQ(GetString(store(), "empty"), "");
  ASSERT_NO_FATAL_FAILURE(Reopen());
  EXPECT_EQ(GetString(store(), "a"), "bye");
  EXPECT_EQ(GetString(store(), "c/0/0"), binary);
  EXPECT_EQ(GetString(store(), "empty"), "");
  EXPECT_EQ(MustList(store(), ""), (Strings{"a", "c/0/0", "empty"}));
}

TEST_P(StoreConformanceTest, LargeValueRoundTrips) {
  std::string big(5'000'000 + 17, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7 + (i >> 12));
  MustSet(store(), "big", big);
  ASSERT_NO_FATAL_FAILURE(Reopen());
  EXPECT_EQ(GetString(store(), "big"), big);
  EXPECT_EQ(GetString(store(), "big", ByteRange::Of(4'999'990, 100)),
            big.substr(4'999'990));
}

TEST_P(StoreConformanceTest, MissingKeysAreAbsent) {
  EXPECT_EQ(GetString(store(), "nope"), "<absent>");
  EXPECT_EQ(GetString(store(), "x/y/z"), "<absent>");
  EXPECT_EQ(GetString(store(), "nope", ByteRange::Of(1, 2)), "<absent>");
  MustSet(store(), "d/x", "1");
  ASSERT_NO_FATAL_FAILURE(Reopen());
  EXPECT_EQ(GetString(store(), "nope"), "<absent>");
  EXPECT_EQ(GetString(store(), "d/x"), "1");
  // A "directory" holds no value of its own.
  EXPECT_EQ(GetString(store(), "d"), "<absent>");
  EXPECT_EQ(GetString(store(), "d/x/y"), "<absent>");
  Result<std::optional<uint64_t>> size = store().Size("d");
  ASSERT_TRUE(size.ok());
  EXPECT_FALSE(size->has_value());
}

TEST_P(StoreConformanceTest, ByteRanges) {
  MustSet(store(), "k", "0123456789");
  MustSet(store(), "e", "");
  ASSERT_NO_FATAL_FAILURE(Reopen());
  EXPECT_EQ(GetString(store(), "k", ByteRange::Full()), "0123456789");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Of(2, 3)), "234");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Of(0, 10)), "0123456789");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Of(8, 10)), "89");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Of(10, 1)), "");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Of(25, 4)), "");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Of(3, 0)), "");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Of(7, ByteRange::kToEnd)), "789");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Suffix(3)), "789");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Suffix(10)), "0123456789");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Suffix(100)), "0123456789");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Suffix(0)), "");
  EXPECT_EQ(GetString(store(), "e", ByteRange::Suffix(4)), "");
  EXPECT_EQ(GetString(store(), "e", ByteRange::Of(1, 4)), "");
}

// GetInto(key, range, out) as a string: the bytes written when the length
// matched, "<length N>" when it did not, "<absent>", or the error.
std::string GetIntoString(Store& store, std::string_view key, ByteRange range,
                          size_t out_size) {
  std::string out(out_size, '#');
  MutableByteView view(reinterpret_cast<std::byte*>(out.data()), out.size());
  Result<std::optional<uint64_t>> r = store.GetInto(key, range, view);
  if (!r.ok()) return "<error " + r.status().ToString() + ">";
  if (!r->has_value()) return "<absent>";
  if (**r != out_size) return "<length " + std::to_string(**r) + ">";
  return out;
}

TEST_P(StoreConformanceTest, GetIntoReadsExactLengthsOnly) {
  MustSet(store(), "k/0", "0123456789");
  EXPECT_EQ(GetIntoString(store(), "k/0", ByteRange::Full(), 10), "0123456789");
  EXPECT_EQ(GetIntoString(store(), "k/0", ByteRange::Of(2, 3), 3), "234");
  EXPECT_EQ(GetIntoString(store(), "k/0", ByteRange::Suffix(4), 4), "6789");
  EXPECT_EQ(GetIntoString(store(), "k/0", ByteRange::Of(8, 10), 2), "89");
  // A length mismatch reports the value's length and is not an error.
  EXPECT_EQ(GetIntoString(store(), "k/0", ByteRange::Full(), 9), "<length 10>");
  EXPECT_EQ(GetIntoString(store(), "k/0", ByteRange::Full(), 11), "<length 10>");
  EXPECT_EQ(GetIntoString(store(), "k/0", ByteRange::Of(8, 10), 10), "<length 2>");
  EXPECT_EQ(GetIntoString(store(), "k/1", ByteRange::Full(), 10), "<absent>");
  EXPECT_EQ(GetIntoString(store(), "k", ByteRange::Full(), 10), "<absent>");
  EXPECT_NE(GetIntoString(store(), "../k", ByteRange::Full(), 10).find("<error"),
            std::string::npos);
  MustSet(store(), "e", "");
  EXPECT_EQ(GetIntoString(store(), "e", ByteRange::Full(), 0), "");
}

// GetReusing(key, range, into) as a string, read into a buffer that held
// something else before: the value, "<absent>" or the error.
std::string GetReusingString(Store& store, std::string_view key, ByteRange range) {
  Buffer into = Buffer::FromString("what the buffer held before, longer than any value");
  Result<bool> r = store.GetReusing(key, range, into);
  if (!r.ok()) return "<error " + r.status().ToString() + ">";
  if (!*r) return into.empty() ? "<absent>" : "<absent but not emptied>";
  return std::string(into.chars());
}

TEST_P(StoreConformanceTest, GetReusingReplacesWhatTheBufferHeld) {
  MustSet(store(), "k/0", "0123456789");
  EXPECT_EQ(GetReusingString(store(), "k/0", ByteRange::Full()), "0123456789");
  EXPECT_EQ(GetReusingString(store(), "k/0", ByteRange::Of(2, 3)), "234");
  EXPECT_EQ(GetReusingString(store(), "k/0", ByteRange::Suffix(4)), "6789");
  EXPECT_EQ(GetReusingString(store(), "k/0", ByteRange::Of(8, 10)), "89");
  EXPECT_EQ(GetReusingString(store(), "k/0", ByteRange::Of(25, 4)), "");
  EXPECT_EQ(GetReusingString(store(), "k/1", ByteRange::Full()), "<absent>");
  EXPECT_EQ(GetReusingString(store(), "k", ByteRange::Full()), "<absent>");
  EXPECT_NE(GetReusingString(store(), "../k", ByteRange::Full()).find("<error"),
            std::string::npos);
  MustSet(store(), "e", "");
  EXPECT_EQ(GetReusingString(store(), "e", ByteRange::Full()), "");
}

TEST_P(StoreConformanceTest, Size) {
  MustSet(store(), "a/b", "0123456789");
  MustSet(store(), "e", "");
  ASSERT_NO_FATAL_FAILURE(Reopen());
  Result<std::optional<uint64_t>> s = store().Size("a/b");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s, std::optional<uint64_t>(10));
  s = store().Size("e");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, std::optional<uint64_t>(0));
  s = store().Size("missing");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, std::nullopt);
}

TEST_P(StoreConformanceTest, Erase) {
  if (!traits().erase) GTEST_SKIP() << "the store cannot erase keys";
  MustSet(store(), "a/b/c", "1");
  MustSet(store(), "a/b/d", "2");
  MustSet(store(), "top", "3");
  ASSERT_TRUE(store().Erase("a/b/c").ok());
  EXPECT_EQ(GetString(store(), "a/b/c"), "<absent>");
  EXPECT_EQ(GetString(store(), "a/b/d"), "2");
  EXPECT_TRUE(store().Erase("a/b/c").ok()) << "erasing an absent key is OK";
  EXPECT_TRUE(store().Erase("never/was").ok());
  ASSERT_TRUE(store().Erase("a/b/d").ok());
  ASSERT_TRUE(store().Erase("top").ok());
  EXPECT_EQ(MustList(store(), ""), Strings{});
  auto dir = store().ListDirectory("");
  ASSERT_TRUE(dir.ok());
  EXPECT_EQ(dir->keys, Strings{});
  EXPECT_EQ(dir->prefixes, Strings{}) << "no empty directories left behind";
  // The store is still usable after becoming empty.
  MustSet(store(), "a/b/c", "again");
  EXPECT_EQ(GetString(store(), "a/b/c"), "again");
}

TEST_P(StoreConformanceTest, ErasePrefix) {
  if (!traits().erase) GTEST_SKIP() << "the store cannot erase keys";
  for (const char* k : {"a/x", "a/y/z", "ab/x", "a.b", "b", "c/a/x"}) {
    MustSet(store(), k, k);
  }
  ASSERT_TRUE(store().ErasePrefix("a").ok());
  EXPECT_EQ(MustList(store(), ""), (Strings{"a.b", "ab/x", "b", "c/a/x"}));
  ASSERT_TRUE(store().ErasePrefix("b").ok()) << "a key is a prefix of itself";
  EXPECT_EQ(MustList(store(), ""), (Strings{"a.b", "ab/x", "c/a/x"}));
  ASSERT_TRUE(store().ErasePrefix("nothing/here").ok());
  ASSERT_TRUE(store().ErasePrefix("c/a").ok());
  EXPECT_EQ(MustList(store(), ""), (Strings{"a.b", "ab/x"}));
  ASSERT_TRUE(store().ErasePrefix("").ok());
  EXPECT_EQ(MustList(store(), ""), Strings{});
  EXPECT_EQ(store().ErasePrefix("a/").code(), StatusCode::kInvalidArgument);
}

TEST_P(StoreConformanceTest, EraseIsRefusedWithoutRemovingAnything) {
  if (traits().erase) GTEST_SKIP() << "the store can erase keys";
  MustSet(store(), "a/b", "1");
  MustSet(store(), "top", "2");
  Status erase = store().Erase("a/b");
  EXPECT_EQ(erase.code(), StatusCode::kUnsupported) << erase.ToString();
  EXPECT_NE(erase.message().find("'a/b'"), std::string::npos) << erase.message();
  EXPECT_EQ(store().ErasePrefix("a").code(), StatusCode::kUnsupported);
  EXPECT_EQ(store().ErasePrefix("").code(), StatusCode::kUnsupported);
  // Absent keys are erased already: that is not a failure.
  EXPECT_TRUE(store().Erase("never/was").ok());
  EXPECT_TRUE(store().ErasePrefix("nothing/here").ok());
  EXPECT_EQ(store().Erase("a//b").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store().ErasePrefix("a/").code(), StatusCode::kInvalidArgument);
  ASSERT_NO_FATAL_FAILURE(Reopen());
  EXPECT_EQ(GetString(store(), "a/b"), "1");
  EXPECT_EQ(GetString(store(), "top"), "2");
  EXPECT_EQ(MustList(store(), ""), (Strings{"a/b", "top"}));
}

TEST_P(StoreConformanceTest, List) {
  for (const char* k : {"b", "a/y/z", "a/x", "ab/x", "a.b", "a-b/q", "z/.zarray"}) {
    MustSet(store(), k, "v");
  }
  ASSERT_NO_FATAL_FAILURE(Reopen());
  EXPECT_EQ(MustList(store(), ""),
            (Strings{"a-b/q", "a.b", "a/x", "a/y/z", "ab/x", "b", "z/.zarray"}));
  EXPECT_EQ(MustList(store(), "a"), (Strings{"a/x", "a/y/z"}));
  EXPECT_EQ(MustList(store(), "a/y"), (Strings{"a/y/z"}));
  EXPECT_EQ(MustList(store(), "a/y/z"), (Strings{"a/y/z"}));
  EXPECT_EQ(MustList(store(), "b"), (Strings{"b"}));
  EXPECT_EQ(MustList(store(), "a/x/deeper"), Strings{});
  EXPECT_EQ(MustList(store(), "nope"), Strings{});
  EXPECT_EQ(store().List("/a").status().code(), StatusCode::kInvalidArgument);
}

TEST_P(StoreConformanceTest, ListDirectory) {
  for (const char* k : {"zarr.json", "a/x", "a/y/z", "ab/x", "a.b", "p/a-b/x", "p/a/x",
                        "p/a0", "p/a/y"}) {
    MustSet(store(), k, "v");
  }
  ASSERT_NO_FATAL_FAILURE(Reopen());
  auto root = store().ListDirectory("");
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  EXPECT_EQ(root->keys, (Strings{"a.b", "zarr.json"}));
  EXPECT_EQ(root->prefixes, (Strings{"a", "ab", "p"}));
  auto a = store().ListDirectory("a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->keys, (Strings{"x"}));
  EXPECT_EQ(a->prefixes, (Strings{"y"}));
  auto p = store().ListDirectory("p");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->keys, (Strings{"a0"}));
  EXPECT_EQ(p->prefixes, (Strings{"a", "a-b"}));
  auto leaf = store().ListDirectory("a/x");
  ASSERT_TRUE(leaf.ok());
  EXPECT_TRUE(leaf->keys.empty() && leaf->prefixes.empty());
  auto none = store().ListDirectory("missing");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->keys.empty() && none->prefixes.empty());
  EXPECT_EQ(store().ListDirectory("a//b").status().code(), StatusCode::kInvalidArgument);
}

TEST_P(StoreConformanceTest, BadKeysAreRefused) {
  const std::string bad[] = {"",   "/a",     "a/",    "a//b", "./a",
                             "..", "a/../b", "a/./b", "a\\b", std::string("a\0b", 3)};
  auto check_all = [&] {
    for (const std::string& key : bad) {
      SCOPED_TRACE("key '" + key + "'");
      EXPECT_EQ(store().Get(key).status().code(), StatusCode::kInvalidArgument);
      EXPECT_EQ(store().Size(key).status().code(), StatusCode::kInvalidArgument);
      Status set = store().Set(key, AsBytes("v"));
      EXPECT_EQ(set.code(), StatusCode::kInvalidArgument);
      EXPECT_EQ(store().Erase(key).code(), StatusCode::kInvalidArgument);
      if (key.find('\0') == std::string::npos) {
        EXPECT_NE(set.message().find("'" + key + "'"), std::string::npos)
            << set.message();
      }
    }
    EXPECT_EQ(MustList(store(), ""), Strings{}) << "a refused key wrote nothing";
  };
  check_all();
  ASSERT_NO_FATAL_FAILURE(Reopen());
  check_all();
}

TEST_P(StoreConformanceTest, UnusualButValidKeys) {
  Strings keys = {".zarray",
                  "a/.zattrs",
                  "..a",
                  "a..b",
                  "key with spaces",
                  "\xC3\xBC"
                  "nicode",
                  "c/0.0.1",
                  "x/-1"};
  for (const std::string& k : keys) MustSet(store(), k, "v:" + k);
  ASSERT_NO_FATAL_FAILURE(Reopen());
  for (const std::string& k : keys) EXPECT_EQ(GetString(store(), k), "v:" + k);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(MustList(store(), ""), keys);
}

TEST_P(StoreConformanceTest, GetManyAnswersInOrder) {
  MustSet(store(), "k1", "one");
  MustSet(store(), "k3", "three");
  ASSERT_NO_FATAL_FAILURE(Reopen());
  std::vector<KeyRange> reads = {{"k3", ByteRange::Full()},
                                 {"missing", ByteRange::Full()},
                                 {"k1", ByteRange::Of(1, 2)},
                                 {"k3", ByteRange::Suffix(1)}};
  auto r = store().GetMany(reads);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 4u);
  ASSERT_TRUE((*r)[0].has_value());
  EXPECT_EQ((*r)[0]->chars(), "three");
  EXPECT_FALSE((*r)[1].has_value());
  ASSERT_TRUE((*r)[2].has_value());
  EXPECT_EQ((*r)[2]->chars(), "ne");
  ASSERT_TRUE((*r)[3].has_value());
  EXPECT_EQ((*r)[3]->chars(), "e");
  std::vector<KeyRange> bad = {{"k1", ByteRange::Full()}, {"/bad", ByteRange::Full()}};
  EXPECT_EQ(store().GetMany(bad).status().code(), StatusCode::kInvalidArgument);
}

TEST_P(StoreConformanceTest, ReadServesEveryTargetAndRange) {
  std::string big(300'000, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7 + (i >> 10));
  const std::map<std::string, std::string> contents = {
      {"k", "0123456789"}, {"e", ""}, {"a/b/c", "abc"}, {"big", big}};
  for (const auto& [key, value] : contents) MustSet(store(), key, value);
  ASSERT_NO_FATAL_FAILURE(Reopen());
  testing_reads::ExpectEveryReadTarget(store(), contents, "a/b/missing");
}

TEST_P(StoreConformanceTest, DescribeIsNotEmpty) {
  EXPECT_FALSE(store().Describe().empty());
}

// A value whose bytes all equal `b` and whose length depends on `b`, so that a
// mixture of two values (a torn write) is always detectable.
std::string Stamp(int b) {
  return std::string(1000 + 97 * (b % 64), static_cast<char>(b));
}

bool IsStamp(std::string_view v) {
  if (v.empty()) return false;
  int b = static_cast<unsigned char>(v[0]);
  return v == Stamp(b);
}

TEST_P(StoreConformanceTest, ConcurrentSetsAndGetsNeverTear) {
  constexpr int kThreads = 8;
  const int iterations = Iterations(150);
  MustSet(store(), "shared/k", Stamp(0));
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::string own = "own/" + std::to_string(t);
      for (int i = 0; i < iterations; ++i) {
        int b = (t * iterations + i) % 256;
        if (!store().Set(own, AsBytes(Stamp(b))).ok()) ++failures;
        // Only this thread writes `own`, so it reads back what it wrote.
        if (GetString(store(), own) != Stamp(b)) ++failures;
        if (i % 2 == 0 && !store().Set("shared/k", AsBytes(Stamp(b))).ok()) ++failures;
        if (!IsStamp(GetString(store(), "shared/k"))) ++failures;
        if (i % 25 == 0) {
          Result<std::vector<std::string>> keys = store().List("own");
          if (!keys.ok()) {
            ++failures;
          } else {
            for (const std::string& k : *keys) {
              if (!k.starts_with("own/") || k.size() != 5) ++failures;
            }
          }
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  Strings want;
  for (int t = 0; t < kThreads; ++t) want.push_back("own/" + std::to_string(t));
  std::sort(want.begin(), want.end());
  EXPECT_EQ(MustList(store(), "own"), want);
  EXPECT_TRUE(IsStamp(GetString(store(), "shared/k")));
}

TEST_P(StoreConformanceTest, ConcurrentGetsOfManyKeys) {
  constexpr int kKeys = 64;
  for (int k = 0; k < kKeys; ++k) MustSet(store(), "c/" + std::to_string(k), Stamp(k));
  ASSERT_NO_FATAL_FAILURE(Reopen());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 400; ++i) {
        int k = (i * 7 + t * 13) % kKeys;
        std::string key = "c/" + std::to_string(k);
        std::string want = Stamp(k);
        uint64_t offset = static_cast<uint64_t>(i * 31 % want.size());
        uint64_t length = static_cast<uint64_t>(1 + i % 200);
        if (GetString(store(), key) != want) ++failures;
        if (GetString(store(), key, ByteRange::Of(offset, length)) !=
            want.substr(offset, length)) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_P(StoreConformanceTest, ConcurrentWritersAndErasersInOneDirectory) {
  if (!traits().erase) GTEST_SKIP() << "the store cannot erase keys";
  // Erase prunes directories that Set is about to write into.
  constexpr int kThreads = 4;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::string key = "d/e/" + std::to_string(t);
      for (int i = 0; i < Iterations(100); ++i) {
        Status set = store().Set(key, AsBytes(Stamp(i)));
        if (!set.ok()) {
          ADD_FAILURE() << set.ToString();
          ++failures;
        }
        std::string got = GetString(store(), key);
        if (got != Stamp(i)) {
          ADD_FAILURE() << got.substr(0, 200);
          ++failures;
        }
        Status erase = store().Erase(key);
        if (!erase.ok()) {
          ADD_FAILURE() << erase.ToString();
          ++failures;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(MustList(store(), ""), Strings{});
}

}  // namespace
}  // namespace turbozarr

// Stores that only some binaries instantiate should not fail the others.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(StoreConformanceTest);
