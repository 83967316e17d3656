#include "cli/value_formatter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <sstream>

namespace turbozarr::cli {
namespace {

template <typename T>
std::string Element(DataType dtype, T value) {
  std::string out;
  AppendElement(dtype, &value, out);
  return out;
}

TEST(FormatDoubleTest, MatchesPythonRepr) {
  EXPECT_EQ(FormatDouble(0.0), "0.0");
  EXPECT_EQ(FormatDouble(-0.0), "-0.0");
  EXPECT_EQ(FormatDouble(1.0), "1.0");
  EXPECT_EQ(FormatDouble(0.1), "0.1");
  EXPECT_EQ(FormatDouble(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(FormatDouble(0.0001), "0.0001");
  EXPECT_EQ(FormatDouble(0.00001), "1e-05");
  EXPECT_EQ(FormatDouble(1e15), "1000000000000000.0");
  EXPECT_EQ(FormatDouble(1e16), "1e+16");
  EXPECT_EQ(FormatDouble(123456789.125), "123456789.125");
  EXPECT_EQ(FormatDouble(-2.5e-300), "-2.5e-300");
  EXPECT_EQ(FormatDouble(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(FormatDouble(5e-324), "5e-324");
  EXPECT_EQ(FormatDouble(std::nan("")), "nan");
  EXPECT_EQ(FormatDouble(-INFINITY), "-inf");
  EXPECT_EQ(FormatDouble(INFINITY), "inf");
}

TEST(FormatDoubleTest, RoundTrips) {
  for (double v : {0.1, 2.0 / 3, 1e-7, 6.02214076e23, 1.0000000000000002}) {
    EXPECT_EQ(std::stod(FormatDouble(v)), v);
  }
}

TEST(FormatFloatTest, ShortestForSinglePrecision) {
  EXPECT_EQ(FormatFloat(0.1f), "0.1");
  EXPECT_EQ(FormatFloat(1.0f / 3), "0.33333334");
  EXPECT_EQ(FormatFloat(16777216.0f), "16777216.0");
  EXPECT_EQ(FormatFloat(3.4028235e38f), "3.4028235e+38");
}

TEST(FormatHalfTest, ShortestForHalfPrecision) {
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

TEST(AppendElementTest, Scalars) {
  EXPECT_EQ(Element(DataType(DataTypeId::kBool), uint8_t{1}), "True");
  EXPECT_EQ(Element(DataType(DataTypeId::kBool), uint8_t{0}), "False");
  EXPECT_EQ(Element(DataType(DataTypeId::kInt8), int8_t{-128}), "-128");
  EXPECT_EQ(Element(DataType(DataTypeId::kUInt8), uint8_t{255}), "255");
  EXPECT_EQ(Element(DataType(DataTypeId::kInt64), std::numeric_limits<int64_t>::min()),
            "-9223372036854775808");
  EXPECT_EQ(Element(DataType(DataTypeId::kUInt64), std::numeric_limits<uint64_t>::max()),
            "18446744073709551615");
  EXPECT_EQ(Element(DataType(DataTypeId::kFloat32), 2.5f), "2.5");
  EXPECT_EQ(Element(DataType(DataTypeId::kFloat64), -0.1), "-0.1");
}

TEST(AppendElementTest, ComplexLikePython) {
  DataType c128(DataTypeId::kComplex128);
  EXPECT_EQ(Element(c128, std::complex<double>(1, 2)), "(1+2j)");
  EXPECT_EQ(Element(c128, std::complex<double>(1.5, -0.5)), "(1.5-0.5j)");
  EXPECT_EQ(Element(c128, std::complex<double>(0, 1)), "1j");
  EXPECT_EQ(Element(c128, std::complex<double>(-0.0, 1)), "(-0+1j)");
  EXPECT_EQ(Element(c128, std::complex<double>(1, NAN)), "(1+nanj)");
  EXPECT_EQ(Element(DataType(DataTypeId::kComplex64), std::complex<float>(0.1f, 2)),
            "(0.1+2j)");
}

TEST(AppendElementTest, StringsAndBytes) {
  EXPECT_EQ(Element(DataType(DataTypeId::kString), std::string("a\"b\n")),
            "\"a\\\"b\\n\"");
  EXPECT_EQ(Element(DataType(DataTypeId::kString), std::string("h\xc3\xa9")),
            "\"h\xc3\xa9\"");
  EXPECT_EQ(Element(DataType(DataTypeId::kBytes), std::string("a\0\xff\"", 4)),
            "b\"a\\x00\\xff\\\"\"");
  char fixed[4] = {'a', 'b', 0, 0};
  std::string out;
  AppendElement(DataType::Sized(DataTypeId::kFixedBytes, 4), fixed, out);
  EXPECT_EQ(out, "b\"ab\"");
  char32_t unicode[3] = {U'h', U'\u00e9', 0};
  out.clear();
  AppendElement(DataType::Sized(DataTypeId::kFixedUnicode, 12), unicode, out);
  EXPECT_EQ(out, "\"h\xc3\xa9\"");
}

std::string Print(const std::vector<int64_t>& shape, const std::vector<int32_t>& values,
                  int64_t piece = 1000) {
  std::ostringstream out;
  ArrayPrinter printer(DataType(DataTypeId::kInt32), shape, out);
  for (size_t i = 0; i < values.size(); i += piece) {
    int64_t n = std::min<int64_t>(piece, values.size() - i);
    printer.Add(values.data() + i, n);
  }
  printer.Finish();
  return out.str();
}

TEST(ArrayPrinterTest, NestedBracketsLikeNumpy) {
  EXPECT_EQ(Print({}, {7}), "7\n");
  EXPECT_EQ(Print({3}, {1, 2, 3}), "[1, 2, 3]\n");
  EXPECT_EQ(Print({0}, {}), "[]\n");
  EXPECT_EQ(Print({2, 0}, {}), "[]\n");
  EXPECT_EQ(Print({2, 3}, {0, 1, 2, 3, 4, 5}), "[[0, 1, 2],\n [3, 4, 5]]\n");
  EXPECT_EQ(Print({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}),
            "[[[0, 1],\n  [2, 3]],\n\n [[4, 5],\n  [6, 7]]]\n");
}

TEST(ArrayPrinterTest, PiecesDoNotChangeTheOutput) {
  std::vector<int32_t> values(24);
  for (int i = 0; i < 24; ++i) values[i] = i;
  EXPECT_EQ(Print({2, 3, 4}, values, 5), Print({2, 3, 4}, values));
}

}  // namespace
}  // namespace turbozarr::cli
