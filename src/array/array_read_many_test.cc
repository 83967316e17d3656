// ReadMany: many boxes read in one call give what one Read per box gives,
// on plain and sharded arrays, serial and parallel; bad boxes are refused
// before anything is read; a bad chunk names the array and its key.
#include <gtest/gtest.h>

#include <vector>

#include "testing/int32_array_fixtures.h"
#include "turbozarr/array.h"
#include "turbozarr/array_read_many.h"
#include "turbozarr/config.h"
#include "turbozarr/store_wrappers.h"

namespace turbozarr {
namespace {

using nlohmann::json;
using namespace fixtures;  // NOLINT: the shared test fixtures

const std::vector<int64_t> kShape = {40, 30};

// What one Read per box gives.
std::vector<std::vector<int32_t>> OneByOne(const Array& a, const std::vector<Selection>& boxes) {
  std::vector<std::vector<int32_t>> out;
  for (const Selection& box : boxes) {
    out.emplace_back(static_cast<size_t>(box.num_elements()));
    EXPECT_TRUE(a.Read(box, out.back()).ok()) << box.ToString();
  }
  return out;
}

Status ReadAll(const Array& a, const std::vector<Selection>& boxes,
               std::vector<std::vector<int32_t>>& got) {
  got.clear();
  std::vector<ElementSpan> outs;
  for (const Selection& box : boxes) got.emplace_back(static_cast<size_t>(box.num_elements()), 7);
  for (auto& g : got) outs.emplace_back(g);
  return ReadMany(a, boxes, outs);
}

// Boxes inside one chunk each (the gather's usual case), boxes across chunks,
// strided and empty ones.
std::vector<Selection> Boxes() {
  return {Selection({{0, 1, 1}, {0, 30, 1}}),   Selection({{9, 16, 1}, {3, 5, 1}}),
          Selection({{17, 18, 1}, {21, 28, 1}}), Selection({{0, 40, 3}, {2, 30, 7}}),
          Selection({{39, 40, 1}, {29, 30, 1}}), Selection({{5, 5, 1}, {0, 30, 1}}),
          Selection({{24, 31, 1}, {8, 14, 1}}),  Selection({{1, 40, 1}, {0, 30, 1}})};
}

TEST(ReadManyTest, MatchesOneReadPerBox) {
  const std::vector<int32_t> model = Pattern(NumElements(kShape), 5);
  for (const json& codecs : {json::array({kLittle, kZstd}),
                             Sharded({4, 5}, json::array({kLittle, kZstd}), "end")}) {
    SCOPED_TRACE(codecs.dump());
    auto a = Array::Create(MakeMemoryStore(), "a", Int32Metadata(kShape, {8, 10}, codecs));
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE((*a)->Write(Selection::All(kShape), model.data()).ok());
    const std::vector<Selection> boxes = Boxes();
    const auto want = OneByOne(**a, boxes);
    for (int threads : {1, 4}) {
      ASSERT_TRUE(SetThreads(threads).ok());
      // All the boxes (in parallel on 4 threads), then two (one after another).
      std::vector<std::vector<int32_t>> got;
      ASSERT_TRUE(ReadAll(**a, boxes, got).ok());
      EXPECT_EQ(got, want) << threads << " threads";
      std::vector<Selection> two = {boxes[3], boxes[7]};
      ASSERT_TRUE(ReadAll(**a, two, got).ok());
      EXPECT_EQ(got, (std::vector<std::vector<int32_t>>{want[3], want[7]}));
    }
  }
  EXPECT_TRUE(SetThreads(2).ok());
}

TEST(ReadManyTest, EachTouchedChunkIsFetchedOnce) {
  auto metrics = MakeMetricsStore(MakeMemoryStore());
  auto a = Array::Create(metrics, "a",
                         Int32Metadata(kShape, {8, 30}, json::array({kLittle})));
  ASSERT_TRUE(a.ok());
  const std::vector<int32_t> model = Pattern(NumElements(kShape), 2);
  ASSERT_TRUE((*a)->Write(Selection::All(kShape), model.data()).ok());
  ASSERT_TRUE(SetThreads(4).ok());
  metrics->ResetMetrics();
  // Rows 1, 3 (chunk 0), 17 (chunk 2), 33, 38 (chunk 4): chunks 1 and 3 untouched.
  std::vector<Selection> boxes = {Selection({{1, 4, 2}, {0, 30, 1}}),
                                  Selection({{17, 18, 1}, {0, 30, 1}}),
                                  Selection({{33, 39, 5}, {0, 30, 1}})};
  std::vector<std::vector<int32_t>> got;
  ASSERT_TRUE(ReadAll(**a, boxes, got).ok());
  EXPECT_EQ(metrics->metrics().gets, 3u);
  EXPECT_EQ(got, OneByOne(**a, boxes));
  EXPECT_TRUE(SetThreads(2).ok());
}

TEST(ReadManyTest, EachShardIsOpenedOnceAndItsInnerChunksReadTogether) {
  auto metrics = MakeMetricsStore(MakeMemoryStore());
  // Two shards of (24, 30), inner chunks (8, 10); the second is never written.
  auto a = Array::Create(metrics, "a",
                         Int32Metadata({48, 30}, {24, 30},
                                       Sharded({8, 10}, json::array({kLittle}), "end")));
  ASSERT_TRUE(a.ok());
  const std::vector<int32_t> model = Pattern(24 * 30, 3);
  ASSERT_TRUE((*a)->Write(Selection({{0, 24, 1}, {0, 30, 1}}), model.data()).ok());
  // Rows 1, 9, 17 of shard 0, each in its own inner chunk, and rows 30, 40
  // of the missing shard 1.
  std::vector<Selection> boxes;
  for (int64_t row : {1, 9, 17, 30, 40}) boxes.push_back(Selection({{row, row + 1, 1}, {0, 10, 1}}));
  for (int threads : {1, 4}) {
    ASSERT_TRUE(SetThreads(threads).ok());
    metrics->ResetMetrics();
    std::vector<std::vector<int32_t>> got;
    ASSERT_TRUE(ReadAll(**a, boxes, got).ok());
    // One index read per shard (the missing one's finds nothing), and one
    // read for the three inner chunks of shard 0, which lie close together;
    // one Read per box took an index read and an inner read per box (8).
    EXPECT_EQ(metrics->metrics().gets, 2u + 1u) << threads << " threads";
    EXPECT_EQ(got, OneByOne(**a, boxes));
    EXPECT_EQ(got[0], std::vector<int32_t>(model.begin() + 30, model.begin() + 40));
    EXPECT_EQ(got[4], std::vector<int32_t>(10, -1));  // the fill value
  }
  EXPECT_TRUE(SetThreads(2).ok());
}

TEST(ReadManyTest, ShardedBoxesThatMeetInChunksAndNestedShardsReadAsOneByOne) {
  const std::vector<int32_t> model = Pattern(NumElements(kShape), 6);
  const json inner = Sharded({2, 5}, json::array({kLittle, kZstd}), "end");
  for (const json& codecs : {Sharded({4, 5}, json::array({kLittle, kZstd}), "start"),
                             Sharded({4, 10}, inner, "start")}) {
    SCOPED_TRACE(codecs.dump());
    for (bool remote : {false, true}) {
      auto memory = MakeMemoryStore();
      std::shared_ptr<Store> store = memory;
      if (remote) store = MakeThrottledStore(memory, ThrottleOptions{});
      auto a = Array::Create(store, "a", Int32Metadata(kShape, {8, 10}, codecs));
      ASSERT_TRUE(a.ok()) << a.status().ToString();
      ASSERT_TRUE((*a)->Write(Selection({{0, 32, 1}, {0, 30, 1}}), model.data()).ok());
      // Repeated and overlapping boxes, boxes in one inner chunk, a box over
      // shards, boxes in the unwritten shards, strided and empty ones.
      std::vector<Selection> boxes = Boxes();
      boxes.push_back(Selection({{9, 16, 1}, {3, 5, 1}}));
      boxes.push_back(Selection({{10, 12, 1}, {0, 30, 2}}));
      boxes.push_back(Selection({{33, 40, 3}, {1, 2, 1}}));
      const auto want = OneByOne(**a, boxes);
      for (int threads : {1, 4}) {
        ASSERT_TRUE(SetThreads(threads).ok());
        std::vector<std::vector<int32_t>> got;
        ASSERT_TRUE(ReadAll(**a, boxes, got).ok());
        EXPECT_EQ(got, want) << threads << " threads, remote " << remote;
      }
      // Unwritten shards as errors: the shard's key is named.
      ReadOptions strict;
      strict.fill_missing_chunks = false;
      std::vector<std::vector<int32_t>> got(2, std::vector<int32_t>(10));
      std::vector<ElementSpan> outs = {ElementSpan(got[0]), ElementSpan(got[1])};
      const std::vector<Selection> two = {Selection({{1, 2, 1}, {0, 10, 1}}),
                                          Selection({{35, 36, 1}, {0, 10, 1}})};
      Status s = ReadMany(**a, two, outs, strict);
      EXPECT_EQ(s.code(), StatusCode::kNotFound) << s.ToString();
      EXPECT_NE(s.message().find("shard 'a/c/4/0'"), std::string::npos) << s.ToString();
    }
  }
  EXPECT_TRUE(SetThreads(2).ok());
}

TEST(ReadManyTest, RemoteStoresFetchTheChunksOfAllBoxesTogether) {
  // A store that keeps 64 requests in flight (more than the pool's threads).
  auto memory = MakeMemoryStore();
  ThrottleOptions link;
  link.latency = std::chrono::milliseconds(2);
  auto metrics = MakeMetricsStore(MakeThrottledStore(memory, link));
  ASSERT_GT(metrics->Capabilities().requests_in_flight, 2);
  auto a = Array::Create(metrics, "a", Int32Metadata(kShape, {8, 10}, json::array({kLittle, kZstd})));
  ASSERT_TRUE(a.ok());
  const std::vector<int32_t> model = Pattern(NumElements(kShape), 4);
  ASSERT_TRUE((*a)->Write(Selection::All(kShape), model.data()).ok());
  ASSERT_TRUE(memory->Erase("a/c/4/2").ok());  // a missing chunk: the fill value
  // One row per chunk row, two boxes in chunk (1, 0), one over chunks (2, 1)
  // and (2, 2), one in the missing chunk, an empty one.
  const std::vector<Selection> boxes = {
      Selection({{1, 2, 1}, {0, 10, 1}}),   Selection({{9, 10, 1}, {0, 3, 1}}),
      Selection({{12, 13, 1}, {5, 9, 1}}),  Selection({{17, 18, 1}, {15, 25, 1}}),
      Selection({{33, 35, 1}, {20, 30, 1}}), Selection({{30, 30, 1}, {0, 30, 1}})};
  ASSERT_TRUE(SetThreads(2).ok());
  metrics->ResetMetrics();
  std::vector<std::vector<int32_t>> got;
  ASSERT_TRUE(ReadAll(**a, boxes, got).ok());
  // Chunks (0,0), (1,0), (2,1), (2,2), (4,2): each fetched once, in one
  // window of batched reads.
  EXPECT_EQ(metrics->metrics().gets, 5u);
  EXPECT_EQ(metrics->metrics().get_misses, 1u);
  EXPECT_LE(metrics->metrics().get_many_calls, 5u);
  EXPECT_EQ(got, OneByOne(**a, boxes));
  EXPECT_EQ(got[4], std::vector<int32_t>(20, -1));
  // Missing chunks as errors name the array and the key.
  ReadOptions strict;
  strict.fill_missing_chunks = false;
  std::vector<ElementSpan> outs;
  for (auto& g : got) outs.emplace_back(g);
  Status s = ReadMany(**a, boxes, outs, strict);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("chunk 'a/c/4/2'"), std::string::npos) << s.ToString();
}

TEST(ReadManyTest, BadBoxesAreRefusedBeforeAnyRead) {
  auto metrics = MakeMetricsStore(MakeMemoryStore());
  auto a = Array::Create(metrics, "a", Int32Metadata(kShape, {8, 10}, json::array({kLittle})));
  ASSERT_TRUE(a.ok());
  metrics->ResetMetrics();
  std::vector<std::vector<int32_t>> got;
  Status s = ReadAll(**a, {Selection({{0, 8, 1}, {0, 10, 1}}), Selection({{0, 41, 1}, {0, 1, 1}})},
                     got);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("box 1"), std::string::npos) << s.ToString();
  EXPECT_EQ(metrics->metrics().gets, 0u);

  std::vector<int32_t> small(3);
  std::vector<Selection> one = {Selection({{0, 2, 1}, {0, 2, 1}})};
  std::vector<ElementSpan> outs = {ElementSpan(small)};
  EXPECT_EQ(ReadMany(**a, one, outs).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadMany(**a, one, {}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(metrics->metrics().gets, 0u);
}

TEST(ReadManyTest, BadChunkNamesArrayAndKey) {
  auto store = MakeMemoryStore();
  auto a = Array::Create(store, "a", Int32Metadata(kShape, {8, 10}, json::array({kLittle, kZstd})));
  ASSERT_TRUE(a.ok());
  const std::vector<int32_t> model = Pattern(NumElements(kShape));
  ASSERT_TRUE((*a)->Write(Selection::All(kShape), model.data()).ok());
  ASSERT_TRUE(store->Set("a/c/2/1", Buffer::FromString("not zstd").view()).ok());
  std::vector<std::vector<int32_t>> got;
  Status s = ReadAll(**a, {Selection({{0, 1, 1}, {0, 1, 1}}), Selection({{17, 18, 1}, {12, 13, 1}})},
                     got);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("a/c/2/1"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("array"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace turbozarr
