#include "dtype/float16.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>

namespace turbozarr::internal {
namespace {

TEST(Float16Test, ExactValues) {
  EXPECT_EQ(DoubleToHalf(0.0), 0x0000);
  EXPECT_EQ(DoubleToHalf(-0.0), 0x8000);
  EXPECT_EQ(DoubleToHalf(1.0), 0x3c00);
  EXPECT_EQ(DoubleToHalf(-2.0), 0xc000);
  EXPECT_EQ(DoubleToHalf(65504.0), 0x7bff);               // largest finite
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(DoubleToHalf(INFINITY), 0x7c00);
  EXPECT_EQ(DoubleToHalf(-INFINITY), 0xfc00);
  EXPECT_EQ(DoubleToHalf(NAN) & 0x7c00, 0x7c00);
  EXPECT_NE(DoubleToHalf(NAN) & 0x03ff, 0);
}

TEST(Float16Test, RoundsToNearestEven) {
  EXPECT_EQ(DoubleToHalf(0.1), 0x2e66);  // numpy: np.float16(0.1).view('u2')
  EXPECT_EQ(DoubleToHalf(65519.0), 0x7bff);
  EXPECT_EQ(DoubleToHalf(65520.0), 0x7c00);  // ties away to infinity (even)
  EXPECT_EQ(DoubleToHalf(1e10), 0x7c00);
  // 1 + 2^-11 is halfway between 1 and the next half; ties to even (1).
  EXPECT_EQ(DoubleToHalf(1.0 + std::ldexp(1.0, -11)), 0x3c00);
  EXPECT_EQ(DoubleToHalf(1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02);
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -25)), 0x0000);  // tie to even zero
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.5, -25)), 0x0001);
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -30)), 0x0000);
}

TEST(Float16Test, HalfToDoubleIsExactForAllValues) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    double d = HalfToDouble(static_cast<uint16_t>(h));
    if (std::isnan(d)) {
      EXPECT_EQ(h & 0x7c00, 0x7c00u);
      EXPECT_EQ(DoubleToHalf(d), h);  // payload and sign survive
      continue;
    }
    EXPECT_EQ(DoubleToHalf(d), h) << h;
  }
  EXPECT_EQ(HalfToDouble(0x3555), 0.333251953125);
}

}  // namespace
}  // namespace turbozarr::internal
