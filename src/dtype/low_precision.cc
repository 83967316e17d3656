#include "dtype/low_precision.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

namespace turbozarr::internal {
namespace {

using Special = MiniFloatFormat::Special;

constexpr MiniFloatFormat kBFloat16{16, 8, 7, 127, Special::kIeee, 0x7fc0};
constexpr MiniFloatFormat kE4M3FN{8, 4, 3, 7, Special::kFn, 0x7f};
constexpr MiniFloatFormat kE5M2{8, 5, 2, 15, Special::kIeee, 0x7e};
constexpr MiniFloatFormat kE4M3FNUZ{8, 4, 3, 8, Special::kFnuz, 0x80};
constexpr MiniFloatFormat kE5M2FNUZ{8, 5, 2, 16, Special::kFnuz, 0x80};
constexpr MiniFloatFormat kE4M3B11FNUZ{8, 4, 3, 11, Special::kFnuz, 0x80};
constexpr MiniFloatFormat kE3M4{8, 3, 4, 3, Special::kIeee, 0x78};
constexpr MiniFloatFormat kE4M3{8, 4, 3, 7, Special::kIeee, 0x7c};
constexpr MiniFloatFormat kE8M0FNU{8, 8, 0, 127, Special::kE8M0, 0xff};
constexpr MiniFloatFormat kE2M1FN{4, 2, 1, 1, Special::kNone, 0};
constexpr MiniFloatFormat kE2M3FN{6, 2, 3, 1, Special::kNone, 0};
constexpr MiniFloatFormat kE3M2FN{6, 3, 2, 3, Special::kNone, 0};

uint32_t SignBit(const MiniFloatFormat& f) { return f.has_sign() ? 1u << (f.bits - 1) : 0; }
uint32_t ValueMask(const MiniFloatFormat& f) { return (1u << f.bits) - 1; }

// The largest finite magnitude's bits (sign bit clear).
uint32_t MaxFinite(const MiniFloatFormat& f) {
  const uint32_t all = SignBit(f) - 1;  // every bit below the sign
  switch (f.special) {
    case Special::kIeee:
      return (((1u << f.exp_bits) - 1) << f.mant_bits) - 1;
    case Special::kFn:
      return all - 1;
    default:  // kFnuz, kNone
      return all;
  }
}

uint32_t DoubleToE8M0(double value) {
  if (std::isnan(value) || std::isinf(value) || !(value > 0)) return 0xff;
  int k = 0;
  std::frexp(value, &k);
  int e = std::max(k - 1, -127);
  // n is 0, 1 or 2: the value in units of 2^e, rounded half to even.
  const double n = std::nearbyint(std::ldexp(value, -e));
  if (n == 0) return 0;  // below the smallest value: ml_dtypes gives 2^-127
  const int biased = e + 127 + (n >= 2 ? 1 : 0);
  return biased > 254 ? 0xff : static_cast<uint32_t>(biased);
}

}  // namespace

const MiniFloatFormat* MiniFloatFormatOf(DataTypeId id) {
  switch (id) {
    case DataTypeId::kBFloat16: return &kBFloat16;
    case DataTypeId::kFloat8E4M3FN: return &kE4M3FN;
    case DataTypeId::kFloat8E5M2: return &kE5M2;
    case DataTypeId::kFloat8E4M3FNUZ: return &kE4M3FNUZ;
    case DataTypeId::kFloat8E5M2FNUZ: return &kE5M2FNUZ;
    case DataTypeId::kFloat8E4M3B11FNUZ: return &kE4M3B11FNUZ;
    case DataTypeId::kFloat8E3M4: return &kE3M4;
    case DataTypeId::kFloat8E4M3: return &kE4M3;
    case DataTypeId::kFloat8E8M0FNU: return &kE8M0FNU;
    case DataTypeId::kFloat4E2M1FN: return &kE2M1FN;
    case DataTypeId::kFloat6E2M3FN: return &kE2M3FN;
    case DataTypeId::kFloat6E3M2FN: return &kE3M2FN;
    default: return nullptr;
  }
}

bool MiniFloatIsNaN(const MiniFloatFormat& f, uint32_t bits) {
  bits &= ValueMask(f);
  const uint32_t mag = bits & ~SignBit(f);
  switch (f.special) {
    case Special::kIeee:
      return (mag >> f.mant_bits) == (1u << f.exp_bits) - 1 &&
             (mag & ((1u << f.mant_bits) - 1)) != 0;
    case Special::kFn:
      return mag == SignBit(f) - 1;
    case Special::kFnuz:
      return bits == SignBit(f);
    case Special::kE8M0:
      return bits == 0xff;
    case Special::kNone:
      return false;
  }
  return false;
}

double MiniFloatToDouble(const MiniFloatFormat& f, uint32_t bits) {
  bits &= ValueMask(f);
  const bool negative = (bits & SignBit(f)) != 0;
  if (MiniFloatIsNaN(f, bits)) {
    return negative ? -std::numeric_limits<double>::quiet_NaN()
                    : std::numeric_limits<double>::quiet_NaN();
  }
  if (f.special == Special::kE8M0) return std::ldexp(1.0, static_cast<int>(bits) - 127);
  const uint32_t mag = bits & ~SignBit(f);
  const uint32_t e = mag >> f.mant_bits;
  const uint32_t m = mag & ((1u << f.mant_bits) - 1);
  double v;
  if (f.special == Special::kIeee && e == (1u << f.exp_bits) - 1) {
    v = std::numeric_limits<double>::infinity();
  } else if (e == 0) {
    v = std::ldexp(static_cast<double>(m), 1 - f.bias - f.mant_bits);
  } else {
    v = std::ldexp(static_cast<double>(m + (1u << f.mant_bits)),
                   static_cast<int>(e) - f.bias - f.mant_bits);
  }
  return negative ? -v : v;
}

uint32_t DoubleToMiniFloat(const MiniFloatFormat& f, double value) {
  if (f.special == Special::kE8M0) return DoubleToE8M0(value);
  const uint32_t sign = std::signbit(value) ? SignBit(f) : 0;
  const uint32_t max = MaxFinite(f);
  // What a value beyond the largest finite one becomes.
  auto overflow = [&]() -> uint32_t {
    switch (f.special) {
      case Special::kIeee:
        return sign | (((1u << f.exp_bits) - 1) << f.mant_bits);
      case Special::kFn:
        return sign | f.canonical_nan;
      case Special::kFnuz:
        return f.canonical_nan;
      default:
        return sign | max;  // saturates
    }
  };
  if (std::isnan(value)) {
    switch (f.special) {
      case Special::kIeee:
      case Special::kFn:
        return sign | f.canonical_nan;
      case Special::kFnuz:
        return f.canonical_nan;
      default:
        // No NaN: ml_dtypes gives the zero of the other sign.
        return sign ^ SignBit(f);
    }
  }
  const double a = std::fabs(value);
  if (std::isinf(a)) return overflow();
  if (a == 0) return f.special == Special::kFnuz ? 0 : sign;
  int k = 0;
  std::frexp(a, &k);
  const int min_exp = 1 - f.bias;  // the exponent of the smallest normal
  const int e = std::max(k - 1, min_exp);
  // The value in units of the format's spacing at exponent e: exact in
  // double (a power-of-two scaling), then rounded half to even.
  const double n = std::nearbyint(std::ldexp(a, f.mant_bits - e));
  // Counting from the smallest subnormal, the bits run on through the normal
  // numbers; a carry out of the mantissa bumps the exponent by itself.
  const double mag = std::ldexp(static_cast<double>(e - min_exp), f.mant_bits) + n;
  if (mag > max) return overflow();
  const auto bits = static_cast<uint32_t>(mag);
  if (bits == 0 && f.special == Special::kFnuz) return 0;
  return sign | bits;
}

}  // namespace turbozarr::internal

namespace turbozarr {

double LowPrecisionValue(const DataType& dtype, const void* element) {
  uint16_t raw = 0;
  std::memcpy(&raw, element, dtype.size());  // little-endian: the low byte first
  if (dtype.is_narrow_integer()) {
    const int bits = static_cast<int>(dtype.value_bits());
    const int low = raw & ((1 << bits) - 1);
    const bool is_signed = dtype.id() == DataTypeId::kInt2 || dtype.id() == DataTypeId::kInt4;
    return is_signed && (low >> (bits - 1)) ? low - (1 << bits) : low;
  }
  const internal::MiniFloatFormat* format = internal::MiniFloatFormatOf(dtype.id());
  assert(format != nullptr);
  return internal::MiniFloatToDouble(*format, raw);
}

void LowPrecisionFromDouble(const DataType& dtype, double value, void* element) {
  const internal::MiniFloatFormat* format = internal::MiniFloatFormatOf(dtype.id());
  assert(format != nullptr);
  const auto bits = static_cast<uint16_t>(internal::DoubleToMiniFloat(*format, value));
  std::memcpy(element, &bits, dtype.size());
}

}  // namespace turbozarr
