// Writes killed at any moment leave every chunk (or shard) of a local
// directory either as it was or as the write made it, never torn, empty or
// half written. A child process writes a whole array, many chunks or shards
// in flight on two threads, and is killed with SIGKILL after a random delay
// (0 to 1.5 times what a write takes); the parent then reads every chunk and
// checks that it holds one generation of values, the one it held before or
// the one the killed write was making. 30 kills per layout by default;
// TURBOZARR_CRASH_KILLS sets the number (make test-concurrency: 100).
//
// The files the kills leave are checked too: no value file is empty, the
// temporary files of killed writes are left out of listings and reads, and
// a repair (CheckLocalDirectory, `turbozarr fsck --repair`) removes them.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "store/local_store.h"
#include "testing/int32_array_fixtures.h"
#include "turbozarr/array.h"
#include "turbozarr/config.h"
#include "turbozarr/store_check.h"

namespace turbozarr {
namespace {

using namespace fixtures;  // NOLINT: the shared test fixtures
namespace fs = std::filesystem;

int Kills() {
  const char* v = std::getenv("TURBOZARR_CRASH_KILLS");
  return v != nullptr && std::atoi(v) > 0 ? std::atoi(v) : 30;
}

// 2048 x 1024 int32 (8 MiB) in 128 units of 128 x 128: chunks, or shards of
// 64 x 64 inner chunks.
constexpr int64_t kRows = 2048;
constexpr int64_t kCols = 1024;
constexpr int64_t kUnit = 128;

ArrayMetadata Layout(bool sharded) {
  return Int32Metadata({kRows, kCols}, {kUnit, kUnit},
                       sharded ? Sharded({64, 64}, json::array({kLittle, kZstd}), "end")
                               : json::array({kLittle, kZstd}));
}

// Generation g's value of element i: the generation in the top byte.
int32_t Value(int32_t g, int64_t i) { return (g << 24) | static_cast<int32_t>(i & 0xffffff); }

std::vector<int32_t> Generation(int32_t g) {
  std::vector<int32_t> v(static_cast<size_t>(kRows * kCols));
  for (size_t i = 0; i < v.size(); ++i) v[i] = Value(g, static_cast<int64_t>(i));
  return v;
}

class CrashWriteTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tz_crash_" + std::to_string(::getpid()) + "_" +
                                        (GetParam() ? "sharded" : "chunked"));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::shared_ptr<Array> Open() {
    auto store = MakeLocalStore(dir_.string());
    EXPECT_TRUE(store.ok());
    auto a = Array::Open(*store, "a");
    EXPECT_TRUE(a.ok()) << a.status().ToString();
    return a.ok() ? *a : nullptr;
  }

  // The generation each unit holds, or -1 for a unit that mixes them (or
  // holds values no generation wrote).
  std::vector<int32_t> UnitGenerations(Array& a) {
    std::vector<int32_t> out;
    std::vector<int32_t> block(static_cast<size_t>(kUnit * kUnit));
    for (int64_t r = 0; r < kRows; r += kUnit) {
      for (int64_t c = 0; c < kCols; c += kUnit) {
        Status s = a.Read(Selection({{r, r + kUnit, 1}, {c, c + kUnit, 1}}), block);
        EXPECT_TRUE(s.ok()) << s.ToString();
        const int32_t g = block[0] >> 24;
        bool one = s.ok();
        for (int64_t i = 0; one && i < kUnit; ++i) {
          for (int64_t j = 0; j < kUnit; ++j) {
            if (block[static_cast<size_t>(i * kUnit + j)] != Value(g, (r + i) * kCols + c + j)) {
              one = false;
              break;
            }
          }
        }
        out.push_back(one ? g : -1);
      }
    }
    return out;
  }

  fs::path dir_;
};

TEST_P(CrashWriteTest, KilledWritesLeaveEachChunkOldOrNew) {
  {
    auto store = MakeLocalStore(dir_.string());
    ASSERT_TRUE(store.ok());
    auto a = Array::Create(*store, "a", Layout(GetParam()));
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE((*a)->Write(Selection::All({kRows, kCols}), Generation(1).data()).ok());
  }
  // How long one write takes here, to spread the kills over it.
  auto a = Open();
  ASSERT_NE(a, nullptr);
  const std::vector<int32_t> probe = Generation(1);
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(a->Write(Selection::All({kRows, kCols}), probe.data()).ok());
  const auto write_time = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - t0);

  std::vector<int32_t> held = UnitGenerations(*a);
  ASSERT_EQ(held, std::vector<int32_t>(held.size(), 1));
  std::mt19937_64 rng(GetParam() ? 11 : 12);
  std::uniform_int_distribution<int64_t> delay(0, write_time.count() * 3 / 2);
  int torn = 0, landed_new = 0, kept_old = 0, mixed_writes = 0;
  const int kills = Kills();
  for (int k = 0; k < kills; ++k) {
    const int32_t g = 2 + k;
    const std::vector<int32_t> next = Generation(g);  // made before the fork
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::alarm(60);
      (void)SetThreads(2);
      auto store = MakeLocalStore(dir_.string());
      auto child = store.ok() ? Array::Open(*store, "a")
                              : Result<std::shared_ptr<Array>>(store.status());
      if (!child.ok()) ::_exit(2);
      ::_exit((*child)->Write(Selection::All({kRows, kCols}), next.data()).ok() ? 0 : 1);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(delay(rng)));
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 0))
        << "the write failed before it was killed";

    const std::vector<int32_t> now = UnitGenerations(*a);
    int news = 0;
    for (size_t u = 0; u < now.size(); ++u) {
      if (now[u] == g) {
        ++news;
      } else if (now[u] != held[u]) {
        ++torn;
        ADD_FAILURE() << "kill " << k << ": unit " << u << " holds generation " << now[u]
                      << ", neither the old " << held[u] << " nor the new " << g;
      }
    }
    landed_new += news == static_cast<int>(now.size());
    kept_old += news == 0;
    mixed_writes += news > 0 && news < static_cast<int>(now.size());
    held = now;
  }
  EXPECT_EQ(torn, 0);
  // The kills fell before, inside and after writes alike (with 30 kills,
  // each kind at least once).
  std::printf("%d kills: %d before any unit was stored, %d in the middle, %d after\n", kills,
              kept_old, mixed_writes, landed_new);
  if (kills >= 30) {
    EXPECT_GT(mixed_writes, 0) << "no kill fell in the middle of a write";
  }

  // No value file is empty; the killed writes' temporary files are not keys.
  int temporaries = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir_)) {
    if (!e.is_regular_file()) continue;
    const std::string name = e.path().filename().string();
    if (name.starts_with(LocalStore::kTempPrefix)) {
      ++temporaries;
    } else {
      EXPECT_GT(e.file_size(), 0u) << e.path();
    }
  }
  auto keys = (*MakeLocalStore(dir_.string()))->List("");
  ASSERT_TRUE(keys.ok());
  for (const std::string& key : *keys) {
    EXPECT_EQ(key.find(LocalStore::kTempPrefix), std::string::npos) << key;
  }
  std::printf("temporary files the kills left: %d\n", temporaries);

  // A repair finds them all (their writers have ended) and removes them,
  // and leaves the array as it was.
  auto check = CheckLocalDirectory(dir_.string(), /*repair=*/true);
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_EQ(static_cast<int>(check->ended_writes.size()), temporaries);
  EXPECT_TRUE(check->running_writes.empty());
  auto again = CheckLocalDirectory(dir_.string(), /*repair=*/false);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->ended_writes.empty());
  EXPECT_EQ(UnitGenerations(*a), held);
}

INSTANTIATE_TEST_SUITE_P(Layouts, CrashWriteTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Sharded" : "Chunked"; });

}  // namespace
}  // namespace turbozarr
