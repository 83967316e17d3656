// Arrays over HTTP and S3 when the server misbehaves: error statuses,
// connections closed or reset (before an answer, mid-body, or after a write
// was carried out), stalls, lying lengths and ranges, redirects. The server
// is the in-process fault-injecting one, which also takes S3 writes, so one
// array is written through the S3 store and read through both the S3 and the
// HTTP store while faults are on.
//
// - Random faults: every read returns exactly the model's values and every
//   write lands whole (the transport retries; conditional writes that were
//   carried out before the connection dropped are re-read and merged again),
//   or an operation fails with an IOError or Corruption that names its key.
// - A key that always fails gives an error naming it; the other keys work.
// - A caller's deadline bounds every call, however the server stalls.
// - A redirect to another host is refused with a clear error.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "testing/fault_http_server.h"
#include "testing/int32_array_fixtures.h"
#include "turbozarr/array.h"
#include "turbozarr/remote_store.h"

namespace turbozarr {
namespace {

using namespace fixtures;  // NOLINT: the shared test fixtures
using std::chrono::milliseconds;

constexpr int64_t kSide = 192;
constexpr int64_t kUnit = 64;  // a chunk, or a shard of 32 x 32 inner chunks
constexpr int64_t kUnits = kSide / kUnit;

ArrayMetadata Layout(int layout) {
  switch (layout) {
    case 0:
      return Int32Metadata({kSide, kSide}, {kUnit, kUnit}, json::array({kLittle}));
    case 1:
      return Int32Metadata({kSide, kSide}, {kUnit, kUnit}, json::array({kLittle, kZstd}));
    default:
      return Int32Metadata({kSide, kSide}, {kUnit, kUnit},
                           Sharded({32, 32}, json::array({kLittle, kZstd}), "end"));
  }
}

// Short timeouts and backoff, so that a fault costs milliseconds; enough
// retries that a run of faults on one request (20% each) never exhausts them.
HttpOptions FastOptions() {
  HttpOptions o = FastHttpOptions();
  o.idle_timeout = milliseconds(100);
  o.max_retries = 10;
  o.backoff_base = milliseconds(1);
  o.backoff_max = milliseconds(10);
  return o;
}

bool NamesAKey(const Status& s) {
  return s.message().find("chunk '") != std::string::npos ||
         s.message().find("key '") != std::string::npos ||
         s.message().find("/a/c/") != std::string::npos;
}

class RemoteFaultTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start().ok());
    server_.set_stall(milliseconds(300));
    server_.SetPolicy([this](uint64_t n, const std::string&, const std::string& range) {
      if (!faults_on_.load()) return HttpFault::kNone;
      // Every fault that leaves the client a way to notice (the short
      // whole answer, which leaves none, is tested on its own below).
      const HttpFault f = RandomHttpFault(seed_, n, range, 5, /*with_redirects=*/true);
      injected_ += f != HttpFault::kNone;
      return f;
    });
  }

  FaultHttpServer server_;
  std::atomic<bool> faults_on_{false};
  std::atomic<int> injected_{0};
  uint64_t seed_ = 11;
};

TEST_P(RemoteFaultTest, RandomFaultsNeverGiveWrongBytes) {
  const int layout = GetParam();
  seed_ = 1000 + static_cast<uint64_t>(layout);
  auto s3 = MakeS3Store("bucket", "data", S3OptionsFor(server_, FastOptions()));
  ASSERT_TRUE(s3.ok()) << s3.status().ToString();
  auto created = Array::Create(*s3, "a", Layout(layout));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  std::shared_ptr<Array> array = *created;
  auto http = MakeHttpStore(server_.url() + "/bucket/data", FastOptions());
  ASSERT_TRUE(http.ok());
  auto over_http = Array::Open(*http, "a");
  ASSERT_TRUE(over_http.ok()) << over_http.status().ToString();
  // Read without faults, to check what each write left.
  auto clean_store = MakeS3Store("bucket", "data", S3OptionsFor(server_, FastOptions()));
  ASSERT_TRUE(clean_store.ok());
  std::shared_ptr<Array> truth = *Array::Open(*clean_store, "a");

  faults_on_ = true;
  std::vector<int32_t> model(static_cast<size_t>(kSide * kSide), kFill);
  std::mt19937_64 rng(seed_);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  auto at = [](int64_t r, int64_t c) { return static_cast<size_t>(r * kSide + c); };
  int reads_ok = 0, writes_ok = 0, failed = 0;
  const uint64_t requests_before = server_.requests();
  for (int op = 0; op < 60; ++op) {
    const int64_t r0 = uniform(0, kSide - 1), c0 = uniform(0, kSide - 1);
    const int64_t r1 = uniform(r0 + 1, std::min(kSide, r0 + 90));
    const int64_t c1 = uniform(c0 + 1, std::min(kSide, c0 + 90));
    const Selection region({{r0, r1, 1}, {c0, c1, 1}});
    const size_t n = static_cast<size_t>((r1 - r0) * (c1 - c0));
    const int kind = static_cast<int>(uniform(0, 2));
    if (kind < 2) {  // a read, through S3 or through plain HTTP
      std::vector<int32_t> got(n);
      Status s = (kind == 0 ? array : *over_http)->Read(region, got);
      if (!s.ok()) {
        ++failed;
        EXPECT_TRUE(s.code() == StatusCode::kIOError || s.code() == StatusCode::kCorruption)
            << s.ToString();
        EXPECT_TRUE(NamesAKey(s)) << s.ToString();
        continue;
      }
      ++reads_ok;
      size_t wrong = 0;
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t c = c0; c < c1; ++c) {
          wrong += got[static_cast<size_t>((r - r0) * (c1 - c0) + c - c0)] != model[at(r, c)];
        }
      }
      EXPECT_EQ(wrong, 0u) << "op " << op << (kind == 0 ? " (S3)" : " (HTTP)");
      continue;
    }
    std::vector<int32_t> values(n);
    for (size_t i = 0; i < n; ++i) values[i] = (op + 1) * 100000 + static_cast<int32_t>(i);
    Status s = array->Write(region, values.data());
    const std::vector<int32_t> written = Overwritten(model, kSide, r0, r1, c0, c1, values);
    if (s.ok()) {
      ++writes_ok;
    } else {
      ++failed;
      EXPECT_TRUE(s.code() == StatusCode::kIOError || s.code() == StatusCode::kCorruption)
          << s.ToString();
      EXPECT_TRUE(NamesAKey(s)) << s.ToString();
    }
    // Each unit now: the write's result, or (the write failed) as it was.
    faults_on_ = false;
    std::vector<int32_t> now(model.size());
    ASSERT_TRUE(truth->Read(Selection({{0, kSide, 1}, {0, kSide, 1}}), now).ok());
    faults_on_ = true;
    for (int64_t ur = 0; ur < kUnits; ++ur) {
      for (int64_t uc = 0; uc < kUnits; ++uc) {
        bool is_old = true, is_new = true;
        for (int64_t r = ur * kUnit; r < (ur + 1) * kUnit; ++r) {
          for (int64_t c = uc * kUnit; c < (uc + 1) * kUnit; ++c) {
            is_old = is_old && now[at(r, c)] == model[at(r, c)];
            is_new = is_new && now[at(r, c)] == written[at(r, c)];
          }
        }
        EXPECT_TRUE(is_new || (!s.ok() && is_old))
            << "op " << op << ": unit (" << ur << ", " << uc << ") is "
            << (s.ok() ? "not as the write made it" : "neither old nor new");
      }
    }
    model = std::move(now);
  }
  faults_on_ = false;
  // Retries carried (nearly) everything through.
  EXPECT_LE(failed, 1);
  EXPECT_GT(reads_ok, 10);
  EXPECT_GT(writes_ok, 5);
  EXPECT_GT(server_.requests() - requests_before, 100u);
  EXPECT_GT(injected_.load(), 15);
  std::printf("layout %d: %d reads, %d writes right, %d failed; %d faults in %llu requests\n",
              layout, reads_ok, writes_ok, failed, injected_.load(),
              static_cast<unsigned long long>(server_.requests() - requests_before));
}

std::string LayoutName(const ::testing::TestParamInfo<int>& info) {
  static const char* const kNames[] = {"Raw", "Zstd", "Sharded"};
  return kNames[info.param];
}

INSTANTIATE_TEST_SUITE_P(Layouts, RemoteFaultTest, ::testing::Values(0, 1, 2), LayoutName);

class RemoteFaultCaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start().ok());
    auto s3 = MakeS3Store("bucket", "data", S3OptionsFor(server_, FastOptions()));
    ASSERT_TRUE(s3.ok());
    auto created = Array::Create(*s3, "a", Layout(1));
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    std::vector<int32_t> values(static_cast<size_t>(kSide * kSide));
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int32_t>(i);
    ASSERT_TRUE((*created)->Write(Selection({{0, kSide, 1}, {0, kSide, 1}}),
                                  values.data())
                    .ok());
  }

  FaultHttpServer server_;
};

TEST_F(RemoteFaultCaseTest, AKeyThatAlwaysFailsIsNamedAndTheOthersWork) {
  server_.SetPolicy([](uint64_t, const std::string& path, const std::string&) {
    return path.find("/a/c/1/1") != std::string::npos ? HttpFault::kStatus500
                                                      : HttpFault::kNone;
  });
  HttpOptions o = FastOptions();
  o.max_retries = 2;
  for (bool over_s3 : {true, false}) {
    SCOPED_TRACE(over_s3 ? "S3" : "HTTP");
    auto store = over_s3 ? MakeS3Store("bucket", "data", S3OptionsFor(server_, o))
                         : MakeHttpStore(server_.url() + "/bucket/data", o);
    ASSERT_TRUE(store.ok());
    auto array = Array::Open(*store, "a");
    ASSERT_TRUE(array.ok()) << array.status().ToString();
    std::vector<int32_t> got(static_cast<size_t>(kUnit * kUnit));
    Status s = (*array)->Read(Selection({{64, 128, 1}, {64, 128, 1}}), got);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kIOError) << s.ToString();
    EXPECT_NE(s.message().find("c/1/1"), std::string::npos) << s.ToString();
    EXPECT_NE(s.message().find("500"), std::string::npos) << s.ToString();
    // A neighbour reads right.
    ASSERT_TRUE((*array)->Read(Selection({{0, 64, 1}, {64, 128, 1}}), got).ok());
    EXPECT_EQ(got[0], 64);
    EXPECT_EQ(got[65], kSide + 65);
    if (over_s3) {
      std::vector<int32_t> ones(16, 1);
      Status w = (*array)->Write(Selection({{100, 104, 1}, {100, 104, 1}}), ones.data());
      ASSERT_FALSE(w.ok());
      EXPECT_NE(w.message().find("c/1/1"), std::string::npos) << w.ToString();
      EXPECT_TRUE((*array)->Write(Selection({{0, 4, 1}, {0, 4, 1}}), ones.data()).ok());
    }
  }
}

TEST_F(RemoteFaultCaseTest, TheCallersDeadlineBoundsEveryCall) {
  server_.set_stall(milliseconds(5000));
  HttpOptions o = FastOptions();
  o.idle_timeout = milliseconds(10'000);
  o.deadline = milliseconds(400);
  for (bool over_s3 : {true, false}) {
    SCOPED_TRACE(over_s3 ? "S3" : "HTTP");
    server_.SetPolicy(nullptr);
    auto store = over_s3 ? MakeS3Store("bucket", "data", S3OptionsFor(server_, o))
                         : MakeHttpStore(server_.url() + "/bucket/data", o);
    ASSERT_TRUE(store.ok());
    auto array = Array::Open(*store, "a");
    ASSERT_TRUE(array.ok()) << array.status().ToString();
    server_.SetPolicy([](uint64_t, const std::string& path, const std::string&) {
      return path.find("/c/") != std::string::npos ? HttpFault::kStallBeforeReply
                                                   : HttpFault::kNone;
    });
    std::vector<int32_t> got(static_cast<size_t>(kSide * kSide));
    const auto start = std::chrono::steady_clock::now();
    Status s = (*array)->Read(Selection({{0, kSide, 1}, {0, kSide, 1}}), got);
    const auto took = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kIOError) << s.ToString();
    EXPECT_NE(s.message().find("no answer within the deadline of 400 ms"), std::string::npos)
        << s.ToString();
    EXPECT_TRUE(NamesAKey(s)) << s.ToString();
    EXPECT_LT(took, milliseconds(2'000)) << "the stalls last 5 s";
  }
}

TEST_F(RemoteFaultCaseTest, ARedirectToAnotherHostIsRefused) {
  server_.SetPolicy([](uint64_t, const std::string& path, const std::string&) {
    return path.find("redirected") == std::string::npos ? HttpFault::kRedirectOtherHost
                                                        : HttpFault::kNone;
  });
  for (bool over_s3 : {true, false}) {
    SCOPED_TRACE(over_s3 ? "S3" : "HTTP");
    auto store = over_s3 ? MakeS3Store("bucket", "data", S3OptionsFor(server_, FastOptions()))
                         : MakeHttpStore(server_.url() + "/bucket/data", FastOptions());
    ASSERT_TRUE(store.ok());
    auto array = Array::Open(*store, "a");
    ASSERT_FALSE(array.ok());
    EXPECT_EQ(array.status().code(), StatusCode::kIOError) << array.status().ToString();
    EXPECT_NE(array.status().message().find("a/zarr.json"), std::string::npos)
        << array.status().ToString();
    EXPECT_NE(array.status().message().find("to another host, localhost"),
              std::string::npos)
        << array.status().ToString();
  }
}

TEST_F(RemoteFaultCaseTest, AShortLengthOnAWholeChunkIsCorruptionNotValues) {
  // A server that announces and sends fewer bytes than a chunk has cannot
  // be caught by HTTP; the chunk's own size (raw) or frame (zstd) catches it.
  server_.SetPolicy([](uint64_t, const std::string& path, const std::string&) {
    return path.find("/a/c/0/0") != std::string::npos ? HttpFault::kLengthTooShort
                                                      : HttpFault::kNone;
  });
  auto store = MakeHttpStore(server_.url() + "/bucket/data", FastOptions());
  ASSERT_TRUE(store.ok());
  auto array = Array::Open(*store, "a");
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  std::vector<int32_t> got(static_cast<size_t>(kUnit * kUnit));
  Status s = (*array)->Read(Selection({{0, 64, 1}, {0, 64, 1}}), got);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("c/0/0"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace turbozarr
