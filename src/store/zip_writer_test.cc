#include "store/zip_writer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "store/zip_store.h"
#include "testing/store_conformance.h"
#include "turbozarr/open_store.h"

namespace turbozarr {
namespace {

namespace fs = std::filesystem;
using Strings = std::vector<std::string>;

Result<std::shared_ptr<Store>> MakeWriter(const std::string& dir, bool force_zip64) {
  ZipStoreOptions options;
  options.force_zip64 = force_zip64;
  return OpenZipStore(dir + "/store.zip", options);
}

// An empty archive written first, then opened for appending.
Result<std::shared_ptr<Store>> MakeAppender(const std::string& dir, bool force_zip64) {
  TZ_RETURN_NOT_OK(ZipWriter(dir + "/store.zip", /*exclusive=*/true, force_zip64).Flush());
  ZipStoreOptions options;
  options.append = true;
  options.force_zip64 = force_zip64;
  return OpenZipStore(dir + "/store.zip", options);
}

// Flushes the archive the test wrote and opens it afresh, read-only.
Result<std::shared_ptr<Store>> Reopen(std::shared_ptr<Store> written,
                                      const std::string& dir) {
  TZ_RETURN_NOT_OK(written->Flush());
  ZipStoreOptions options;
  options.read_only = true;
  return OpenZipStore(dir + "/store.zip", options);
}

INSTANTIATE_TEST_SUITE_P(
    Zip, StoreConformanceTest,
    ::testing::Values(
        // Reads served by the writer, from the entries it wrote.
        StoreFactory{"zip_writer",
                     [](const std::string& dir) { return MakeWriter(dir, false); },
                     ConformanceTraits{.erase = false}},
        // Reads from the finished archive, opened again.
        StoreFactory{"zip_reopened",
                     [](const std::string& dir) { return MakeWriter(dir, false); },
                     ConformanceTraits{.erase = false}, Reopen},
        StoreFactory{"zip64_reopened",
                     [](const std::string& dir) { return MakeWriter(dir, true); },
                     ConformanceTraits{.erase = false}, Reopen},
        // Appending to an existing archive (which erases keys): reads served
        // by the appending writer, and from the archive opened again.
        StoreFactory{"zip_appender",
                     [](const std::string& dir) { return MakeAppender(dir, false); }},
        StoreFactory{"zip_appended_reopened",
                     [](const std::string& dir) { return MakeAppender(dir, false); },
                     {}, Reopen},
        StoreFactory{"zip64_appended_reopened",
                     [](const std::string& dir) { return MakeAppender(dir, true); },
                     {}, Reopen}),
    StoreFactoryName);

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "prefix" + n, built by appending (GCC 12 warns spuriously about
// "literal" + std::string temporaries at -O2).
std::string Numbered(std::string_view prefix, int n) {
  std::string s(prefix);
  s += std::to_string(n);
  return s;
}

std::string ThreadKey(int t, int i) {
  std::string s = Numbered("t", t);
  s += '/';
  s += std::to_string(i);
  return s;
}

std::string GetString(Store& s, std::string_view key) {
  auto r = s.Get(key);
  if (!r.ok()) return "<error " + r.status().ToString() + ">";
  return r->has_value() ? std::string((*r)->chars()) : "<absent>";
}

class ZipWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeScratchDir();
    path_ = dir_ + "/out.zip";
  }
  void TearDown() override { RemoveScratchDir(dir_); }

  std::shared_ptr<Store> Writer(bool force_zip64 = false, bool truncate = false) {
    ZipStoreOptions options;
    options.force_zip64 = force_zip64;
    options.truncate = truncate;
    auto r = OpenZipStore(path_, options);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : nullptr;
  }
  std::shared_ptr<ZipStore> Reader() {
    auto r = ZipStore::Open(path_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : nullptr;
  }

  std::string dir_;
  std::string path_;
};

TEST_F(ZipWriterTest, NothingIsCreatedUntilTheFirstWrite) {
  {
    auto w = Writer();
    ASSERT_TRUE(w);
    EXPECT_EQ(GetString(*w, "k"), "<absent>");
  }
  EXPECT_FALSE(fs::exists(path_)) << "a writer that wrote nothing leaves no file";
  {
    auto w = Writer();
    ASSERT_TRUE(w->Flush().ok());
  }
  EXPECT_EQ(fs::file_size(path_), zip::kEndSize) << "a flush writes an empty archive";
  auto r = Reader();
  ASSERT_TRUE(r);
  EXPECT_EQ(*r->List(""), Strings{});
}

TEST_F(ZipWriterTest, TheDestructorFinishesTheArchive) {
  {
    auto w = Writer();
    ASSERT_TRUE(w->Set("a/zarr.json", AsBytes("{}")).ok());
    ASSERT_TRUE(w->Set("a/c/0", AsBytes("chunk")).ok());
  }
  auto r = Reader();
  ASSERT_TRUE(r);
  EXPECT_EQ(*r->List(""), (Strings{"a/c/0", "a/zarr.json"}));
  EXPECT_EQ(GetString(*r, "a/c/0"), "chunk");
}

// One writer per archive: a second writer (here in this process; the lock is
// the kernel's, so another process is refused alike) fails before it changes
// a byte, and the first writer's archive comes out whole.
TEST_F(ZipWriterTest, ASecondWriterIsRefusedAndChangesNothing) {
  auto first = Writer();
  ASSERT_TRUE(first->Set("a/c/0", AsBytes("first")).ok());
  const auto size = fs::file_size(path_);
  auto second = Writer(/*force_zip64=*/false, /*truncate=*/true);
  ASSERT_TRUE(second);
  Status s = second->Set("a/c/1", AsBytes("second"));
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists) << s.ToString();
  EXPECT_NE(s.message().find("another writer"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find(path_), std::string::npos) << s.ToString();
  EXPECT_EQ(fs::file_size(path_), size) << "the second writer cut the archive";
  EXPECT_EQ(second->Flush().code(), StatusCode::kAlreadyExists);
  ASSERT_TRUE(first->Set("a/c/2", AsBytes("more")).ok());
  ASSERT_TRUE(first->Flush().ok());
  first.reset();
  second.reset();  // its destructor has nothing to finish
  auto r = Reader();
  ASSERT_TRUE(r);
  EXPECT_EQ(*r->List(""), (Strings{"a/c/0", "a/c/2"}));
  EXPECT_EQ(GetString(*r, "a/c/0"), "first");
  // Once the first writer is gone, a new one may replace the archive.
  auto third = Writer(/*force_zip64=*/false, /*truncate=*/true);
  ASSERT_TRUE(third->Set("x", AsBytes("3")).ok());
  ASSERT_TRUE(third->Flush().ok());
  third.reset();
  EXPECT_EQ(*Reader()->List(""), Strings{"x"});
}

TEST_F(ZipWriterTest, WritingGoesOnAfterAFlush) {
  auto w = Writer();
  ASSERT_TRUE(w->Set("a", AsBytes(std::string(1000, 'a'))).ok());
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(w->Set(Numbered("k", i), AsBytes(Numbered("v", i))).ok());
  }
  ASSERT_TRUE(w->Flush().ok());
  ASSERT_TRUE(w->Flush().ok()) << "a second flush with nothing new is a no-op";
  const uint64_t first_size = fs::file_size(path_);
  {
    auto r = Reader();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->List("")->size(), 21u);
  }
  ASSERT_TRUE(w->Set("b", AsBytes("after")).ok());
  EXPECT_EQ(GetString(*w, "b"), "after");
  ASSERT_TRUE(w->Flush().ok());
  auto r = Reader();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->List("")->size(), 22u);
  EXPECT_EQ(GetString(*r, "a"), std::string(1000, 'a'));
  EXPECT_EQ(GetString(*r, "b"), "after");
  EXPECT_EQ(GetString(*r, "k7"), "v7");
  // The second directory replaced the first: local header + "after" + one
  // more central header, nothing stale beyond.
  EXPECT_EQ(fs::file_size(path_), first_size + 30 + 1 + 5 + 46 + 1);
}

TEST_F(ZipWriterTest, SettingAKeyAgainKeepsTheLastValueAndOneDirectoryEntry) {
  auto w = Writer();
  ASSERT_TRUE(w->Set("k", AsBytes("first")).ok());
  ASSERT_TRUE(w->Set("k", AsBytes("second value")).ok());
  EXPECT_EQ(GetString(*w, "k"), "second value");
  ASSERT_TRUE(w->Flush().ok());
  auto r = Reader();
  ASSERT_TRUE(r);
  ASSERT_EQ(r->entries().size(), 1u);
  EXPECT_EQ(GetString(*r, "k"), "second value");
  // The first value's bytes are still in the file, unreferenced.
  EXPECT_NE(ReadFile(path_).find("first"), std::string::npos);
}

TEST_F(ZipWriterTest, ErasingAPresentKeyIsUnsupported) {
  auto w = Writer();
  ASSERT_TRUE(w->Set("c/0", AsBytes("x")).ok());
  Status s = w->Erase("c/0");
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("zip://" + path_ + ": cannot erase 'c/0'"),
            std::string::npos)
      << s.message();
  EXPECT_TRUE(w->Erase("c/1").ok());
  EXPECT_EQ(GetString(*w, "c/0"), "x");
}

TEST_F(ZipWriterTest, AnArchiveThatAppearsBeforeTheFirstWriteIsNotReplaced) {
  auto w = Writer();
  std::ofstream(path_) << "someone else's";
  Status s = w->Set("k", AsBytes("v"));
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists) << s.ToString();
  EXPECT_EQ(ReadFile(path_), "someone else's");
}

TEST_F(ZipWriterTest, TruncateReplacesAnExistingArchiveOnTheFirstWrite) {
  {
    auto w = Writer();
    ASSERT_TRUE(w->Set("old", AsBytes("1")).ok());
  }
  auto w = Writer(false, /*truncate=*/true);
  ASSERT_TRUE(w);
  EXPECT_EQ(GetString(*w, "old"), "<absent>");
  EXPECT_EQ(Reader()->List("")->size(), 1u)
      << "the old archive stays until the first write";
  ASSERT_TRUE(w->Set("new", AsBytes("2")).ok());
  ASSERT_TRUE(w->Flush().ok());
  EXPECT_EQ(*Reader()->List(""), Strings{"new"});
}

TEST_F(ZipWriterTest, MakesTheArchivesDirectory) {
  path_ = dir_ + "/deep/er/x.zip";
  auto w = Writer();
  ASSERT_TRUE(w->Set("k", AsBytes("v")).ok());
  ASSERT_TRUE(w->Flush().ok());
  EXPECT_EQ(GetString(*Reader(), "k"), "v");
}

// The records a forced-zip64 archive must hold, checked byte by byte.
TEST_F(ZipWriterTest, ForcedZip64WritesEveryZip64Record) {
  {
    auto w = Writer(/*force_zip64=*/true);
    ASSERT_TRUE(w->Set("c/0", AsBytes("0123456789")).ok());
    ASSERT_TRUE(w->Set("c/1", AsBytes("abc")).ok());
  }
  const std::string bytes = ReadFile(path_);
  auto u16 = [&](size_t at) {
    return static_cast<unsigned>(static_cast<unsigned char>(bytes[at])) |
           static_cast<unsigned>(static_cast<unsigned char>(bytes[at + 1])) << 8;
  };
  auto u32 = [&](size_t at) { return u16(at) | u16(at + 2) << 16; };
  // Local header: version 4.5, saturated sizes, a 20-byte zip64 field.
  EXPECT_EQ(u32(0), zip::kLocalHeaderSignature);
  EXPECT_EQ(u16(4), 45u);
  EXPECT_EQ(u32(18), 0xFFFFFFFFu);
  EXPECT_EQ(u32(22), 0xFFFFFFFFu);
  EXPECT_EQ(u16(28), 20u);
  EXPECT_EQ(u16(30 + 3), 1u) << "zip64 extra field id";
  // End: zip64 record, locator, end record with saturated fields.
  const size_t end = bytes.size() - zip::kEndSize;
  const size_t locator = end - zip::kZip64LocatorSize;
  const size_t record = locator - zip::kZip64EndSize;
  EXPECT_EQ(u32(end), zip::kEndSignature);
  EXPECT_EQ(u16(end + 10), 0xFFFFu);
  EXPECT_EQ(u32(end + 16), 0xFFFFFFFFu);
  EXPECT_EQ(u32(locator), zip::kZip64LocatorSignature);
  EXPECT_EQ(u32(locator + 8), record) << "the locator points at the record";
  EXPECT_EQ(u32(record), zip::kZip64EndSignature);
  EXPECT_EQ(u32(record + 32), 2u) << "entries";
  auto r = Reader();
  ASSERT_TRUE(r);
  EXPECT_EQ(GetString(*r, "c/0"), "0123456789");
  EXPECT_EQ(GetString(*r, "c/1"), "abc");
}

TEST_F(ZipWriterTest, MoreThan65535EntriesUseTheZip64EndRecords) {
  constexpr int kEntries = 65536 + 5;
  {
    auto w = Writer();
    for (int i = 0; i < kEntries; ++i) {
      std::string v = std::to_string(i);
      ASSERT_TRUE(w->Set("c/" + v, AsBytes(v)).ok());
    }
    ASSERT_TRUE(w->Flush().ok());
  }
  const std::string bytes = ReadFile(path_);
  const size_t end = bytes.size() - zip::kEndSize;
  EXPECT_EQ(bytes.substr(end - zip::kZip64LocatorSize, 4), "PK\x06\x07");
  auto r = Reader();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->entries().size(), static_cast<size_t>(kEntries));
  for (int i : {0, 65534, 65535, 65536, kEntries - 1}) {
    EXPECT_EQ(GetString(*r, "c/" + std::to_string(i)), std::to_string(i));
  }
}

TEST_F(ZipWriterTest, FlushesBetweenConcurrentSetsLoseNothing) {
  auto w = Writer();
  constexpr int kThreads = 4, kPerThread = 300;
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::thread flusher([&] {
    while (!done) {
      if (!w->Flush().ok()) ++failures;
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::string key = ThreadKey(t, i);
        if (!w->Set(key, AsBytes(key + std::string(i % 50, '.'))).ok()) ++failures;
      }
    });
  }
  for (std::thread& th : writers) th.join();
  done = true;
  flusher.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_TRUE(w->Flush().ok());
  auto r = Reader();
  ASSERT_TRUE(r);
  ASSERT_EQ(r->entries().size(), static_cast<size_t>(kThreads * kPerThread));
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; i += 37) {
      std::string key = ThreadKey(t, i);
      EXPECT_EQ(GetString(*r, key), key + std::string(i % 50, '.'));
    }
  }
}

}  // namespace
}  // namespace turbozarr
