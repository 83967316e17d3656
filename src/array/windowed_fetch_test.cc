// FetchInWindows: every item handed over once, in order; the next slice
// asked for while older ones are still in flight; failures end the fetch
// with nothing left running.
#include "array/windowed_fetch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>

#include "store/forwarding_store.h"
#include "turbozarr/store.h"

namespace turbozarr::internal {
namespace {

std::string Key(size_t i) { return "k/" + std::to_string(i); }

// A memory store of values "v<i>" under Key(i) whose GetMany calls are
// counted while they run; a GetMany that asks for `hold` waits until one
// asks for `release` (or 5 s pass), and one that asks for `fail` fails.
class WatchedStore : public internal::ForwardingStore {
 public:
  explicit WatchedStore(size_t n) : ForwardingStore(MakeMemoryStore()) {
    for (size_t i = 0; i < n; ++i) {
      EXPECT_TRUE(Set(Key(i), AsBytes("v" + std::to_string(i))).ok());
    }
  }

  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override {
    std::set<std::string, std::less<>> keys;
    for (const ReadRequest& r : requests) keys.emplace(r.key);
    running_.fetch_add(1);
    struct Done {
      std::atomic<int>& running;
      ~Done() { running.fetch_sub(1); }
    } done{running_};
    std::unique_lock lock(mu_);
    if (keys.count(release)) {
      released_ = true;
      cv_.notify_all();
    }
    if (keys.count(hold)) {
      held_while_released_ =
          cv_.wait_for(lock, std::chrono::seconds(5), [&] { return released_; });
    }
    if (keys.count(fail)) return Status::IOError("no answer for " + fail);
    lock.unlock();
    return ForwardingStore::Read(requests, answers);
  }

  std::string hold, release, fail;
  int running() const { return running_.load(); }
  bool held_while_released() {
    std::lock_guard lock(mu_);
    return held_while_released_;
  }

 private:
  std::atomic<int> running_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
  bool held_while_released_ = false;
};

ReadOf FullValues() {
  return [](size_t i) { return KeyRange{Key(i), ByteRange::Full()}; };
}

// A use that only counts the items handed to it into `handed`.
UseWindow CountInto(size_t& handed) {
  return [&handed](size_t, const std::vector<KeyRange>& reads, WindowAnswers&) {
    handed += reads.size();
    return Status::OK();
  };
}

TEST(FetchInWindowsTest, EveryItemOnceInOrder) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{16}, size_t{101}}) {
    for (size_t window : {size_t{1}, size_t{3}, size_t{16}, size_t{64}}) {
      WatchedStore store(n);
      std::vector<std::string> seen;
      Status s = FetchInWindows(
          store, n, window, FullValues(),
          [&](size_t first, const std::vector<KeyRange>& reads, WindowAnswers& got) {
            const std::vector<std::optional<Buffer>>& answers = got.values;
            EXPECT_EQ(first, seen.size());
            EXPECT_EQ(reads.size(), answers.size());
            EXPECT_LE(reads.size(), std::max<size_t>(1, window / kSlicesInFlight));
            for (size_t k = 0; k < reads.size(); ++k) {
              EXPECT_EQ(reads[k].key, Key(first + k));
              seen.push_back(answers[k] ? std::string(answers[k]->chars()) : "<absent>");
            }
            return Status::OK();
          },
          "test");
      ASSERT_TRUE(s.ok()) << s.ToString();
      ASSERT_EQ(seen.size(), n) << "window " << window;
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(seen[i], "v" + std::to_string(i));
    }
  }
}

// Item 5's slice (items 4-7 of windows of 16) is answered only once item 16,
// beyond the first window, has been asked for: a fetch that waited for the
// whole first window before asking for more would never get there.
TEST(FetchInWindowsTest, AsksForMoreWhileOlderSlicesAreInFlight) {
  WatchedStore store(40);
  store.hold = Key(5);
  store.release = Key(16);
  size_t handed = 0;
  Status s = FetchInWindows(store, 40, 16, FullValues(), CountInto(handed), "test");
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(handed, 40u);
  EXPECT_TRUE(store.held_while_released());
}

TEST(FetchInWindowsTest, AFailedFetchEndsItNamingWhere) {
  WatchedStore store(100);
  store.fail = Key(37);
  size_t handed = 0;
  Status s = FetchInWindows(store, 100, 16, FullValues(), CountInto(handed), "array 'a'");
  EXPECT_EQ(s.code(), StatusCode::kIOError);
  EXPECT_NE(s.ToString().find("array 'a'"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("no answer for k/37"), std::string::npos) << s.ToString();
  EXPECT_EQ(handed, 36u);  // the slices before item 37's
  EXPECT_EQ(store.running(), 0);
}

TEST(FetchInWindowsTest, AFailedUseEndsItWithNothingRunning) {
  WatchedStore store(100);
  Status s = FetchInWindows(
      store, 100, 16, FullValues(),
      [&](size_t first, const std::vector<KeyRange>&, WindowAnswers&) {
        return first >= 8 ? Status::Corruption("bad chunk") : Status::OK();
      },
      "test");
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_EQ(s.ToString().find("test"), std::string::npos) << "returned as it is";
  EXPECT_EQ(store.running(), 0);
}

// Items with a target are read into it when their value is exactly its
// size; a value of another size comes as a buffer, and an absent one as
// absent, with the target left as it was.
TEST(FetchInWindowsTest, ItemsWithATargetAreReadIntoIt) {
  WatchedStore store(12);  // "v0" .. "v9" two bytes, "v10", "v11" three
  ASSERT_TRUE(store.Erase(Key(3)).ok());
  std::vector<std::string> targets(12, std::string(2, '.'));
  std::vector<std::string> seen;
  Status s = FetchInWindows(
      store, 12, 8, FullValues(),
      [&](size_t first, const std::vector<KeyRange>& reads, WindowAnswers& got) {
        for (size_t k = 0; k < reads.size(); ++k) {
          const size_t i = first + k;
          if (got.in_target[k]) {
            EXPECT_FALSE(got.values[k].has_value());
            seen.push_back("in target: " + targets[i]);
          } else if (got.values[k]) {
            seen.push_back("buffer: " + std::string(got.values[k]->chars()));
          } else {
            seen.push_back("absent: " + targets[i]);
          }
        }
        return Status::OK();
      },
      "test",
      [&](size_t i) {  // every other item has a target
        if (i % 2 == 0) return MutableByteView();
        return MutableByteView(reinterpret_cast<std::byte*>(targets[i].data()), 2);
      });
  ASSERT_TRUE(s.ok()) << s.ToString();
  const std::vector<std::string> want = {
      "buffer: v0", "in target: v1", "buffer: v2",  "absent: ..",
      "buffer: v4", "in target: v5", "buffer: v6",  "in target: v7",
      "buffer: v8", "in target: v9", "buffer: v10", "buffer: v11"};
  EXPECT_EQ(seen, want);
}

TEST(FetchInWindowsTest, WindowsHoldAboutKWindowBytes) {
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  EXPECT_EQ(WindowFor(64, 0), 64u);
  EXPECT_EQ(WindowFor(64, 1 * kMiB), 64u);                 // 64 MiB fits
  EXPECT_EQ(WindowFor(64, 5 * kMiB), 51u);                 // 255 MiB
  EXPECT_EQ(WindowFor(64, 1024 * kMiB), kSlicesInFlight);  // never fewer
  EXPECT_EQ(WindowFor(2, 1024 * kMiB), 2u);                // nor more than the store's
}

}  // namespace
}  // namespace turbozarr::internal
