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

TEST(AppendElementTest, LowPrecisionTypes) {
  // Floats with the fewest digits that give back the same value of the type.
  EXPECT_EQ(Element(DataType(DataTypeId::kBFloat16), uint16_t{0x3fc0}), "1.5");
  EXPECT_EQ(Element(DataType(DataTypeId::kBFloat16), uint16_t{0x3eab}), "0.334");  // 1/3
  EXPECT_EQ(Element(DataType(DataTypeId::kBFloat16), uint16_t{0x3f80}), "1.0");
  EXPECT_EQ(Element(DataType(DataTypeId::kBFloat16), uint16_t{0xff80}), "-inf");
  EXPECT_EQ(Element(DataType(DataTypeId::kBFloat16), uint16_t{0x7fc0}), "nan");
  EXPECT_EQ(Element(DataType(DataTypeId::kFloat8E4M3FN), uint8_t{0x7e}), "448.0");
  EXPECT_EQ(Element(DataType(DataTypeId::kFloat8E4M3FN), uint8_t{0x7f}), "nan");
  EXPECT_EQ(Element(DataType(DataTypeId::kFloat8E4M3FN), uint8_t{0x01}), "0.002");
  EXPECT_EQ(Element(DataType(DataTypeId::kFloat8E4M3FNUZ), uint8_t{0x80}), "nan");
  EXPECT_EQ(Element(DataType(DataTypeId::kFloat8E8M0FNU), uint8_t{0x81}), "4.0");
  EXPECT_EQ(Element(DataType(DataTypeId::kFloat4E2M1FN), uint8_t{0x0f}), "-6.0");
  EXPECT_EQ(Element(DataType(DataTypeId::kFloat4E2M1FN), uint8_t{0xf1}), "0.5");
  // Integers by their value bits; the high bits are ignored.
  EXPECT_EQ(Element(DataType(DataTypeId::kInt4), uint8_t{0x0f}), "-1");
  EXPECT_EQ(Element(DataType(DataTypeId::kInt4), uint8_t{0xff}), "-1");
  EXPECT_EQ(Element(DataType(DataTypeId::kInt4), uint8_t{0x07}), "7");
  EXPECT_EQ(Element(DataType(DataTypeId::kUInt4), uint8_t{0x0f}), "15");
  EXPECT_EQ(Element(DataType(DataTypeId::kInt2), uint8_t{0x02}), "-2");
  EXPECT_EQ(Element(DataType(DataTypeId::kUInt2), uint8_t{0xfe}), "2");
}

TEST(AppendElementTest, TimesAsNumpyPrintsThem) {
  auto dt = [](const char* unit, int64_t scale = 1) {
    return *DataType::Time(DataTypeId::kDateTime64, unit, scale);
  };
  // Expected strings are str(np.datetime64(count, unit)).
  EXPECT_EQ(Element(dt("ms"), int64_t{1577836800123}), "\"2020-01-01T00:00:00.123\"");
  EXPECT_EQ(Element(dt("s"), int64_t{-1}), "\"1969-12-31T23:59:59\"");
  EXPECT_EQ(Element(dt("D", 10), int64_t{1}), "\"1970-01-11\"");
  EXPECT_EQ(Element(dt("h"), int64_t{25}), "\"1970-01-02T01\"");
  EXPECT_EQ(Element(dt("M"), int64_t{-1}), "\"1969-12\"");
  EXPECT_EQ(Element(dt("m"), int64_t{61}), "\"1970-01-01T01:01\"");
  EXPECT_EQ(Element(dt("W"), int64_t{3}), "\"1970-01-22\"");
  EXPECT_EQ(Element(dt("ns"), int64_t{-1}), "\"1969-12-31T23:59:59.999999999\"");
  EXPECT_EQ(Element(dt("Y"), int64_t{55}), "\"2025\"");
  EXPECT_EQ(Element(dt("ps"), int64_t{1}), "\"1970-01-01T00:00:00.000000000001\"");
  EXPECT_EQ(Element(dt("ns"), std::numeric_limits<int64_t>::min()), "\"NaT\"");
  const DataType td = *DataType::Time(DataTypeId::kTimeDelta64, "s", 10);
  EXPECT_EQ(Element(td, int64_t{-3}), "-30");
  EXPECT_EQ(Element(td, std::numeric_limits<int64_t>::min()), "NaT");
}

TEST(AppendElementTest, StructsAsTuples) {
  auto t = ParseV2DataTypeJson(nlohmann::json::parse(R"([["a","<i2"],["v","<f4",2]])"));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  struct __attribute__((packed)) {
    int16_t a = -4;
    float v[2] = {0.5f, 2.0f};
  } element;
  std::string out;
  AppendElement(t->dtype, &element, out);
  EXPECT_EQ(out, "(-4, [0.5, 2.0])");
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
