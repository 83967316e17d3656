#include "ome/downsample.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <vector>

namespace turbozarr::ome::internal {
namespace {

template <typename T>
std::vector<T> Apply(DataTypeId id, const std::vector<T>& in, const std::vector<int64_t>& shape,
                   const std::vector<int64_t>& factors, DownsampleMethod method) {
  std::vector<int64_t> out_shape = DownsampledShape(shape, factors);
  int64_t n = 1;
  for (int64_t s : out_shape) n *= s;
  std::vector<T> out(static_cast<size_t>(n));
  Status s = Downsample(DataType(id), in.data(), shape, factors, method, out.data());
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

TEST(DownsampleTest, IntegerMeansRoundHalfToEven) {
  // 2x2 windows summing to 10 (2.5 -> 2), 11 (2.75 -> 3), 2 (0.5 -> 0), 6 (1.5 -> 2).
  const std::vector<uint16_t> in = {1, 2, 1, 2, 0, 0, 1, 1,
                                    3, 4, 3, 5, 1, 1, 2, 2};
  EXPECT_EQ(Apply<uint16_t>(DataTypeId::kUInt16, in, {2, 8}, {2, 2}, DownsampleMethod::kMean),
            (std::vector<uint16_t>{2, 3, 0, 2}));
  // Negative sums: -1.5 -> -2, -2.5 -> -2, -0.5 -> 0.
  EXPECT_EQ(Apply<int8_t>(DataTypeId::kInt8, {-1, -2, -2, -3, 0, -1}, {1, 6}, {1, 2},
                        DownsampleMethod::kMean),
            (std::vector<int8_t>{-2, -2, 0}));
}

TEST(DownsampleTest, SixtyFourBitSumsDoNotOverflow) {
  const uint64_t big = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(Apply<uint64_t>(DataTypeId::kUInt64, {big, big, big, big - 2}, {2, 2}, {2, 2},
                          DownsampleMethod::kMean),
            (std::vector<uint64_t>{big - 1}));  // (4 max - 2) / 4 = max - 0.5 -> max - 1 (even)
  const int64_t low = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(Apply<int64_t>(DataTypeId::kInt64, {low, low}, {1, 2}, {1, 2}, DownsampleMethod::kMean),
            (std::vector<int64_t>{low}));
}

TEST(DownsampleTest, OddSizesLeaveTheLastPixelOut) {
  // 5 -> 2: windows [0,1], [2,3]; the 10 is in no window.
  const std::vector<float> in = {1, 2, 3, 4, 10};
  EXPECT_EQ(Apply<float>(DataTypeId::kFloat32, in, {1, 5}, {1, 2}, DownsampleMethod::kMean),
            (std::vector<float>{1.5f, 3.5f}));
  EXPECT_EQ(Apply<float>(DataTypeId::kFloat32, in, {1, 5}, {1, 2}, DownsampleMethod::kNearest),
            (std::vector<float>{2, 4}));
  EXPECT_EQ(DownsampledShape({1, 65, 64}, {1, 2, 2}), (std::vector<int64_t>{1, 32, 32}));
  // An axis shorter than its factor keeps one pixel, of what there is.
  EXPECT_EQ(DownsampledShape({1, 1, 3}, {1, 2, 2}), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(Apply<float>(DataTypeId::kFloat32, {4, 8, 30}, {1, 3}, {2, 4}, DownsampleMethod::kMean),
            (std::vector<float>{14}));
  EXPECT_EQ(Apply<float>(DataTypeId::kFloat32, {4, 8, 30}, {1, 3}, {2, 4},
                         DownsampleMethod::kNearest),
            (std::vector<float>{30}));
}

TEST(DownsampleTest, NearestLinearAndMode) {
  // 3x3 input, factors 3: nearest and linear take the centre.
  std::vector<int32_t> in = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(Apply<int32_t>(DataTypeId::kInt32, in, {3, 3}, {3, 3}, DownsampleMethod::kNearest),
            (std::vector<int32_t>{5}));
  // Factors of 2: nearest takes the later pixel of each pair (x[1::2, 1::2]).
  EXPECT_EQ(Apply<int32_t>(DataTypeId::kInt32, {1, 2, 3, 4, 5, 6, 7, 8}, {2, 4}, {2, 2},
                           DownsampleMethod::kNearest),
            (std::vector<int32_t>{6, 8}));
  EXPECT_EQ(Apply<int32_t>(DataTypeId::kInt32, in, {3, 3}, {3, 3}, DownsampleMethod::kLinear),
            (std::vector<int32_t>{5}));
  // Factors of 4: linear averages the central 2x2.
  std::vector<int32_t> sixteen(16);
  for (int i = 0; i < 16; ++i) sixteen[static_cast<size_t>(i)] = i;
  EXPECT_EQ(Apply<int32_t>(DataTypeId::kInt32, sixteen, {4, 4}, {4, 4}, DownsampleMethod::kLinear),
            (std::vector<int32_t>{8}));  // (5 + 6 + 9 + 10) / 4 = 7.5 -> 8
  // Mode: the most frequent label, the smallest on a tie.
  // Windows {7, 3, 5, 5} and {7, 9, 9, 7}.
  EXPECT_EQ(Apply<uint32_t>(DataTypeId::kUInt32, {7, 3, 7, 9, 5, 5, 9, 7}, {2, 4}, {2, 2},
                            DownsampleMethod::kMode),
            (std::vector<uint32_t>{5, 7}));
}

TEST(DownsampleTest, TypesItCannotSummariseAreRefused) {
  std::vector<uint8_t> in(4, 1), out(1);
  Status s = Downsample(DataType(DataTypeId::kBool), in.data(), {2, 2}, {2, 2},
                        DownsampleMethod::kMean, out.data());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("bool"), std::string::npos) << s.ToString();
  EXPECT_TRUE(Downsample(DataType(DataTypeId::kBool), in.data(), {2, 2}, {2, 2},
                         DownsampleMethod::kMode, out.data()).ok());
  EXPECT_EQ(Downsample(DataType(DataTypeId::kUInt8), in.data(), {2, 2}, {0, 2},
                       DownsampleMethod::kMean, out.data()).code(),
            StatusCode::kInvalidArgument);
}

// A brute-force reference: every output pixel from its window, in doubles,
// rounded half to even for integers (what numpy's np.round gives).
std::vector<uint16_t> Reference(const std::vector<uint16_t>& in, const std::vector<int64_t>& shape,
                                const std::vector<int64_t>& f) {
  const std::vector<int64_t> o = DownsampledShape(shape, f);
  std::vector<uint16_t> out;
  for (int64_t a = 0; a < o[0]; ++a) {
    for (int64_t b = 0; b < o[1]; ++b) {
      for (int64_t c = 0; c < o[2]; ++c) {
        double sum = 0;
        int n = 0;
        for (int64_t i = a * f[0]; i < std::min((a + 1) * f[0], shape[0]); ++i) {
          for (int64_t j = b * f[1]; j < std::min((b + 1) * f[1], shape[1]); ++j) {
            for (int64_t k = c * f[2]; k < std::min((c + 1) * f[2], shape[2]); ++k) {
              sum += in[static_cast<size_t>((i * shape[1] + j) * shape[2] + k)];
              ++n;
            }
          }
        }
        out.push_back(static_cast<uint16_t>(std::nearbyint(sum / n)));
      }
    }
  }
  return out;
}

TEST(DownsampleTest, MeansEqualABruteForceReferenceOnRandomShapes) {
  std::mt19937 rng(7);
  for (int round = 0; round < 40; ++round) {
    std::vector<int64_t> shape = {1 + static_cast<int64_t>(rng() % 6), 1 + static_cast<int64_t>(rng() % 19),
                                  1 + static_cast<int64_t>(rng() % 23)};
    std::vector<int64_t> f = {1 + static_cast<int64_t>(rng() % 2), 1 + static_cast<int64_t>(rng() % 3),
                              1 + static_cast<int64_t>(rng() % 3)};
    std::vector<uint16_t> in(static_cast<size_t>(shape[0] * shape[1] * shape[2]));
    for (uint16_t& v : in) v = static_cast<uint16_t>(rng());
    EXPECT_EQ(Apply<uint16_t>(DataTypeId::kUInt16, in, shape, f, DownsampleMethod::kMean),
              Reference(in, shape, f))
        << "round " << round;
  }
}

}  // namespace
}  // namespace turbozarr::ome::internal
