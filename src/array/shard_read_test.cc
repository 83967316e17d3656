// Sharded reads over stores that prefer many requests in flight (remote
// stores, here a throttled memory store): the indexes of the shards in
// GetMany slices, then the merged inner-chunk ranges in GetMany slices,
// with the same values, fill and errors as the local path.
#include "array/shard_read.h"

#include <gtest/gtest.h>

#include <cstring>

#include "testing/int32_array_fixtures.h"
#include "turbozarr/array.h"
#include "turbozarr/config.h"
#include "turbozarr/store_wrappers.h"

namespace turbozarr {
namespace {

using namespace fixtures;  // NOLINT: the shared test fixtures

// A memory store behind a throttle of 16 connections: reads of it go in
// GetMany slices of 4, 16 in flight (as long as the pool has fewer
// threads), counted.
struct RemoteStore {
  std::shared_ptr<Store> memory = MakeMemoryStore();
  std::shared_ptr<MetricsStore> remote =
      MakeMetricsStore(MakeThrottledStore(memory, {.connections = 16}));
};

// 1-D: `shards` shards of 8 inner chunks of 8192 int32 (32 KiB each, stored
// raw, index at the end).
constexpr int64_t kInner = 8192;
constexpr int64_t kIndexBytes = 8 * 16 + 4;
constexpr int64_t kChunkBytes = kInner * 4;

std::vector<int32_t> Read(const Array& a, const Selection& sel) {
  std::vector<int32_t> out(static_cast<size_t>(sel.num_elements()), 12345);
  Status s = a.Read(sel, out);
  EXPECT_TRUE(s.ok()) << sel.ToString() << ": " << s.ToString();
  return out;
}

std::vector<int32_t> Strided(const std::vector<int32_t>& model, const Selection& sel) {
  std::vector<int32_t> out;
  const DimRange& d = sel.dims()[0];
  for (int64_t i = d.start; i < d.stop; i += d.step) out.push_back(model[i]);
  return out;
}

TEST(ShardedRemoteReadTest, IndexesOnceThenMergedRangesInGetManyWindows) {
  ASSERT_TRUE(SetThreads(2).ok());
  RemoteStore s;
  const int64_t n = 20 * 8 * kInner;  // 20 shards: five slices of indexes
  auto a = Array::Create(
      s.remote, "a",
      Int32Metadata({n}, {8 * kInner}, Sharded({kInner}, json::array({kLittle}), "end")));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const std::vector<int32_t> model = Pattern(n, 5);
  ASSERT_TRUE((*a)->Write(Selection::All({n}), model.data()).ok());
  struct Case {
    const char* what;
    Selection sel;
    uint64_t get_many_calls;  // windows of more than one read
    uint64_t reads;
    uint64_t bytes;
  };
  const std::vector<Case> cases = {
      // One index and one inner chunk: two windows of one read each.
      {"one element", Selection({{5, 6, 1}}), 0, 2, kIndexBytes + kChunkBytes},
      // Chunks 0 and 2 of shard 0: the 32 KiB between them is read too.
      {"a small gap", Selection({{0, 2 * kInner + 1, 2 * kInner}}), 0, 2,
       kIndexBytes + 3 * kChunkBytes},
      // Every shard whole: each fetched whole with its index in one read
      // (5 slices of 4), and nothing left for a range phase.
      {"everything", Selection::All({n}), 5, 20, 20 * (kIndexBytes + 8 * kChunkBytes)},
      // Shards 1-19 whole, shard 0 without its first inner chunk: its index,
      // then one merged read of the other seven (a window of one).
      {"all but one inner chunk", Selection({{kInner, n, 1}}), 5, 21,
       20 * (kIndexBytes + 8 * kChunkBytes) - kChunkBytes},
      // Chunks 0 and 4 of every shard, 96 KiB apart: two reads per shard,
      // the 20 indexes and then the 40 ranges in slices of 4.
      {"large gaps", Selection({{0, n, 4 * kInner}}), 15, 60,
       20 * (kIndexBytes + 2 * kChunkBytes)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    s.remote->ResetMetrics();
    EXPECT_EQ(Read(**a, c.sel), Strided(model, c.sel));
    const StoreMetrics m = s.remote->metrics();
    EXPECT_EQ(m.get_many_calls, c.get_many_calls);
    EXPECT_EQ(m.gets, c.reads);  // every one of them inside a GetMany
    EXPECT_EQ(m.bytes_read, c.bytes);
  }
}

TEST(ShardedRemoteReadTest, FillAndErrorsAsOnLocalStores) {
  ASSERT_TRUE(SetThreads(2).ok());
  RemoteStore s;
  const std::vector<int64_t> shape = {32, 8};  // 8 shards of 4 x 8, inner 2 x 2
  auto a = Array::Create(
      s.remote, "a",
      Int32Metadata(shape, {4, 8},
                    Sharded({2, 2}, json::array({kLittle, kZstd, kCrc}), "start")));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  std::vector<int32_t> model = Pattern(NumElements(shape), 2);
  // Rows 4 and 5 of fill: four inner chunks of shard 1 are not stored.
  for (int64_t r = 4; r < 6; ++r) {
    for (int64_t c = 0; c < 8; ++c) model[r * 8 + c] = kFill;
  }
  ASSERT_TRUE((*a)->Write(Selection::All(shape), model.data()).ok());
  ASSERT_TRUE(s.memory->Erase("a/c/6/0").ok());  // a missing shard
  for (int64_t r = 24; r < 28; ++r) {
    for (int64_t c = 0; c < 8; ++c) model[r * 8 + c] = kFill;
  }
  EXPECT_EQ(Read(**a, Selection::All(shape)), model);
  // Inner chunks of fill and missing shards cost their index read only.
  s.remote->ResetMetrics();
  EXPECT_EQ(Read(**a, Selection({{4, 6, 1}, {0, 8, 1}})),
            std::vector<int32_t>(16, kFill));
  EXPECT_EQ(Read(**a, Selection({{24, 28, 1}, {0, 8, 1}})),
            std::vector<int32_t>(32, kFill));
  EXPECT_EQ(s.remote->metrics().get_many_calls, 0u);  // two windows of one read
  EXPECT_EQ(s.remote->metrics().gets, 2u);
  EXPECT_EQ(s.remote->metrics().get_misses, 1u);
  EXPECT_EQ(Read(**a, Selection({{1, 31, 3}, {1, 8, 2}})), [&] {
    std::vector<int32_t> v;
    for (int64_t r = 1; r < 31; r += 3) {
      for (int64_t c = 1; c < 8; c += 2) v.push_back(model[r * 8 + c]);
    }
    return v;
  }());

  // A flipped byte in an inner chunk of the last shard, and a shard shorter
  // than its index: Corruption naming the shard (and the inner chunk).
  auto shard = s.memory->Get("a/c/7/0");
  ASSERT_TRUE(shard.ok() && shard->has_value());
  Buffer bad = **shard;
  bad.data()[bad.size() - 3] ^= std::byte{0x10};
  ASSERT_TRUE(s.memory->Set("a/c/7/0", bad.view()).ok());
  std::vector<int32_t> out(model.size());
  Status st = (*a)->Read(Selection::All(shape), out);
  EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find("'a/c/7/0', inner chunk [1, "), std::string::npos)
      << st.message();
  ASSERT_TRUE(s.memory->Set("a/c/7/0", (*shard)->view().first(9)).ok());
  st = (*a)->Read(Selection::All(shape), out);
  EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find("'a/c/7/0': shard of 9 bytes"), std::string::npos)
      << st.message();
}

}  // namespace
}  // namespace turbozarr

namespace turbozarr {
namespace {

// Rectilinear shards of 8 and 16 inner chunks: each shard's index has its
// own size, and a read of part of a shard reads its index and the inner
// chunks it needs, remotely and locally alike.
TEST(ShardedRemoteReadTest, RectilinearShardsAreReadInnerChunkByInnerChunk) {
  ASSERT_TRUE(SetThreads(2).ok());
  for (const bool remote : {true, false}) {
    SCOPED_TRACE(remote ? "remote" : "local");
    RemoteStore s;
    std::shared_ptr<MetricsStore> store = remote ? s.remote : MakeMetricsStore(s.memory);
    const int64_t n = 24 * kInner;
    ArrayMetadata m =
        Int32Metadata({n}, {16 * kInner}, Sharded({kInner}, json::array({kLittle}), "end"));
    m.chunk_edges = {{{8 * kInner, 1}, {16 * kInner, 1}}};
    m.UpdateRectilinearChunkShape();
    auto a = Array::Create(store, "a", m);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_FALSE((*a)->regular_grid());
    const std::vector<int32_t> model = Pattern(n, 3);
    ASSERT_TRUE((*a)->Write(Selection::All({n}), model.data()).ok());
    const int64_t big_index = 16 * 16 + 4;
    struct Case {
      const char* what;
      Selection sel;
      uint64_t reads;
      uint64_t bytes;
    };
    const std::vector<Case> cases = {
        {"one element of the small shard", Selection({{5, 6, 1}}), 2,
         kIndexBytes + kChunkBytes},
        {"one element of the big shard", Selection({{20 * kInner + 5, 20 * kInner + 6, 1}}),
         2, big_index + kChunkBytes},
        {"one element of each", Selection({{7 * kInner, 9 * kInner, kInner}}), 4,
         kIndexBytes + big_index + 2 * kChunkBytes},
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(c.what);
      store->ResetMetrics();
      EXPECT_EQ(Read(**a, c.sel), Strided(model, c.sel));
      const StoreMetrics got = store->metrics();
      EXPECT_EQ(got.gets, c.reads);
      EXPECT_EQ(got.bytes_read, c.bytes);
    }
    // A partial write rewrites the shard it touches at its own size: the
    // 16-chunk shard keeps its 16 inner chunks and its 16-entry index.
    std::vector<int32_t> ones(kInner, 1);
    ASSERT_TRUE((*a)->Write(Selection({{9 * kInner, 10 * kInner, 1}}), ones.data()).ok());
    Result<std::optional<Buffer>> shard = s.memory->Get("a/c/1");
    ASSERT_TRUE(shard.ok() && shard->has_value());
    EXPECT_EQ((*shard)->size(), static_cast<size_t>(16 * kChunkBytes + big_index));
    std::vector<int32_t> expected = model;
    std::fill(expected.begin() + 9 * kInner, expected.begin() + 10 * kInner, 1);
    EXPECT_EQ(Read(**a, Selection::All({n})), expected);
  }
}

}  // namespace
}  // namespace turbozarr
