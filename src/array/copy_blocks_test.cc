// The planning of streamed copies: block shapes aligned to both grids within
// a budget, the budget left by the threads' buffers, the block grid, and
// the blocks over which a source stores nothing.
#include "array/copy_blocks.h"

#include <gtest/gtest.h>

#include "testing/int32_array_fixtures.h"

namespace turbozarr::internal {
namespace {

using nlohmann::json;
using namespace fixtures;  // NOLINT: the shared test fixtures

TEST(PlanCopyBlockTest, AlignsToBothGridsWhenItFits) {
  // lcm(30, 20) = 60 rows of the whole width, doubled while within budget.
  EXPECT_EQ(PlanCopyBlock({1000, 100}, {30, 100}, {20, 50}, 8, 400000),
            (std::vector<int64_t>{480, 100}));
  // With room for everything the block is the whole array.
  EXPECT_EQ(PlanCopyBlock({1000, 100}, {30, 100}, {20, 50}, 8, 1 << 20),
            (std::vector<int64_t>{1000, 100}));
}

TEST(PlanCopyBlockTest, FallsBackToDestinationUnitsOverBudget) {
  std::vector<int64_t> block =
      PlanCopyBlock({1000, 1000}, {7, 1000}, {10, 1000}, 8, 200000);
  EXPECT_EQ(block, (std::vector<int64_t>{20, 1000}));
  // A single destination unit over budget is still the smallest block.
  EXPECT_EQ(PlanCopyBlock({1000}, {10}, {500}, 8, 16), (std::vector<int64_t>{500}));
}

TEST(CopyBlockBudgetTest, LeavesRoomForEachThreadsBuffers) {
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  // 3 threads x (32 MiB read + 32 MiB decoded + 32 MiB encoded) = 288 MiB.
  EXPECT_EQ(CopyBlockBudget(512 * kMiB, 3, 32 * kMiB, 32 * kMiB), 112 * kMiB);
  // Source chunks count at most 64 MiB twice.
  EXPECT_EQ(CopyBlockBudget(1024 * kMiB, 1, 512 * kMiB, 0), 448 * kMiB);
  EXPECT_EQ(CopyBlockBudget(100 * kMiB, 2, 32 * kMiB, 16 * kMiB), 0u);
  EXPECT_EQ(CopyBlockBudget(512 * kMiB, 0, 0, 0), 256 * kMiB);
}

TEST(PlanCopyBlockTest, CapsAtTheArrayExtent) {
  EXPECT_EQ(PlanCopyBlock({25, 7}, {10, 7}, {10, 3}, 1, 1 << 30),
            (std::vector<int64_t>{30, 9}));
  EXPECT_TRUE(PlanCopyBlock({}, {}, {}, 8, 1024).empty());
}

TEST(BlockGridTest, TilesTheShapeInCOrderWithClippedEdges) {
  const BlockGrid grid({5, 7}, {2, 4});
  ASSERT_EQ(grid.size(), 3 * 2);
  EXPECT_EQ(grid.Block(0).ToString(), Selection({{0, 2, 1}, {0, 4, 1}}).ToString());
  EXPECT_EQ(grid.Block(1).ToString(), Selection({{0, 2, 1}, {4, 7, 1}}).ToString());
  EXPECT_EQ(grid.Block(5).ToString(), Selection({{4, 5, 1}, {4, 7, 1}}).ToString());
  EXPECT_EQ(BlockGrid({0, 7}, {2, 4}).size(), 0);
  EXPECT_EQ(BlockGrid({}, {}).size(), 1);
}

TEST(BlockHasStoredChunkTest, FindsAStoredChunkUnderTheBlock) {
  auto store = MakeMemoryStore();
  auto a =
      Array::Create(store, "a", Int32Metadata({8, 8}, {4, 4}, json::array({kLittle})));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const std::vector<int32_t> values = Pattern(4);
  ASSERT_TRUE((*a)->Write(Selection({{5, 7, 1}, {1, 3, 1}}), values.data()).ok());
  const std::optional<std::unordered_set<std::string>> stored = StoredChunkKeys(**a);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->size(), 2u);  // zarr.json and chunk (1, 0)
  EXPECT_TRUE(BlockHasStoredChunk(**a, Selection({{4, 8, 1}, {0, 4, 1}}), *stored));
  EXPECT_TRUE(BlockHasStoredChunk(**a, Selection({{3, 5, 1}, {3, 5, 1}}), *stored));
  EXPECT_FALSE(BlockHasStoredChunk(**a, Selection({{0, 4, 1}, {0, 8, 1}}), *stored));
  EXPECT_FALSE(BlockHasStoredChunk(**a, Selection({{4, 8, 1}, {4, 8, 1}}), *stored));
}

}  // namespace
}  // namespace turbozarr::internal
