// Reads of a sharded array while another thread replaces its shards: a
// partial read fetches a shard's index, then its inner chunks, in separate
// reads, and the shard may be replaced in between. The two versions written
// here place their inner chunks at different offsets (the second leaves
// every other inner chunk empty) and are uncompressed, so bytes of one
// version read at the offsets of the other would decode into wrong values
// rather than fail. Every inner chunk a read returns must be whole in one
// version or the other; the reader reads again when a shard changed under it
// (ReadAnswer::version), on every store that can tell versions apart.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "testing/fault_http_server.h"
#include "testing/int32_array_fixtures.h"
#include "turbozarr/array.h"
#include "turbozarr/remote_store.h"
#include "turbozarr/store.h"

namespace turbozarr {
namespace {

using namespace fixtures;  // NOLINT: the shared test fixtures

constexpr int64_t kSide = 64;   // one shard
constexpr int64_t kInner = 8;   // 8 x 8 inner chunks of 8 x 8
constexpr int32_t kFirst = 1'000'000;
constexpr int32_t kSecond = 2'000'000;

// Version `v` (kFirst or kSecond) of element (r, c): its inner chunk's number
// and its place in it, so a misplaced byte shows. kSecond leaves the inner
// chunks of even number at the fill value (not stored).
int32_t Expected(int32_t v, int64_t r, int64_t c) {
  const int64_t inner = (r / kInner) * (kSide / kInner) + c / kInner;
  if (v == kSecond && inner % 2 == 0) return kFill;
  return v + static_cast<int32_t>(inner * 100 + (r % kInner) * kInner + c % kInner);
}

std::vector<int32_t> Version(int32_t v) {
  std::vector<int32_t> out(static_cast<size_t>(kSide * kSide));
  for (int64_t r = 0; r < kSide; ++r) {
    for (int64_t c = 0; c < kSide; ++c) out[static_cast<size_t>(r * kSide + c)] = Expected(v, r, c);
  }
  return out;
}

// Reads `rounds` partial selections while a writer alternates the two
// versions; returns how many inner-chunk parts were neither.
int TornInnerChunks(std::shared_ptr<Array> writer, std::shared_ptr<Array> reader,
                    int rounds) {
  const std::vector<int32_t> first = Version(kFirst), second = Version(kSecond);
  EXPECT_TRUE(writer->Write(Selection({{0, kSide, 1}, {0, kSide, 1}}), first.data()).ok());
  std::atomic<bool> done{false};
  std::thread rewrites([&] {
    for (int i = 0; !done.load(); ++i) {
      const std::vector<int32_t>& v = i % 2 ? first : second;
      Status s = writer->Write(Selection({{0, kSide, 1}, {0, kSide, 1}}), v.data());
      if (!s.ok()) ADD_FAILURE() << s.ToString();
    }
  });
  int torn = 0;
  // Rows 4..60, columns 4..60: part of every inner chunk, never the whole
  // shard, so the index is read first and the inner chunks after it.
  const int64_t lo = 4, hi = 60, w = hi - lo;
  std::vector<int32_t> got(static_cast<size_t>(w * w));
  for (int round = 0; round < rounds; ++round) {
    Status s = reader->Read(Selection({{lo, hi, 1}, {lo, hi, 1}}), got);
    if (!s.ok()) {
      ADD_FAILURE() << s.ToString();
      break;
    }
    for (int64_t ir = 0; ir < kSide / kInner; ++ir) {
      for (int64_t ic = 0; ic < kSide / kInner; ++ic) {
        bool is_first = true, is_second = true;
        for (int64_t r = std::max(lo, ir * kInner); r < std::min(hi, (ir + 1) * kInner); ++r) {
          for (int64_t c = std::max(lo, ic * kInner); c < std::min(hi, (ic + 1) * kInner);
               ++c) {
            const int32_t v = got[static_cast<size_t>((r - lo) * w + c - lo)];
            is_first = is_first && v == Expected(kFirst, r, c);
            is_second = is_second && v == Expected(kSecond, r, c);
          }
        }
        torn += !is_first && !is_second;
      }
    }
  }
  done = true;
  rewrites.join();
  return torn;
}

ArrayMetadata RawShards() {
  return Int32Metadata({kSide, kSide}, {kSide, kSide},
                       Sharded({kInner, kInner}, json::array({kLittle}), "end"));
}

TEST(ReadDuringWriteTest, MemoryStore) {
  std::shared_ptr<Store> store = MakeMemoryStore();
  auto a = Array::Create(store, "a", RawShards());
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(TornInnerChunks(*a, *a, 3000), 0);
}

TEST(ReadDuringWriteTest, LocalDirectory) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("tz_read_during_write_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    auto store = MakeLocalStore(dir.string());
    ASSERT_TRUE(store.ok());
    auto a = Array::Create(*store, "a", RawShards());
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    // Another store object, as another process would have.
    auto other = MakeLocalStore(dir.string());
    ASSERT_TRUE(other.ok());
    EXPECT_EQ(TornInnerChunks(*a, *Array::Open(*other, "a"), 1500), 0);
  }
  std::filesystem::remove_all(dir);
}

TEST(ReadDuringWriteTest, S3AndHttp) {
  FaultHttpServer server;
  ASSERT_TRUE(server.Start().ok());
  const S3Options o = S3OptionsFor(server);
  auto s3 = MakeS3Store("bucket", "data", o);
  ASSERT_TRUE(s3.ok());
  auto a = Array::Create(*s3, "a", RawShards());
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto reader_s3 = MakeS3Store("bucket", "data", o);
  ASSERT_TRUE(reader_s3.ok());
  EXPECT_EQ(TornInnerChunks(*a, *Array::Open(*reader_s3, "a"), 400), 0);
  auto http = MakeHttpStore(server.url() + "/bucket/data");
  ASSERT_TRUE(http.ok());
  EXPECT_EQ(TornInnerChunks(*a, *Array::Open(*http, "a"), 400), 0);
}

}  // namespace
}  // namespace turbozarr
