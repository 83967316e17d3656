// Value levels: values split into bitmaps of 1s, 2s and 3s and the rest,
// and expanded back from any position by every kernel this CPU runs.
#include "sparse/value_levels.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace turbozarr::sparse::internal {
namespace {

template <typename Stored>
void RoundTrip(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Stored> values(static_cast<size_t>(n));
  for (Stored& v : values) {
    const uint32_t x = rng() % 10;
    v = static_cast<Stored>(x < 5 ? 1 : x < 7 ? 2 : x < 8 ? 3 : x < 9 ? 0 : 4 + rng() % 200);
  }
  std::vector<Stored> rest = values;
  std::vector<std::vector<uint8_t>> maps(kValueLevels,
                                         std::vector<uint8_t>(BitmapBytes(n) + kBitmapPadding, 0));
  const auto levels = SplitValueLevels(rest.data(), n, {maps[0].data(), maps[1].data(), maps[2].data()});
  // Each level counts its values; the rest keeps the others in order.
  std::vector<Stored> others;
  for (int l = 0; l < kValueLevels; ++l) {
    EXPECT_EQ(levels[static_cast<size_t>(l)],
              std::count(values.begin(), values.end(), static_cast<Stored>(l + 1)));
  }
  for (Stored v : values) {
    if (v < 1 || v > 3) others.push_back(v);
  }
  ASSERT_TRUE(std::equal(others.begin(), others.end(), rest.begin()));
  // The first bitmap is one bit per value, set for the 1s.
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ((maps[0][static_cast<size_t>(i >> 3)] >> (i & 7)) & 1, values[static_cast<size_t>(i)] == 1);
  }
  for (ExpandKernel kernel : AvailableExpandKernels()) {
    // From several starting points, in pieces of odd lengths.
    for (int64_t start : {int64_t{0}, int64_t{1}, int64_t{63}, n / 3, n - 5}) {
      if (start < 0 || start > n) continue;
      ValueCursor cursor = ValueCursor::At({maps[0].data(), maps[1].data(), maps[2].data()}, start);
      std::vector<Stored> out(static_cast<size_t>(n - start));
      int64_t at = 0;
      for (int64_t piece = 1; at < n - start; piece = piece * 3 + 1) {
        const int64_t k = std::min(piece, n - start - at);
        ExpandValuesWith(kernel, cursor, rest.data(), k, out.data() + at);
        at += k;
      }
      ASSERT_TRUE(std::equal(out.begin(), out.end(), values.begin() + start))
          << "kernel " << static_cast<int>(kernel) << " from " << start;
      EXPECT_EQ(cursor.rest, static_cast<int64_t>(others.size()));
    }
  }
}

TEST(ValueLevels, BytesSplitAndExpandBackFromAnyPosition) {
  RoundTrip<uint8_t>(10007, 1);
  RoundTrip<uint8_t>(64, 2);
}

TEST(ValueLevels, WiderAndFloatValuesToo) {
  RoundTrip<uint16_t>(5003, 3);
  RoundTrip<uint32_t>(777, 4);
  RoundTrip<float>(1000, 5);
  RoundTrip<double>(129, 6);
}

TEST(ValueLevels, CountBitsCountsAnyRange) {
  std::vector<uint8_t> map = {0xff, 0x0f, 0x00, 0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  EXPECT_EQ(CountBits(map.data(), 0, 8), 8);
  EXPECT_EQ(CountBits(map.data(), 4, 12), 8);
  EXPECT_EQ(CountBits(map.data(), 0, 96), 8 + 4 + 1 + 56 + 1);
  EXPECT_EQ(CountBits(map.data(), 31, 32), 1);
  EXPECT_EQ(CountBits(map.data(), 5, 5), 0);
}

}  // namespace
}  // namespace turbozarr::sparse::internal
