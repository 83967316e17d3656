// CopyByUnits: every pair of layouts it accepts copies every element, missing
// and all-fill chunks follow the destination's fill value, both the
// unit-per-thread and the one-unit-at-a-time routes, shards re-encoded inner
// chunk by inner chunk store what a write stores, progress, and the arrays it
// turns away. CopyArray: the route it takes, streamed blocks for the layouts
// that cannot go unit by unit (blocks the source stores nothing for are
// skipped), its progress and its refusals.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "array/shard_transcode.h"
#include "testing/int32_array_fixtures.h"
#include "turbozarr/array.h"
#include "turbozarr/array_copy.h"
#include "turbozarr/config.h"
#include "turbozarr/store_wrappers.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using namespace fixtures;  // NOLINT: the shared test fixtures

const std::vector<int64_t> kShape = {21, 26};

// Restores the default pool's size after a test that changes it.
class PoolSize {
 public:
  ~PoolSize() { EXPECT_TRUE(SetThreads(2).ok()); }
};

std::shared_ptr<Array> Make(const std::shared_ptr<Store>& store, const std::string& path,
                            std::vector<int64_t> chunks, json codecs,
                            int32_t fill = kFill) {
  ArrayMetadata m = Int32Metadata(kShape, std::move(chunks), std::move(codecs));
  std::memcpy(m.fill_value.bytes.data(), &fill, 4);
  auto a = Array::Create(store, path, std::move(m));
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  return a.ok() ? *a : nullptr;
}

std::vector<int32_t> ReadAll(const Array& a) {
  std::vector<int32_t> all(static_cast<size_t>(NumElements(kShape)));
  Status s = a.Read(Selection::All(kShape), all);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return all;
}

// Fills the source with a pattern except rows [8, 16), which stay unwritten
// (no chunk of the unsharded layouts stores them).
std::vector<int32_t> FillSource(Array& src) {
  std::vector<int32_t> model(static_cast<size_t>(NumElements(kShape)), kFill);
  for (const auto& [start, stop] : {std::pair<int64_t, int64_t>{0, 8}, {16, 21}}) {
    Selection rows({{start, stop, 1}, {0, kShape[1], 1}});
    std::vector<int32_t> values = Pattern(rows.num_elements(), static_cast<int32_t>(start));
    EXPECT_TRUE(src.Write(rows, values.data()).ok());
    std::copy(values.begin(), values.end(), model.begin() + start * kShape[1]);
  }
  return model;
}

bool Has(Store& store, const std::string& key) {
  auto got = store.Get(key, ByteRange::Full());
  EXPECT_TRUE(got.ok());
  return got.ok() && got->has_value();
}

struct Layout {
  std::vector<int64_t> chunks;
  json codecs;
};

TEST(CopyByUnitsTest, CopiesEveryAcceptedLayoutPair) {
  PoolSize restore;
  const std::vector<Layout> sources = {
      {{4, 13}, json::array({kLittle, kZstd})},
      {{8, 13}, Sharded({4, 13}, json::array({kLittle, kGzip}), "end")},
      {{4, 13}, json::array({kTranspose, kLittle, kBlosc})},
  };
  // Each destination unit holds whole (inner) chunks of every source above.
  const std::vector<Layout> dests = {
      {{4, 13}, json::array({kBig, kCrc})},
      {{8, 26}, json::array({kLittle, kZstd})},
      {{8, 26}, Sharded({4, 13}, json::array({kLittle, kZstd, kCrc}), "start")},
      {{16, 26}, Sharded({8, 13}, json::array({kLittle}), "end")},
      // Sharded as the second source: copied inner chunk by inner chunk.
      {{8, 13}, Sharded({4, 13}, json::array({kLittle, kZstd, kCrc}), "start")},
      {{8, 13}, Sharded({4, 13}, json::array({kBig}), "end")},
  };
  for (int threads : {1, 3}) {
    ASSERT_TRUE(SetThreads(threads).ok());
    for (uint64_t budget : {uint64_t{256} << 20, uint64_t{1}}) {
      for (const Layout& from : sources) {
        for (const Layout& to : dests) {
          SCOPED_TRACE(from.codecs.dump() + " -> " + to.codecs.dump() + ", threads " +
                       std::to_string(threads) + ", budget " + std::to_string(budget));
          auto store = MakeMemoryStore();
          auto src = Make(store, "src", from.chunks, from.codecs);
          auto dst = Make(store, "dst", to.chunks, to.codecs);
          const std::vector<int32_t> model = FillSource(*src);
          ASSERT_TRUE(CanCopyByUnits(*src, *dst));
          CopyOptions options;
          options.memory_budget = budget;
          Status s = CopyByUnits(*src, *dst, options);
          ASSERT_TRUE(s.ok()) << s.ToString();
          EXPECT_EQ(ReadAll(*dst), model);
          // Rows [8, 16) are all fill value: the unsharded destinations with
          // 4-row chunks store nothing for them.
          if (to.chunks[0] == 4) {
            EXPECT_FALSE(Has(*store, dst->ChunkKey({2, 0})));
          }
        }
      }
    }
  }
}

// Between arrays sharded alike, the copy goes inner chunk by inner chunk and
// stores exactly what a write of the same elements stores, shard for shard.
TEST(CopyByUnitsTest, ShardsCopiedInnerChunkByInnerChunkMatchAWrite) {
  const json from = Sharded({4, 13}, json::array({kLittle, kGzip}), "end");
  for (const json& to : {Sharded({4, 13}, json::array({kLittle, kZstd, kCrc}), "start"),
                         Sharded({4, 13}, json::array({kBig}), "end"),
                         Sharded({4, 13}, json::array({kTranspose, kLittle, kBlosc}),
                                 "end")}) {
    SCOPED_TRACE(to.dump());
    auto store = MakeMemoryStore();
    auto src = Make(store, "src", {8, 13}, from);
    const std::vector<int32_t> model = FillSource(*src);
    // Part of a stored shard all fill value: rows 16-19 of shard (2, 0).
    std::vector<int32_t> fill(4 * 13, kFill);
    ASSERT_TRUE(src->Write(Selection({{16, 20, 1}, {0, 13, 1}}), fill.data()).ok());
    std::vector<int32_t> want = model;
    for (int64_t r = 16; r < 20; ++r) std::fill_n(want.begin() + r * 26, 13, kFill);

    auto dst = Make(store, "dst", {8, 13}, to);
    auto ref = Make(store, "ref", {8, 13}, to);
    ASSERT_TRUE(internal::CanTranscodeShards(*src, *dst));
    ASSERT_TRUE(CopyByUnits(*src, *dst).ok());
    ASSERT_TRUE(ref->Write(Selection::All(kShape), want.data()).ok());
    EXPECT_EQ(ReadAll(*dst), want);
    for (int64_t r = 0; r < 3; ++r) {
      for (int64_t c = 0; c < 2; ++c) {
        auto got = store->Get(dst->ChunkKey({r, c}), ByteRange::Full());
        auto expected = store->Get(ref->ChunkKey({r, c}), ByteRange::Full());
        ASSERT_TRUE(got.ok() && expected.ok());
        ASSERT_EQ(got->has_value(), expected->has_value()) << r << "," << c;
        if (got->has_value()) {
          EXPECT_EQ((*got)->chars(), (*expected)->chars()) << r << "," << c;
        }
      }
    }
  }
  // write_empty_chunks stores the shards and inner chunks the source leaves
  // out (rows 8-15 are not stored in the source).
  {
    auto store = MakeMemoryStore();
    auto src = Make(store, "src", {8, 13}, from);
    const std::vector<int32_t> model = FillSource(*src);
    ASSERT_FALSE(Has(*store, src->ChunkKey({1, 0})));
    auto every = Make(store, "every", {8, 13}, from);
    CopyOptions options;
    options.write.write_empty_chunks = true;
    ASSERT_TRUE(CopyByUnits(*src, *every, options).ok());
    EXPECT_TRUE(Has(*store, every->ChunkKey({1, 0})));
    EXPECT_EQ(ReadAll(*every), model);
  }
  // Another fill value, shard shape or inner chunk shape: element by element.
  auto store = MakeMemoryStore();
  auto src = Make(store, "src", {8, 13}, from);
  EXPECT_FALSE(internal::CanTranscodeShards(
      *src, *Make(store, "fill", {8, 13}, from, /*fill=*/0)));
  EXPECT_FALSE(internal::CanTranscodeShards(*src, *Make(store, "shard", {8, 26}, from)));
  EXPECT_FALSE(internal::CanTranscodeShards(
      *src, *Make(store, "inner", {8, 13}, Sharded({8, 13}, json::array({kLittle}), "end"))));
  EXPECT_FALSE(internal::CanTranscodeShards(
      *src, *Make(store, "plain", {8, 13}, json::array({kLittle}))));
}

TEST(CopyByUnitsTest, FillValuesFollowTheDestination) {
  auto store = MakeMemoryStore();
  auto src = Make(store, "src", {4, 13}, json::array({kLittle}));
  const std::vector<int32_t> model = FillSource(*src);

  // The same fill value: nothing is stored for the unwritten rows.
  auto same = Make(store, "same", {4, 13}, json::array({kLittle}));
  ASSERT_TRUE(CopyByUnits(*src, *same).ok());
  EXPECT_EQ(ReadAll(*same), model);
  EXPECT_FALSE(Has(*store, same->ChunkKey({2, 1})));
  EXPECT_TRUE(Has(*store, same->ChunkKey({1, 1})));

  // Another fill value: the source's fill value is stored as data.
  auto other = Make(store, "other", {4, 13}, json::array({kLittle}), /*fill=*/0);
  ASSERT_TRUE(CopyByUnits(*src, *other).ok());
  EXPECT_EQ(ReadAll(*other), model);
  EXPECT_TRUE(Has(*store, other->ChunkKey({2, 1})));

  // write_empty_chunks stores every chunk.
  auto every = Make(store, "every", {4, 13}, json::array({kLittle}));
  CopyOptions options;
  options.write.write_empty_chunks = true;
  ASSERT_TRUE(CopyByUnits(*src, *every, options).ok());
  EXPECT_TRUE(Has(*store, every->ChunkKey({2, 1})));
  EXPECT_EQ(ReadAll(*every), model);
}

TEST(CopyByUnitsTest, ErasesWhatTheDestinationHeld) {
  auto store = MakeMemoryStore();
  auto src = Make(store, "src", {4, 13}, json::array({kLittle}));
  const std::vector<int32_t> model = FillSource(*src);
  auto dst = Make(store, "dst", {4, 13}, json::array({kLittle, kZstd}));
  std::vector<int32_t> old = Pattern(NumElements(kShape), 99);
  ASSERT_TRUE(dst->Write(Selection::All(kShape), old.data()).ok());
  ASSERT_TRUE(Has(*store, dst->ChunkKey({2, 1})));
  ASSERT_TRUE(CopyByUnits(*src, *dst).ok());
  EXPECT_EQ(ReadAll(*dst), model);
  EXPECT_FALSE(Has(*store, dst->ChunkKey({2, 1})));
}

TEST(CopyByUnitsTest, ReportsProgressUpToTheWholeArray) {
  PoolSize restore;
  ASSERT_TRUE(SetThreads(3).ok());
  auto store = MakeMemoryStore();
  auto src = Make(store, "src", {4, 13}, json::array({kLittle}));
  FillSource(*src);
  auto dst = Make(store, "dst", {8, 13}, json::array({kLittle}));
  std::vector<uint64_t> seen;
  CopyOptions options;
  options.progress = [&](uint64_t bytes) { seen.push_back(bytes); };
  ASSERT_TRUE(CopyByUnits(*src, *dst, options).ok());
  ASSERT_EQ(seen.size(), 3u * 2u);  // units of 8 x 13 over 21 x 26
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(seen.back(), static_cast<uint64_t>(NumElements(kShape)) * 4);
}

TEST(CopyByUnitsTest, TurnsAwayArraysItCannotCopyUnitByUnit) {
  auto store = MakeMemoryStore();
  auto src = Make(store, "src", {4, 13}, json::array({kLittle}));
  // Chunks that cut the source's: a unit would decode source chunks twice.
  auto cut = Make(store, "cut", {6, 13}, json::array({kLittle}));
  // Chunks smaller than the source's: each source chunk would be decoded
  // once per unit.
  auto fine = Make(store, "fine", {2, 13}, json::array({kLittle}));
  ArrayMetadata wider = Int32Metadata({21, 27}, {4, 13}, json::array({kLittle}));
  auto other_shape = *Array::Create(store, "shape", wider);
  ArrayMetadata floats = Int32Metadata(kShape, {4, 13}, json::array({kLittle}));
  floats.dtype = DataType(DataTypeId::kFloat32);
  floats.fill_value = DefaultFillValue(floats.dtype);
  auto other_type = *Array::Create(store, "type", floats);

  for (const auto& dst : {cut, fine, other_shape, other_type}) {
    SCOPED_TRACE(dst->Describe());
    EXPECT_FALSE(CanCopyByUnits(*src, *dst));
    Status s = CopyByUnits(*src, *dst);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find(src->Describe()), std::string::npos) << s.ToString();
    EXPECT_NE(s.message().find(dst->Describe()), std::string::npos) << s.ToString();
  }

  // A source whose store wants more requests in flight than there are
  // threads (a remote one) is left to block reads.
  ThrottleOptions throttle;
  throttle.connections = 64;
  auto remote = MakeThrottledStore(store, throttle);
  auto far = Array::Open(remote, "src");
  ASSERT_TRUE(far.ok());
  auto same = Make(store, "same", {4, 13}, json::array({kLittle}));
  EXPECT_TRUE(CanCopyByUnits(*src, *same));
  EXPECT_FALSE(CanCopyByUnits(**far, *same));
}

TEST(CopyByUnitsTest, NamesTheChunkThatFails) {
  auto store = MakeMemoryStore();
  auto src = Make(store, "src", {4, 13}, json::array({kLittle, kZstd}));
  FillSource(*src);
  const std::string bad = src->ChunkKey({3, 1});
  ASSERT_TRUE(store->Set(bad, Buffer::FromString("not zstd").view()).ok());
  auto dst = Make(store, "dst", {4, 13}, json::array({kLittle}));
  Status s = CopyByUnits(*src, *dst);
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
  EXPECT_NE(s.ToString().find(bad), std::string::npos) << s.ToString();
}

TEST(CopyByUnitsTest, NamesTheShardThatFails) {
  const json sharded = Sharded({4, 13}, json::array({kLittle, kZstd}), "end");
  auto store = MakeMemoryStore();
  auto src = Make(store, "src", {8, 13}, sharded);
  FillSource(*src);
  auto dst = Make(store, "dst", {8, 13}, sharded);
  ASSERT_TRUE(internal::CanTranscodeShards(*src, *dst));
  const std::string bad = src->ChunkKey({1, 1});
  ASSERT_TRUE(store->Set(bad, Buffer::FromString("short").view()).ok());
  Status s = CopyByUnits(*src, *dst);
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
  EXPECT_NE(s.ToString().find(bad), std::string::npos) << s.ToString();
}

TEST(CopyArrayTest, GoesUnitByUnitWhenItCan) {
  auto store = MakeMemoryStore();
  auto src = Make(store, "src", {4, 13}, json::array({kLittle, kZstd}));
  const std::vector<int32_t> model = FillSource(*src);
  auto dst = Make(store, "dst", {8, 26}, Sharded({4, 13}, json::array({kLittle}), "end"));
  auto report = CopyArray(*src, *dst);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->route, CopyReport::Route::kUnits);
  EXPECT_EQ(report->written, 3);
  EXPECT_EQ(report->total, 3);
  EXPECT_EQ(ReadAll(*dst), model);
}

TEST(CopyArrayTest, StreamsBlocksAndSkipsWhatTheSourceDoesNotStore) {
  PoolSize restore;
  ASSERT_TRUE(SetThreads(2).ok());
  auto store = MakeMemoryStore();
  auto src = Make(store, "src", {4, 13}, json::array({kLittle, kZstd}));
  const std::vector<int32_t> model = FillSource(*src);
  // Destinations whose units cut the source's chunks or are smaller, with
  // and without shards, and a copy from a store that wants many requests
  // in flight.
  ThrottleOptions throttle;
  throttle.connections = 64;
  auto far = Array::Open(MakeThrottledStore(store, throttle), "src");
  ASSERT_TRUE(far.ok());
  const std::vector<std::pair<std::shared_ptr<Array>, std::shared_ptr<Array>>> pairs = {
      {src, Make(store, "fine", {2, 13}, json::array({kLittle}))},
      {src, Make(store, "cut", {6, 13}, json::array({kLittle, kGzip}))},
      {src, Make(store, "sharded", {6, 26}, Sharded({3, 13}, json::array({kLittle}), "end"))},
      {*far, Make(store, "near", {4, 13}, json::array({kLittle}))},
  };
  for (const auto& [from, to] : pairs) {
    SCOPED_TRACE(from->Describe() + " -> " + to->Describe());
    ASSERT_FALSE(CanCopyByUnits(*from, *to));
    std::vector<uint64_t> seen;
    CopyOptions options;
    options.memory_budget = 1;  // one destination unit per block
    options.progress = [&](uint64_t bytes) { seen.push_back(bytes); };
    auto report = CopyArray(*from, *to, options);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->route, CopyReport::Route::kBlocks);
    EXPECT_EQ(ReadAll(*to), model);
    const std::vector<int64_t>& unit = to->metadata().chunk_shape;
    EXPECT_EQ(report->total, ((21 + unit[0] - 1) / unit[0]) * ((26 + unit[1] - 1) / unit[1]));
    ASSERT_EQ(seen.size(), static_cast<size_t>(report->total));
    EXPECT_EQ(seen.back(), static_cast<uint64_t>(NumElements(kShape)) * 4);
    // Rows [8, 16) are not stored: 2-row blocks over them are not written.
    if (unit[0] == 2) {
      EXPECT_EQ(report->written, report->total - 4 * 2);
    }
  }
}

TEST(CopyArrayTest, RefusesArraysOfAnotherShapeOrType) {
  auto store = MakeMemoryStore();
  auto src = Make(store, "src", {4, 13}, json::array({kLittle}));
  ArrayMetadata floats = Int32Metadata(kShape, {4, 13}, json::array({kLittle}));
  floats.dtype = DataType(DataTypeId::kFloat32);
  floats.fill_value = DefaultFillValue(floats.dtype);
  auto other_type = *Array::Create(store, "type", floats);
  auto other_shape =
      *Array::Create(store, "shape", Int32Metadata({3, 3}, {3, 3}, json::array({kLittle})));
  for (const auto& dst : {other_type, other_shape}) {
    auto report = CopyArray(*src, *dst);
    EXPECT_EQ(report.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(report.status().message().find(src->Describe()), std::string::npos);
    EXPECT_NE(report.status().message().find(dst->Describe()), std::string::npos);
  }
}

}  // namespace
}  // namespace turbozarr
