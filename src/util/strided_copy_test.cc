#include "util/strided_copy.h"

#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace turbozarr {
namespace {

// The obvious element-by-element copy the kernels must agree with.
void NaiveCopy(const std::byte* src, const std::vector<int64_t>& ss, std::byte* dst,
               const std::vector<int64_t>& ds, const std::vector<int64_t>& count,
               size_t elem) {
  int64_t total = 1;
  for (int64_t c : count) total *= c;
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t rem = flat, so = 0, dof = 0;
    for (size_t d = count.size(); d-- > 0;) {
      int64_t i = rem % count[d];
      rem /= count[d];
      so += i * ss[d];
      dof += i * ds[d];
    }
    std::memcpy(dst + dof, src + so, elem);
  }
}

// Extent in units needed to hold a block with these strides.
int64_t Span(const std::vector<int64_t>& strides, const std::vector<int64_t>& count,
             int64_t elem) {
  int64_t last = 0;
  for (size_t d = 0; d < count.size(); ++d) last += (count[d] - 1) * strides[d];
  return last + elem;
}

// Strides of a padded C-order layout, optionally with the dimensions laid out
// in a random order. Unless `read_only`, no two elements overlap; a layout
// that is only read from may also repeat elements (stride 0, or two
// dimensions with one stride).
std::vector<int64_t> RandomLayout(const std::vector<int64_t>& count, int64_t elem,
                                  std::mt19937& rng, bool read_only) {
  size_t rank = count.size();
  std::vector<size_t> order(rank);
  std::iota(order.begin(), order.end(), 0);
  if (rng() % 3 == 0) std::shuffle(order.begin(), order.end(), rng);
  std::vector<int64_t> strides(rank);
  // A gap between neighbouring elements makes the innermost dimension strided.
  int64_t stride = elem * ((rng() % 3 == 0) ? 1 + static_cast<int64_t>(rng() % 3) : 1);
  for (size_t k = rank; k-- > 0;) {
    size_t d = order[k];
    strides[d] = stride;
    int64_t pad = (rng() % 2 == 0) ? 0 : static_cast<int64_t>(rng() % 3);
    stride *= count[d] + pad;
  }
  if (read_only && rank > 0 && rng() % 4 == 0) strides[rng() % rank] = 0;
  if (read_only && rank > 1 && rng() % 4 == 0) {
    strides[rng() % rank] = strides[rng() % rank];
  }
  return strides;
}

TEST(StridedCopyTest, MatchesNaiveOnRandomBlocks) {
  std::mt19937 rng(1234);
  const size_t kElemSizes[] = {1, 2, 3, 4, 8, 12, 16};
  for (int trial = 0; trial < 3000; ++trial) {
    int rank = static_cast<int>(rng() % 5);
    std::vector<int64_t> count(rank);
    for (auto& c : count) c = 1 + rng() % 5;
    size_t elem = kElemSizes[rng() % std::size(kElemSizes)];
    int64_t e = static_cast<int64_t>(elem);
    // The source may broadcast (stride 0); the destination never overlaps.
    std::vector<int64_t> ss = RandomLayout(count, e, rng, true);
    std::vector<int64_t> ds = RandomLayout(count, e, rng, false);
    std::vector<std::byte> src(Span(ss, count, e));
    for (auto& b : src) b = static_cast<std::byte>(rng());
    std::vector<std::byte> want(Span(ds, count, e), std::byte{0xEE});
    std::vector<std::byte> got = want;
    NaiveCopy(src.data(), ss, want.data(), ds, count, elem);
    CopyStrided(src.data(), ss.data(), got.data(), ds.data(), count.data(), rank, elem);
    ASSERT_EQ(got, want) << "trial " << trial << " rank " << rank << " elem " << elem;
  }
}

TEST(StridedCopyTest, SubBlockOfContiguousArray) {
  // Rows 1..2, columns 1..3 of a 4x5 int32 array into a 2x3 buffer.
  std::vector<int32_t> a(20);
  std::iota(a.begin(), a.end(), 0);
  std::vector<int32_t> out(6, -1);
  auto as = ContiguousStrides({4, 5}, 4);
  auto os = ContiguousStrides({2, 3}, 4);
  int64_t count[] = {2, 3};
  CopyStrided(reinterpret_cast<const std::byte*>(a.data() + 6), as.data(),
              reinterpret_cast<std::byte*>(out.data()), os.data(), count, 2, 4);
  EXPECT_EQ(out, (std::vector<int32_t>{6, 7, 8, 11, 12, 13}));
}

TEST(StridedCopyTest, RankZeroCopiesOneElement) {
  uint64_t src = 0x0123456789abcdefULL, dst = 0;
  CopyStrided(reinterpret_cast<const std::byte*>(&src), nullptr,
              reinterpret_cast<std::byte*>(&dst), nullptr, nullptr, 0, 8);
  EXPECT_EQ(dst, src);
}

TEST(StridedCopyTest, EmptyBlockTouchesNothing) {
  std::vector<uint8_t> src(4, 1), dst(4, 9);
  int64_t count[] = {2, 0};
  int64_t strides[] = {2, 1};
  CopyStrided(reinterpret_cast<const std::byte*>(src.data()), strides,
              reinterpret_cast<std::byte*>(dst.data()), strides, count, 2, 1);
  EXPECT_EQ(dst, (std::vector<uint8_t>{9, 9, 9, 9}));
}

TEST(StridedCopyTest, ContiguousStrides) {
  EXPECT_EQ(ContiguousStrides({3, 4, 5}, 8), (std::vector<int64_t>{160, 40, 8}));
  EXPECT_EQ(ContiguousStrides({}, 8), (std::vector<int64_t>{}));
  EXPECT_EQ(ContiguousStrides({7}, 1), (std::vector<int64_t>{1}));
}

TEST(StridedCopyTest, FillMatchesNaive) {
  std::mt19937 rng(99);
  const size_t kElemSizes[] = {1, 2, 3, 4, 8, 16, 24};
  for (int trial = 0; trial < 2000; ++trial) {
    int rank = static_cast<int>(rng() % 5);
    std::vector<int64_t> count(rank);
    for (auto& c : count) c = 1 + rng() % 5;
    size_t elem = kElemSizes[rng() % std::size(kElemSizes)];
    int64_t e = static_cast<int64_t>(elem);
    std::vector<int64_t> ds = RandomLayout(count, e, rng, true);
    std::vector<std::byte> value(elem);
    bool uniform = rng() % 3 == 0;
    for (auto& b : value) b = static_cast<std::byte>(uniform ? 0x5A : rng());
    std::vector<std::byte> want(Span(ds, count, e), std::byte{0x11});
    std::vector<std::byte> got = want;
    // Reference: copy from a source that broadcasts the value everywhere.
    std::vector<int64_t> zeros(rank, 0);
    NaiveCopy(value.data(), zeros, want.data(), ds, count, elem);
    FillStrided(got.data(), ds.data(), count.data(), rank, value.data(), elem);
    ASSERT_EQ(got, want) << "trial " << trial << " rank " << rank << " elem " << elem;
  }
}

TEST(StridedCopyTest, FillLongContiguousRunWithOddElementSize) {
  // More than one pattern's worth of 3-byte elements.
  std::vector<std::byte> dst(3 * 5000);
  const std::byte value[3] = {std::byte{1}, std::byte{2}, std::byte{3}};
  int64_t count[] = {5000};
  int64_t strides[] = {3};
  FillStrided(dst.data(), strides, count, 1, value, 3);
  for (size_t i = 0; i < dst.size(); ++i) {
    ASSERT_EQ(dst[i], value[i % 3]) << i;
  }
}

TEST(StridedCopyTest, StringsMatchNaive) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    int rank = static_cast<int>(rng() % 4);
    std::vector<int64_t> count(rank);
    for (auto& c : count) c = 1 + rng() % 4;
    std::vector<int64_t> ss = RandomLayout(count, 1, rng, true);
    std::vector<int64_t> ds = RandomLayout(count, 1, rng, false);
    std::vector<std::string> src(Span(ss, count, 1));
    for (size_t i = 0; i < src.size(); ++i) src[i] = "s" + std::to_string(i * 31 + trial);
    std::vector<std::string> want(Span(ds, count, 1), "untouched");
    std::vector<std::string> got = want;
    int64_t total = 1;
    for (int64_t c : count) total *= c;
    for (int64_t flat = 0; flat < total; ++flat) {
      int64_t rem = flat, so = 0, dof = 0;
      for (int d = rank; d-- > 0;) {
        so += (rem % count[d]) * ss[d];
        dof += (rem % count[d]) * ds[d];
        rem /= count[d];
      }
      want[dof] = src[so];
    }
    CopyStridedStrings(src.data(), ss.data(), got.data(), ds.data(), count.data(), rank);
    ASSERT_EQ(got, want) << "trial " << trial;

    std::vector<std::string> filled(Span(ds, count, 1), "untouched");
    FillStridedStrings(filled.data(), ds.data(), count.data(), rank, "fill");
    for (size_t i = 0; i < filled.size(); ++i) {
      bool written = want[i] != "untouched";
      ASSERT_EQ(filled[i], written ? "fill" : "untouched") << "trial " << trial;
    }
  }
}

}  // namespace
}  // namespace turbozarr
