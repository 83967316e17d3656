// A soak: 8 threads reading and writing two arrays (sharded and chunked)
// through the S3 store and reading them through the HTTP store, for
// TURBOZARR_SOAK_SECONDS (15 by default; `make soak` runs 30 minutes),
// against the in-process fault-injecting server with a fault on one request
// in ten. Each thread owns a band of rows that cuts through other threads'
// shards and chunks, so concurrent updates of one shard or chunk are
// constant, yet every thread knows exactly what its band must hold.
//
// Checked: every read of a thread's band equals its model (0 wrong bytes);
// operations that fail do so with an error naming a key (the retries should
// leave none); and the process's memory (RSS) and open descriptors stay
// flat: memory grows by no more than a small allowance after a warm-up,
// and descriptors never pass what the open connections account for,
// whatever the duration. A sample line every tenth of the run shows both.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "testing/fault_http_server.h"
#include "testing/int32_array_fixtures.h"
#include "testing/open_descriptors.h"
#include "turbozarr/array.h"
#include "turbozarr/remote_store.h"

namespace turbozarr {
namespace {

using namespace fixtures;  // NOLINT: the shared test fixtures
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

constexpr int kThreads = 8;
constexpr int64_t kRows = 8 * 40;  // a band of 40 rows per thread
constexpr int64_t kCols = 256;
constexpr int64_t kBand = kRows / kThreads;

int SoakSeconds() {
  const char* s = std::getenv("TURBOZARR_SOAK_SECONDS");
  return s != nullptr && std::atoi(s) > 0 ? std::atoi(s) : 15;
}

int64_t RssBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

HttpOptions SoakOptions() {
  HttpOptions o;
  o.connect_timeout = milliseconds(2000);
  o.idle_timeout = milliseconds(200);
  o.max_retries = 12;
  o.backoff_base = milliseconds(1);
  o.backoff_max = milliseconds(20);
  o.max_concurrency = 16;
  return o;
}

struct Sample {
  double seconds;
  int64_t rss;
  int descriptors;
  uint64_t operations;
};

TEST(SoakTest, MixedReadsAndWritesUnderFaultsStayRightAndFlat) {
  FaultHttpServer server;
  ASSERT_TRUE(server.Start().ok());
  server.set_stall(milliseconds(400));
  std::atomic<bool> faults_on{false};
  std::atomic<uint64_t> injected{0};
  server.SetPolicy([&](uint64_t n, const std::string&, const std::string& range) {
    if (!faults_on.load(std::memory_order_relaxed)) return HttpFault::kNone;
    const HttpFault f = RandomHttpFault(77, n, range, 10, /*with_redirects=*/true);
    if (f != HttpFault::kNone) injected.fetch_add(1, std::memory_order_relaxed);
    return f;
  });

  auto s3 = MakeS3Store("bucket", "soak", S3OptionsFor(server, SoakOptions()));
  ASSERT_TRUE(s3.ok()) << s3.status().ToString();
  auto http = MakeHttpStore(server.url() + "/bucket/soak", SoakOptions());
  ASSERT_TRUE(http.ok());
  // Shards of 64 x 64 and chunks of 32 x 48: both cut across the bands.
  const ArrayMetadata layouts[] = {
      Int32Metadata({kRows, kCols}, {64, 64},
                    Sharded({16, 16}, json::array({kLittle, kZstd}), "end")),
      Int32Metadata({kRows, kCols}, {32, 48}, json::array({kLittle, kZstd}))};
  std::vector<std::shared_ptr<Array>> written, over_http;
  for (int i = 0; i < 2; ++i) {
    auto a = Array::Create(*s3, "a" + std::to_string(i), layouts[i]);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    written.push_back(*a);
    auto h = Array::Open(*http, "a" + std::to_string(i));
    ASSERT_TRUE(h.ok()) << h.status().ToString();
    over_http.push_back(*h);
  }
  faults_on = true;
  const int descriptors_before = testing::OpenDescriptors();

  const int seconds = SoakSeconds();
  const Clock::time_point start = Clock::now();
  const Clock::time_point end = start + std::chrono::seconds(seconds);
  std::atomic<uint64_t> operations{0}, wrong{0}, failed{0}, unnamed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(1000 + t);
      auto uniform = [&](int64_t lo, int64_t hi) {
        return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
      };
      const int64_t row0 = t * kBand;
      // This thread's band of each array, as it must be.
      std::vector<std::vector<int32_t>> model(
          2, std::vector<int32_t>(static_cast<size_t>(kBand * kCols), kFill));
      int32_t next_value = t * 100'000'000;
      for (uint64_t op = 0; Clock::now() < end; ++op) {
        const int which = static_cast<int>(uniform(0, 1));
        const int64_t r0 = uniform(0, kBand - 1), r1 = uniform(r0 + 1, kBand);
        const int64_t c0 = uniform(0, kCols - 1);
        const int64_t c1 = uniform(c0 + 1, std::min(kCols, c0 + 120));
        const Selection region({{row0 + r0, row0 + r1, 1}, {c0, c1, 1}});
        const size_t n = static_cast<size_t>((r1 - r0) * (c1 - c0));
        const int kind = static_cast<int>(uniform(0, 2));
        Status s;
        if (kind == 0) {
          std::vector<int32_t> values(n);
          for (int32_t& v : values) v = next_value++;
          s = written[which]->Write(region, values.data());
          if (s.ok()) {
            model[which] = Overwritten(std::move(model[which]), kCols, r0, r1, c0, c1, values);
          } else {
            // Old or new, chunk by chunk: read the band back as the model.
            std::vector<int32_t> now(model[which].size());
            Status rs;
            for (int attempt = 0; attempt < 20; ++attempt) {
              rs = written[which]->Read(
                  Selection({{row0, row0 + kBand, 1}, {0, kCols, 1}}), now);
              if (rs.ok()) break;
            }
            if (rs.ok()) model[which] = std::move(now);
          }
        } else {
          std::vector<int32_t> got(n);
          s = (kind == 1 ? written[which] : over_http[which])->Read(region, got);
          if (s.ok()) {
            uint64_t bad = 0;
            for (int64_t r = r0; r < r1; ++r) {
              for (int64_t c = c0; c < c1; ++c) {
                bad += got[static_cast<size_t>((r - r0) * (c1 - c0) + c - c0)] !=
                       model[which][static_cast<size_t>(r * kCols + c)];
              }
            }
            wrong += bad;
          }
        }
        if (!s.ok()) {
          if (failed.fetch_add(1) < 5) {
            std::fprintf(stderr, "failed: %s\n", s.ToString().c_str());
          }
          if (s.message().find("/c/") == std::string::npos &&
              s.message().find("chunk '") == std::string::npos) {
            ++unnamed;
            std::fprintf(stderr, "an error naming no key: %s\n", s.ToString().c_str());
          }
        }
        ++operations;
      }
    });
  }

  // A sample every tenth of the run; the first after the warm-up.
  std::vector<Sample> samples;
  for (int i = 1; i <= 10; ++i) {
    std::this_thread::sleep_until(start + std::chrono::milliseconds(seconds * 100 * i));
    samples.push_back({std::chrono::duration<double>(Clock::now() - start).count(),
                       RssBytes(), testing::OpenDescriptors(), operations.load()});
    const Sample& s = samples.back();
    std::printf("%7.1f s  RSS %7.1f MB  descriptors %4d  operations %9llu\n", s.seconds,
                s.rss / 1e6, s.descriptors, static_cast<unsigned long long>(s.operations));
    std::fflush(stdout);
  }
  for (std::thread& t : threads) t.join();
  faults_on = false;

  std::printf("%llu operations, %llu faults injected in %llu requests, %llu failed, "
              "%llu wrong elements\n",
              static_cast<unsigned long long>(operations.load()),
              static_cast<unsigned long long>(injected.load()),
              static_cast<unsigned long long>(server.requests()),
              static_cast<unsigned long long>(failed.load()),
              static_cast<unsigned long long>(wrong.load()));
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_EQ(unnamed.load(), 0u);
  EXPECT_LE(failed.load(), operations.load() / 1000) << "the retries should carry nearly all";
  EXPECT_GT(injected.load(), 50u);
  // Flat. Memory: the peak of the run's second half is at most that of its
  // first half (warm-up done) plus 16 MB. Descriptors: connections open and
  // close as faults drop them, two descriptors each (the server is in the
  // process), so samples swing between none and every connection the two
  // stores may keep (2 x max_concurrency); no sample may exceed that, and a
  // leak of one descriptor per thousand operations would, in minutes.
  const int most_connections = 2 * SoakOptions().max_concurrency;
  for (const Sample& s : samples) {
    EXPECT_LE(s.descriptors, descriptors_before + 2 * most_connections + 8)
        << "at " << s.seconds << " s";
  }
  auto peaks = [&](size_t from, size_t to) {
    int64_t rss = 0;
    int fds = 0;
    for (size_t i = from; i < to; ++i) {
      rss = std::max(rss, samples[i].rss);
      fds = std::max(fds, samples[i].descriptors);
    }
    return std::pair(rss, fds);
  };
  const auto [rss_early, fds_early] = peaks(1, 5);
  const auto [rss_late, fds_late] = peaks(5, 10);
  EXPECT_LE(rss_late, rss_early + (int64_t{16} << 20));
  std::printf("descriptors before the threads: %d; peaks, first half / second half: "
              "RSS %.1f / %.1f MB, descriptors %d / %d\n",
              descriptors_before, rss_early / 1e6, rss_late / 1e6, fds_early, fds_late);
}

}  // namespace
}  // namespace turbozarr
