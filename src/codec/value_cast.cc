#include "codec/value_cast.h"

#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "codec/numpy_cast.h"
#include "dtype/float16.h"
#include "turbozarr/number_text.h"

namespace turbozarr::internal {
namespace {

// Exact comparisons of integers up to 64 bits with floats, and of the
// midpoint of two neighbouring floats with a value, need more than a
// double's 53 bits: long double has 64 on x86-64 (113 on AArch64).
using Exact = long double;
static_assert(std::numeric_limits<Exact>::digits >= 64);

// ---- The three float formats, by their C++ type ----

template <typename F>
bool IsNan(F x) {
  if constexpr (std::is_same_v<F, Half>) {
    return (x.bits & 0x7fff) > 0x7c00;
  } else {
    return std::isnan(x);
  }
}

template <typename F>
bool IsInf(F x) {
  if constexpr (std::is_same_v<F, Half>) {
    return (x.bits & 0x7fff) == 0x7c00;
  } else {
    return std::isinf(x);
  }
}

template <typename F>
Exact ValueOf(F x) {
  if constexpr (std::is_same_v<F, Half>) {
    return HalfToDouble(x.bits);
  } else {
    return x;
  }
}

template <typename F>
F Largest(bool negative) {
  if constexpr (std::is_same_v<F, Half>) {
    return Half{static_cast<uint16_t>(negative ? 0xfbff : 0x7bff)};
  } else {
    return negative ? std::numeric_limits<F>::lowest() : std::numeric_limits<F>::max();
  }
}

template <typename F>
F Infinity(bool negative) {
  if constexpr (std::is_same_v<F, Half>) {
    return Half{static_cast<uint16_t>(negative ? 0xfc00 : 0x7c00)};
  } else {
    return negative ? -std::numeric_limits<F>::infinity() : std::numeric_limits<F>::infinity();
  }
}

// 2^(emax+1): the first power of two past the format's largest value.
template <typename F>
Exact OverflowThreshold() {
  if constexpr (std::is_same_v<F, Half>) {
    return std::ldexp(Exact{1}, 16);
  } else {
    return std::ldexp(Exact{1}, std::numeric_limits<F>::max_exponent);
  }
}

// IEEE nextUp / nextDown of a value that is not NaN.
template <typename F>
F NextUp(F x) {
  if constexpr (std::is_same_v<F, Half>) {
    if (x.bits == 0x8000) return Half{1};  // -0 -> the smallest subnormal
    if (x.bits == 0x7c00) return x;
    return Half{static_cast<uint16_t>((x.bits & 0x8000) ? x.bits - 1 : x.bits + 1)};
  } else {
    return std::nextafter(x, std::numeric_limits<F>::infinity());
  }
}

template <typename F>
F NextDown(F x) {
  if constexpr (std::is_same_v<F, Half>) {
    const Half up = NextUp(Half{static_cast<uint16_t>(x.bits ^ 0x8000)});
    return Half{static_cast<uint16_t>(up.bits ^ 0x8000)};
  } else {
    return std::nextafter(x, -std::numeric_limits<F>::infinity());
  }
}

// float16 <-> float32 as x86 converts them: NaNs come out quiet with their
// sign and the top payload bits; everything else is exact or rounded to
// nearest, ties to even.
float HalfToFloat(Half h) {
  if (IsNan(h)) {
    const uint32_t bits = (static_cast<uint32_t>(h.bits & 0x8000) << 16) | 0x7fc00000u |
                          (static_cast<uint32_t>(h.bits & 0x3ff) << 13);
    return std::bit_cast<float>(bits);
  }
  return static_cast<float>(HalfToDouble(h.bits));
}

Half FloatToHalf(float f) {
  if (std::isnan(f)) {
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    return Half{static_cast<uint16_t>(((bits >> 16) & 0x8000) | 0x7e00 |
                                      ((bits & 0x7fffff) >> 13))};
  }
  return Half{DoubleToHalf(f)};
}

// Significand bits of a float format (float16's is not numeric_limits').
template <typename F>
constexpr int kDigits = std::is_same_v<F, Half> ? 11 : std::numeric_limits<F>::digits;

// Whether every value of S is exactly a value of the float D: a narrow
// integer, or a float of fewer bits. Such a cast never rounds nor overflows.
template <typename S, typename D>
constexpr bool kWidens = kIsFloat<S> ? kDigits<S> < kDigits<D>
                                     : std::numeric_limits<S>::digits <= kDigits<D>;

// The target float nearest to a float or integer source value (ties to
// even), as the backend converts: float64 -> float16 and integer -> float16
// go through float32.
template <typename D, typename S>
D Nearest(S x) {
  if constexpr (std::is_same_v<S, Half>) {
    const float f = HalfToFloat(x);
    return static_cast<D>(f);  // D is float or double
  } else if constexpr (std::is_same_v<D, Half>) {
    return FloatToHalf(static_cast<float>(x));
  } else {
    return static_cast<D>(x);
  }
}

// The target float for the finite value `x`, whose nearest float is `r`,
// under `mode`, rounding as if the exponent had no bound. False when that
// result lies at or beyond 2^(emax+1) (overflow).
template <typename F>
bool RoundToFloat(Exact x, F r, CastRounding mode, F& out) {
  const Exact ax = std::fabs(x);
  if (ax >= OverflowThreshold<F>()) return false;
  const bool negative = std::signbit(x);
  if (IsInf(r)) {  // between the largest float and 2^(emax+1), nearer the latter
    switch (mode) {
      case CastRounding::kTowardsZero:
        out = Largest<F>(negative);
        return true;
      case CastRounding::kTowardsPositive:
        if (!negative) return false;
        out = Largest<F>(true);
        return true;
      case CastRounding::kTowardsNegative:
        if (negative) return false;
        out = Largest<F>(false);
        return true;
      default:
        return false;
    }
  }
  const Exact rv = ValueOf(r);
  if (mode != CastRounding::kNearestEven && rv != x) {
    switch (mode) {
      case CastRounding::kTowardsZero:
        if (std::fabs(rv) > ax) r = negative ? NextUp(r) : NextDown(r);
        break;
      case CastRounding::kTowardsPositive:
        if (rv < x) r = NextUp(r);
        break;
      case CastRounding::kTowardsNegative:
        if (rv > x) r = NextDown(r);
        break;
      case CastRounding::kNearestAway: {
        // A tie that nearest-even settled towards zero goes the other way.
        const F other = x > rv ? NextUp(r) : NextDown(r);
        if (!IsInf(other) && (ValueOf(other) + rv) / 2 == x &&
            std::fabs(ValueOf(other)) > std::fabs(rv)) {
          r = other;
        }
        break;
      }
      case CastRounding::kNearestEven:
        break;
    }
    if (IsInf(r)) return false;
  }
  out = r;
  return true;
}

// `v` (finite) rounded to an integer by `mode`, without libm's
// nearbyint/trunc/ceil/floor/round (calls on x86-64's baseline) and without
// branches on the data (random fractions mispredict half the time): one
// truncating conversion and the fraction it leaves, exact below 2^52.
double RoundToInteger(double v, CastRounding mode) {
  const double a = std::fabs(v);
  if (!(a < 0x1p52)) return v;  // already an integer
  if (mode == CastRounding::kNearestEven) {
    // Adding and taking away 2^52 rounds to an integer in the FPU's own
    // mode: to nearest, ties to even.
    return std::copysign((a + 0x1p52) - 0x1p52, v);
  }
  const double t = static_cast<double>(static_cast<int64_t>(v));  // towards zero
  const double f = v - t;  // the fraction, exactly, with v's sign
  switch (mode) {
    case CastRounding::kTowardsPositive:
      return t + static_cast<double>(f > 0);
    case CastRounding::kTowardsNegative:
      return t - static_cast<double>(f < 0);
    case CastRounding::kNearestAway:
      return t + static_cast<double>(f >= 0.5) - static_cast<double>(f <= -0.5);
    default:
      return t;
  }
}

// The integral value `v` modulo 2^bits of D, as D (two's complement).
template <typename D>
D WrapInteger(double v) {
  const double m = std::fmod(v, 0x1p64);  // exact
  const uint64_t low = m >= 0 ? static_cast<uint64_t>(m) : 0 - static_cast<uint64_t>(-m);
  return static_cast<D>(static_cast<std::make_unsigned_t<D>>(low));
}

template <typename T>
std::string ValueText(T x) {
  if constexpr (kIsFloat<T>) {
    if (IsNan(x)) return "NaN";
  }
  if constexpr (std::is_same_v<T, Half>) {
    return FormatHalf(x.bits, NumberText::kBare);
  } else if constexpr (std::is_floating_point_v<T>) {
    return FormatShortest(x, NumberText::kBare);
  } else {
    return std::to_string(x);
  }
}

template <typename D>
std::string RangeText() {
  return "[" + std::to_string(std::numeric_limits<D>::min()) + ", " +
         std::to_string(std::numeric_limits<D>::max()) + "]";
}

// Converts elements of S to D by the rules in the header.
template <typename S, typename D>
class Converter {
 public:
  explicit Converter(const ValueCast& cast) : cast_(cast) {}

  Status Run(const std::byte* src, std::byte* dst, int64_t n) const {
    const bool has_map = !cast_.map.empty();
    for (int64_t i = 0; i < n; ++i) {
      const S x = LoadElement<S>(src + i * sizeof(S));
      D y{};
      if (!(has_map && Mapped(x, y))) {
        TZ_RETURN_NOT_OK(Convert(x, y));
      }
      StoreElement(dst + i * sizeof(D), y);
    }
    return Status::OK();
  }

 private:
  bool Mapped(S x, D& y) const {
    for (const CastMapEntry& e : cast_.map) {
      const S key = LoadElement<S>(e.from.data());
      bool match;
      if constexpr (kIsFloat<S>) {
        match = IsNan(key) ? IsNan(x) : ValueOf(x) == ValueOf(key);
      } else {
        match = x == key;
      }
      if (match) {
        y = LoadElement<D>(e.to.data());
        return true;
      }
    }
    return false;
  }

  Status Convert(S x, D& y) const {
    if constexpr (std::is_same_v<S, D>) {
      y = x;  // bit for bit, NaN payloads included
      return Status::OK();
    } else if constexpr (!kIsFloat<S> && !kIsFloat<D>) {
      if (std::in_range<D>(x)) {
        y = static_cast<D>(x);
        return Status::OK();
      }
      return OutOfIntegerRange(x, std::cmp_less(x, 0), y, [&] { return static_cast<D>(x); });
    } else if constexpr (kIsFloat<S> && !kIsFloat<D>) {
      if (IsNan(x) || IsInf(x)) {
        return Status::InvalidArgument(ValueText(x) + " has no value in " +
                                       cast_.to.ToString() +
                                       " (a scalar_map entry can give it one)");
      }
      const double v = RoundToInteger(static_cast<double>(ValueOf(x)), cast_.rounding);
      // Every bound is exact as a double; the largest values are checked as
      // "below 2^bits" (D's maximum + 1 is 2^bits, exact too).
      constexpr double kLow = static_cast<double>(std::numeric_limits<D>::min());
      constexpr double kPastHigh = static_cast<double>(std::numeric_limits<D>::max()) + 1.0;
      if (v >= kLow && v < kPastHigh) {
        y = static_cast<D>(v);
        return Status::OK();
      }
      return OutOfIntegerRange(x, v < 0, y, [&] { return WrapInteger<D>(v); });
    } else {  // to a float
      if constexpr (kIsFloat<S>) {
        if (IsNan(x) || IsInf(x)) {
          y = Nearest<D>(x);
          return Status::OK();
        }
      }
      const D nearest = Nearest<D>(x);
      if constexpr (kWidens<S, D>) {
        y = nearest;  // exact: every value of S is one of D
        return Status::OK();
      }
      if (cast_.rounding == CastRounding::kNearestEven && !IsInf(nearest)) {
        y = nearest;  // the default, and no overflow: no exact arithmetic needed
        return Status::OK();
      }
      if (RoundToFloat(static_cast<Exact>(ValueOf(x)), nearest, cast_.rounding, y)) {
        return Status::OK();
      }
      if (cast_.out_of_range == CastOutOfRange::kClamp) {
        y = Infinity<D>(ValueOf(x) < 0);
        return Status::OK();
      }
      return Status::InvalidArgument(
          "value " + ValueText(x) + " is outside the range of " + cast_.to.ToString() +
          " (out_of_range \"clamp\" would make it infinite)");
    }
  }

  template <typename Wrap>
  Status OutOfIntegerRange(S x, bool below, D& y, Wrap wrap) const {
    switch (cast_.out_of_range) {
      case CastOutOfRange::kClamp:
        y = below ? std::numeric_limits<D>::min() : std::numeric_limits<D>::max();
        return Status::OK();
      case CastOutOfRange::kWrap:
        y = wrap();
        return Status::OK();
      case CastOutOfRange::kError:
        break;
    }
    return Status::InvalidArgument("value " + ValueText(x) + " is outside the range of " +
                                   cast_.to.ToString() + " " + RangeText<D>() +
                                   " (out_of_range \"clamp\" or \"wrap\" would map it)");
  }

  const ValueCast& cast_;
};

}  // namespace

bool IsValueCastType(DataTypeId id) {
  return id != DataTypeId::kBool && IsNumericType(id);
}

Status CastValues(const ValueCast& cast, const std::byte* src, std::byte* dst, int64_t n) {
  Status status;
  VisitNumericType(cast.from.id(), [&]<typename S>() {
    VisitNumericType(cast.to.id(), [&]<typename D>() {
      status = Converter<S, D>(cast).Run(src, dst, n);
    });
  });
  return status;
}

}  // namespace turbozarr::internal
