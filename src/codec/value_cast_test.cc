#include "codec/value_cast.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace turbozarr::internal {
namespace {

// Every expected value below is what zarr-python 3.4.2's backend
// (cast-value-rs 0.5.1) gives for the same input; python/tests/
// test_cast_value.py compares the two on many more values.

template <typename D, typename S>
Result<std::vector<D>> Cast(DataTypeId from, DataTypeId to, const std::vector<S>& in,
                            CastRounding rounding = CastRounding::kNearestEven,
                            CastOutOfRange out_of_range = CastOutOfRange::kError,
                            std::vector<CastMapEntry> map = {}) {
  ValueCast cast{DataType(from), DataType(to), rounding, out_of_range, std::move(map)};
  std::vector<D> out(in.size());
  TZ_RETURN_NOT_OK(CastValues(cast, reinterpret_cast<const std::byte*>(in.data()),
                              reinterpret_cast<std::byte*>(out.data()),
                              static_cast<int64_t>(in.size())));
  return out;
}

template <typename T>
std::array<std::byte, 8> Scalar(T v) {
  std::array<std::byte, 8> out{};
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

constexpr auto kF64 = DataTypeId::kFloat64;
constexpr auto kF32 = DataTypeId::kFloat32;
constexpr auto kF16 = DataTypeId::kFloat16;
constexpr auto kI8 = DataTypeId::kInt8;
constexpr auto kU8 = DataTypeId::kUInt8;
constexpr auto kI32 = DataTypeId::kInt32;
constexpr auto kI64 = DataTypeId::kInt64;
constexpr auto kU64 = DataTypeId::kUInt64;
constexpr auto kI16 = DataTypeId::kInt16;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(ValueCastTest, FloatToIntegerRoundsByTheMode) {
  const std::vector<double> in = {1.5, 2.5, -1.5, -2.5, 2.7, -2.7, 0.49999999999999994};
  EXPECT_EQ(*Cast<int8_t>(kF64, kI8, in), (std::vector<int8_t>{2, 2, -2, -2, 3, -3, 0}));
  EXPECT_EQ(*Cast<int8_t>(kF64, kI8, in, CastRounding::kTowardsZero),
            (std::vector<int8_t>{1, 2, -1, -2, 2, -2, 0}));
  EXPECT_EQ(*Cast<int8_t>(kF64, kI8, in, CastRounding::kTowardsPositive),
            (std::vector<int8_t>{2, 3, -1, -2, 3, -2, 1}));
  EXPECT_EQ(*Cast<int8_t>(kF64, kI8, in, CastRounding::kTowardsNegative),
            (std::vector<int8_t>{1, 2, -2, -3, 2, -3, 0}));
  EXPECT_EQ(*Cast<int8_t>(kF64, kI8, in, CastRounding::kNearestAway),
            (std::vector<int8_t>{2, 3, -2, -3, 3, -3, 0}));
  // Exact to the last bit: 2^52 + 1 stays odd.
  EXPECT_EQ(*Cast<int64_t>(kF64, kI64, std::vector<double>{0x1p52 + 1, -(0x1p52 + 1)},
                           CastRounding::kNearestAway),
            (std::vector<int64_t>{4503599627370497, -4503599627370497}));
}

TEST(ValueCastTest, IntegerRangesAreExactAndClampOrWrap) {
  auto r = Cast<uint8_t>(kF64, kU8, std::vector<double>{300.0});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "value 300 is outside the range of uint8 [0, 255] (out_of_range \"clamp\" or "
            "\"wrap\" would map it)");
  EXPECT_EQ(*Cast<uint8_t>(kF64, kU8, std::vector<double>{300.0, -5.0},
                           CastRounding::kNearestEven, CastOutOfRange::kClamp),
            (std::vector<uint8_t>{255, 0}));
  // Rounded first: 255.6 -> 256 -> 0; -0.6 -> -1 -> 255.
  EXPECT_EQ(*Cast<uint8_t>(kF64, kU8, std::vector<double>{300.0, -5.0, 255.6, -0.6},
                           CastRounding::kNearestEven, CastOutOfRange::kWrap),
            (std::vector<uint8_t>{44, 251, 0, 255}));
  EXPECT_EQ(*Cast<int8_t>(kF64, kI8, std::vector<double>{300.0, -129.0, 1e20, 255.5, -128.5},
                          CastRounding::kNearestEven, CastOutOfRange::kWrap),
            (std::vector<int8_t>{44, 127, 0, 0, -128}));
  // 2^31 is not an int32, 2^63 not an int64, 2^64 not a uint64.
  EXPECT_FALSE((Cast<int32_t>(kF32, kI32, std::vector<float>{0x1p31f}).ok()));
  EXPECT_EQ(*Cast<int32_t>(kF32, kI32, std::vector<float>{0x1p31f}, CastRounding::kNearestEven,
                           CastOutOfRange::kWrap),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min()}));
  EXPECT_FALSE((Cast<int64_t>(kF64, kI64, std::vector<double>{0x1p63}).ok()));
  EXPECT_FALSE((Cast<uint64_t>(kF64, kU64, std::vector<double>{0x1p64}).ok()));
  EXPECT_EQ(*Cast<uint64_t>(kF64, kU64, std::vector<double>{-2.0, -1e19, 0x1p64 + 4096, -3.5},
                            CastRounding::kNearestEven, CastOutOfRange::kWrap),
            (std::vector<uint64_t>{18446744073709551614u, 8446744073709551616u, 4096,
                                   18446744073709551612u}));
  EXPECT_EQ(*Cast<int64_t>(kF64, kI64, std::vector<double>{-0x1p63 - 2048, 0x1p63, 1e19},
                           CastRounding::kNearestEven, CastOutOfRange::kWrap),
            (std::vector<int64_t>{9223372036854773760, std::numeric_limits<int64_t>::min(),
                                  -8446744073709551616}));
  // float16 values past int16: exact, not rounded to float16 bounds.
  EXPECT_FALSE((Cast<int16_t>(kF16, kI16, std::vector<uint16_t>{0x7800}).ok()));  // 32768
  EXPECT_EQ(*Cast<int8_t>(kF16, kI8, std::vector<uint16_t>{0x7bff},  // 65504
                          CastRounding::kNearestEven, CastOutOfRange::kWrap),
            (std::vector<int8_t>{-32}));
  // Integers: the same range rule; wrap keeps the low bits.
  EXPECT_FALSE((Cast<uint8_t>(kI32, kU8, std::vector<int32_t>{300}).ok()));
  EXPECT_EQ(*Cast<uint8_t>(kI32, kU8, std::vector<int32_t>{300, -1}, CastRounding::kNearestEven,
                           CastOutOfRange::kClamp),
            (std::vector<uint8_t>{255, 0}));
  EXPECT_EQ(*Cast<uint8_t>(kI32, kU8, std::vector<int32_t>{300, -1}, CastRounding::kNearestEven,
                           CastOutOfRange::kWrap),
            (std::vector<uint8_t>{44, 255}));
}

TEST(ValueCastTest, NanAndInfinityHaveNoIntegerUnlessMapped) {
  for (CastOutOfRange mode :
       {CastOutOfRange::kError, CastOutOfRange::kClamp, CastOutOfRange::kWrap}) {
    auto r = Cast<int8_t>(kF64, kI8, std::vector<double>{kNan}, CastRounding::kNearestEven, mode);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(),
              "NaN has no value in int8 (a scalar_map entry can give it one)");
    EXPECT_FALSE(
        (Cast<int8_t>(kF64, kI8, std::vector<double>{-kInf}, CastRounding::kNearestEven, mode)
             .ok()));
  }
  std::vector<CastMapEntry> map = {{Scalar(kNan), Scalar<int16_t>(-1)},
                                   {Scalar(kInf), Scalar<int16_t>(32767)},
                                   {Scalar(-kInf), Scalar<int16_t>(-32768)},
                                   {Scalar(1.0), Scalar<int16_t>(5)},
                                   {Scalar(1.0), Scalar<int16_t>(6)}};
  EXPECT_EQ(*Cast<int16_t>(kF64, kI16, std::vector<double>{-kNan, kInf, -kInf, 1.0, 2.0},
                           CastRounding::kNearestEven, CastOutOfRange::kError, map),
            (std::vector<int16_t>{-1, 32767, -32768, 5, 2}));
}

TEST(ValueCastTest, FloatsOverflowPastTheNextPowerOfTwo) {
  const double f32max = std::numeric_limits<float>::max();
  const double above = std::nextafter(f32max, kInf);
  const double below_limit = std::nextafter(0x1p128, 0.0);
  // Nearest: just above MAX rounds to it; past MAX + half an ulp overflows.
  EXPECT_EQ(*Cast<float>(kF64, kF32, std::vector<double>{above}),
            (std::vector<float>{std::numeric_limits<float>::max()}));
  auto r = Cast<float>(kF64, kF32, std::vector<double>{1e300});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "value 1e+300 is outside the range of float32 (out_of_range \"clamp\" would make "
            "it infinite)");
  EXPECT_EQ(*Cast<float>(kF64, kF32, std::vector<double>{1e300, -1e300},
                         CastRounding::kNearestEven, CastOutOfRange::kClamp),
            (std::vector<float>{INFINITY, -INFINITY}));
  // Directed modes: below 2^128 towards zero is MAX; towards +inf overflows.
  EXPECT_EQ(*Cast<float>(kF64, kF32, std::vector<double>{below_limit, -below_limit},
                         CastRounding::kTowardsZero),
            (std::vector<float>{std::numeric_limits<float>::max(),
                                std::numeric_limits<float>::lowest()}));
  EXPECT_FALSE(
      (Cast<float>(kF64, kF32, std::vector<double>{0x1p128}, CastRounding::kTowardsZero).ok()));
  EXPECT_FALSE(
      (Cast<float>(kF64, kF32, std::vector<double>{above}, CastRounding::kTowardsPositive).ok()));
  EXPECT_EQ(*Cast<float>(kF64, kF32, std::vector<double>{-below_limit},
                         CastRounding::kTowardsPositive),
            (std::vector<float>{std::numeric_limits<float>::lowest()}));
  // float16: 65519 rounds to 65504, 65520 overflows; towards zero it is 65504.
  EXPECT_EQ(*Cast<uint16_t>(kF64, kF16, std::vector<double>{65519.0}),
            (std::vector<uint16_t>{0x7bff}));
  EXPECT_FALSE((Cast<uint16_t>(kF64, kF16, std::vector<double>{65520.0}).ok()));
  EXPECT_EQ(*Cast<uint16_t>(kF64, kF16, std::vector<double>{65520.0, 65535.9},
                            CastRounding::kTowardsZero),
            (std::vector<uint16_t>{0x7bff, 0x7bff}));
  // Integers into float16: the same rule.
  EXPECT_EQ(*Cast<uint16_t>(kI32, kF16, std::vector<int32_t>{65519, 65535, -65535},
                            CastRounding::kTowardsZero),
            (std::vector<uint16_t>{0x7bff, 0x7bff, 0xfbff}));
  EXPECT_FALSE(
      (Cast<uint16_t>(kI32, kF16, std::vector<int32_t>{65505}, CastRounding::kTowardsPositive)
           .ok()));
  EXPECT_FALSE((Cast<uint16_t>(kI64, kF16, std::vector<int64_t>{100000}).ok()));
}

TEST(ValueCastTest, FloatRoundingModesPickTheNeighbour) {
  // 1 + 2^-24 is a tie between 1 and 1 + 2^-23 in float32.
  const std::vector<double> tie = {1 + 0x1p-24, 1 + 3 * 0x1p-24, -(1 + 0x1p-24)};
  EXPECT_EQ(*Cast<float>(kF64, kF32, tie), (std::vector<float>{1.0f, 1 + 0x1p-22f, -1.0f}));
  EXPECT_EQ(*Cast<float>(kF64, kF32, tie, CastRounding::kNearestAway),
            (std::vector<float>{1 + 0x1p-23f, 1 + 0x1p-22f, -(1 + 0x1p-23f)}));
  EXPECT_EQ(*Cast<float>(kF64, kF32, tie, CastRounding::kTowardsZero),
            (std::vector<float>{1.0f, 1 + 0x1p-23f, -1.0f}));
  // Integers too, compared exactly: 2^64 - 1 towards zero is below 2^64.
  EXPECT_EQ(*Cast<float>(kU64, kF32, std::vector<uint64_t>{~uint64_t{0}},
                         CastRounding::kTowardsZero),
            (std::vector<float>{std::nextafter(0x1p64f, 0.0f)}));
  EXPECT_EQ(*Cast<float>(kI64, kF32, std::vector<int64_t>{(1 << 24) + 1, (1 << 24) + 3},
                         CastRounding::kNearestAway),
            (std::vector<float>{16777218.0f, 16777220.0f}));
  // Tiny values: towards +inf gives the smallest subnormal, signs kept.
  EXPECT_EQ(*Cast<float>(kF64, kF32, std::vector<double>{1e-50}, CastRounding::kTowardsPositive),
            (std::vector<float>{std::numeric_limits<float>::denorm_min()}));
  auto zero = *Cast<float>(kF64, kF32, std::vector<double>{-1e-50}, CastRounding::kTowardsZero);
  EXPECT_EQ(std::bit_cast<uint32_t>(zero[0]), 0x80000000u);
  // float64 -> float16 rounds through float32, as the backend does.
  EXPECT_EQ(*Cast<uint16_t>(kF64, kF16, std::vector<double>{1 + 0x1p-11 + 0x1p-40}),
            (std::vector<uint16_t>{0x3c00}));
}

TEST(ValueCastTest, NansKeepSignAndTopPayloadAndComeOutQuiet) {
  // float16 -> float32 and float64.
  EXPECT_EQ(*Cast<uint32_t>(kF16, kF32, std::vector<uint16_t>{0x7e01, 0xfd01, 0x7c01}),
            (std::vector<uint32_t>{0x7fc02000, 0xffe02000, 0x7fc02000}));
  EXPECT_EQ(*Cast<uint64_t>(kF16, kF64, std::vector<uint16_t>{0x7e01, 0xfd01}),
            (std::vector<uint64_t>{0x7ff8040000000000, 0xfffc040000000000}));
  // float32 -> float16 and float64.
  EXPECT_EQ(*Cast<uint16_t>(kF32, kF16, std::vector<uint32_t>{0x7fc01234, 0xff812345, 0x7f800001}),
            (std::vector<uint16_t>{0x7e00, 0xfe09, 0x7e00}));
  EXPECT_EQ(*Cast<uint64_t>(kF32, kF64, std::vector<uint32_t>{0xff812345, 0x7f800001}),
            (std::vector<uint64_t>{0xfff82468a0000000, 0x7ff8000020000000}));
  // float64 -> float32 and float16.
  const std::vector<uint64_t> nans = {0x7ff0000000000001, 0xfff4000000000000, 0x7ff8000020000000};
  EXPECT_EQ(*Cast<uint32_t>(kF64, kF32, nans),
            (std::vector<uint32_t>{0x7fc00000, 0xffe00000, 0x7fc00001}));
  EXPECT_EQ(*Cast<uint16_t>(kF64, kF16, nans), (std::vector<uint16_t>{0x7e00, 0xff00, 0x7e00}));
  // The same type is copied bit for bit, signalling NaNs included.
  EXPECT_EQ(*Cast<uint32_t>(kF32, kF32, std::vector<uint32_t>{0x7f800001}),
            (std::vector<uint32_t>{0x7f800001}));
}

}  // namespace
}  // namespace turbozarr::internal
