#include "store/local_store.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "testing/open_descriptors.h"
#include "testing/page_cache.h"
#include "testing/store_conformance.h"

namespace turbozarr {
namespace {

namespace fs = std::filesystem;

INSTANTIATE_TEST_SUITE_P(Local, StoreConformanceTest,
                         ::testing::Values(StoreFactory{"local",
                                                        [](const std::string& dir) {
                                                          return MakeLocalStore(dir + "/store");
                                                        }},
                                           StoreFactory{"durable_local",
                                                        [](const std::string& dir) {
                                                          return MakeLocalStore(
                                                              dir + "/store",
                                                              {.durable = true});
                                                        }}),
                         StoreFactoryName);

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const fs::path& p, const std::string& data) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << data;
}

// Every file name below `dir`, relative to it, sorted.
std::vector<std::string> FilesBelow(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_directory()) out.push_back(fs::relative(e.path(), dir).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

class LocalStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = MakeScratchDir();
    root_ = scratch_ + "/root";
    auto made = MakeLocalStore(root_);
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    store_ = *made;
  }
  void TearDown() override { RemoveScratchDir(scratch_); }

  std::string Get(std::string_view key) {
    auto r = store_->Get(key);
    if (!r.ok()) return "<error " + r.status().ToString() + ">";
    return r->has_value() ? std::string((*r)->chars()) : "<absent>";
  }

  std::string scratch_;
  std::string root_;
  std::shared_ptr<Store> store_;
};

using Strings = std::vector<std::string>;

// A child process that takes `key`'s update through a store rooted at
// `root` and holds it until killed; answers its pid once it holds it.
pid_t HoldUpdateInChild(const std::string& root, const std::string& key) {
  int ready[2];
  if (::pipe(ready) != 0) return -1;
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(ready[0]);
    ::alarm(60);
    auto store = MakeLocalStore(root);
    auto update = store.ok() ? (*store)->BeginUpdate(key)
                             : Result<std::unique_ptr<KeyUpdate>>(store.status());
    const char c = update.ok() ? 'y' : 'n';
    if (::write(ready[1], &c, 1) != 1) ::_exit(2);
    ::pause();
    ::_exit(0);
  }
  ::close(ready[1]);
  char c = 0;
  const bool held = ::read(ready[0], &c, 1) == 1 && c == 'y';
  ::close(ready[0]);
  return held ? pid : -1;
}

// An update of a key excludes updates of the same file from other
// processes, whatever directory they opened as their root, until its holder
// ends: here it is killed with SIGKILL, and the kernel lets the lock go.
TEST_F(LocalStoreTest, AnUpdateExcludesOtherProcessesUntilItsHolderDies) {
  ASSERT_TRUE(store_->Set("arr/c/0", AsBytes("old")).ok());
  const pid_t child = HoldUpdateInChild(root_ + "/arr", "c/0");
  ASSERT_GT(child, 0) << "the child could not take the update";
  auto begun = std::chrono::steady_clock::now();
  std::thread killer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(child, SIGKILL);
  });
  auto update = store_->BeginUpdate("arr/c/0");  // waits for the child
  const auto waited = std::chrono::steady_clock::now() - begun;
  killer.join();
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(update.ok()) << update.status().ToString();
  EXPECT_GE(waited, std::chrono::milliseconds(250)) << "the update did not wait";
  EXPECT_TRUE((*update)->HoldsLock());
  auto old = (*update)->Read();
  ASSERT_TRUE(old.ok() && old->has_value());
  EXPECT_EQ(std::string((*old)->chars()), "old");
  auto committed = (*update)->Commit(AsBytes("new"));
  ASSERT_TRUE(committed.ok() && *committed);
  EXPECT_EQ(Get("arr/c/0"), "new");
  // Other keys were never held.
  auto other = store_->BeginUpdate("arr/c/1");
  EXPECT_TRUE(other.ok());
}

// Threads of one process take turns too, and a writer holding several keys
// takes them all in one call (so that two such writers cannot deadlock).
TEST_F(LocalStoreTest, UpdatesOfOneKeyTakeTurnsAcrossThreads) {
  constexpr int kThreads = 4;
  constexpr int kIncrements = 50;
  ASSERT_TRUE(store_->Set("n", AsBytes("0")).ok());
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // A store object of its own per thread: the lock is the file's.
      auto store = *MakeLocalStore(root_);
      for (int i = 0; i < kIncrements; ++i) {
        const std::vector<std::string> keys = {"n", "m" + std::to_string(t)};
        auto updates = store->BeginUpdates(keys);
        if (!updates.ok()) {
          ++failures;
          continue;
        }
        auto v = (*updates)[0]->Read();
        const int n = v.ok() && v->has_value() ? std::stoi(std::string((*v)->chars())) : -1000;
        std::this_thread::yield();
        auto c = (*updates)[0]->Commit(AsBytes(std::to_string(n + 1)));
        if (!c.ok() || !*c) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(Get("n"), std::to_string(kThreads * kIncrements));
}

// A lock directory that cannot be used is an error that names it and the
// setting that moves it; nothing is written. The setting is read when a lock
// is taken, also after the key's lock file in the default directory is open.
TEST_F(LocalStoreTest, AnUnusableLockDirectoryIsAClearError) {
  ASSERT_TRUE(store_->BeginUpdate("k").ok());  // opens its default lock file
  WriteFile(scratch_ + "/not-a-directory", "x");
  const std::string locks = scratch_ + "/not-a-directory/locks";
  ASSERT_EQ(::setenv("TURBOZARR_LOCK_DIR", locks.c_str(), 1), 0);
  auto update = store_->BeginUpdate("k");
  ::unsetenv("TURBOZARR_LOCK_DIR");
  ASSERT_FALSE(update.ok());
  EXPECT_NE(update.status().message().find(locks), std::string::npos)
      << update.status().ToString();
  EXPECT_NE(update.status().message().find("TURBOZARR_LOCK_DIR"), std::string::npos)
      << update.status().ToString();
  EXPECT_EQ(Get("k"), "<absent>");
  // With the setting gone, the default directory serves.
  EXPECT_TRUE(store_->BeginUpdate("k").ok());
}

// The pid of a process that has ended.
pid_t EndedPid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

std::string TempNameOf(pid_t pid) {
  char buf[64];
  std::snprintf(buf, sizeof buf, ".tmp-%x-0-1234", static_cast<unsigned>(pid));
  return buf;
}

// A write killed mid-way leaves its temporary file. The first write into
// that directory through a store removes it once its writer has ended and
// it is a minute old; a running writer's, or a fresh one, stays. So does
// anything not named as this library names temporary files.
TEST_F(LocalStoreTest, TheNextWriterRemovesTheTemporaryFilesOfEndedWrites) {
  const std::string dir = root_ + "/a";
  const std::string ended_old = TempNameOf(EndedPid());
  const std::string ended_fresh = TempNameOf(EndedPid()) + "-fresh";
  const std::string running = TempNameOf(::getpid());
  for (const std::string& name : {ended_old, running, std::string(".tmp-not-ours")}) {
    WriteFile(dir + "/" + name, "partial");
    // A minute and more ago.
    const struct timespec old[2] = {{::time(nullptr) - 120, 0}, {::time(nullptr) - 120, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, (dir + "/" + name).c_str(), old, 0), 0);
  }
  WriteFile(dir + "/" + ended_fresh, "partial");  // changed now
  EXPECT_EQ(*store_->List(""), Strings{}) << "temporary files are not keys";
  ASSERT_TRUE(store_->Set("a/k", AsBytes("v")).ok());
  Strings kept = {".tmp-not-ours", ended_fresh, running, "k"};
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(FilesBelow(dir), kept);
}

TEST_F(LocalStoreTest, KeysAreFilesUnderTheRoot) {
  EXPECT_FALSE(fs::exists(root_)) << "the root is made on first write";
  EXPECT_EQ(Get("c/0/1"), "<absent>");
  ASSERT_TRUE(store_->Set("c/0/1", AsBytes("chunk")).ok());
  EXPECT_EQ(ReadFile(root_ + "/c/0/1"), "chunk");
  // Files written by other tools are values too.
  WriteFile(root_ + "/zarr.json", "{}");
  EXPECT_EQ(Get("zarr.json"), "{}");
  EXPECT_EQ(store_->Describe(), "file://" + root_);
}

TEST_F(LocalStoreTest, EraseRemovesEmptyDirectoriesButKeepsTheRoot) {
  ASSERT_TRUE(store_->Set("a/b/c", AsBytes("1")).ok());
  ASSERT_TRUE(store_->Set("a/x", AsBytes("2")).ok());
  ASSERT_TRUE(store_->Erase("a/b/c").ok());
  EXPECT_FALSE(fs::exists(root_ + "/a/b"));
  EXPECT_TRUE(fs::exists(root_ + "/a/x"));
  ASSERT_TRUE(store_->Erase("a/x").ok());
  EXPECT_FALSE(fs::exists(root_ + "/a"));
  EXPECT_TRUE(fs::is_directory(root_));
  ASSERT_TRUE(store_->Set("q/r", AsBytes("1")).ok());
  ASSERT_TRUE(store_->ErasePrefix("q/r").ok());
  EXPECT_FALSE(fs::exists(root_ + "/q"));
  ASSERT_TRUE(store_->Set("s", AsBytes("1")).ok());
  ASSERT_TRUE(store_->ErasePrefix("").ok());
  EXPECT_TRUE(fs::is_directory(root_));
  EXPECT_TRUE(fs::is_empty(root_));
}

TEST_F(LocalStoreTest, SymlinkOutOfTheRootIsRefused) {
  fs::path outside = scratch_ + "/outside";
  WriteFile(outside / "secret", "s3cr3t");
  fs::create_directories(root_);
  fs::create_directory_symlink(outside, root_ + "/link");
  fs::create_symlink(outside / "secret", root_ + "/file_link");

  auto expect_refused = [&](const Status& s, const std::string& key) {
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << key << ": " << s.ToString();
    EXPECT_NE(s.message().find("'" + key + "'"), std::string::npos) << s.message();
  };
  expect_refused(store_->Get("link/secret").status(), "link/secret");
  expect_refused(store_->Get("file_link").status(), "file_link");
  expect_refused(store_->Size("link/secret").status(), "link/secret");
  expect_refused(store_->Set("link/new", AsBytes("x")), "link/new");
  expect_refused(store_->Set("link/deeper/new", AsBytes("x")), "link/deeper/new");
  expect_refused(store_->Erase("link/secret"), "link/secret");
  expect_refused(store_->List("link").status(), "link");
  expect_refused(store_->ListDirectory("link").status(), "link");
  expect_refused(store_->ErasePrefix("link/secret"), "link/secret");
  EXPECT_EQ(FilesBelow(outside), Strings{"secret"});
  EXPECT_EQ(ReadFile(outside / "secret"), "s3cr3t");

  // Erasing the link itself removes the link, not its target.
  ASSERT_TRUE(store_->ErasePrefix("link").ok());
  EXPECT_FALSE(fs::exists(fs::symlink_status(root_ + "/link")));
  EXPECT_EQ(ReadFile(outside / "secret"), "s3cr3t");
}

// Absent keys answer absent, whichever way they are absent (reads take a
// fast path for them): no file, a file where a directory would be, a link
// to nothing; one through a link that leaves the root is refused as before.
TEST_F(LocalStoreTest, AbsentKeysOfEveryKindReadAsAbsent) {
  ASSERT_TRUE(store_->Set("file", AsBytes("1")).ok());
  fs::create_symlink(root_ + "/nowhere", root_ + "/dangling");
  for (const char* key : {"nothing", "deep/er/nothing", "file/below", "dangling"}) {
    auto got = store_->Get(key);
    ASSERT_TRUE(got.ok()) << key << ": " << got.status().ToString();
    EXPECT_FALSE(got->has_value()) << key;
  }
  fs::path outside = scratch_ + "/outside";
  WriteFile(outside / "secret", "s3cr3t");
  fs::create_directory_symlink(outside, root_ + "/link");
  EXPECT_EQ(store_->Get("link/secret").status().code(), StatusCode::kInvalidArgument);
}

TEST_F(LocalStoreTest, SymlinkInsideTheRootIsFollowed) {
  ASSERT_TRUE(store_->Set("real/x", AsBytes("inside")).ok());
  fs::create_directory_symlink(root_ + "/real", root_ + "/alias");
  EXPECT_EQ(Get("alias/x"), "inside");
  ASSERT_TRUE(store_->Set("alias/y", AsBytes("via alias")).ok());
  EXPECT_EQ(Get("real/y"), "via alias");
}

TEST_F(LocalStoreTest, RootReachedThroughASymlinkWorks) {
  fs::create_directories(scratch_ + "/target");
  fs::create_directory_symlink(scratch_ + "/target", scratch_ + "/via");
  auto store = MakeLocalStore(scratch_ + "/via");
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->Set("k", AsBytes("v")).ok());
  EXPECT_EQ(ReadFile(scratch_ + "/target/k"), "v");
  auto got = (*store)->Get("k");
  ASSERT_TRUE(got.ok() && got->has_value());
}

TEST_F(LocalStoreTest, TemporaryFilesAreNeverListed) {
  ASSERT_TRUE(store_->Set("a/b", AsBytes("v")).ok());
  WriteFile(root_ + "/a/.tmp-123-abc", "partial");
  WriteFile(root_ + "/only_temp/.tmp-9", "partial");
  EXPECT_EQ(*store_->List(""), Strings{"a/b"});
  EXPECT_EQ(*store_->List("a"), Strings{"a/b"});
  auto dir = store_->ListDirectory("");
  ASSERT_TRUE(dir.ok());
  EXPECT_EQ(dir->prefixes, Strings{"a"}) << "a directory of temporary files holds no key";
  auto a = store_->ListDirectory("a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->keys, Strings{"b"});
  // Keys that would look like temporary files are refused rather than hidden.
  EXPECT_EQ(store_->Set("a/.tmp-x", AsBytes("v")).code(), StatusCode::kInvalidArgument);
  // Successful writes leave no temporary file behind.
  EXPECT_EQ(FilesBelow(root_ + "/a"), (Strings{".tmp-123-abc", "b"}));
}

TEST_F(LocalStoreTest, FailedWriteLeavesOldValueAndNoPartialFile) {
  ASSERT_TRUE(store_->Set("k", AsBytes("old")).ok());
  // Limit the size of files this process may write, so the write fails with
  // EFBIG part way through; ignore the signal that would otherwise kill us.
  struct rlimit saved;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  Status s = store_->Set("k", AsBytes(std::string(100'000, 'n')));
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);

  EXPECT_EQ(s.code(), StatusCode::kIOError) << s.ToString();
  EXPECT_NE(s.message().find("key 'k'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("File too large"), std::string::npos) << s.message();
  EXPECT_EQ(Get("k"), "old");
  EXPECT_EQ(FilesBelow(root_), Strings{"k"});
}

TEST_F(LocalStoreTest, FailedRenameLeavesNoTemporaryFile) {
  ASSERT_TRUE(store_->Set("d/x", AsBytes("1")).ok());
  // "d" is a directory, so the value cannot be renamed over it.
  Status s = store_->Set("d", AsBytes("v"));
  EXPECT_EQ(s.code(), StatusCode::kIOError) << s.ToString();
  EXPECT_NE(s.message().find("key 'd'"), std::string::npos) << s.message();
  EXPECT_EQ(FilesBelow(root_), Strings{"d/x"});
  // And a key below a value cannot be written either.
  s = store_->Set("d/x/y", AsBytes("v"));
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(FilesBelow(root_), Strings{"d/x"});
}

TEST_F(LocalStoreTest, ErrorsNameTheKeyAndTheOsError) {
  // No file system takes a 300-byte name.
  ASSERT_TRUE(store_->Set("dir/x", AsBytes("v")).ok());
  std::string key = "dir/" + std::string(300, 'n');
  auto r = store_->Get(key);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIOError);
  EXPECT_NE(r.status().message().find("key '" + key + "'"), std::string::npos);
  EXPECT_NE(r.status().message().find("File name too long"), std::string::npos)
      << r.status().message();
  Status s = store_->Set(key, AsBytes("v"));
  EXPECT_EQ(s.code(), StatusCode::kIOError);
  EXPECT_NE(s.message().find("File name too long"), std::string::npos) << s.message();
  EXPECT_EQ(FilesBelow(root_), Strings{"dir/x"});
}

// Open file descriptors of this process.

// A value that differs in every byte position that matters.
std::string Bytes(size_t n, int seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + seed) >> 3);
  return s;
}

// Values of 4 MiB, written and then dropped from the page cache, so that
// reads must come from the disk. Skips the test where the file system keeps
// files in memory.
class LocalStoreColdTest : public LocalStoreTest {
 protected:
  void SetUp() override {
    LocalStoreTest::SetUp();
    for (int i = 0; i < 4; ++i) {
      values_.push_back(Bytes(4 << 20, i));
      ASSERT_TRUE(store_->Set(Key(i), AsBytes(values_[i])).ok());
    }
    for (int i = 0; i < 4; ++i) {
      if (!EvictFromPageCache(root_ + "/" + Key(i))) {
        GTEST_SKIP() << "the page cache of " << root_ << " cannot be dropped";
      }
    }
  }
  static std::string Key(int i) { return "c/" + std::to_string(i); }

  // Reads value i from the disk (dropping it from the cache first) until a
  // read has to wait for it, which turns hints on. A virtual disk whose host
  // has the data may answer some attempts before the read looks. Answers
  // whether hints came on.
  bool ReadFromDisk(int i) {
    for (int attempt = 0; attempt < 50; ++attempt) {
      if (!EvictFromPageCache(root_ + "/" + Key(i))) return false;
      EXPECT_EQ(Get(Key(i)), values_[i]);
      if (store_->WantsPrefetch()) return true;
    }
    return false;
  }

  std::vector<std::string> values_;
};

TEST_F(LocalStoreTest, GetReusingReadsIntoTheBuffersMemory) {
  ASSERT_TRUE(store_->Set("big", AsBytes(Bytes(100'000, 3))).ok());
  ASSERT_TRUE(store_->Set("small", AsBytes("abc")).ok());
  Buffer into;
  auto got = store_->GetReusing("big", ByteRange::Full(), into);
  ASSERT_TRUE(got.ok() && *got);
  EXPECT_EQ(into.chars(), Bytes(100'000, 3));
  const std::byte* memory = into.data();
  got = store_->GetReusing("small", ByteRange::Full(), into);
  ASSERT_TRUE(got.ok() && *got);
  EXPECT_EQ(into.chars(), "abc");
  got = store_->GetReusing("big", ByteRange::Of(99'990, 100), into);
  ASSERT_TRUE(got.ok() && *got);
  EXPECT_EQ(into.chars(), Bytes(100'000, 3).substr(99'990));
  EXPECT_EQ(into.data(), memory);
}

// Reads into memory that is not 32-byte aligned go through a bounce buffer
// of 256 KiB slices: every slice, the last partial one and ranges that
// start mid-slice land exactly.
TEST_F(LocalStoreTest, GetIntoMisalignedMemoryIsExact) {
  const std::string value = Bytes((size_t{1} << 20) + 123, 7);
  ASSERT_TRUE(store_->Set("v", AsBytes(value)).ok());
  Buffer memory(value.size() + 64);
  for (size_t shift : {size_t{0}, size_t{8}, size_t{16}, size_t{33}}) {
    for (auto [begin, length] : {std::pair<size_t, size_t>{0, value.size()},
                                 {300'000, 600'001},
                                 {value.size() - 262'145, 262'145}}) {
      std::memset(memory.data(), 0, memory.size());
      MutableByteView out(memory.data() + shift, length);
      auto got = store_->GetInto("v", ByteRange::Of(begin, length), out);
      ASSERT_TRUE(got.ok() && got->has_value()) << shift;
      EXPECT_EQ(**got, length);
      EXPECT_TRUE(std::string_view(reinterpret_cast<const char*>(out.data()), length) ==
                  std::string_view(value).substr(begin, length))
          << "shift " << shift << " begin " << begin;
      EXPECT_EQ(memory.data()[shift + length], std::byte{0}) << "wrote past the end";
    }
  }
}

TEST_F(LocalStoreTest, ReadsOfCachedDataWantNoHints) {
  ASSERT_TRUE(store_->Set("a", AsBytes(Bytes(100'000, 1))).ok());
  ASSERT_TRUE(store_->Set("b", AsBytes("")).ok());
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Get("a"), Bytes(100'000, 1));
    EXPECT_EQ(Get("b"), "");
    EXPECT_EQ(Get("absent"), "<absent>");
  }
  EXPECT_FALSE(store_->WantsPrefetch());
  // A hint while none is wanted starts nothing.
  store_->Prefetch(Strings{"a"});
  EXPECT_FALSE(store_->WantsPrefetch());
}

TEST_F(LocalStoreColdTest, AnUncachedReadTurnsHintsOn) {
  EXPECT_FALSE(store_->WantsPrefetch());
  EXPECT_TRUE(ReadFromDisk(0));
}

TEST_F(LocalStoreColdTest, UncachedStraightAndRangedReadsAreExact) {
  std::string out(values_[1].size(), '\0');
  auto got = store_->GetInto(
      Key(1), ByteRange::Full(),
      MutableByteView(reinterpret_cast<std::byte*>(out.data()), out.size()));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(**got, out.size());
  EXPECT_EQ(out, values_[1]);
  auto part = store_->Get(Key(2), ByteRange::Of(100'000, 5000));
  ASSERT_TRUE(part.ok() && part->has_value());
  EXPECT_EQ(std::string((*part)->chars()), values_[2].substr(100'000, 5000));
  auto tail = store_->Get(Key(3), ByteRange::Suffix(70'000));
  ASSERT_TRUE(tail.ok() && tail->has_value());
  EXPECT_EQ(std::string((*tail)->chars()), values_[3].substr(values_[3].size() - 70'000));
}

TEST_F(LocalStoreColdTest, AHintReadsTheValueIntoTheCache) {
  ASSERT_TRUE(ReadFromDisk(0));
  const std::string path = root_ + "/" + Key(1);
  EXPECT_EQ(CachedFraction(path), 0.0);
  // Keys without a value in the same batch change nothing for the others.
  store_->Prefetch(Strings{"absent", Key(1), "../bad"});
  // Nothing else reads the file, so only the hint can bring it in.
  for (int i = 0; i < 1000 && CachedFraction(path) < 1.0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(CachedFraction(path), 1.0);
  EXPECT_EQ(CachedFraction(root_ + "/" + Key(3)), 0.0);
  EXPECT_EQ(Get(Key(1)), values_[1]);
}

TEST_F(LocalStoreColdTest, HintsForKeysWithoutAValueDoNothing) {
  const int fds = testing::OpenDescriptors();  // the store has opened nothing yet
  ASSERT_TRUE(ReadFromDisk(0));
  ASSERT_TRUE(store_->Set("empty", AsBytes("")).ok());
  fs::create_symlink("loop", root_ + "/loop");
  store_->Prefetch(Strings{"absent", "c", "empty", "loop", "../outside", "/abs", "",
                           "dir/" + std::string(300, 'n')});
  for (const char* key : {"absent", "c", "empty", "loop"}) store_->Prefetch(Strings{key});
  // The reads that follow report what is wrong, naming the key.
  auto r = store_->Get("loop");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("key 'loop'"), std::string::npos)
      << r.status().message();
  EXPECT_EQ(Get("absent"), "<absent>");
  EXPECT_EQ(Get("empty"), "");
  // Closing the store waits for its background threads: nothing stays open.
  store_.reset();
  EXPECT_EQ(testing::OpenDescriptors(), fds);
}

TEST_F(LocalStoreColdTest, HintsStopWhenNoReadWaits) {
  ASSERT_TRUE(ReadFromDisk(0));
  int hints = 0;
  while (store_->WantsPrefetch() && hints < 100'000) {
    store_->Prefetch(Strings{Key(0)});  // cached by the read above
    ++hints;
  }
  EXPECT_FALSE(store_->WantsPrefetch());
  EXPECT_GT(hints, 16) << "a read's worth of hints at least";
  EXPECT_LT(hints, 100'000);
  // A read that waits for the disk turns them on again.
  EXPECT_TRUE(ReadFromDisk(3));
}

TEST(MakeLocalStoreTest, RefusesAFileAsRoot) {
  std::string dir = MakeScratchDir();
  WriteFile(dir + "/plain", "x");
  auto r = MakeLocalStore(dir + "/plain");
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeLocalStore("").status().code(), StatusCode::kInvalidArgument);
  // A trailing slash and dots are normalised away.
  auto s = MakeLocalStore(dir + "/./sub/");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->Describe(), "file://" + dir + "/sub");
  RemoveScratchDir(dir);
}

}  // namespace
}  // namespace turbozarr
