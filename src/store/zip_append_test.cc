// Appending to an existing zip archive (ZipWriter::OpenForAppend, through
// OpenZipStore's `append`): archives written by ZipWriter and by other
// writers (deflated entries, data descriptors, names that are not keys, an
// archive comment, bytes in front, zip64 records) keep every byte they had
// and read the same; new entries and new values of old keys read back; an
// interrupted append leaves the old archive or one that recovery repairs to
// the old entries plus the whole new ones.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "store/zip_entry_reader.h"
#include "store/zip_store.h"
#include "store/zip_writer.h"
#include "testing/store_conformance.h"
#include "testing/zip_test_archive.h"
#include "turbozarr/open_store.h"
#include "turbozarr/store_check.h"

namespace turbozarr {
namespace {

namespace fs = std::filesystem;
using zip::kMethodDeflated;
using zip::kMethodStored;
using zip::testing::BuildArchive;
using zip::testing::TestArchiveOptions;
using zip::testing::TestEntry;
using zip::testing::WriteBytes;
using Strings = std::vector<std::string>;
using Contents = std::map<std::string, std::string>;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Pattern(size_t n, int seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) {
    s[i] = static_cast<char>((i * 131 + seed * 7 + (i >> 9)) & 0xFF);
  }
  return s;
}

std::string Text(size_t n, int seed) {
  std::string s;
  while (s.size() < n) s += "line " + std::to_string(seed) + ":" + std::to_string(s.size()) + ";";
  s.resize(n);
  return s;
}

Result<std::shared_ptr<Store>> Append(const std::string& path, bool force_zip64 = false) {
  ZipStoreOptions options;
  options.append = true;
  options.force_zip64 = force_zip64;
  return OpenZipStore(path, options);
}

// Every key of the archive at `path`, read afresh, and its value.
Contents ReadBack(const std::string& path) {
  Contents out;
  auto store = ZipStore::Open(path);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) return out;
  auto keys = (*store)->List("");
  EXPECT_TRUE(keys.ok()) << keys.status().ToString();
  if (!keys.ok()) return out;
  for (const std::string& k : *keys) {
    auto v = (*store)->Get(k);
    EXPECT_TRUE(v.ok() && v->has_value()) << k;
    if (v.ok() && v->has_value()) out[k] = std::string((*v)->chars());
  }
  return out;
}

// The names the archive's central directory lists, in its order (names that
// are not keys and repeated names included).
Strings DirectoryNames(const std::string& path) {
  Strings names;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0);
  auto d = zip::ReadDirectory(fd, fs::file_size(path), path);
  ::close(fd);
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  if (!d.ok()) return names;
  for (const zip::Entry& e : d->entries) names.push_back(e.name);
  return names;
}

std::string Get(Store& s, std::string_view key) {
  auto r = s.Get(key);
  if (!r.ok()) return "<error " + r.status().ToString() + ">";
  return r->has_value() ? std::string((*r)->chars()) : "<absent>";
}

class ZipAppendTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeScratchDir(); }
  void TearDown() override { RemoveScratchDir(dir_); }

  std::string Path(const std::string& name = "a.zip") const { return dir_ + "/" + name; }

  // An archive written by ZipWriter holding `values`.
  std::string Written(const Contents& values, bool force_zip64 = false) {
    const std::string path = Path();
    ZipWriter w(path, /*exclusive=*/true, force_zip64);
    for (const auto& [k, v] : values) EXPECT_TRUE(w.Set(k, AsBytes(v)).ok());
    EXPECT_TRUE(w.Flush().ok());
    return path;
  }

  std::string dir_;
};

TEST_F(ZipAppendTest, AppendsToAZipWriterArchiveKeepingEveryOldByte) {
  for (bool zip64 : {false, true}) {
    SCOPED_TRACE(zip64 ? "zip64" : "plain");
    fs::remove(Path());
    const Contents old = {{"zarr.json", "{}"}, {"a/c/0", Pattern(5000, 1)},
                          {"a/c/1", Pattern(10, 2)}};
    const std::string path = Written(old, zip64);
    const std::string before = ReadFile(path);
    {
      auto s = Append(path, zip64);
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      EXPECT_TRUE((*s)->Capabilities().writable);
      // The old entries read at once, the new ones as soon as written.
      EXPECT_EQ(Get(**s, "a/c/0"), Pattern(5000, 1));
      ASSERT_TRUE((*s)->Set("b/zarr.json", AsBytes("{\"b\":1}")).ok());
      ASSERT_TRUE((*s)->Set("b/c/0", AsBytes(Pattern(3000, 3))).ok());
      ASSERT_TRUE((*s)->Set("a/c/1", AsBytes("new")).ok());  // an old key again
      EXPECT_EQ(Get(**s, "a/c/1"), "new");
      EXPECT_EQ(*(*s)->Size("a/c/1"), std::optional<uint64_t>(3));
      EXPECT_EQ(*(*s)->List("b"), (Strings{"b/c/0", "b/zarr.json"}));
      ASSERT_TRUE((*s)->Flush().ok());
    }
    const std::string after = ReadFile(path);
    ASSERT_GT(after.size(), before.size());
    EXPECT_EQ(after.substr(0, before.size()), before) << "an old byte changed";
    Contents want = old;
    want["a/c/1"] = "new";
    want["b/zarr.json"] = "{\"b\":1}";
    want["b/c/0"] = Pattern(3000, 3);
    EXPECT_EQ(ReadBack(path), want);
    // The old header of the key set again is gone: one name, one header.
    // The old headers in their order, then the new in the order written.
    EXPECT_EQ(DirectoryNames(path),
              (Strings{"a/c/0", "zarr.json", "b/zarr.json", "b/c/0", "a/c/1"}));
  }
}

TEST_F(ZipAppendTest, AnotherWritersArchiveKeepsItsEntriesHeadersAndComment) {
  // What Python's zipfile and other tools write: deflated entries, data
  // descriptors, a directory entry, a name twice, a comment, a stub in front.
  const std::vector<TestEntry> entries = {
      {"zarr.json", R"({"zarr_format":3,"node_type":"group"})"},
      {"x/", ""},
      {"x/zarr.json", Text(300, 1), kMethodDeflated},
      {"x/c/0", Text(100000, 2), kMethodDeflated},
      {"x/c/1", Pattern(700, 3), kMethodStored, 8},
      {"x/c/2", Text(5000, 4), kMethodDeflated, 8},
      {"dup", "first"},
      {"dup", "second"},
  };
  TestArchiveOptions options;
  options.comment = "an archive comment";
  options.prefix = "#!/bin/sh\nexit 0\n";
  const std::string path = Path();
  const std::string before = BuildArchive(entries, options);
  WriteBytes(path, before);
  const Strings old_names = DirectoryNames(path);
  std::string old_directory;
  {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    auto d = zip::ReadDirectory(fd, before.size(), path);
    ::close(fd);
    ASSERT_TRUE(d.ok());
    old_directory = std::string(d->bytes.chars());
  }
  {
    auto s = Append(path);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(Get(**s, "x/c/0"), Text(100000, 2));
    EXPECT_EQ(Get(**s, "x/c/2"), Text(5000, 4));
    EXPECT_EQ(Get(**s, "dup"), "second");  // the later entry, as on read
    ASSERT_TRUE((*s)->Set("y/zarr.json", AsBytes("{}")).ok());
    ASSERT_TRUE((*s)->Set("y/c/0", AsBytes(Pattern(100, 9))).ok());
  }  // the destructor writes the directory
  const std::string after = ReadFile(path);
  EXPECT_EQ(after.substr(0, before.size()), before);
  EXPECT_TRUE(after.ends_with("an archive comment"));
  Strings want_names = old_names;
  want_names.push_back("y/zarr.json");
  want_names.push_back("y/c/0");
  EXPECT_EQ(DirectoryNames(path), want_names);  // "x/" and both "dup"s kept
  const Contents got = ReadBack(path);
  EXPECT_EQ(got.at("x/c/0"), Text(100000, 2));
  EXPECT_EQ(got.at("x/c/1"), Pattern(700, 3));
  EXPECT_EQ(got.at("x/c/2"), Text(5000, 4));
  EXPECT_EQ(got.at("dup"), "second");
  EXPECT_EQ(got.at("y/c/0"), Pattern(100, 9));
  EXPECT_EQ(got.size(), 8u);
  // The old headers are copied, not rewritten: the old directory's bytes
  // appear again in the new one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  auto d = zip::ReadDirectory(fd, after.size(), path);
  ::close(fd);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->bytes.chars().starts_with(old_directory));
  EXPECT_EQ(d->location.base, options.prefix.size());
  EXPECT_EQ(d->location.comment, "an archive comment");
}

TEST_F(ZipAppendTest, SettingADuplicatedNameReplacesBothHeaders) {
  const std::string path = Path();
  WriteBytes(path, BuildArchive({{"dup", "first"}, {"k", "v"}, {"dup", "second"}}));
  {
    auto s = Append(path);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE((*s)->Set("dup", AsBytes("third")).ok());
  }
  EXPECT_EQ(DirectoryNames(path), (Strings{"k", "dup"}));
  EXPECT_EQ(ReadBack(path), (Contents{{"dup", "third"}, {"k", "v"}}));
}

TEST_F(ZipAppendTest, EraseDropsOldAndNewKeysFromTheDirectory) {
  const std::string path = Written({{"old/a", "1"}, {"old/b", "2"}, {"keep", "3"}});
  {
    auto s = Append(path);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE((*s)->Set("new/a", AsBytes("4")).ok());
    ASSERT_TRUE((*s)->Set("new/b", AsBytes("5")).ok());
    ASSERT_TRUE((*s)->Erase("old/a").ok());
    ASSERT_TRUE((*s)->Erase("new/a").ok());
    ASSERT_TRUE((*s)->Erase("never").ok());
    ASSERT_TRUE((*s)->ErasePrefix("old").ok());
    EXPECT_EQ(Get(**s, "old/b"), "<absent>");
    EXPECT_EQ(*(*s)->List(""), (Strings{"keep", "new/b"}));
    ASSERT_TRUE((*s)->Flush().ok());
  }
  EXPECT_EQ(ReadBack(path), (Contents{{"keep", "3"}, {"new/b", "5"}}));
  EXPECT_EQ(DirectoryNames(path), (Strings{"keep", "new/b"}));
}

TEST_F(ZipAppendTest, NothingIsWrittenOrLockedUntilTheFirstWrite) {
  const std::string path = Written({{"k", "v"}});
  const std::string before = ReadFile(path);
  {
    auto reader = Append(path);
    ASSERT_TRUE(reader.ok());
    EXPECT_EQ(Get(**reader, "k"), "v");
    ASSERT_TRUE((*reader)->Flush().ok());
    // A second appender may open it meanwhile: neither holds the lock.
    auto other = Append(path);
    ASSERT_TRUE(other.ok());
    EXPECT_EQ(Get(**other, "k"), "v");
  }
  EXPECT_EQ(ReadFile(path), before);
  auto check = CheckZipArchive(path, false);
  ASSERT_TRUE(check.ok());
  EXPECT_TRUE(check->complete);
}

TEST_F(ZipAppendTest, OneWriterAtATimeAndNoneOverAnotherOnesChanges) {
  const std::string path = Written({{"k", "v"}});
  auto first = Append(path);
  auto second = Append(path);
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_TRUE((*first)->Set("a", AsBytes("1")).ok());
  // The first holds the lock.
  Status s = (*second)->Set("b", AsBytes("2"));
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists) << s.ToString();
  EXPECT_NE(s.message().find("zip://" + path + ": another writer"), std::string::npos)
      << s.message();
  ASSERT_TRUE((*first)->Flush().ok());
  first->reset();
  // The lock is free now, but the archive is not the one the second read.
  const std::string committed = ReadFile(path);
  s = (*second)->Set("b", AsBytes("2"));
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists) << s.ToString();
  EXPECT_NE(s.message().find("changed after it was opened for appending"),
            std::string::npos)
      << s.message();
  EXPECT_EQ((*second)->Erase("k").code(), StatusCode::kAlreadyExists);
  second->reset();
  EXPECT_EQ(ReadFile(path), committed);
  EXPECT_EQ(ReadBack(path), (Contents{{"a", "1"}, {"k", "v"}}));
  // A writer of a new archive in its place is kept out while one appends.
  auto third = Append(path);
  ASSERT_TRUE(third.ok());
  ASSERT_TRUE((*third)->Set("c", AsBytes("3")).ok());
  ZipStoreOptions truncate;
  truncate.truncate = true;
  auto replacing = OpenZipStore(path, truncate);
  ASSERT_TRUE(replacing.ok());
  EXPECT_EQ((*replacing)->Set("z", AsBytes("z")).code(), StatusCode::kAlreadyExists);
  replacing->reset();
  third->reset();
  EXPECT_EQ(ReadBack(path), (Contents{{"a", "1"}, {"c", "3"}, {"k", "v"}}));
}

TEST_F(ZipAppendTest, AppendedArchivesGrowPastTheZip64Limits) {
  // 65535 entries (the 16-bit count's marker) need the zip64 end records.
  Contents old;
  for (int i = 0; i < 65530; ++i) old["c/" + std::to_string(i)] = std::to_string(i % 7);
  const std::string path = Written(old);
  {
    auto s = Append(path);
    ASSERT_TRUE(s.ok());
    for (int i = 65530; i < 65540; ++i) {
      ASSERT_TRUE((*s)->Set("c/" + std::to_string(i), AsBytes(std::to_string(i))).ok());
    }
  }
  auto store = ZipStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->List("")->size(), 65540u);
  EXPECT_EQ(Get(**store, "c/65539"), "65539");
  EXPECT_EQ(Get(**store, "c/12"), "5");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  auto d = zip::ReadDirectory(fd, fs::file_size(path), path);
  ::close(fd);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->location.zip64);
  EXPECT_EQ(d->entries.size(), 65540u);
}

TEST_F(ZipAppendTest, AZip64ArchiveIsAppendedTo) {
  TestArchiveOptions zip64;
  zip64.force_zip64 = true;
  const std::string path = Path();
  WriteBytes(path, BuildArchive({{"a", Text(2000, 1), kMethodDeflated}, {"b", "bb"}}, zip64));
  {
    auto s = Append(path);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    ASSERT_TRUE((*s)->Set("c", AsBytes("ccc")).ok());
  }
  EXPECT_EQ(ReadBack(path), (Contents{{"a", Text(2000, 1)}, {"b", "bb"}, {"c", "ccc"}}));
}

TEST_F(ZipAppendTest, BadArchivesAndOptionsAreRefusedNamingTheArchive) {
  const std::string path = Path("bad.zip");
  WriteBytes(path, "PK\x03\x04 but nothing else of an archive");
  const std::string before = ReadFile(path);
  auto s = Append(path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kCorruption);
  EXPECT_NE(s.status().message().find(path), std::string::npos) << s.status().ToString();
  EXPECT_EQ(ReadFile(path), before);

  ZipStoreOptions both;
  both.append = true;
  both.read_only = true;
  auto r = OpenZipStore(path, both);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("append cannot be combined with read_only"),
            std::string::npos);
  both.read_only = false;
  both.truncate = true;
  EXPECT_EQ(OpenZipStore(path, both).status().code(), StatusCode::kInvalidArgument);

  // An absent archive opened for appending is a new one.
  auto fresh = Append(Path("new.zip"));
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE(fs::exists(Path("new.zip")));
  ASSERT_TRUE((*fresh)->Set("k", AsBytes("v")).ok());
  ASSERT_TRUE((*fresh)->Flush().ok());
  fresh->reset();  // its lock goes with it
  EXPECT_EQ(ReadBack(Path("new.zip")), (Contents{{"k", "v"}}));

  // Through OpenStore: StoreOptions::append.
  StoreOptions url_options;
  url_options.append = true;
  auto via_url = OpenStore("zip://" + Path("new.zip"), url_options);
  ASSERT_TRUE(via_url.ok());
  ASSERT_TRUE((*via_url)->Set("k2", AsBytes("v2")).ok());
  ASSERT_TRUE((*via_url)->Flush().ok());
  EXPECT_EQ(ReadBack(Path("new.zip")), (Contents{{"k", "v"}, {"k2", "v2"}}));
}

TEST_F(ZipAppendTest, AFileThatCannotBeWrittenStillReads) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may write any file";
  const std::string path = Written({{"k", "v"}});
  ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
  auto s = Append(path);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(Get(**s, "k"), "v");
  Status set = (*s)->Set("k2", AsBytes("v2"));
  EXPECT_EQ(set.code(), StatusCode::kIOError);
  EXPECT_NE(set.message().find("zip://" + path + ": cannot append"), std::string::npos)
      << set.message();
}

// The bytes an appender has written so far while it still holds the
// archive: what a kill at that moment leaves.
std::string CaughtMidAppend(const std::string& path, const Contents& values,
                            bool flush_after_first = false) {
  auto s = Append(path);
  EXPECT_TRUE(s.ok());
  bool first = true;
  for (const auto& [k, v] : values) {
    EXPECT_TRUE((*s)->Set(k, AsBytes(v)).ok());
    if (first && flush_after_first) {
      EXPECT_TRUE((*s)->Flush().ok());
    }
    first = false;
  }
  std::string bytes = ReadFile(path);
  // The destructor would finish the append; the copy is what a kill leaves.
  return bytes;
}

// The old archive for the interrupted-append tests: entries recovery from
// local headers alone could not take back (deflated, a data descriptor).
std::string OldArchive() {
  return BuildArchive({{"zarr.json", "{}"},
                       {"a/c/0", Text(20000, 1), kMethodDeflated},
                       {"a/c/1", Text(3000, 2), kMethodDeflated, 8},
                       {"a/c/2", "stored"}});
}

const Contents& OldContents() {
  static const Contents c = {{"zarr.json", "{}"},
                             {"a/c/0", Text(20000, 1)},
                             {"a/c/1", Text(3000, 2)},
                             {"a/c/2", "stored"}};
  return c;
}

TEST_F(ZipAppendTest, ASmallInterruptedAppendStillOpensAsTheOldArchive) {
  const std::string live = Path("live.zip");
  WriteBytes(live, OldArchive());
  std::string bytes = CaughtMidAppend(live, {{"b/c/0", Pattern(2000, 4)}});
  const std::string killed = Path("killed.zip");
  WriteBytes(killed, bytes);
  // Fewer than 64 KiB after the old end record: readers still find it.
  EXPECT_EQ(ReadBack(killed), OldContents());
}

TEST_F(ZipAppendTest, AnInterruptedAppendIsRepairedToTheOldEntriesAndTheWholeNewOnes) {
  for (bool flushed : {false, true}) {
    SCOPED_TRACE(flushed ? "flushed after its first entry" : "never flushed");
    const std::string live = Path("live.zip");
    fs::remove(live);
    WriteBytes(live, OldArchive());
    // More than 64 KiB appended, the last entry cut short by the kill; with
    // `flushed`, a directory written after the first entry and then written
    // over by the next.
    std::string bytes = CaughtMidAppend(live, {{"b/c/0", Pattern(50000, 4)},
                                               {"a/c/2", "replaced"},
                                               {"b/c/1", Pattern(40000, 5)},
                                               {"b/c/2", Pattern(30000, 6)}},
                                        flushed);
    bytes.resize(bytes.size() - 100);
    const std::string killed = Path("killed.zip");
    WriteBytes(killed, bytes);
    EXPECT_FALSE(ZipStore::Open(killed).ok());

    auto check = CheckZipArchive(killed, false);
    ASSERT_TRUE(check.ok()) << check.status().ToString();
    EXPECT_FALSE(check->complete);
    EXPECT_EQ(check->earlier_entries, 4u);
    EXPECT_EQ(check->earlier_size, OldArchive().size());
    EXPECT_EQ(check->entries, 6u);  // 4 old (one replaced), b/c/0, b/c/1
    EXPECT_EQ(check->damaged_entries, 1u);
    EXPECT_EQ(check->unchecked_entries, 0u) << "the old deflated entries are kept as listed";
    EXPECT_EQ(ReadFile(killed), bytes);

    auto repaired = CheckZipArchive(killed, true);
    ASSERT_TRUE(repaired.ok()) << repaired.status().ToString();
    EXPECT_TRUE(repaired->repaired);
    Contents want = OldContents();
    want["a/c/2"] = "replaced";
    want["b/c/0"] = Pattern(50000, 4);
    want["b/c/1"] = Pattern(40000, 5);
    EXPECT_EQ(ReadBack(killed), want);
    EXPECT_EQ(ReadFile(killed).substr(0, bytes.size()), bytes) << "a repair only appends";
    // Once repaired it is an archive like any other, appended to again.
    auto more = Append(killed);
    ASSERT_TRUE(more.ok());
    ASSERT_TRUE((*more)->Set("b/c/2", AsBytes("again")).ok());
    more->reset();
    want["b/c/2"] = "again";
    EXPECT_EQ(ReadBack(killed), want);
  }
}

TEST_F(ZipAppendTest, AZipArchiveStoredAsAValueIsNotTakenForTheOldDirectory) {
  const std::string live = Path("live.zip");
  WriteBytes(live, OldArchive());
  // A whole archive as a value, then enough to push the end record out of
  // readers' reach; the kill cuts the last entry.
  const std::string nested = BuildArchive({{"inner", "not the archive's"}});
  std::string bytes = CaughtMidAppend(
      live, {{"b/nested.zip", nested}, {"b/z", Pattern(80000, 7)}});
  bytes.resize(bytes.size() - 10);
  const std::string killed = Path("killed.zip");
  WriteBytes(killed, bytes);
  auto repaired = CheckZipArchive(killed, true);
  ASSERT_TRUE(repaired.ok()) << repaired.status().ToString();
  EXPECT_EQ(repaired->earlier_size, OldArchive().size());
  Contents want = OldContents();
  want["b/nested.zip"] = nested;
  EXPECT_EQ(ReadBack(killed), want);
}

// An appending process killed with SIGKILL at a random moment: the
// repaired archive holds every old entry as it was, and for every new key a
// value the writer wrote.
TEST(ZipAppendKillTest, KilledAppendersArchivesKeepTheOldEntries) {
  const std::string dir = MakeScratchDir();
  std::mt19937 rng(11);
  for (int kill = 0; kill < 4; ++kill) {
    const std::string path = dir + "/k" + std::to_string(kill) + ".zip";
    WriteBytes(path, OldArchive());
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      auto s = Append(path);
      if (!s.ok()) ::_exit(2);
      for (int round = 0;; ++round) {
        for (int k = 0; k < 10; ++k) {
          if (!(*s)->Set("n/" + std::to_string(k), AsBytes(Pattern(20'000, round))).ok()) {
            ::_exit(3);
          }
        }
        if (round % 3 == 2 && !(*s)->Flush().ok()) ::_exit(4);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20 + rng() % 80));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the appender ended on its own: " << status;
    auto repaired = CheckZipArchive(path, true);
    ASSERT_TRUE(repaired.ok()) << repaired.status().ToString();
    const Contents got = ReadBack(path);
    for (const auto& [k, v] : OldContents()) EXPECT_EQ(got.at(k), v) << k;
    for (const auto& [key, value] : got) {
      if (!key.starts_with("n/")) continue;
      bool written = false;
      for (int round = 0; round < 256 && !written; ++round) {
        written = value == Pattern(20'000, round);
      }
      EXPECT_TRUE(written) << key << " holds a value its writer never wrote";
    }
  }
  RemoveScratchDir(dir);
}

}  // namespace
}  // namespace turbozarr
