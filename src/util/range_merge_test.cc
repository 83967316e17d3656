#include "util/range_merge.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace turbozarr {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// Runs as (begin, end, first, last) tuples, for readable comparisons.
std::vector<std::vector<uint64_t>> Runs(const std::vector<ByteSpan>& spans,
                                        MergeLimits limits) {
  std::vector<std::vector<uint64_t>> out;
  for (const MergedRun& r : MergeSortedSpans(spans, limits)) {
    out.push_back({r.begin, r.end, r.first, r.last});
  }
  return out;
}

using R = std::vector<std::vector<uint64_t>>;

TEST(MergeSortedSpansTest, NothingToMerge) {
  EXPECT_TRUE(MergeSortedSpans({}, {10, 100}).empty());
  EXPECT_EQ(Runs({{5, 3}}, {10, 100}), (R{{5, 8, 0, 1}}));
}

TEST(MergeSortedSpansTest, GapsUpToTheLimitJoin) {
  // Gaps of 0, 10 (the limit) and 11 bytes.
  EXPECT_EQ(Runs({{0, 10}, {10, 5}, {25, 5}, {41, 4}}, {10, 1000}),
            (R{{0, 30, 0, 3}, {41, 45, 3, 4}}));
  // A zero gap limit joins only touching and overlapping ranges.
  EXPECT_EQ(Runs({{0, 10}, {10, 5}, {16, 1}}, {0, 1000}),
            (R{{0, 15, 0, 2}, {16, 17, 2, 3}}));
}

TEST(MergeSortedSpansTest, RunsStopAtTheByteLimit) {
  // Each pair of neighbours would fit; a third would not.
  EXPECT_EQ(Runs({{0, 4}, {4, 4}, {8, 4}, {12, 4}, {16, 4}}, {100, 8}),
            (R{{0, 8, 0, 2}, {8, 16, 2, 4}, {16, 20, 4, 5}}));
  // The gap counts towards the limit.
  EXPECT_EQ(Runs({{0, 2}, {7, 2}}, {100, 8}), (R{{0, 2, 0, 1}, {7, 9, 1, 2}}));
  EXPECT_EQ(Runs({{0, 2}, {6, 2}}, {100, 8}), (R{{0, 8, 0, 2}}));
  // A range larger than the limit is a run of its own, and so are its
  // neighbours.
  EXPECT_EQ(Runs({{0, 1}, {1, 50}, {51, 1}}, {100, 8}),
            (R{{0, 1, 0, 1}, {1, 51, 1, 2}, {51, 52, 2, 3}}));
}

TEST(MergeSortedSpansTest, OverlappingAndContainedRangesJoin) {
  // The second lies inside the first: the run keeps the first one's end.
  EXPECT_EQ(Runs({{0, 100}, {10, 5}, {90, 20}}, {0, 1000}), (R{{0, 110, 0, 3}}));
  // Equal ranges, and empty ones inside a run or on their own.
  EXPECT_EQ(Runs({{4, 4}, {4, 4}, {6, 0}, {50, 0}}, {0, 1000}),
            (R{{4, 8, 0, 3}, {50, 50, 3, 4}}));
}

TEST(MergeSortedSpansTest, LimitsAtTheTopOfTheRangeDoNotOverflow) {
  // Unbounded limits merge everything, even ranges near the top of the
  // offset range where end + gap would wrap.
  const uint64_t high = kMax - 100;
  EXPECT_EQ(Runs({{0, 1}, {high, 10}, {high + 50, 50}}, {kMax, kMax}),
            (R{{0, kMax, 0, 3}}));
  EXPECT_EQ(Runs({{high, 10}, {high + 90, 10}}, {kMax, 50}),
            (R{{high, high + 10, 0, 1}, {high + 90, kMax, 1, 2}}));
}

}  // namespace
}  // namespace turbozarr
