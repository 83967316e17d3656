#include "store/zip_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "testing/store_conformance.h"
#include "testing/zip_test_archive.h"

namespace turbozarr {
namespace {

using zip::kMethodDeflated;
using zip::kMethodStored;
using zip::testing::BuildArchive;
using zip::testing::TestArchiveOptions;
using zip::testing::TestEntry;
using zip::testing::WriteBytes;
using Strings = std::vector<std::string>;

std::string Pattern(size_t n, int seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i)
    s[i] = static_cast<char>((i * 131 + seed * 7 + (i >> 9)) & 0xFF);
  return s;
}

// Compressible but not trivial.
std::string Text(size_t n, int seed) {
  std::string s;
  while (s.size() < n)
    s += "chunk " + std::to_string(seed) + ":" + std::to_string(s.size() % 977) + ";";
  s.resize(n);
  return s;
}

class ZipStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeScratchDir(); }
  void TearDown() override { RemoveScratchDir(dir_); }

  std::string Write(const std::string& bytes, const std::string& name = "a.zip") {
    std::string path = dir_ + "/" + name;
    WriteBytes(path, bytes);
    return path;
  }
  std::shared_ptr<ZipStore> Open(const std::string& path) {
    auto r = ZipStore::Open(path);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : nullptr;
  }

  std::string dir_;
};

std::string GetString(Store& s, std::string_view key,
                      ByteRange range = ByteRange::Full()) {
  auto r = s.Get(key, range);
  if (!r.ok()) return "<error " + r.status().ToString() + ">";
  return r->has_value() ? std::string((*r)->chars()) : "<absent>";
}

const std::vector<TestEntry>& MixedEntries() {
  static const std::vector<TestEntry> entries = {
      {"zarr.json", R"({"zarr_format":3,"node_type":"group"})"},
      {"a/zarr.json", Text(300, 1), kMethodDeflated},
      {"a/c/0/0", Pattern(4096, 2)},
      {"a/c/0/1", Text(100000, 3), kMethodDeflated},
      {"a/c/1/0", "", kMethodDeflated},
      {"a/c/1/1", ""},
      {"b/descriptor", Text(5000, 4), kMethodDeflated, 8},
      {"b/stored-descriptor", Pattern(700, 5), kMethodStored, 8},
  };
  return entries;
}

TEST_F(ZipStoreTest, ReadsStoredAndDeflatedEntriesWholeAndInRanges) {
  for (bool zip64 : {false, true}) {
    SCOPED_TRACE(zip64 ? "zip64" : "plain");
    TestArchiveOptions options;
    options.force_zip64 = zip64;
    auto store = Open(Write(BuildArchive(MixedEntries(), options)));
    ASSERT_TRUE(store);
    for (const TestEntry& e : MixedEntries()) {
      SCOPED_TRACE(e.name);
      EXPECT_EQ(GetString(*store, e.name), e.data);
      // Twice: the second read uses the remembered data offset.
      EXPECT_EQ(GetString(*store, e.name), e.data);
      EXPECT_EQ(GetString(*store, e.name, ByteRange::Of(3, 50)),
                e.data.substr(std::min<size_t>(3, e.data.size()), 50));
      EXPECT_EQ(GetString(*store, e.name, ByteRange::Suffix(17)),
                e.data.substr(e.data.size() - std::min<size_t>(17, e.data.size())));
      auto size = store->Size(e.name);
      ASSERT_TRUE(size.ok());
      EXPECT_EQ(*size, std::optional<uint64_t>(e.data.size()));
    }
    EXPECT_EQ(GetString(*store, "a/c/9/9"), "<absent>");
    EXPECT_EQ(GetString(*store, "a"), "<absent>");
    auto size = store->Size("a/c");
    ASSERT_TRUE(size.ok());
    EXPECT_FALSE(size->has_value());
  }
}

TEST_F(ZipStoreTest, ListsFromTheDirectory) {
  auto store = Open(Write(BuildArchive(MixedEntries())));
  ASSERT_TRUE(store);
  auto all = store->List("");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, (Strings{"a/c/0/0", "a/c/0/1", "a/c/1/0", "a/c/1/1", "a/zarr.json",
                           "b/descriptor", "b/stored-descriptor", "zarr.json"}));
  EXPECT_EQ(*store->List("a/c/1"), (Strings{"a/c/1/0", "a/c/1/1"}));
  EXPECT_EQ(*store->List("a/c/1/0"), (Strings{"a/c/1/0"}));
  EXPECT_EQ(store->List("a/c/").status().code(), StatusCode::kInvalidArgument);
  auto root = store->ListDirectory("");
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(root->keys, Strings{"zarr.json"});
  EXPECT_EQ(root->prefixes, (Strings{"a", "b"}));
  auto c = store->ListDirectory("a/c");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->keys.empty());
  EXPECT_EQ(c->prefixes, (Strings{"0", "1"}));
}

TEST_F(ZipStoreTest,
       SkipsDirectoryEntriesAndNamesThatAreNotKeysAndKeepsTheLastDuplicate) {
  auto store = Open(Write(BuildArchive({{"d/", ""},
                                        {"d/k", "first"},
                                        {"../escape", "x"},
                                        {"/abs", "x"},
                                        {"a//b", "x"},
                                        {"d/k", "second", kMethodDeflated},
                                        {"z", "last"}})));
  ASSERT_TRUE(store);
  EXPECT_EQ(*store->List(""), (Strings{"d/k", "z"}));
  EXPECT_EQ(GetString(*store, "d/k"), "second");
  EXPECT_EQ(store->entries().size(), 2u);
}

TEST_F(ZipStoreTest, ArchivesWithACommentOrBytesInFront) {
  TestArchiveOptions options;
  options.comment = "written by a test";
  options.prefix = "#!/bin/sh\nexit 0\n";
  auto store = Open(Write(BuildArchive(MixedEntries(), options)));
  ASSERT_TRUE(store);
  for (const TestEntry& e : MixedEntries()) EXPECT_EQ(GetString(*store, e.name), e.data);
}

TEST_F(ZipStoreTest, EmptyArchive) {
  auto store = Open(Write(BuildArchive({})));
  ASSERT_TRUE(store);
  EXPECT_EQ(*store->List(""), Strings{});
  EXPECT_EQ(GetString(*store, "zarr.json"), "<absent>");
}

TEST_F(ZipStoreTest, RefusesWritesWithAMessageThatSaysWhy) {
  std::string path = Write(BuildArchive({{"k", "v"}}));
  auto store = Open(path);
  ASSERT_TRUE(store);
  EXPECT_FALSE(store->Capabilities().writable);
  Status set = store->Set("k", AsBytes("new"));
  EXPECT_EQ(set.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(set.message().find("zip://" + path), std::string::npos) << set.message();
  EXPECT_NE(set.message().find("'k'"), std::string::npos) << set.message();
  EXPECT_EQ(store->Erase("k").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->ErasePrefix("").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(GetString(*store, "k"), "v");
}

TEST_F(ZipStoreTest, UnsupportedEntriesNameTheEntry) {
  auto store = Open(Write(BuildArchive(
      {{"bz", "x", 12}, {"secret", "x", kMethodStored, 1}, {"fine", "ok"}})));
  ASSERT_TRUE(store);
  auto bz = store->Get("bz");
  EXPECT_EQ(bz.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(bz.status().message().find("entry 'bz': uses compression method 12"),
            std::string::npos)
      << bz.status().message();
  auto secret = store->Get("secret");
  EXPECT_EQ(secret.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(secret.status().message().find("entry 'secret': is encrypted"),
            std::string::npos);
  EXPECT_EQ(GetString(*store, "fine"), "ok");
}

TEST_F(ZipStoreTest, MissingOrNonArchiveFiles) {
  auto missing = ZipStore::Open(dir_ + "/none.zip");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  auto text = ZipStore::Open(Write("just some text, not an archive", "t.zip"));
  EXPECT_EQ(text.status().code(), StatusCode::kCorruption);
  EXPECT_NE(text.status().message().find("zip://" + dir_ + "/t.zip: not a zip archive"),
            std::string::npos)
      << text.status().message();
  EXPECT_EQ(ZipStore::Open(dir_).status().code(), StatusCode::kInvalidArgument);
}

// --- damaged archives -------------------------------------------------------

TEST_F(ZipStoreTest, TruncatedAtEveryOffsetIsCorruptionNamingTheArchive) {
  const std::string good = BuildArchive({{"zarr.json", "{}"},
                                         {"c/0", Pattern(300, 1)},
                                         {"c/1", Text(2000, 2), kMethodDeflated}});
  const std::string path = dir_ + "/cut.zip";
  // Every offset through the directory and end records, every few in the data.
  const size_t directory = good.find("PK\x01\x02");
  for (size_t n = 0; n < good.size(); n += n + 1 < directory ? 13 : 1) {
    WriteBytes(path, good.substr(0, n));
    auto r = ZipStore::Open(path);
    ASSERT_FALSE(r.ok()) << "cut at " << n;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << n;
    EXPECT_NE(r.status().message().find("zip://" + path), std::string::npos)
        << r.status().message();
  }
}

// Every single-byte change in the central directory and end records opens
// cleanly or fails cleanly; what reads back is either an error or the right
// bytes.
TEST_F(ZipStoreTest, FlippedDirectoryBytesNeverGiveWrongData) {
  std::map<std::string, std::string> want;
  std::vector<TestEntry> entries = {{"zarr.json", "{}"},
                                    {"c/0", Pattern(300, 1)},
                                    {"c/1", Text(2000, 2), kMethodDeflated},
                                    {"c/2", ""}};
  for (const TestEntry& e : entries) want[e.name] = e.data;
  for (bool zip64 : {false, true}) {
    TestArchiveOptions options;
    options.force_zip64 = zip64;
    const std::string good = BuildArchive(entries, options);
    // The directory starts after the last entry's data.
    size_t directory = good.find("PK\x01\x02");
    ASSERT_NE(directory, std::string::npos);
    const std::string path = dir_ + "/flip.zip";
    int opened = 0;
    for (size_t at = directory; at < good.size(); ++at) {
      for (unsigned char mask : {0x01, 0xFF}) {
        std::string bad = good;
        bad[at] = static_cast<char>(bad[at] ^ mask);
        WriteBytes(path, bad);
        auto store = ZipStore::Open(path);
        if (!store.ok()) {
          StatusCode c = store.status().code();
          EXPECT_TRUE(c == StatusCode::kCorruption || c == StatusCode::kUnsupported)
              << at << ": " << store.status().ToString();
          continue;
        }
        ++opened;
        auto keys = (*store)->List("");
        ASSERT_TRUE(keys.ok());
        for (const std::string& key : *keys) {
          auto r = (*store)->Get(key);
          if (!r.ok()) {
            StatusCode c = r.status().code();
            EXPECT_TRUE(c == StatusCode::kCorruption || c == StatusCode::kUnsupported)
                << at << " " << key << ": " << r.status().ToString();
            EXPECT_NE(r.status().message().find("entry '" + key + "'"), std::string::npos)
                << r.status().message();
            continue;
          }
          auto it = want.find(key);
          if (it != want.end()) {
            ASSERT_TRUE(r->has_value());
            EXPECT_EQ((*r)->chars(), it->second) << "byte " << at << " key " << key;
          }
        }
      }
    }
    EXPECT_GT(opened, 0) << "some flips (times, attributes, comments) are harmless";
  }
}

TEST_F(ZipStoreTest, BadOffsetsAndLengthsAreCorruptionNamingArchiveAndEntry) {
  const std::string path = dir_ + "/bad.zip";
  const std::string good = BuildArchive({{"c/0", "0123456789"}, {"c/1", "abcdefghij"}});
  const size_t directory = good.find("PK\x01\x02");
  const size_t second_header = good.find("PK\x01\x02", directory + 1);
  auto expect_corrupt_get = [&](const std::string& bytes, const std::string& key,
                                const std::string& says) {
    WriteBytes(path, bytes);
    auto store = ZipStore::Open(path);
    Status s = store.ok() ? (*store)->Get(key).status() : store.status();
    EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
    EXPECT_NE(s.message().find("zip://" + path + ": entry '" + key + "'"),
              std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find(says), std::string::npos) << s.message();
  };
  // A local header offset past the end of the file.
  std::string past = good;
  past[second_header + 42 + 3] = '\x70';
  expect_corrupt_get(past, "c/1", "run past the start of the central directory");
  // An offset that lands inside the other entry's data.
  std::string inside = good;
  inside[second_header + 42] = 5;
  expect_corrupt_get(inside, "c/1", "no local header signature");
  // A local header whose name length runs past the end.
  std::string long_name = good;
  long_name[26] = '\xff';
  long_name[27] = '\xff';
  expect_corrupt_get(long_name, "c/0", "not the central directory's name");
  // A local extra field that pushes the data into the directory.
  std::string long_extra = good;
  long_extra[28] = '\xff';
  long_extra[29] = '\x0f';
  expect_corrupt_get(long_extra, "c/0", "runs past the start of the central directory");
  // A stored entry whose sizes disagree.
  std::string sizes = good;
  sizes[directory + 24] = 9;
  expect_corrupt_get(sizes, "c/0", "differs from its size");
}

TEST_F(ZipStoreTest, ChecksumsCatchDamagedData) {
  const std::string stored = Pattern(5000, 7);
  const std::string text = Text(20000, 8);
  const std::string good = BuildArchive({{"s", stored}, {"d", text, kMethodDeflated}});
  const std::string path = dir_ + "/crc.zip";
  // A flipped byte in the stored entry's data: whole reads fail, ranges that
  // miss it still read (only whole values carry a checksum).
  std::string bad = good;
  const size_t data_start = zip::kLocalHeaderSize + 1;
  bad[data_start + 4000] ^= 0x10;
  WriteBytes(path, bad);
  auto store = ZipStore::Open(path);
  ASSERT_TRUE(store.ok());
  auto whole = (*store)->Get("s");
  EXPECT_EQ(whole.status().code(), StatusCode::kCorruption);
  EXPECT_NE(whole.status().message().find("entry 's': CRC-32 mismatch"),
            std::string::npos)
      << whole.status().message();
  EXPECT_EQ(GetString(**store, "s", ByteRange::Of(10, 100)), stored.substr(10, 100));
  EXPECT_EQ(GetString(**store, "d"), text);
  // Damage in the deflated entry: a corrupt stream or a CRC mismatch, for
  // every position in its compressed bytes.
  const size_t d_header = good.find("PK\x03\x04", 1);
  const size_t d_data = d_header + zip::kLocalHeaderSize + 1;
  const size_t d_end = good.find("PK\x01\x02");
  int failures = 0;
  for (size_t at = d_data; at < d_end; at += 7) {
    std::string broken = good;
    broken[at] ^= 0x5A;
    WriteBytes(path, broken);
    auto s = ZipStore::Open(path);
    ASSERT_TRUE(s.ok());
    auto r = (*s)->Get("d", ByteRange::Of(0, 10));
    if (r.ok()) {
      // Deflate may resynchronise; the CRC still sees it, except when the
      // change did not alter the output at all.
      EXPECT_EQ((*r)->chars(), text.substr(0, 10)) << at;
      continue;
    }
    ++failures;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << r.status().ToString();
    EXPECT_NE(r.status().message().find("entry 'd'"), std::string::npos);
  }
  EXPECT_GT(failures, 0);
  // A deflated entry that claims to inflate to more than deflate can give.
  std::string ratio = good;
  const size_t d_central = good.find("PK\x01\x02", good.find("PK\x01\x02") + 1);
  ratio[d_central + 24 + 3] = 0x7f;
  WriteBytes(path, ratio);
  auto r = ZipStore::Open(path);
  ASSERT_TRUE(r.ok());
  Status s = (*r)->Get("d").status();
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_NE(s.message().find("more than deflate can expand"), std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace turbozarr
