// The store wrappers: each passes the store conformance suite over a memory
// store, and does what it adds (latency, bandwidth and connection limits;
// exact counts; cache hits, invalidation and the byte bound).
#include "turbozarr/store_wrappers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "store/forwarding_store.h"
#include "testing/store_conformance.h"

namespace turbozarr {
namespace {

using std::chrono::milliseconds;

INSTANTIATE_TEST_SUITE_P(
    Wrappers, StoreConformanceTest,
    ::testing::Values(StoreFactory{"throttled",
                                   [](const std::string&) {
                                     ThrottleOptions o;
                                     o.connections = 4;
                                     return Result<std::shared_ptr<Store>>(
                                         MakeThrottledStore(MakeMemoryStore(), o));
                                   }},
                      StoreFactory{"metrics",
                                   [](const std::string&) {
                                     return Result<std::shared_ptr<Store>>(
                                         MakeMetricsStore(MakeMemoryStore()));
                                   }},
                      StoreFactory{"caching",
                                   [](const std::string&) {
                                     return Result<std::shared_ptr<Store>>(
                                         MakeCachingStore(MakeMemoryStore(), 64 << 20));
                                   }},
                      StoreFactory{"caching_local",
                                   [](const std::string& dir) {
                                     auto local = MakeLocalStore(dir + "/store");
                                     if (!local.ok()) return local;
                                     return Result<std::shared_ptr<Store>>(
                                         MakeCachingStore(*local, 1 << 20));
                                   }}),
    StoreFactoryName);

double SecondsOf(const std::function<void()>& fn) {
  auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Counts the requests in flight in the store below a wrapper.
class InFlightStore final : public internal::ForwardingStore {
 public:
  InFlightStore() : ForwardingStore(MakeMemoryStore()) {}
  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override {
    int now = ++in_flight_;
    int seen = max_.load();
    while (now > seen && !max_.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(milliseconds(2));
    Status s = ForwardingStore::Read(requests, answers);
    --in_flight_;
    return s;
  }
  int max_in_flight() const { return max_; }

 private:
  std::atomic<int> in_flight_{0};
  std::atomic<int> max_{0};
};

// Every request, through Get or GetReusing, pays the latency.
TEST(ThrottledStoreTest, EveryRequestPaysTheLatency) {
  ThrottleOptions o;
  o.latency = milliseconds(20);
  o.connections = 1;
  auto store = MakeThrottledStore(MakeMemoryStore(), o);
  ASSERT_TRUE(store->Set("k", AsBytes("v")).ok());
  Buffer into;
  EXPECT_GE(SecondsOf([&] {
              for (int i = 0; i < 5; ++i) ASSERT_TRUE(store->Get("k").ok());
            }),
            0.100);
  EXPECT_GE(SecondsOf([&] {
              for (int i = 0; i < 5; ++i) {
                ASSERT_TRUE(store->GetReusing("k", ByteRange::Full(), into).ok());
              }
            }),
            0.100);
  EXPECT_EQ(into.chars(), "v");
}

TEST(ThrottledStoreTest, BandwidthIsPerConnection) {
  ThrottleOptions o;
  o.bytes_per_second = 10e6;
  auto store = MakeThrottledStore(MakeMemoryStore(), o);
  ASSERT_TRUE(store->Set("big", Buffer(1'000'000).view()).ok());  // 0.1 s itself
  EXPECT_GE(SecondsOf([&] { ASSERT_TRUE(store->Get("big").ok()); }), 0.100);
  // A 10-byte range costs next to nothing on the wire.
  EXPECT_LT(SecondsOf([&] { ASSERT_TRUE(store->Get("big", ByteRange::Of(0, 10)).ok()); }),
            0.050);
}

TEST(ThrottledStoreTest, GetManyOverlapsRequestsUpToTheConnectionLimit) {
  auto inner = std::make_shared<InFlightStore>();
  ThrottleOptions o;
  o.latency = milliseconds(20);
  o.connections = 8;
  auto store = MakeThrottledStore(inner, o);
  std::vector<KeyRange> reads;
  for (int i = 0; i < 32; ++i) {
    std::string key = "k/" + std::to_string(i);
    ASSERT_TRUE(store->Set(key, AsBytes(key)).ok());
    reads.push_back({key, ByteRange::Full()});
  }
  Result<std::vector<std::optional<Buffer>>> got = Status::Unsupported("not run");
  const double s = SecondsOf([&] { got = store->GetMany(reads); });
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (int i = 0; i < 32; ++i) {
    ASSERT_TRUE((*got)[i].has_value());
    EXPECT_EQ((*got)[i]->chars(), "k/" + std::to_string(i));
  }
  // 32 requests on 8 connections: 4 rounds of 20 ms, not 32.
  EXPECT_GE(s, 0.080);
  EXPECT_LT(s, 0.600);  // serially: 32 x 20 ms = 0.64 s
  EXPECT_LE(inner->max_in_flight(), 8);
  EXPECT_GE(inner->max_in_flight(), 2);
}

TEST(MetricsStoreTest, CountsEveryRequestAndByte) {
  auto store = MakeMetricsStore(MakeMemoryStore());
  ASSERT_TRUE(store->Set("a", AsBytes("12345")).ok());
  ASSERT_TRUE(store->SetBuffer("b/c", Buffer::FromString("xy")).ok());  // a Set too
  ASSERT_TRUE(store->Get("a").ok());
  ASSERT_TRUE(store->Get("a", ByteRange::Of(1, 2)).ok());
  ASSERT_TRUE(store->Get("missing").ok());
  std::vector<KeyRange> reads = {
      {"a", ByteRange::Full()}, {"b/c", ByteRange::Full()}, {"nope", ByteRange::Full()}};
  ASSERT_TRUE(store->GetMany(reads).ok());
  Buffer into;
  ASSERT_TRUE(store->GetReusing("b/c", ByteRange::Full(), into).ok());
  ASSERT_TRUE(store->GetReusing("gone", ByteRange::Full(), into).ok());
  ASSERT_TRUE(store->Erase("a").ok());
  ASSERT_TRUE(store->List("").ok());
  StoreMetrics m = store->metrics();
  EXPECT_EQ(m.sets, 2u);
  EXPECT_EQ(m.bytes_written, 7u);
  EXPECT_EQ(m.gets, 8u);  // 3 Gets + the 3 reads of one GetMany + 2 GetReusing
  EXPECT_EQ(m.get_misses, 3u);
  EXPECT_EQ(m.bytes_read, 5u + 2u + 5u + 2u + 2u);
  EXPECT_EQ(m.get_many_calls, 1u);
  EXPECT_EQ(m.erases, 1u);
  EXPECT_EQ(m.lists, 1u);
  EXPECT_GT(m.seconds, 0.0);
  store->ResetMetrics();
  EXPECT_EQ(store->metrics().gets, 0u);
  EXPECT_EQ(store->metrics().seconds, 0.0);
}

TEST(CachingStoreTest, HitsSkipTheInnerStoreAndWritesInvalidate) {
  auto inner = MakeMetricsStore(MakeMemoryStore());
  auto store = MakeCachingStore(inner, 1 << 20);
  ASSERT_TRUE(store->Set("k", AsBytes("old")).ok());
  for (int i = 0; i < 3; ++i) {
    auto r = store->Get("k");
    ASSERT_TRUE(r.ok() && r->has_value());
    EXPECT_EQ((*r)->chars(), "old");
  }
  EXPECT_EQ(inner->metrics().gets, 1u);
  // A range is its own entry.
  EXPECT_EQ((*store->Get("k", ByteRange::Of(1, 2)))->chars(), "ld");
  EXPECT_EQ((*store->Get("k", ByteRange::Of(1, 2)))->chars(), "ld");
  EXPECT_EQ(inner->metrics().gets, 2u);
  // Writing through the cache drops every range it held of the key.
  ASSERT_TRUE(store->Set("k", AsBytes("new")).ok());
  EXPECT_EQ((*store->Get("k"))->chars(), "new");
  EXPECT_EQ((*store->Get("k", ByteRange::Of(1, 2)))->chars(), "ew");
  EXPECT_EQ(inner->metrics().gets, 4u);
  ASSERT_TRUE(store->Erase("k").ok());
  EXPECT_FALSE(store->Get("k")->has_value());
  // Absent keys are not cached: they may appear.
  EXPECT_EQ(inner->metrics().gets, 5u);
  // Reads into reused buffers are cached and served like Gets.
  ASSERT_TRUE(store->Set("r", AsBytes("reused")).ok());
  Buffer into;
  for (int i = 0; i < 3; ++i) {
    auto r = store->GetReusing("r", ByteRange::Full(), into);
    ASSERT_TRUE(r.ok() && *r);
    EXPECT_EQ(into.chars(), "reused");
  }
  EXPECT_EQ(inner->metrics().gets, 6u);
}

// Every store that can tell which stored value a read came from says so
// (ReadAnswer::version), a replaced value gets a new version, and the
// caching wrapper hands out the version of the read that filled it.
TEST(ReadVersionTest, ReplacedValuesGetNewVersionsAndCachedReadsKeepTheirs) {
  auto version_of = [](Store& s, ByteRange range) {
    Buffer out;
    ReadAnswer answer;
    const ReadRequest request = ReadRequest::NewBuffer("k", range, out);
    EXPECT_TRUE(s.Read({&request, 1}, {&answer, 1}).ok());
    EXPECT_TRUE(answer.found);
    return answer.version;
  };
  const std::string dir = MakeScratchDir();
  std::vector<std::shared_ptr<Store>> stores = {MakeMemoryStore(), *MakeLocalStore(dir)};
  for (const std::shared_ptr<Store>& store : stores) {
    SCOPED_TRACE(store->Describe());
    ASSERT_TRUE(store->Set("k", AsBytes("first value")).ok());
    const uint64_t first = version_of(*store, ByteRange::Full());
    EXPECT_NE(first, 0u);
    EXPECT_EQ(version_of(*store, ByteRange::Of(2, 3)), first);
    ASSERT_TRUE(store->Set("k", AsBytes("other value")).ok());  // same size
    const uint64_t second = version_of(*store, ByteRange::Full());
    EXPECT_NE(second, 0u);
    EXPECT_NE(second, first);

    std::shared_ptr<Store> cached = MakeCachingStore(store, 1 << 20);
    EXPECT_EQ(version_of(*cached, ByteRange::Of(0, 4)), second);  // a miss
    EXPECT_EQ(version_of(*cached, ByteRange::Of(0, 4)), second);  // a hit
  }
  RemoveScratchDir(dir);
}

TEST(CachingStoreTest, EvictsLeastRecentlyUsedBeyondTheByteBound) {
  auto inner = MakeMetricsStore(MakeMemoryStore());
  auto store = MakeCachingStore(inner, 250);  // room for two 100-byte values
  for (const char* k : {"a", "b", "c"})
    ASSERT_TRUE(store->Set(k, Buffer(100).view()).ok());
  ASSERT_TRUE(store->Get("a").ok());
  ASSERT_TRUE(store->Get("b").ok());
  ASSERT_TRUE(store->Get("a").ok());  // hit; "b" is now the oldest
  EXPECT_EQ(inner->metrics().gets, 2u);
  ASSERT_TRUE(store->Get("c").ok());  // evicts "b"
  ASSERT_TRUE(store->Get("a").ok());  // still cached
  EXPECT_EQ(inner->metrics().gets, 3u);
  ASSERT_TRUE(store->Get("b").ok());  // was evicted
  EXPECT_EQ(inner->metrics().gets, 4u);
  // A value bigger than the whole cache is served but never held.
  ASSERT_TRUE(store->Set("huge", Buffer(1000).view()).ok());
  ASSERT_TRUE(store->Get("huge").ok());
  ASSERT_TRUE(store->Get("huge").ok());
  EXPECT_EQ(inner->metrics().gets, 6u);
}

TEST(CachingStoreTest, GetManySendsOnlyTheMissesOnTogether) {
  auto inner = MakeMetricsStore(MakeMemoryStore());
  auto store = MakeCachingStore(inner, 1 << 20);
  for (const char* k : {"a", "b", "c"}) ASSERT_TRUE(store->Set(k, AsBytes(k)).ok());
  ASSERT_TRUE(store->Get("b").ok());
  inner->ResetMetrics();
  std::vector<KeyRange> reads = {{"a", ByteRange::Full()},
                                 {"b", ByteRange::Full()},
                                 {"c", ByteRange::Full()},
                                 {"x", ByteRange::Full()}};
  auto got = store->GetMany(reads);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)[0]->chars(), "a");
  EXPECT_EQ((*got)[1]->chars(), "b");
  EXPECT_EQ((*got)[2]->chars(), "c");
  EXPECT_FALSE((*got)[3].has_value());
  EXPECT_EQ(inner->metrics().get_many_calls, 1u);
  EXPECT_EQ(inner->metrics().gets, 3u);  // a, c and x; b was a hit
}

}  // namespace
}  // namespace turbozarr
