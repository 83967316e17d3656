#include "turbozarr/number_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace turbozarr {
namespace {

TEST(NumberTextTest, DoubleMatchesPythonRepr) {
  EXPECT_EQ(FormatShortest(0.0), "0.0");
  EXPECT_EQ(FormatShortest(-0.0), "-0.0");
  EXPECT_EQ(FormatShortest(1.0), "1.0");
  EXPECT_EQ(FormatShortest(0.1), "0.1");
  EXPECT_EQ(FormatShortest(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(FormatShortest(0.0001), "0.0001");
  EXPECT_EQ(FormatShortest(0.00001), "1e-05");
  EXPECT_EQ(FormatShortest(1e15), "1000000000000000.0");
  EXPECT_EQ(FormatShortest(1e16), "1e+16");
  EXPECT_EQ(FormatShortest(123456789.125), "123456789.125");
  EXPECT_EQ(FormatShortest(-2.5e-300), "-2.5e-300");
  EXPECT_EQ(FormatShortest(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(FormatShortest(5e-324), "5e-324");
  EXPECT_EQ(FormatShortest(std::nan("")), "nan");
  EXPECT_EQ(FormatShortest(-INFINITY), "-inf");
  EXPECT_EQ(FormatShortest(INFINITY), "inf");
}

TEST(NumberTextTest, DoubleRoundTrips) {
  for (double v : {0.1, 2.0 / 3, 1e-7, 6.02214076e23, 1.0000000000000002}) {
    EXPECT_EQ(std::stod(FormatShortest(v)), v);
  }
}

TEST(NumberTextTest, FloatShortestForSinglePrecision) {
  EXPECT_EQ(FormatShortest(0.1f), "0.1");
  EXPECT_EQ(FormatShortest(1.0f / 3), "0.33333334");
  EXPECT_EQ(FormatShortest(16777216.0f), "16777216.0");
  EXPECT_EQ(FormatShortest(3.4028235e38f), "3.4028235e+38");
}

TEST(NumberTextTest, HalfShortestForHalfPrecision) {
  EXPECT_EQ(FormatHalf(0x3c00), "1.0");
  EXPECT_EQ(FormatHalf(0x2e66), "0.1");      // float16(0.1) == 0.0999755859375
  EXPECT_EQ(FormatHalf(0x3555), "0.3333");   // float16(1/3)
  EXPECT_EQ(FormatHalf(0x7bff), "65500.0");  // largest finite, numpy prints 65500.0
  EXPECT_EQ(FormatHalf(0x0001), "6e-08");    // smallest subnormal
  EXPECT_EQ(FormatHalf(0x8000), "-0.0");
  EXPECT_EQ(FormatHalf(0x7c00), "inf");
  EXPECT_EQ(FormatHalf(0xfc00), "-inf");
  EXPECT_EQ(FormatHalf(0x7e00), "nan");
}

TEST(NumberTextTest, BareDropsTheDotZero) {
  EXPECT_EQ(FormatShortest(1.0, NumberText::kBare), "1");
  EXPECT_EQ(FormatShortest(2.5f, NumberText::kBare), "2.5");
  EXPECT_EQ(FormatHalf(0x3c00, NumberText::kBare), "1");
}

}  // namespace
}  // namespace turbozarr
