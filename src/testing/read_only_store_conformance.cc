#include "testing/read_only_store_conformance.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "testing/read_checks.h"
#include "testing/store_conformance.h"

namespace turbozarr {

namespace {

std::string BigValue() {
  std::string big(3'000'000 + 17, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7 + (i >> 12));
  return big;
}

std::string AllBytes() {
  std::string s;
  for (int i = 0; i < 256; ++i) s += static_cast<char>(i);
  return s;
}

// What `range` of `value` must read as, computed independently of the
// stores' shared range arithmetic.
std::string Expect(const std::string& value, const ByteRange& range) {
  if (range.suffix) {
    return value.substr(value.size() - std::min<uint64_t>(range.length, value.size()));
  }
  if (range.offset >= value.size()) return "";
  return value.substr(range.offset, std::min<uint64_t>(range.length, value.size()));
}

std::string GetString(Store& store, std::string_view key,
                      ByteRange range = ByteRange::Full()) {
  Result<std::optional<Buffer>> r = store.Get(key, range);
  if (!r.ok()) return "<error " + r.status().ToString() + ">";
  if (!r->has_value()) return "<absent>";
  return std::string((*r)->chars());
}

}  // namespace

const StoreContents& ReadOnlyStoreConformanceTest::Contents() {
  static const StoreContents contents = {
      {"k", "0123456789"},
      {"e", ""},
      {"a/b", "ab"},
      {"d/x", "1"},
      {"c/0/0", AllBytes()},
      {"big", BigValue()},
      {".zarray", "v2"},
      {"a/.zattrs", "{}"},
      {"..a", "dots"},
      {"key with spaces", "spaces"},
      {"\xC3\xBC"
       "nicode",
       "u"},
      {"c/0.0.1", "dotted"},
      {"x/-1", "minus"},
      {"q?x=1#f", "query-like"},
      {"pct%41", "percent"},
  };
  return contents;
}

void ReadOnlyStoreConformanceTest::SetUp() {
  scratch_dir_ = MakeScratchDir();
  Result<std::shared_ptr<Store>> made = GetParam().make(scratch_dir_, Contents());
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  store_ = *made;
}

void ReadOnlyStoreConformanceTest::TearDown() {
  store_.reset();
  RemoveScratchDir(scratch_dir_);
}

void PrintTo(const ReadOnlyStoreFactory& factory, std::ostream* os) {
  *os << factory.name;
}

std::string ReadOnlyStoreFactoryName(
    const ::testing::TestParamInfo<ReadOnlyStoreFactory>& info) {
  return info.param.name;
}

namespace {

using Strings = std::vector<std::string>;

TEST_P(ReadOnlyStoreConformanceTest, EveryValueReadsBack) {
  for (const auto& [key, value] : Contents()) {
    EXPECT_EQ(GetString(store(), key), value) << "key '" << key << "'";
  }
}

TEST_P(ReadOnlyStoreConformanceTest, MissingKeysAreAbsent) {
  EXPECT_EQ(GetString(store(), "nope"), "<absent>");
  EXPECT_EQ(GetString(store(), "x/y/z"), "<absent>");
  EXPECT_EQ(GetString(store(), "nope", ByteRange::Of(1, 2)), "<absent>");
  EXPECT_EQ(GetString(store(), "nope", ByteRange::Suffix(2)), "<absent>");
  EXPECT_EQ(GetString(store(), "nope", ByteRange::Of(1, 0)), "<absent>");
  // A "directory" holds no value of its own, and a value is no directory.
  EXPECT_EQ(GetString(store(), "d"), "<absent>");
  EXPECT_EQ(GetString(store(), "d/x/y"), "<absent>");
  for (const char* key : {"d", "nope", "d/x/y"}) {
    Result<std::optional<uint64_t>> size = store().Size(key);
    ASSERT_TRUE(size.ok()) << key << ": " << size.status().ToString();
    EXPECT_FALSE(size->has_value()) << key;
  }
}

TEST_P(ReadOnlyStoreConformanceTest, ByteRanges) {
  EXPECT_EQ(GetString(store(), "k", ByteRange::Full()), "0123456789");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Of(2, 3)), "234");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Of(0, 10)), "0123456789");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Of(8, 10)), "89");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Of(9, 1)), "9");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Of(10, 1)), "");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Of(25, 4)), "");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Of(3, 0)), "");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Of(7, ByteRange::kToEnd)), "789");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Of(7, ByteRange::kToEnd - 3)), "789");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Suffix(3)), "789");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Suffix(10)), "0123456789");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Suffix(100)), "0123456789");
  EXPECT_EQ(GetString(store(), "k", ByteRange::Suffix(0)), "");
  EXPECT_EQ(GetString(store(), "e", ByteRange::Suffix(4)), "");
  EXPECT_EQ(GetString(store(), "e", ByteRange::Of(1, 4)), "");
  EXPECT_EQ(GetString(store(), "e", ByteRange::Of(0, 4)), "");
  const std::string& big = Contents().at("big");
  EXPECT_EQ(GetString(store(), "big", ByteRange::Of(2'999'990, 100)),
            big.substr(2'999'990));
  EXPECT_EQ(GetString(store(), "big", ByteRange::Suffix(70'000)),
            big.substr(big.size() - 70'000));
  EXPECT_EQ(GetString(store(), "c/0/0", ByteRange::Of(250, 3)),
            AllBytes().substr(250, 3));
}

TEST_P(ReadOnlyStoreConformanceTest, Size) {
  for (const auto& [key, value] : Contents()) {
    Result<std::optional<uint64_t>> s = store().Size(key);
    ASSERT_TRUE(s.ok()) << key << ": " << s.status().ToString();
    EXPECT_EQ(*s, std::optional<uint64_t>(value.size())) << key;
  }
}

TEST_P(ReadOnlyStoreConformanceTest, BadKeysAreRefused) {
  const std::string bad[] = {"",   "/a",     "a/",    "a//b", "./a",
                             "..", "a/../b", "a/./b", "a\\b", std::string("a\0b", 3)};
  for (const std::string& key : bad) {
    SCOPED_TRACE("key '" + key + "'");
    EXPECT_EQ(store().Get(key).status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(store().Get(key, ByteRange::Of(0, 1)).status().code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(store().Size(key).status().code(), StatusCode::kInvalidArgument);
    std::vector<KeyRange> reads = {{"k", ByteRange::Full()}, {key, ByteRange::Full()}};
    EXPECT_EQ(store().GetMany(reads).status().code(), StatusCode::kInvalidArgument);
  }
}

TEST_P(ReadOnlyStoreConformanceTest, GetManyAnswersInOrder) {
  std::vector<KeyRange> reads = {
      {"k", ByteRange::Full()},    {"missing", ByteRange::Full()},
      {"k", ByteRange::Of(1, 2)},  {"k", ByteRange::Suffix(1)},
      {"k", ByteRange::Of(1, 2)},                               // a duplicate
      {"k", ByteRange::Of(2, 5)},                               // overlaps
      {"k", ByteRange::Of(3, 0)},  {"k", ByteRange::Of(8, 5)},  // runs past the end
      {"k", ByteRange::Of(20, 5)}, {"missing", ByteRange::Of(0, 4)},
      {"e", ByteRange::Of(0, 4)},  {"a/b", ByteRange::Full()}};
  auto r = store().GetMany(reads);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), reads.size());
  for (size_t i = 0; i < reads.size(); ++i) {
    SCOPED_TRACE("read " + std::to_string(i));
    auto it = Contents().find(reads[i].key);
    if (it == Contents().end()) {
      EXPECT_FALSE((*r)[i].has_value());
      continue;
    }
    ASSERT_TRUE((*r)[i].has_value());
    EXPECT_EQ((*r)[i]->chars(), Expect(it->second, reads[i].range));
  }
  EXPECT_TRUE(store().GetMany({}).ok());
}

TEST_P(ReadOnlyStoreConformanceTest, GetManyOfManyNeighbouringRanges) {
  // Ranges of one large value: adjacent, overlapping, a few bytes apart and
  // far apart, in shuffled order, with reads of other keys between them.
  const std::string& big = Contents().at("big");
  std::mt19937_64 rng(7);
  std::vector<KeyRange> reads;
  uint64_t at = 0;
  while (at < big.size()) {
    const uint64_t len = 1 + rng() % 40'000;
    reads.push_back({"big", ByteRange::Of(at, len)});
    switch (rng() % 4) {
      case 0:
        at += len;
        break;  // adjacent
      case 1:
        at += len / 2;
        break;  // overlapping
      case 2:
        at += len + rng() % 1000;
        break;  // a small gap
      default:
        at += len + 200'000;
        break;  // a large gap
    }
    if (rng() % 8 == 0) reads.push_back({"k", ByteRange::Of(rng() % 10, 3)});
  }
  reads.push_back({"big", ByteRange::Of(big.size() - 5, 50)});
  std::shuffle(reads.begin(), reads.end(), rng);
  auto r = store().GetMany(reads);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), reads.size());
  int wrong = 0;
  for (size_t i = 0; i < reads.size(); ++i) {
    const std::string want = Expect(Contents().at(reads[i].key), reads[i].range);
    if (!(*r)[i] || (*r)[i]->chars() != want) ++wrong;
  }
  EXPECT_EQ(wrong, 0) << "of " << reads.size() << " reads";
}

TEST_P(ReadOnlyStoreConformanceTest, ReadServesEveryTargetAndRange) {
  testing_reads::ExpectEveryReadTarget(store(), Contents(), "missing/key");
}

TEST_P(ReadOnlyStoreConformanceTest, WritesAreRefusedWhenReadOnly) {
  if (store().Capabilities().writable) GTEST_SKIP() << "the store is writable";
  for (Status s : {store().Set("k", AsBytes("new")), store().Set("fresh", AsBytes("v")),
                   store().Erase("k"), store().ErasePrefix("a")}) {
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("read-only"), std::string::npos) << s.ToString();
  }
  EXPECT_EQ(GetString(store(), "k"), "0123456789");
  EXPECT_EQ(GetString(store(), "fresh"), "<absent>");
  EXPECT_EQ(GetString(store(), "a/b"), "ab");
}

TEST_P(ReadOnlyStoreConformanceTest, DescribeIsNotEmpty) {
  EXPECT_FALSE(store().Describe().empty());
}

TEST_P(ReadOnlyStoreConformanceTest, ConcurrentReadersAgree) {
  constexpr int kThreads = 8;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  Strings keys;
  for (const auto& [key, value] : Contents()) keys.push_back(key);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(100 + t);
      for (int i = 0; i < 40; ++i) {
        const std::string& key = keys[rng() % keys.size()];
        const std::string& value = Contents().at(key);
        const ByteRange range =
            rng() % 3 == 0 ? ByteRange::Full()
                           : ByteRange::Of(rng() % (value.size() + 1), 1 + rng() % 5000);
        if (GetString(store(), key, range) != Expect(value, range)) ++wrong;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace turbozarr

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ReadOnlyStoreConformanceTest);
