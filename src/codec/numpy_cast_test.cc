#include "codec/numpy_cast.h"

#include <gtest/gtest.h>

#include "testing/codec_fixtures.h"
#include "testing/filter_fixtures.h"

namespace turbozarr::internal {
namespace {

using testing::FromHex;
using testing::ToHex;

// numpy's float -> integer casts of rounding ties, negatives, values past
// each type's range, infinities and NaN, for float64 and float32 sources.
TEST(NumpyCastTest, FloatToIntegerMatchesNumpyValueByValue) {
  const Buffer f8 = FromHex(testing::kCastSpecialsF8);
  const int64_t n = static_cast<int64_t>(f8.size() / 8);
  Buffer f4(n * 4);
  CastElements(f8.data(), DataTypeId::kFloat64, f4.data(), DataTypeId::kFloat32, n);
  struct Target {
    DataTypeId id;
    const char* from_f8;
    const char* from_f4;
  };
  const Target targets[] = {
      {DataTypeId::kInt8, testing::kCastF8ToI1, testing::kCastF4ToI1},
      {DataTypeId::kUInt8, testing::kCastF8ToU1, testing::kCastF4ToU1},
      {DataTypeId::kInt16, testing::kCastF8ToI2, testing::kCastF4ToI2},
      {DataTypeId::kUInt16, testing::kCastF8ToU2, testing::kCastF4ToU2},
      {DataTypeId::kInt32, testing::kCastF8ToI4, testing::kCastF4ToI4},
      {DataTypeId::kUInt32, testing::kCastF8ToU4, testing::kCastF4ToU4},
      {DataTypeId::kInt64, testing::kCastF8ToI8, testing::kCastF4ToI8},
      {DataTypeId::kUInt64, testing::kCastF8ToU8, testing::kCastF4ToU8},
  };
  for (const Target& t : targets) {
    const DataType type(t.id);
    SCOPED_TRACE(type.ToString());
    Buffer out(n * type.size());
    CastElements(f8.data(), DataTypeId::kFloat64, out.data(), t.id, n);
    EXPECT_EQ(ToHex(out), t.from_f8);
    CastElements(f4.data(), DataTypeId::kFloat32, out.data(), t.id, n);
    EXPECT_EQ(ToHex(out), t.from_f4);
  }
}

TEST(NumpyCastTest, IntegersWrapAndFloatsRoundToNearestEven) {
  EXPECT_EQ(NumpyCast<uint8_t>(int32_t{300}), 44);
  EXPECT_EQ(NumpyCast<int8_t>(uint16_t{200}), -56);
  EXPECT_EQ(NumpyCast<float>(uint64_t{16777217}), 16777216.0f);
  EXPECT_EQ(NumpyCast<Half>(2049.0).bits, 0x6800);          // 2048: the tie goes to even
  EXPECT_EQ(NumpyCast<Half>(int64_t{70000}).bits, 0x7c00);  // past float16: infinity
  EXPECT_EQ(NumpyArith<int8_t>::Mul(100, 3), 44);
  EXPECT_EQ(NumpyArith<double>::Round(2.5), 2.0);
  EXPECT_EQ(NumpyArith<double>::Round(-3.5), -4.0);
}

TEST(NumpyCastTest, WeakScalarsFollowNumpy2) {
  EXPECT_EQ(*WeakScalar<int16_t>(nlohmann::json(-300)), -300);
  EXPECT_FALSE(WeakScalar<uint8_t>(nlohmann::json(256)).ok());
  EXPECT_FALSE(WeakScalar<uint8_t>(nlohmann::json(-1)).ok());
  EXPECT_FALSE(WeakScalar<int32_t>(nlohmann::json(0.5)).ok());
  EXPECT_EQ(*WeakScalar<float>(nlohmann::json(0.1)), 0.1f);
  EXPECT_EQ(*WeakScalar<uint64_t>(nlohmann::json(18446744073709551615u)), UINT64_MAX);
}

}  // namespace
}  // namespace turbozarr::internal
