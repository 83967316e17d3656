// Zip archives whose writer ended before writing the central directory:
// CheckZipArchive counts what the local headers hold whole, a repair writes
// a directory listing the newest whole entry of each name, and the archive
// then opens with exactly those values. Archives are caught mid-write by
// copying the file while the writer still holds it (what a killed writer
// leaves), then cut or scribbled on; a real kill -9 of a writing process is
// tested too. A writer's open archive is never touched.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "store/zip_store.h"
#include "testing/store_conformance.h"
#include "turbozarr/store_check.h"

namespace turbozarr {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Every key of the archive at `path` and its value.
std::map<std::string, std::string> Contents(const std::string& path) {
  std::map<std::string, std::string> out;
  auto r = ZipStore::Open(path);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return out;
  Result<std::vector<std::string>> keys = (*r)->List("");
  EXPECT_TRUE(keys.ok()) << keys.status().ToString();
  if (!keys.ok()) return out;
  for (const std::string& k : *keys) out[k] = std::string((*(*r)->Get(k))->chars());
  return out;
}

std::string Value(int key, int round, size_t n) {
  std::string v(n, '\0');
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<char>(key * 7 + round * 13 + i);
  return v;
}

class ZipRecoveryTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { dir_ = MakeScratchDir(); }
  void TearDown() override { RemoveScratchDir(dir_); }

  // The bytes of an archive whose writer wrote `values` (in order; a key
  // may come back) and has not ended: no central directory yet.
  std::string Unfinished(const std::vector<std::pair<std::string, std::string>>& values) {
    ZipStoreOptions options;
    options.force_zip64 = GetParam();
    auto w = OpenZipStore(dir_ + "/live.zip", options);
    EXPECT_TRUE(w.ok());
    for (const auto& [k, v] : values) EXPECT_TRUE((*w)->Set(k, AsBytes(v)).ok());
    std::string bytes = ReadFile(dir_ + "/live.zip");  // as a kill would leave it
    return bytes;
  }

  std::string dir_;
};

TEST_P(ZipRecoveryTest, TheNewestWholeEntryOfEachNameIsRecovered) {
  const std::vector<std::pair<std::string, std::string>> written = {
      {"zarr.json", "{\"zarr_format\": 3}"}, {"c/0", Value(0, 0, 3000)},
      {"c/1", Value(1, 0, 10)},              {"c/0", Value(0, 1, 3000)},
      {"c/2", ""},                           {"c/1", Value(1, 1, 5000)}};
  std::string bytes = Unfinished(written);
  // The last value, c/1's second, cut in the middle of its data.
  bytes.resize(bytes.size() - 2000);
  const std::string path = dir_ + "/killed.zip";
  WriteFile(path, bytes);

  auto checked = CheckZipArchive(path, false);
  ASSERT_TRUE(checked.ok()) << checked.status().ToString();
  EXPECT_FALSE(checked->complete);
  EXPECT_NE(checked->problem.find("central directory"), std::string::npos)
      << checked->problem;
  EXPECT_EQ(checked->entries, 4u);  // zarr.json, c/0 (second), c/1 (first), c/2
  EXPECT_EQ(checked->damaged_entries, 1u);
  EXPECT_FALSE(checked->repaired);
  EXPECT_EQ(ReadFile(path), bytes) << "a check changes nothing";
  EXPECT_FALSE(ZipStore::Open(path).ok());

  auto repaired = CheckZipArchive(path, true);
  ASSERT_TRUE(repaired.ok()) << repaired.status().ToString();
  EXPECT_TRUE(repaired->repaired);
  const std::map<std::string, std::string> want = {{"zarr.json", "{\"zarr_format\": 3}"},
                                                   {"c/0", Value(0, 1, 3000)},
                                                   {"c/1", Value(1, 0, 10)},
                                                   {"c/2", ""}};
  EXPECT_EQ(Contents(path), want);
  // Now complete; a second repair has nothing to do.
  auto again = CheckZipArchive(path, true);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->complete);
  EXPECT_EQ(again->entries, 4u);
}

TEST_P(ZipRecoveryTest, GarbageAndAnOldDirectoryBetweenEntriesAreSkipped) {
  // A flushed archive written on after its flush: the new entries overwrite
  // the old directory from its start, and the writer is killed again.
  ZipStoreOptions options;
  options.force_zip64 = GetParam();
  std::string bytes;
  {
    auto w = OpenZipStore(dir_ + "/live.zip", options);
    ASSERT_TRUE(w.ok());
    for (int k = 0; k < 5; ++k) ASSERT_TRUE((*w)->Set("k" + std::to_string(k), AsBytes(Value(k, 0, 100))).ok());
    ASSERT_TRUE((*w)->Flush().ok());
    ASSERT_TRUE((*w)->Set("k9", AsBytes(Value(9, 0, 10))).ok());
    bytes = ReadFile(dir_ + "/live.zip");
  }
  // Noise where a failed write reserved bytes, with a fake signature in it.
  bytes += std::string("PK\x03\x04 not an entry at all", 25) + std::string(333, 'x');
  const std::string path = dir_ + "/killed.zip";
  WriteFile(path, bytes);
  auto repaired = CheckZipArchive(path, true);
  ASSERT_TRUE(repaired.ok()) << repaired.status().ToString();
  EXPECT_EQ(repaired->entries, 6u);
  EXPECT_GT(repaired->unclaimed_bytes, 333u);
  const std::map<std::string, std::string> got = Contents(path);
  ASSERT_EQ(got.size(), 6u);
  for (int k : {0, 1, 2, 3, 4}) EXPECT_EQ(got.at("k" + std::to_string(k)), Value(k, 0, 100));
  EXPECT_EQ(got.at("k9"), Value(9, 0, 10));
}

TEST_P(ZipRecoveryTest, AWritersOpenArchiveIsNotTouched) {
  ZipStoreOptions options;
  options.force_zip64 = GetParam();
  auto w = OpenZipStore(dir_ + "/live.zip", options);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Set("a", AsBytes("value")).ok());
  const std::string before = ReadFile(dir_ + "/live.zip");
  for (bool repair : {false, true}) {
    auto r = CheckZipArchive(dir_ + "/live.zip", repair);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kAlreadyExists) << r.status().ToString();
    EXPECT_NE(r.status().message().find("a writer has it open"), std::string::npos);
  }
  EXPECT_EQ(ReadFile(dir_ + "/live.zip"), before);
  ASSERT_TRUE((*w)->Flush().ok());
}

INSTANTIATE_TEST_SUITE_P(Zip, ZipRecoveryTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "Zip64" : "Plain");
                         });

// A process writing entries (some keys again and again) killed with SIGKILL
// at a random moment: the repaired archive holds, for every key, a value the
// writer wrote for it, and every key written before the last few.
TEST(ZipRecoveryKillTest, KilledWritersArchivesAreRepairedToValuesTheyWrote) {
  const std::string dir = MakeScratchDir();
  std::mt19937 rng(7);
  for (int kill = 0; kill < 5; ++kill) {
    const std::string path = dir + "/k" + std::to_string(kill) + ".zip";
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      auto w = OpenZipStore(path, ZipStoreOptions{});
      if (!w.ok()) ::_exit(2);
      for (int round = 0;; ++round) {
        for (int k = 0; k < 20; ++k) {
          if (!(*w)->Set("c/" + std::to_string(k), AsBytes(Value(k, round, 20'000))).ok()) {
            ::_exit(3);
          }
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20 + rng() % 80));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer ended on its own: " << status;
    if (!fs::exists(path) || fs::file_size(path) == 0) continue;
    auto repaired = CheckZipArchive(path, true);
    ASSERT_TRUE(repaired.ok()) << repaired.status().ToString();
    EXPECT_FALSE(repaired->complete);
    EXPECT_LE(repaired->damaged_entries, 1u);
    for (const auto& [key, value] : Contents(path)) {
      const int k = std::stoi(key.substr(2));
      bool written = false;
      for (int round = 0; round < 256 && !written; ++round) {  // values repeat after 256
        written = value == Value(k, round, 20'000);
      }
      EXPECT_TRUE(written) << key << " holds a value its writer never wrote";
    }
  }
  RemoveScratchDir(dir);
}

}  // namespace
}  // namespace turbozarr
