#include "turbozarr/selection.h"

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace turbozarr {
namespace {

using V = std::vector<int64_t>;

TEST(SelectionTest, AllShapeAndCount) {
  Selection s = Selection::All({4, 0, 3});
  EXPECT_EQ(s.rank(), 3u);
  EXPECT_EQ(s.dims()[0], (DimRange{0, 4, 1}));
  EXPECT_EQ(s.shape(), (V{4, 0, 3}));
  EXPECT_EQ(s.num_elements(), 0);
  Selection t({{1, 10, 3}, {5, 6, 1}});
  EXPECT_EQ(t.shape(), (V{3, 1}));
  EXPECT_EQ(t.num_elements(), 3);
  EXPECT_EQ(Selection().num_elements(), 1) << "a rank-0 selection has one element";
  EXPECT_EQ(Selection().shape(), V{});
}

TEST(SelectionTest, ToString) {
  EXPECT_EQ(Selection({{0, 10, 1}, {5, 6, 1}}).ToString(), "[0:10:1, 5:6:1]");
  EXPECT_EQ(Selection().ToString(), "[]");
}

TEST(SelectionTest, Validate) {
  EXPECT_TRUE(Selection({{0, 10, 1}, {2, 2, 1}}).Validate({10, 5}).ok());
  EXPECT_TRUE(Selection({{10, 10, 1}}).Validate({10}).ok()) << "empty at the end";
  EXPECT_TRUE(Selection().Validate({}).ok());

  Status rank = Selection({{0, 1, 1}}).Validate({1, 1});
  EXPECT_EQ(rank.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(rank.message(), "selection [0:1:1] has rank 1 but the array has rank 2");

  Status out = Selection({{0, 4, 1}, {3, 11, 2}}).Validate({4, 10});
  EXPECT_EQ(out.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(out.message(),
            "selection [0:4:1, 3:11:2], dimension 1: range 3:11 is not within [0, 10]");
  EXPECT_FALSE(Selection({{-1, 2, 1}}).Validate({4}).ok());
  EXPECT_FALSE(Selection({{3, 2, 1}}).Validate({4}).ok());
  Status step = Selection({{0, 2, 0}}).Validate({4});
  EXPECT_EQ(step.message(), "selection [0:2:0], dimension 0: step 0 is not positive");
  EXPECT_FALSE(Selection({{0, 2, -1}}).Validate({4}).ok());
  int64_t huge = std::numeric_limits<int64_t>::max();
  EXPECT_FALSE(Selection({{0, 2, huge}}).Validate({4}).ok());
  EXPECT_TRUE(Selection({{0, 2, 1000}}).Validate({4}).ok());
}

TEST(ChunkGridShapeTest, RoundsUp) {
  EXPECT_EQ(ChunkGridShape({10, 9, 0, 1}, {5, 4, 3, 7}), (V{2, 3, 0, 1}));
  EXPECT_EQ(ChunkGridShape({}, {}), V{});
}

TEST(PlanChunksTest, RegularGridWithPartialEdgeChunks) {
  // A 5x7 array in 2x3 chunks; select rows 1..4, columns 2..6.
  auto plan = PlanChunks(Selection({{1, 5, 1}, {2, 7, 1}}), {5, 7}, {2, 3});
  ASSERT_EQ(plan.size(), 9u);
  std::vector<V> coords;
  for (const auto& p : plan) coords.push_back(p.chunk_coords);
  EXPECT_EQ(coords, (std::vector<V>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2},
                                    {2, 0}, {2, 1}, {2, 2}}));
  const ChunkProjection& first = plan[0];
  EXPECT_EQ(first.chunk_start, (V{1, 2}));
  EXPECT_EQ(first.count, (V{1, 1}));
  EXPECT_EQ(first.out_start, (V{0, 0}));
  EXPECT_FALSE(first.covers_chunk);
  const ChunkProjection& middle = plan[4];  // chunk (1,1): rows 2-3, columns 3-5
  EXPECT_EQ(middle.chunk_start, (V{0, 0}));
  EXPECT_EQ(middle.count, (V{2, 3}));
  EXPECT_EQ(middle.step, (V{1, 1}));
  EXPECT_EQ(middle.out_start, (V{1, 1}));
  EXPECT_TRUE(middle.covers_chunk);
  const ChunkProjection& corner = plan[8];  // chunk (2,2): row 4, column 6 (edge)
  EXPECT_EQ(corner.chunk_start, (V{0, 0}));
  EXPECT_EQ(corner.count, (V{1, 1}));
  EXPECT_EQ(corner.out_start, (V{3, 4}));
  EXPECT_TRUE(corner.covers_chunk) << "the edge chunk is clipped to the array";
}

TEST(PlanChunksTest, StepsSkipChunks) {
  // Elements 1, 8, 15 of 20 with chunks of 3: chunks 0, 2, 5.
  auto plan = PlanChunks(Selection({{1, 20, 7}}), {20}, {3});
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].chunk_coords, V{0});
  EXPECT_EQ(plan[1].chunk_coords, V{2});
  EXPECT_EQ(plan[1].chunk_start, V{2});
  EXPECT_EQ(plan[2].chunk_coords, V{5});
  EXPECT_EQ(plan[2].chunk_start, V{0});
  EXPECT_EQ(plan[2].out_start, V{2});
  for (const auto& p : plan) EXPECT_FALSE(p.covers_chunk);

  // Step 2 inside chunks of 4: two elements per chunk, never covering.
  auto two = PlanChunks(Selection({{0, 8, 2}}), {8}, {4});
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[1].chunk_start, V{0});
  EXPECT_EQ(two[1].count, V{2});
  EXPECT_EQ(two[1].step, V{2});
  EXPECT_EQ(two[1].out_start, V{2});
  EXPECT_FALSE(two[1].covers_chunk);
}

TEST(PlanChunksTest, EmptySelectionsAndZeroSizeArraysHaveNoChunks) {
  EXPECT_TRUE(PlanChunks(Selection({{0, 0, 1}, {0, 4, 1}}), {0, 4}, {2, 2}).empty());
  EXPECT_TRUE(PlanChunks(Selection({{3, 3, 1}, {0, 4, 1}}), {6, 4}, {2, 2}).empty());
  EXPECT_TRUE(PlanChunks(Selection::All({5, 0}), {5, 0}, {5, 1}).empty());
}

TEST(PlanChunksTest, RankZeroHasOneChunk) {
  auto plan = PlanChunks(Selection(), V{}, V{});
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_TRUE(plan[0].chunk_coords.empty());
  EXPECT_TRUE(plan[0].count.empty());
  EXPECT_TRUE(plan[0].covers_chunk);
}

TEST(PlanChunksTest, HugeStepVisitsOnlyChunksItHits) {
  int64_t n = int64_t{1} << 40;
  auto plan = PlanChunks(Selection({{5, n, n / 2}}), {n}, {1});
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].chunk_coords, V{5});
  EXPECT_EQ(plan[1].chunk_coords, V{5 + n / 2});
  EXPECT_TRUE(plan[1].covers_chunk);
}

// Every selected element, found the slow way: (chunk coords) -> list of
// (position inside the chunk, position in the output block), both flattened.
struct Expected {
  std::map<V, std::vector<std::pair<V, V>>> by_chunk;
};

Expected Enumerate(const Selection& sel, const V& shape, const V& chunk) {
  Expected e;
  size_t rank = shape.size();
  V counts = sel.shape();
  int64_t total = sel.num_elements();
  for (int64_t flat = 0; flat < total; ++flat) {
    V out(rank), coords(rank), inner(rank);
    int64_t rem = flat;
    for (size_t d = rank; d-- > 0;) {
      out[d] = rem % counts[d];
      rem /= counts[d];
      int64_t a = sel.dims()[d].start + out[d] * sel.dims()[d].step;
      coords[d] = a / chunk[d];
      inner[d] = a % chunk[d];
    }
    e.by_chunk[coords].push_back({inner, out});
  }
  return e;
}

TEST(PlanChunksTest, MatchesBruteForceOnRandomCases) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 4000; ++trial) {
    size_t rank = rng() % 4;
    V shape(rank), chunk(rank);
    std::vector<DimRange> dims(rank);
    for (size_t d = 0; d < rank; ++d) {
      shape[d] = rng() % 8;
      chunk[d] = 1 + rng() % 4;
      int64_t a = rng() % (shape[d] + 1), b = rng() % (shape[d] + 1);
      dims[d] = {std::min(a, b), std::max(a, b), 1 + static_cast<int64_t>(rng() % 4)};
    }
    Selection sel(dims);
    ASSERT_TRUE(sel.Validate(shape).ok());
    SCOPED_TRACE("trial " + std::to_string(trial) + " selection " + sel.ToString());
    Expected want = Enumerate(sel, shape, chunk);
    auto plan = PlanChunks(sel, shape, chunk);
    ASSERT_EQ(plan.size(), rank == 0 ? 1u : want.by_chunk.size());
    for (size_t i = 0; i < plan.size(); ++i) {
      const ChunkProjection& p = plan[i];
      if (i > 0) {
        EXPECT_LT(plan[i - 1].chunk_coords, p.chunk_coords) << "C order";
      }
      auto it = want.by_chunk.find(p.chunk_coords);
      ASSERT_NE(it, want.by_chunk.end());
      // The projection's elements, in C order, must be exactly the brute-force
      // ones (which Enumerate also produced in C order of the output).
      std::vector<std::pair<V, V>> got;
      int64_t n = 1;
      for (size_t d = 0; d < rank; ++d) {
        ASSERT_GE(p.count[d], 1);
        n *= p.count[d];
      }
      for (int64_t flat = 0; flat < n; ++flat) {
        V inner(rank), out(rank);
        int64_t rem = flat;
        for (size_t d = rank; d-- > 0;) {
          int64_t k = rem % p.count[d];
          rem /= p.count[d];
          inner[d] = p.chunk_start[d] + k * p.step[d];
          out[d] = p.out_start[d] + k;
        }
        got.push_back({inner, out});
      }
      EXPECT_EQ(got, it->second);
      // Covers the chunk exactly when every element of its clipped extent is
      // selected.
      int64_t extent = 1;
      for (size_t d = 0; d < rank; ++d) {
        extent *= std::min(chunk[d], shape[d] - p.chunk_coords[d] * chunk[d]);
      }
      EXPECT_EQ(p.covers_chunk, static_cast<int64_t>(it->second.size()) == extent);
    }
  }
}

}  // namespace
}  // namespace turbozarr
