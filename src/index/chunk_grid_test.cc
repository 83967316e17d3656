#include "turbozarr/chunk_grid.h"

#include <vector>

#include <gtest/gtest.h>

namespace turbozarr {
namespace {

using V = std::vector<int64_t>;

// The five forms of the rectilinear spec's example, all over an extent of 6:
// 4 (a step), [1, 2, 3], [[4, 2]], [[1, 3], 3], [4, 4, 4] (overflowing).
ChunkGrid SpecExample() {
  return ChunkGrid::FromEdges({4, 0, 0, 0, 0}, {{},
                                                 {{1, 1}, {2, 1}, {3, 1}},
                                                 {{4, 2}},
                                                 {{1, 3}, {3, 1}},
                                                 {{4, 3}}});
}

TEST(ChunkGridTest, SpecExampleChunksAndShapes) {
  const ChunkGrid g = SpecExample();
  const V shape{6, 6, 6, 6, 6};
  EXPECT_EQ(g.GridShape(shape), (V{2, 3, 2, 4, 2}))
      << "the third [4, 4, 4] chunk lies wholly past the extent";
  EXPECT_EQ(g.ChunkShape({1, 2, 1, 3, 0}), (V{4, 3, 4, 3, 4}));
  EXPECT_EQ(g.ChunkShape({0, 1, 0, 2, 2}), (V{4, 2, 4, 1, 4}));
  // Position 5 along each dimension.
  EXPECT_EQ(g.ChunkOf(0, 5), 1);
  EXPECT_EQ(g.ChunkOf(1, 5), 2);
  EXPECT_EQ(g.ChunkOf(2, 5), 1);
  EXPECT_EQ(g.ChunkOf(3, 5), 3);
  EXPECT_EQ(g.ChunkOf(4, 5), 1);
  EXPECT_EQ(g.ChunkBegin(1, 2), 3);
  EXPECT_EQ(g.ChunkBegin(3, 3), 3);
  EXPECT_EQ(g.ChunkBegin(3, 2), 2);
  EXPECT_FALSE(g.IsRegularWithin(shape));
}

TEST(ChunkGridTest, EveryPositionMapsIntoItsChunk) {
  const ChunkGrid g = ChunkGrid::FromEdges({0}, {{{3, 2}, {1, 1}, {5, 3}, {2, 1}}});
  const int64_t sum = 3 * 2 + 1 + 5 * 3 + 2;
  int64_t expected_chunk = 0;
  int64_t expected_begin = 0;
  const V lengths{3, 3, 1, 5, 5, 5, 2};
  for (int64_t i = 0; i < sum; ++i) {
    if (i >= expected_begin + lengths[expected_chunk]) {
      expected_begin += lengths[expected_chunk];
      ++expected_chunk;
    }
    ASSERT_EQ(g.ChunkOf(0, i), expected_chunk) << "position " << i;
    ASSERT_EQ(g.ChunkBegin(0, expected_chunk), expected_begin);
    ASSERT_EQ(g.ChunkLength(0, expected_chunk), lengths[expected_chunk]);
  }
  EXPECT_EQ(g.NumChunks(0, sum), 7);
  EXPECT_EQ(g.NumChunks(0, 7), 3);
  EXPECT_EQ(g.NumChunks(0, 8), 4);
  EXPECT_EQ(g.NumChunks(0, 0), 0);
}

TEST(ChunkGridTest, RegularWithinTheArrayOnlyWhenEveryTouchedChunkIsEqual) {
  // [10, 10, 10, 20] over 30: the 20 lies past the extent.
  const ChunkGrid g = ChunkGrid::FromEdges({0, 7}, {{{10, 3}, {20, 1}}, {}});
  EXPECT_TRUE(g.IsRegularWithin({30, 5}));
  EXPECT_FALSE(g.IsRegularWithin({31, 5}));
  // [10, 10, 5] over 25 encodes the last chunk at 5, not padded to 10.
  const ChunkGrid h = ChunkGrid::FromEdges({0}, {{{10, 2}, {5, 1}}});
  EXPECT_FALSE(h.IsRegularWithin({25}));
  EXPECT_TRUE(ChunkGrid::Regular({4, 4}).IsRegularWithin({9, 9}));
}

TEST(ChunkGridTest, OneRunOfABillionChunksCostsOneEntry) {
  const ChunkGrid g = ChunkGrid::FromEdges({0}, {{{1, 1'000'000'000}, {7, 2}}});
  EXPECT_EQ(g.ChunkOf(0, 999'999'999), 999'999'999);
  EXPECT_EQ(g.ChunkOf(0, 1'000'000'008), 1'000'000'001);
  EXPECT_EQ(g.ChunkBegin(0, 1'000'000'001), 1'000'000'007);
  EXPECT_EQ(g.NumChunks(0, 1'000'000'014), 1'000'000'002);
}

TEST(ChunkGridTest, RegularGridMatchesTheStepArithmetic) {
  const ChunkGrid g = ChunkGrid::Regular({4, 3});
  EXPECT_EQ(g.GridShape({10, 9}), (V{3, 3}));
  EXPECT_EQ(g.ChunkOf(0, 9), 2);
  EXPECT_EQ(g.ChunkBegin(1, 2), 6);
  EXPECT_EQ(g.ChunkShape({2, 2}), (V{4, 3})) << "edge chunks keep the full shape";
}

}  // namespace
}  // namespace turbozarr
