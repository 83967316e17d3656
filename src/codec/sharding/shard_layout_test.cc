#include "codec/sharding/shard_layout.h"

#include <gtest/gtest.h>

namespace turbozarr::internal {
namespace {

using V = std::vector<int64_t>;

TEST(ShardLayoutTest, MortonOrderMatchesZarrPython) {
  // zarr.core.indexing._morton_order, as C-order linear indices.
  EXPECT_EQ(MortonOrder({2, 2}), (V{0, 2, 1, 3}));
  EXPECT_EQ(MortonOrder({6, 2}), (V{0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11}));
  EXPECT_EQ(MortonOrder({3, 3}), (V{0, 3, 1, 4, 6, 7, 2, 5, 8}));
  EXPECT_EQ(MortonOrder({2, 3, 4}), (V{0, 12, 4, 16, 1, 13, 5, 17, 8,  20, 9,  21,
                                       2, 14, 6, 18, 3, 15, 7, 19, 10, 22, 11, 23}));
  EXPECT_EQ(MortonOrder({5}), (V{0, 1, 2, 3, 4}));
  EXPECT_EQ(MortonOrder({1, 4}), (V{0, 1, 2, 3}));
  EXPECT_EQ(MortonOrder({}), (V{0}));
  EXPECT_EQ(MortonOrder({0, 3}), V{});
}

TEST(ShardLayoutTest, GridCoords) {
  EXPECT_EQ(GridCoords(0, {2, 3}), (V{0, 0}));
  EXPECT_EQ(GridCoords(5, {2, 3}), (V{1, 2}));
  EXPECT_EQ(GridCoords(7, {2, 3, 4}), (V{0, 1, 3}));
}

TEST(ShardLayoutTest, BlockRows) {
  std::vector<V> rows;
  ForEachBlockRow(V{4, 6}, V{2, 3}, V{2, 3},
                  [&](int64_t outer, int64_t inner, int64_t n) {
                    rows.push_back({outer, inner, n});
                  });
  EXPECT_EQ(rows, (std::vector<V>{{15, 0, 3}, {21, 3, 3}}));
  rows.clear();
  ForEachBlockRow(V{}, V{}, V{}, [&](int64_t outer, int64_t inner, int64_t n) {
    rows.push_back({outer, inner, n});
  });
  EXPECT_EQ(rows, (std::vector<V>{{0, 0, 1}}));
  rows.clear();
  ForEachBlockRow(V{4, 0}, V{2, 0}, V{0, 0}, [&](int64_t o, int64_t i, int64_t n) {
    rows.push_back({o, i, n});
  });
  EXPECT_TRUE(rows.empty());
}

}  // namespace
}  // namespace turbozarr::internal
